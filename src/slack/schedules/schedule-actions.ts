// A runbook's Schedule and App Home's New schedule buttons, the schedules list's buttons (Edit, Delete, Run now, paging, "Try again"), the schedule modal's live inputs
// (runbook picker, preset, details, cron text → preview) and its submission.
import type { App, BlockAction, ViewSubmitAction } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { errorMessage, errorModal } from '../kit/common.ts';
import { DeadlineError, SUBMIT_DEADLINE_MS, withDeadline } from '../kit/deadline.ts';
import type { SlackDeps } from '../kit/deps.ts';
import { describeFailure } from '../kit/describe-failure.ts';
import { ACTIONS, BLOCKS, VIEWS } from '../kit/ids.ts';
import { interactionContext } from '../kit/interaction-context.ts';
import { mrkdwnText } from '../kit/mrkdwn.ts';
import { type ActionHandler, buttonValue, onAction } from '../kit/on-action.ts';
import { postToConversation, slackErrorCode } from '../kit/post-to-conversation.ts';
import { reportFailure } from '../kit/report-failure.ts';
import { cancelRunNow, confirmRunNow } from './run-now.ts';
import { decodeScheduleRef, decodeSchedulesPage } from './schedule-list.ts';
import {
  decodeScheduleMetadata,
  nextScheduleBuilder,
  refreshScheduleModal,
  shownPresetKind,
} from './schedule-modal.ts';
import {
  deleteSchedule,
  newScheduleView,
  openScheduleModal,
  readProxy,
  readScheduleSubmission,
  runScheduleNow,
  saveSchedule,
  scheduleRunbook,
  showSchedules,
  takeScheduleDraft,
  userTimeZone,
} from './schedules.ts';

/** Inputs of the schedule builder: each change rebuilds the preview. */
const BUILDER_ACTIONS = [
  ACTIONS.presetSelect,
  ACTIONS.presetMinutes,
  ACTIONS.presetHourMinute,
  ACTIONS.presetTime,
  ACTIONS.presetWeekday,
  ACTIONS.presetMonthDay,
  ACTIONS.cronInput,
];

type StateValues = Record<string, Record<string, unknown>>;

/**
 * The view state with the element that fired laid over it. Slack already includes the new value in
 * view.state.values, but the action itself is the authoritative copy of what just changed.
 */
function stateWithAction(body: BlockAction): StateValues {
  const values: StateValues = { ...(body.view?.state.values ?? {}) };
  const action = body.actions[0] as { block_id?: string; action_id?: string } | undefined;
  if (action?.block_id && action.action_id) {
    values[action.block_id] = { ...(values[action.block_id] ?? {}), [action.action_id]: action };
  }
  return values;
}

export function registerScheduleActions(app: App, deps: SlackDeps): void {
  const on = (actionId: string | RegExp, what: string, handler: ActionHandler) =>
    onAction(app, deps, actionId, what, handler);

  on(ACTIONS.runbookSchedule, 'Opening the schedule form', (ctx, body) =>
    openScheduleModal(ctx, { runbookId: buttonValue(body) }),
  );
  app.action<BlockAction>({ action_id: ACTIONS.homeNewSchedule }, async ({ ack, body, client }) => {
    await ack();
    const ctx = interactionContext(deps, client, body, undefined);
    await openScheduleModal(ctx, {}).catch((err) => reportFailure(ctx, err, 'Opening the schedule form'));
  });

  on(ACTIONS.scheduleEdit, 'Opening the schedule', async (ctx, body) => {
    const ref = decodeScheduleRef(buttonValue(body));
    if (ref) await openScheduleModal(ctx, { scheduleId: ref.id });
  });

  // The confirm dialog is shown by Slack before this arrives.
  on(ACTIONS.scheduleDelete, 'Deleting the schedule', async (ctx, body) => {
    const ref = decodeScheduleRef(buttonValue(body));
    if (ref) await deleteSchedule(ctx, ref);
  });

  // Run now asks first; only the confirmation's Run now runs it.
  on(ACTIONS.scheduleRunNow, 'Preparing Run now', async (ctx, body) => {
    const ref = decodeScheduleRef(buttonValue(body));
    if (ref) await confirmRunNow(ctx, ref.id);
  });
  on(ACTIONS.scheduleRunNowConfirmed, 'Running the schedule now', async (ctx, body) => {
    const scheduleId = buttonValue(body);
    if (scheduleId)
      await runScheduleNow({ ...ctx, respond: (r) => ctx.respond({ ...r, replaceOriginal: true }) }, scheduleId);
  });
  on(ACTIONS.scheduleRunNowCancel, 'Cancelling Run now', (ctx) => cancelRunNow(ctx));

  on(new RegExp(`^${ACTIONS.schedulesPage}_`), 'Paging the schedules', async (ctx, body) => {
    const state = decodeSchedulesPage(buttonValue(body));
    await showSchedules(ctx, { runbookId: state.runbookId, page: state.page }, true);
  });

  on(ACTIONS.scheduleRetry, 'Reopening the schedule form', async (ctx, body) => {
    const draft = takeScheduleDraft(buttonValue(body), deps.now());
    if (!draft) {
      await ctx.respond({
        text: 'That form has expired.',
        blocks: [
          {
            type: 'section',
            text: mrkdwnText(':hourglass: That form has expired. Start again with `/runbook schedule`.'),
          },
        ],
      });
      return;
    }
    await openScheduleModal(ctx, { draft });
  });

  // The picker is shared with the run modal, whose listener answers for VIEWS.run: ack only our own view.
  app.action<BlockAction>({ action_id: ACTIONS.runbookPicker }, async ({ ack, body, client }) => {
    const view = body.view;
    if (view?.callback_id !== VIEWS.schedule) return;
    await ack();
    const selected =
      (body.actions[0] as { selected_option?: { value?: string } | null }).selected_option?.value ?? null;
    const meta = decodeScheduleMetadata(view.private_metadata);
    const values = stateWithAction(body);
    const ctx = interactionContext(deps, client, body, undefined, meta.c);
    try {
      const timeZone = await userTimeZone(client, ctx.userId, deps.now());
      const builder = nextScheduleBuilder(values, shownPresetKind(view.blocks));
      const next = await newScheduleView(
        ctx,
        selected,
        meta,
        builder,
        new Date(deps.now()),
        timeZone,
        readProxy(values),
      );
      await client.views.update({ view_id: view.id, hash: view.hash, view: next });
    } catch (err) {
      deps.logger.warn({ err }, 'could not load the picked runbook into the schedule form');
      await client.views
        .update({ view_id: view.id, view: errorModal('New schedule', describeFailure(err)) })
        .catch(() => {});
    }
  });

  for (const actionId of BUILDER_ACTIONS) {
    app.action<BlockAction>({ action_id: actionId }, async ({ ack, body, client }) => {
      await ack();
      const view = body.view;
      if (view?.callback_id !== VIEWS.schedule) return;
      const timeZone = await userTimeZone(client, body.user.id, deps.now());
      const builder = nextScheduleBuilder(stateWithAction(body), shownPresetKind(view.blocks));
      const next = refreshScheduleModal(view, builder, new Date(deps.now()), timeZone);
      await updatePreview(client, deps, view.id, view.hash, next);
    });
  }

  app.view<ViewSubmitAction>(VIEWS.schedule, async ({ ack, body, view, client }) => {
    const meta = decodeScheduleMetadata(view.private_metadata);
    const title = meta.s ? 'Edit schedule' : 'New schedule';
    if (!meta.r) {
      await ack({ response_action: 'errors', errors: { [BLOCKS.runbookPicker]: 'Pick a runbook first.' } });
      return;
    }
    let runbook: Awaited<ReturnType<typeof scheduleRunbook>>;
    try {
      // Before the ack, within Slack's 3 s: past the deadline nothing is saved and the person is told.
      runbook = await withDeadline(scheduleRunbook(deps, meta.r), SUBMIT_DEADLINE_MS);
    } catch (err) {
      const sentence =
        err instanceof DeadlineError
          ? 'Loading the runbook took too long, so nothing was saved. Try again in a moment.'
          : `Nothing was saved. ${describeFailure(err)}`;
      await ack({ response_action: 'update', view: errorModal(title, sentence) });
      return;
    }
    const submission = readScheduleSubmission(runbook, view.state.values);
    if (!submission.ok) {
      await ack({ response_action: 'errors', errors: submission.errors });
      return;
    }
    // The proxy select only offers listed proxies; a value outside them did not come from our form.
    const choices = await withDeadline(deps.proxies.choicesFor(runbook), 500).catch(() => null);
    if (choices && choices.options.length > 0 && !choices.options.some((p) => p.id === submission.proxyId)) {
      await ack({ response_action: 'errors', errors: { [BLOCKS.proxy]: 'Choose one of the offered proxies.' } });
      return;
    }
    await ack();
    try {
      await saveSchedule(deps, client, body.user.id, meta, submission);
    } catch (err) {
      deps.logger.error({ err }, 'schedule submission failed after the form closed');
      const sentence = `Saving the schedule failed after the form closed. ${describeFailure(err)} Check /runbook schedules before trying again.`;
      await postToConversation(client, deps.logger, meta.c, body.user.id, {
        ...errorMessage(sentence),
        ephemeralTo: body.user.id,
      });
    }
  });
}

/** A lost race (the person typed again while we answered) is harmless: the newer event brings its own update. */
async function updatePreview(
  client: WebClient,
  deps: SlackDeps,
  viewId: string,
  hash: string,
  view: Parameters<WebClient['views']['update']>[0]['view'],
): Promise<void> {
  try {
    await client.views.update({ view_id: viewId, hash, view });
  } catch (err) {
    const code = slackErrorCode(err);
    if (code === 'hash_conflict') deps.logger.debug({ viewId }, 'schedule preview superseded');
    else deps.logger.warn({ err: code ?? err }, 'could not update the schedule preview');
  }
}
