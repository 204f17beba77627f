// The buttons of the subscriptions list (Unsubscribe) and of the `subscribe <name>` pick list. The
// channel always comes from where the button was clicked, never from the button's value, so a
// crafted payload cannot change another channel's subscriptions.
import { claimOrSayDone, messageOf } from '../kit/click-once.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import type { ActionArgs } from '../kit/listen.ts';
import { buttonValue } from '../kit/on-action.ts';
import { decodeSubscriptionPick } from './subscription-list.ts';
import { removeSubscriptionHere, subscribeHere } from './subscriptions.ts';

// Each button works once (src/runs/once.ts): a repeat is told it was already done; a refusal changed
// nothing, so its claim is given back.
export async function unsubscribeClicked({ body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  const runbookId = buttonValue(body);
  if (!runbookId) return;
  const target = `${ctx.channelId ?? ''}:${runbookId}`;
  const claim = await claimOrSayDone(ctx, { action: 'unsubscribe', target, where: messageOf(body) });
  if (claim && !(await removeSubscriptionHere(ctx, runbookId, true))) await claim.release();
}

export async function subscriptionPickClicked({ body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  const pick = decodeSubscriptionPick(buttonValue(body));
  if (!pick) return;
  const target = `${ctx.channelId ?? ''}:${pick.id}:${pick.f ? 'failures' : 'all'}`;
  const claim = await claimOrSayDone(ctx, { action: 'subscribe', target, where: messageOf(body) });
  if (claim && !(await subscribeHere(ctx, { runbookId: pick.id, failuresOnly: pick.f }, true))) await claim.release();
}
