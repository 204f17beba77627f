// A runbook's Schedule and App Home's New schedule buttons, the schedules list's buttons (Edit, Pause, Skip next run, Resume, Delete, Run now, paging, "Try again"), the schedule modal's live inputs
// (runbook picker, preset, details, cron text → preview) and its submission.
import type { BlockAction } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { parseInputSchema } from '../../forms/input-schema.ts';
import { isOfferedProxy } from '../../runs/run-choice.ts';
import { claimOrSayDone, messageOf, submissionOf } from '../kit/click-once.ts';
import { errorMessage, errorModal } from '../kit/common.ts';
import { DeadlineError, SUBMIT_DEADLINE_MS, withDeadline } from '../kit/deadline.ts';
import type { SlackDeps } from '../kit/deps.ts';
import { describeFailure } from '../kit/describe-failure.ts';
import { type HandlerContext, inChannel, isSlackResponseUrl, respondAt } from '../kit/handler-context.ts';
import { formTimeZone } from '../kit/identity.ts';
import { ACTIONS, BLOCKS, VIEWS } from '../kit/ids.ts';
import type { ActionArgs, ViewArgs } from '../kit/listen.ts';
import { mrkdwnText } from '../kit/mrkdwn.ts';
import { buttonValue } from '../kit/on-action.ts';
import { postToConversation, slackErrorCode } from '../kit/post-to-conversation.ts';
import { reportFailure } from '../kit/report-failure.ts';
import { changePause } from './pause.ts';
import { cancelRunNow, confirmRunNow } from './run-now.ts';
import { decodeScheduleRef, decodeSchedulesPage } from './schedule-list.ts';
import {
  decodeScheduleMetadata,
  type ListOrigin,
  nextScheduleBuilder,
  refreshScheduleModal,
  shownPresetKind,
} from './schedule-modal.ts';
import {
  deleteFromList,
  newScheduleView,
  openScheduleModal,
  readProxy,
  readScheduleSubmission,
  runScheduleNowHere,
  saveSubmittedSchedule,
  scheduleRunbook,
  showSchedules,
  takeScheduleDraft,
  userTimeZone,
} from './schedules.ts';

/** Inputs of the schedule builder: each change rebuilds the preview. */
export const BUILDER_ACTIONS = [
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

export function scheduleClicked({ body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  return openScheduleModal(ctx, { runbookId: buttonValue(body) });
}

/** App Home's "New schedule" (App Home has no response_url: answers go by DM). */
export async function homeNewScheduleClicked({ ack }: ActionArgs, ctx: HandlerContext): Promise<void> {
  await ack();
  await openScheduleModal(ctx, {}).catch((err) => reportFailure(ctx, err, 'Opening the schedule form'));
}

export async function scheduleEditClicked({ body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  const ref = decodeScheduleRef(buttonValue(body));
  // The list's response_url goes (sealed) into the form, so saving the edit redraws that list in place.
  const list = isSlackResponseUrl(body.response_url, ctx.client.slackApiUrl)
    ? { u: body.response_url, r: ref?.r ?? null }
    : null;
  if (ref) await openScheduleModal(ctx, { scheduleId: ref.id, list });
}

export async function scheduleDeleteClicked({ body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  const ref = decodeScheduleRef(buttonValue(body));
  if (!ref) return;
  const claim = await claimOrSayDone(ctx, { action: 'schedule-delete', target: ref.id, where: messageOf(body) });
  if (!claim) return;
  // Refused or failed: nothing is known to have changed, and deleting again is harmless, so it may be retried.
  const deleted = await deleteFromList(ctx, ref).catch(async (err: unknown) => {
    await claim.release();
    throw err;
  });
  if (!deleted) await claim.release();
}

export async function schedulePauseClicked({ body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  const ref = decodeScheduleRef(buttonValue(body));
  if (ref) await changePause(ctx, 'pause', body, ref);
}

export async function scheduleSkipClicked({ body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  const ref = decodeScheduleRef(buttonValue(body));
  if (ref) await changePause(ctx, 'skip', body, ref);
}

export async function scheduleResumeClicked({ body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  const ref = decodeScheduleRef(buttonValue(body));
  if (ref) await changePause(ctx, 'resume', body, ref);
}

export async function runNowClicked({ body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  const ref = decodeScheduleRef(buttonValue(body));
  if (ref) await confirmRunNow(ctx, ref.id);
}

/**
 * The confirmation's Run now and Cancel share one claim: one of them, once. A second click, a replay or
 * another replica is told it was already done; what replaced the confirmation (where the run went) stays.
 */
function claimRunNow(body: BlockAction, ctx: HandlerContext, scheduleId: string) {
  const where = messageOf(body);
  // Before this release the claim was per person (`click:run-now:<id>:<where>:<who>`): an old replica's counts.
  const legacy = [['click', 'run-now', scheduleId, where, ctx.userId].join(':')];
  return claimOrSayDone(ctx, { action: 'run-now', target: scheduleId, where, legacy });
}

export async function runNowConfirmed({ body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  const scheduleId = buttonValue(body);
  if (!scheduleId || !(await claimRunNow(body, ctx, scheduleId))) return;
  await runScheduleNowHere({ ...ctx, respond: (r) => ctx.respond({ ...r, replaceOriginal: true }) }, scheduleId);
}

export async function runNowCancelled({ body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  const scheduleId = buttonValue(body);
  if (scheduleId && !(await claimRunNow(body, ctx, scheduleId))) return;
  await cancelRunNow(ctx);
}

export async function schedulesPageClicked({ body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  const state = decodeSchedulesPage(buttonValue(body));
  await showSchedules(ctx, { runbookId: state.runbookId, page: state.page }, true);
}

export async function scheduleTryAgainClicked({ body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  const { deps } = ctx;
  const draft = await takeScheduleDraft(deps, buttonValue(body));
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
}

/** The schedule form's runbook picker (Bolt matches it on the form's callback_id): the form for that runbook. */
export async function schedulePickerChosen({ ack, body, client }: ActionArgs, request: HandlerContext): Promise<void> {
  const { deps } = request;
  const view = body.view!;
  await ack();
  const selected = (body.actions[0] as { selected_option?: { value?: string } | null }).selected_option?.value ?? null;
  const meta = decodeScheduleMetadata(view.private_metadata);
  const values = stateWithAction(body);
  const ctx = inChannel(request, meta.c);
  try {
    const timeZone = await userTimeZone(client, ctx.userId, deps.now());
    const builder = nextScheduleBuilder(values, shownPresetKind(view.blocks));
    const next = await newScheduleView(ctx, selected, meta, builder, new Date(deps.now()), timeZone, readProxy(values));
    await client.views.update({ view_id: view.id, hash: view.hash, view: next });
  } catch (err) {
    deps.logger.warn({ err }, 'could not load the picked runbook into the schedule form');
    await client.views
      .update({ view_id: view.id, view: errorModal('New schedule', describeFailure(err)) })
      .catch(() => {});
  }
}

/** An input of the schedule builder changed: rebuild the preview. */
export async function builderInputChanged({ ack, body, client }: ActionArgs, ctx: HandlerContext): Promise<void> {
  const { deps } = ctx;
  await ack();
  const view = body.view;
  if (view?.callback_id !== VIEWS.schedule) return;
  const timeZone = await userTimeZone(client, body.user.id, deps.now());
  const builder = nextScheduleBuilder(stateWithAction(body), shownPresetKind(view.blocks));
  const next = refreshScheduleModal(view, builder, new Date(deps.now()), timeZone);
  await updatePreview(client, deps, view.id, view.hash, next);
}

export async function scheduleFormSubmitted({ ack, body, view, client }: ViewArgs, ctx: HandlerContext): Promise<void> {
  const { deps } = ctx;
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
  const spec = parseInputSchema(runbook.inputSchema);
  const timeZone = (await formTimeZone(deps.access.identity, client, body.user.id, spec))?.id ?? null;
  const submission = readScheduleSubmission(runbook, view.state.values, timeZone);
  if (!submission.ok) {
    await ack({ response_action: 'errors', errors: submission.errors });
    return;
  }
  // The proxy select only offers listed proxies; a value outside them did not come from our form.
  const offered = await withDeadline(isOfferedProxy(deps, runbook, submission.proxyId), 500).catch(() => true);
  if (!offered) {
    await ack({ response_action: 'errors', errors: { [BLOCKS.proxy]: 'Choose one of the offered proxies.' } });
    return;
  }
  await ack();
  // A replayed submission (here or on another replica) saves nothing more and says so where the form came from.
  const claim = await claimOrSayDone(inChannel(ctx, meta.c), {
    action: 'schedule-save',
    // A view is one person's; their id keeps two people's forms apart even where view ids repeat (tests).
    target: `${body.user.id}:${submissionOf(view)}`,
    where: '',
  });
  if (!claim) return;
  try {
    const saved = await saveSubmittedSchedule(deps, client, body.user.id, meta, submission, ctx);
    if (saved && meta.l) await redrawList(ctx, meta.c, meta.l);
  } catch (err) {
    await claim.release();
    deps.logger.error({ err }, 'schedule submission failed after the form closed');
    const sentence = `Saving the schedule failed after the form closed. ${describeFailure(err)} Check /runbook schedules before trying again.`;
    await postToConversation(client, deps.logger, meta.c, body.user.id, {
      ...errorMessage(sentence),
      ephemeralTo: body.user.id,
    });
  }
}

/** The schedules list an edit was opened from, redrawn in place (a response_url past its 30 minutes: left as is). */
async function redrawList(ctx: HandlerContext, channelId: string | null, list: ListOrigin): Promise<void> {
  const there = { ...inChannel(ctx, channelId), respond: respondAt(list.u) };
  await showSchedules(there, { runbookId: list.r }, true).catch((err: unknown) =>
    ctx.deps.logger.info({ err }, 'could not redraw the schedules list after an edit'),
  );
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
