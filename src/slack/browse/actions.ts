// Buttons and selects in our messages and modals: the runbook browser, pick lists, Run/Schedule/
// Details on a runbook, "Try again" after a failed run, and the run modal's runbook picker.
import type { App, BlockAction, StaticSelectAction } from '@slack/bolt';
import { showExecutions } from '../executions/executions.ts';
import { visibleTo } from '../kit/access.ts';
import { errorModal } from '../kit/common.ts';
import type { SlackDeps } from '../kit/deps.ts';
import { describeFailure } from '../kit/describe-failure.ts';
import { ACTIONS, VIEWS } from '../kit/ids.ts';
import { type ActionHandler, buttonValue, onAction } from '../kit/on-action.ts';
import { decodeRunMetadata } from '../kit/run-modal.ts';
import { openRunModal, runModalView } from '../kit/run-start.ts';
import { decodePick } from '../kit/runbook-choice.ts';
import { decodeListState } from '../kit/runbook-list.ts';
import { openScheduleModal, scheduleModalView, showSchedules } from '../schedules/schedules.ts';
import { showList, showRunbook } from './browse.ts';

export function registerActions(app: App, deps: SlackDeps): void {
  const on = (actionId: string | RegExp, what: string, handler: ActionHandler) =>
    onAction(app, deps, actionId, what, handler);

  on(new RegExp(`^${ACTIONS.listPage}_`), 'Paging the runbook list', (ctx, body) =>
    showList(ctx, decodeListState(buttonValue(body)), true),
  );

  on(ACTIONS.listCategory, 'Filtering the runbook list', (ctx, body) => {
    const action = body.actions[0] as StaticSelectAction;
    const blockState = action.block_id.startsWith('list_filters:') ? action.block_id.slice('list_filters:'.length) : '';
    const state = decodeListState(blockState);
    const chosen = action.selected_option?.value;
    return showList(ctx, { ...state, c: chosen && chosen !== '*' ? chosen : null, p: 0 }, true);
  });

  on(ACTIONS.runbookRun, 'Opening the run form', (ctx, body) => openRunModal(ctx, { runbookId: buttonValue(body) }));
  on(ACTIONS.runbookSchedule, 'Opening the schedule form', (ctx, body) =>
    openScheduleModal(ctx, { runbookId: buttonValue(body) }),
  );
  on(ACTIONS.runbookDetails, 'Showing the runbook', (ctx, body) => showRunbook(ctx, { id: buttonValue(body) }));

  on(new RegExp(`^${ACTIONS.pickRunbook}_`), 'Opening the runbook', async (ctx, body, client) => {
    const pick = decodePick(buttonValue(body));
    if (!pick) return;
    // A pick list inside a modal (from `run <name>` with several matches) continues in that modal.
    if (body.view?.id && (pick.next === 'run' || pick.next === 'schedule')) {
      if (pick.next === 'run') {
        const view = await runModalView(deps, { runbookId: pick.id }, ctx.channelId, 'run', {
          userId: ctx.userId,
          client,
        });
        await client.views.update({ view_id: body.view.id, view });
      } else {
        await client.views.update({
          view_id: body.view.id,
          view: await scheduleModalView(ctx, { runbookId: pick.id }),
        });
      }
      return;
    }
    switch (pick.next) {
      case 'show':
        return showRunbook(ctx, { id: pick.id });
      case 'run':
        return openRunModal(ctx, { runbookId: pick.id });
      case 'schedule':
        return openScheduleModal(ctx, { runbookId: pick.id });
      case 'schedules':
        return showSchedules(ctx, { runbookId: pick.id });
      case 'executions': {
        // A pick value is not sealed: a hidden runbook's id must not turn into its name here.
        const runbook = await deps.catalog.get(pick.id);
        const visible = runbook !== null && (await visibleTo(ctx)).runbook(runbook);
        return showExecutions(ctx, {
          runbookQuery: visible ? runbook.name : pick.id,
          status: null,
          last: null,
          tokens: [],
        });
      }
    }
  });

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
