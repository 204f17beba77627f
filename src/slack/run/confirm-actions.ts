// Run / Edit / Cancel under a `--now` confirmation. Run goes through runWithoutApproval (the one
// gate, approval refused); a confirmation runs at most once, even clicked twice or on two replicas.
import type { App } from '@slack/bolt';
import { parseInputSchema } from '../../forms/input-schema.ts';
import { describeFieldErrors, validateObject } from '../../forms/typed-values.ts';
import { loadRunbook } from '../../runs/run.ts';
import { runWithoutApproval } from '../../runs/run-direct.ts';
import { actorFor } from '../kit/actor.ts';
import { errorMessage, noticeMessage } from '../kit/common.ts';
import type { SlackDeps } from '../kit/deps.ts';
import { notStartedSentence } from '../kit/describe-failure.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import { ACTIONS } from '../kit/ids.ts';
import { buttonValue, onAction } from '../kit/on-action.ts';
import { openRunModal, postRunningCard, runStartedNotice } from '../kit/run-start.ts';

function readValue(value: string): { draftId: string; threadTs: string | null } | null {
  try {
    const v = JSON.parse(value) as { d?: unknown; t?: unknown };
    return typeof v.d === 'string' ? { draftId: v.d, threadTs: typeof v.t === 'string' ? v.t : null } : null;
  } catch {
    return null;
  }
}

const expired = (ctx: HandlerContext) =>
  ctx.respond({ ...errorMessage('That confirmation has expired; type the command again.'), replaceOriginal: true });

export function registerConfirmActions(app: App, deps: SlackDeps): void {
  onAction(app, deps, ACTIONS.confirmRun, 'Running it', async (ctx, body) => {
    const value = readValue(buttonValue(body));
    const draft = value ? await deps.drafts.take(value.draftId) : null;
    if (!value || !draft?.proxyId) return expired(ctx);
    if (!(await deps.access.store.notifications.claim(`confirm-run:${value.draftId}`, deps.now()))) return;
    const runbook = await loadRunbook(deps, draft.runbookId);
    const checked = validateObject(parseInputSchema(runbook.inputSchema), draft.params);
    if (!checked.ok) {
      await ctx.respond({
        ...errorMessage(`Nothing ran: ${describeFieldErrors(checked.errors)}.`),
        replaceOriginal: true,
      });
      return;
    }
    const actor = await actorFor(
      deps,
      ctx.client,
      {
        userId: ctx.userId,
        teamId: ctx.teamId,
        channelId: ctx.channelId,
        destinationChannel: draft.channel ?? ctx.channelId,
      },
      { email: true },
    );
    const request = { runbook, proxyId: draft.proxyId, params: checked.params, origin: { threadTs: value.threadTs } };
    const result = await runWithoutApproval(deps, actor, request, 'run.start', 'with --now');
    if (result.kind === 'started') {
      const posted = await postRunningCard(deps, ctx.client, result.run);
      await ctx.respond({ ...(await runStartedNotice(ctx.client, result.run, posted)), replaceOriginal: true });
      return;
    }
    await ctx.respond({ ...errorMessage(notStartedSentence(runbook.name, result)), replaceOriginal: true });
  });

  onAction(app, deps, ACTIONS.confirmEdit, 'Opening the run form', async (ctx, body) => {
    const value = readValue(buttonValue(body));
    const draft = value ? await deps.drafts.take(value.draftId) : null;
    if (!value || !draft) return expired(ctx);
    await openRunModal(ctx, {
      runbookId: draft.runbookId,
      prefill: draft.params,
      proxyId: draft.proxyId,
      destination: draft.channel,
      threadTs: value.threadTs,
    });
  });

  onAction(app, deps, ACTIONS.confirmCancel, 'Cancelling', async (ctx) => {
    await ctx.respond({ ...noticeMessage('Cancelled; nothing ran.', 'Cancelled'), replaceOriginal: true });
  });
}
