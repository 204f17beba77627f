// Run / Edit / Cancel under a `--now` confirmation. Run goes through runWithoutApproval (the one
// gate, approval refused); a confirmation runs at most once, even clicked twice or on two replicas.
import { parseInputSchema } from '../../forms/input-schema.ts';
import { describeFieldErrors } from '../../forms/typed-values.ts';
import { ALREADY_DONE } from '../../runs/once.ts';
import { loadRunbook } from '../../runs/run.ts';
import { runWithoutApproval } from '../../runs/run-direct.ts';
import { runParams } from '../../runs/run-params.ts';
import { actorFor } from '../kit/actor.ts';
import { errorMessage, noticeMessage } from '../kit/common.ts';
import { notStartedSentence } from '../kit/describe-failure.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import type { ActionArgs } from '../kit/listen.ts';
import { buttonValue } from '../kit/on-action.ts';
import { openRunModal, postRunningCard, runStartedNotice, savedByNow } from '../kit/run-start.ts';

function readValue(
  value: string,
): { draftId: string; threadTs: string | null; savedIn: string | null | undefined; via: 'one-line' | 'alias' } | null {
  try {
    const v = JSON.parse(value) as { d?: unknown; t?: unknown; s?: unknown; v?: unknown };
    if (typeof v.d !== 'string') return null;
    // savedIn: undefined = chosen by the person; '' = the channel defaults; else an alias name.
    const savedIn = typeof v.s === 'string' ? v.s : undefined;
    // A confirmation posted before `v` existed was a one-line run's or an alias's; it is named one-line.
    const via = v.v === 'alias' ? 'alias' : 'one-line';
    return { draftId: v.d, threadTs: typeof v.t === 'string' ? v.t : null, savedIn, via };
  } catch {
    return null;
  }
}

const expired = (ctx: HandlerContext) =>
  ctx.respond({ ...errorMessage('That confirmation has expired; type the command again.'), replaceOriginal: true });

export async function confirmRunClicked({ body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  const { deps } = ctx;
  const value = readValue(buttonValue(body));
  const draft = value ? await deps.drafts.take(value.draftId) : null;
  if (!value || !draft?.proxyId) return expired(ctx);
  if (!(await deps.access.store.notifications.claim(`confirm-run:${value.draftId}`, deps.now()))) {
    await ctx.respond(noticeMessage(ALREADY_DONE, 'Already done'));
    return;
  }
  const runbook = await loadRunbook(deps, draft.runbookId);
  const checked = runParams(parseInputSchema(runbook.inputSchema), draft.params);
  if (!checked.ok) {
    await ctx.respond({
      ...errorMessage(`Nothing ran: ${describeFieldErrors(checked.errors)}.`),
      replaceOriginal: true,
    });
    return;
  }
  const destination = draft.channel ?? ctx.channelId;
  const savedBy =
    value.savedIn === undefined
      ? null
      : await savedByNow(deps, ctx.channelId, destination, value.savedIn === '' ? null : value.savedIn);
  const actor = await actorFor(
    deps,
    ctx.client,
    { userId: ctx.userId, teamId: ctx.teamId, channelId: ctx.channelId, destinationChannel: destination, savedBy },
    { email: true },
  );
  const request = {
    runbook,
    proxyId: draft.proxyId,
    params: checked.params,
    origin: { threadTs: value.threadTs },
    via: value.via,
  };
  const result = await runWithoutApproval(deps, actor, request, 'run.start', 'with --now');
  if (result.kind === 'started') {
    const posted = await postRunningCard(deps, ctx.client, result.run);
    await ctx.respond({ ...(await runStartedNotice(ctx.client, result.run, posted)), replaceOriginal: true });
    return;
  }
  await ctx.respond({ ...errorMessage(notStartedSentence(runbook.name, result)), replaceOriginal: true });
}

export async function confirmEditClicked({ body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  const { deps } = ctx;
  const value = readValue(buttonValue(body));
  const draft = value ? await deps.drafts.take(value.draftId) : null;
  if (!value || !draft) return expired(ctx);
  await openRunModal(ctx, {
    runbookId: draft.runbookId,
    prefill: draft.params,
    proxyId: draft.proxyId,
    destination: draft.channel,
    destinationSavedBy:
      value.savedIn === undefined
        ? null
        : await savedByNow(deps, ctx.channelId, draft.channel, value.savedIn === '' ? null : value.savedIn),
    threadTs: value.threadTs,
  });
}

export async function confirmCancelClicked(_args: ActionArgs, ctx: HandlerContext): Promise<void> {
  await ctx.respond({ ...noticeMessage('Cancelled; nothing ran.', 'Cancelled'), replaceOriginal: true });
}
