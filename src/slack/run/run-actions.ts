// Buttons that open the run form (a runbook's Run, App Home's Run a runbook, "Try again" after a failed
// run) and the run form's runbook picker.
import type { App, BlockAction } from '@slack/bolt';
import { errorModal } from '../kit/common.ts';
import type { SlackDeps } from '../kit/deps.ts';
import { describeFailure } from '../kit/describe-failure.ts';
import { ACTIONS, VIEWS } from '../kit/ids.ts';
import { interactionContext } from '../kit/interaction-context.ts';
import { type ActionHandler, buttonValue, onAction } from '../kit/on-action.ts';
import { reportFailure } from '../kit/report-failure.ts';
import { decodeRunMetadata } from '../kit/run-modal.ts';
import { openRunModal, runModalView } from '../kit/run-start.ts';

export function registerRunActions(app: App, deps: SlackDeps): void {
  const on = (actionId: string | RegExp, what: string, handler: ActionHandler) =>
    onAction(app, deps, actionId, what, handler);

  on(ACTIONS.runbookRun, 'Opening the run form', (ctx, body) => openRunModal(ctx, { runbookId: buttonValue(body) }));

  on(ACTIONS.retryRun, 'Reopening the run form', async (ctx, body) => {
    const draft = await deps.drafts.take(buttonValue(body));
    if (!draft) {
      await ctx.respond({
        text: 'That form has expired.',
        blocks: [
          {
            type: 'section',
            text: { type: 'mrkdwn', text: ':hourglass: That form has expired. Start again with `/runbook run`.' },
          },
        ],
      });
      return;
    }
    await openRunModal(ctx, {
      runbookId: draft.runbookId,
      prefill: draft.params,
      proxyId: draft.proxyId,
      channel: draft.channel,
      // What the failed run used: kept over the channel's defaults.
      destination: draft.channel,
    });
  });

  app.action<BlockAction>({ action_id: ACTIONS.homeRun }, async ({ ack, body, client }) => {
    await ack();
    const ctx = interactionContext(deps, client, body, undefined);
    await openRunModal(ctx, {}).catch((err) => reportFailure(ctx, err, 'Opening the run form'));
  });

  // The run modal's typeahead picker dispatches on select: swap the form for the chosen runbook.
  app.action<BlockAction>({ action_id: ACTIONS.runbookPicker }, async ({ ack, body, client }) => {
    if (body.view?.callback_id !== VIEWS.run) return; // the schedule modal has its own listener
    await ack();
    const view = body.view;
    const selected = (body.actions[0] as { selected_option?: { value?: string } }).selected_option?.value ?? null;
    const meta = decodeRunMetadata(view.private_metadata);
    try {
      const origin = { threadTs: meta.t ?? null, sourceLink: meta.s ?? null };
      const next = await runModalView(
        deps,
        { runbookId: selected, channel: meta.c, withPicker: true, ...origin },
        meta.c,
        'run',
        {
          userId: body.user.id,
          client,
        },
      );
      await client.views.update({ view_id: view.id, hash: view.hash, view: next });
    } catch (err) {
      deps.logger.warn({ err }, 'could not load the picked runbook');
      await client.views
        .update({ view_id: view.id, view: errorModal('Run a runbook', describeFailure(err)) })
        .catch(() => {});
    }
  });
}
