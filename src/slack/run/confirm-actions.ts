// Run / Edit / Cancel under a `--now` confirmation. Run goes through runWithoutApproval (the one
// gate, approval refused). The three share one claim (src/runs/once.ts): one of them, once, even clicked
// twice or on two replicas; the used confirmation is replaced by what was done.
import { parseInputSchema } from '../../forms/input-schema.ts';
import { describeFieldErrors } from '../../forms/typed-values.ts';
import { loadRunbook } from '../../runs/run.ts';
import { runWithoutApproval } from '../../runs/run-direct.ts';
import { runParams } from '../../runs/run-params.ts';
import { actorFor } from '../kit/actor.ts';
import { claimOrSayDone } from '../kit/click-once.ts';
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

/** One of Run / Edit / Cancel, once; the claim earlier releases took for Run counts too. */
function claimConfirmation(ctx: HandlerContext, draftId: string) {
  return claimOrSayDone(ctx, {
    action: 'confirmation',
    target: draftId,
    where: '',
    legacy: [`confirm-run:${draftId}`],
  });
}

const expired = (ctx: HandlerContext) =>
  ctx.respond({ ...errorMessage('That confirmation has expired; type the command again.'), replaceOriginal: true });

export async function confirmRunClicked({ body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  const { deps } = ctx;
  const value = readValue(buttonValue(body));
  if (!value) return expired(ctx);
  if (!(await claimConfirmation(ctx, value.draftId))) return;
  const draft = await deps.drafts.take(value.draftId);
  if (!draft?.proxyId) return expired(ctx);
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
  const result = await runWithoutApproval(deps, actor, request, 'with --now');
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
  if (!value) return expired(ctx);
  const claim = await claimConfirmation(ctx, value.draftId);
  if (!claim) return;
  const draft = await deps.drafts.take(value.draftId);
  if (!draft) return expired(ctx);
  const opened = openRunModal(ctx, {
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
  // The form did not open: the confirmation stays usable.
  await opened.catch(async (err: unknown) => {
    await claim.release();
    throw err;
  });
  await ctx.respond({
    ...noticeMessage('Opened in a form to edit; nothing ran. Submit the form to run it.', 'Opened in a form'),
    replaceOriginal: true,
  });
}

export async function confirmCancelClicked({ body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  const value = readValue(buttonValue(body));
  if (value && !(await claimConfirmation(ctx, value.draftId))) return;
  await ctx.respond({ ...noticeMessage('Cancelled; nothing ran.', 'Cancelled'), replaceOriginal: true });
}
