// An acting button's click, claimed once (the rule is src/runs/once.ts): the first goes on, a repeat (a
// second click, a replayed payload, the same click on another replica) is answered privately that it
// was already done, by whom and when where the claim knows (`alreadyDoneMessage`, ./common.ts).
import { createHash } from 'node:crypto';
import type { BlockAction } from '@slack/bolt';
import { type Click, type ClickClaim, claimClick } from '../../runs/once.ts';
import { alreadyDoneMessage } from './common.ts';
import type { HandlerContext } from './handler-context.ts';

/** Claims the click for `ctx.userId`; null (and the person told) when it was already done. */
export async function claimOrSayDone(
  ctx: HandlerContext,
  click: Omit<Click, 'who'>,
): Promise<Extract<ClickClaim, { kind: 'first' }> | null> {
  const claim = await claimClick(ctx.deps, { ...click, who: ctx.userId });
  if (claim.kind === 'first') return claim;
  await ctx.respond(alreadyDoneMessage(claim, ctx.userId));
  return null;
}

/** The posted message a click came from (the confirmation, the list): its ts, '' when Slack sent none. */
export function messageOf(body: { container?: { message_ts?: string }; message?: { ts?: string } }): string {
  return body.container?.message_ts ?? body.message?.ts ?? '';
}

/**
 * The drawing a click came from: a view (App Home, a modal) by its id and hash, which change when it is
 * published again; else the message; else the click itself (its action_ts, which a replay keeps).
 */
export function drawingOf(body: BlockAction): string {
  if (body.view?.id) return `${body.view.id}:${body.view.hash}`;
  return messageOf(body) || ((body.actions[0] as { action_ts?: string } | undefined)?.action_ts ?? '');
}

/** One submission of a form: the view, its version, and what was entered (a replay carries all three unchanged). */
export function submissionOf(view: { id: string; hash: string; state: { values: unknown } }): string {
  const entered = createHash('sha256').update(JSON.stringify(view.state.values)).digest('base64url');
  return `${view.id}:${view.hash}:${entered.slice(0, 22)}`;
}
