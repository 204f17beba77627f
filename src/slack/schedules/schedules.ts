// `/runbook schedules [runbook]` and `/runbook schedule [runbook]`, plus everything the schedules list and the
// schedule modal do: edit, delete, run now, saving a submitted schedule and "Try again" after a failed save.

import type { KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import { NotFoundError } from '../../api/errors.ts';
import { type Schedule, Workflow } from '../../api/schemas.ts';
import { type FormSpec, isRecord, parseInputSchema } from '../../forms/input-schema.ts';
import { readFormValues } from '../../forms/read-form-values.ts';
import { stripSecrets } from '../../forms/secrets.ts';
import { runScheduleNow } from '../../runs/run.ts';
import { chooseRun } from '../../runs/run-choice.ts';
import { isRunnable } from '../../runs/runnable.ts';
import { checkScheduleChange, checkScheduleForm, deleteSchedule, saveSchedule } from '../../runs/schedules.ts';
import { describeCron, resolveTimeZone } from '../../schedules/cron.ts';
import type { SchedulePause } from '../../store/store.ts';
import { installationKey } from '../../tenants/tenant-scope.ts';
import { actorOf, visibleTo } from '../kit/access.ts';
import { actorFor } from '../kit/actor.ts';
import { publishApprovalRequest } from '../kit/approval-request.ts';
import {
  button,
  errorMessage,
  errorModal,
  infoModal,
  loadingModal,
  noticeMessage,
  type SlackMessage,
} from '../kit/common.ts';
import type { SlackDeps } from '../kit/deps.ts';
import { describeFailure } from '../kit/describe-failure.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import { formTimeZone } from '../kit/identity.ts';
import { ACTIONS, BLOCKS } from '../kit/ids.ts';
import { escapeMrkdwn, inlineCode, mrkdwnText, slackDate, truncate } from '../kit/mrkdwn.ts';
import { commandArgument, runbookArgument } from '../kit/parse-command.ts';
import { proxyText } from '../kit/people.ts';
import { postToConversation } from '../kit/post-to-conversation.ts';
import { loadRunbook, postRunningCard, renderRunResult, runStartedNotice } from '../kit/run-start.ts';
import { buildChoiceBlocks, buildRunbookChoice } from '../kit/runbook-choice.ts';
import { runNowActor } from './run-now.ts';
import { buildScheduleList, nextRunOf, type ScheduleRef } from './schedule-list.ts';
import {
  builderFromCron,
  buildScheduleModal,
  cronFromBuilder,
  DEFAULT_BUILDER,
  type ListOrigin,
  readScheduleBuilder,
  type ScheduleBuilder,
  type ScheduleModalMetadata,
} from './schedule-modal.ts';

/** More schedules than this are not listed (the message says how many there are in total). */
const MAX_LISTED = 1_000;

export interface ScheduleModalTarget {
  /** A runbook id or name typed by the person. */
  query?: string | null;
  /** A known runbook id. */
  runbookId?: string | null;
  /** Edit this schedule. */
  scheduleId?: string | null;
  /** Reopen a form that failed to save (from "Try again"). */
  draft?: ScheduleDraft | null;
  /** The schedules list Edit was clicked on: redrawn in place once the edit is saved. */
  list?: ListOrigin | null;
}

// ---------------------------------------------------------------------------------------------------------------
// Small in-process caches. They are conveniences (a lost entry costs one API call), so they are module-level
// Maps with a TTL rather than part of the durable store. Drafts are not: they live in the store (kit/run-drafts.ts).

const RUNBOOK_TTL_MS = 10 * 60_000;
const TIME_ZONE_TTL_MS = 10 * 60_000;
const MAX_ENTRIES = 1_000;

const runbookCache = new Map<string, { runbook: Workflow; at: number }>();
const timeZoneCache = new Map<string, { tz: string; at: number }>();

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  // Oldest first out: Maps iterate in insertion order, and a re-set key moves to the end.
  map.delete(key);
  if (map.size >= MAX_ENTRIES) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
  map.set(key, value);
}

/**
 * The runbook a schedule modal shows. Cached because the submission must validate the form with the runbook's
 * schema before answering Slack within 3 seconds, and the modal was built from the same runbook moments earlier.
 */
export async function scheduleRunbook(deps: SlackDeps, id: string, fresh = false): Promise<Workflow> {
  const hit = runbookCache.get(id);
  if (!fresh && hit && deps.now() - hit.at < RUNBOOK_TTL_MS) return hit.runbook;
  const runbook = await loadRunbook(deps, id);
  remember(runbookCache, id, { runbook, at: deps.now() });
  return runbook;
}

/** The person's IANA time zone from their Slack profile (for the preview), UTC when unknown. Cached per user. */
export async function userTimeZone(client: WebClient, userId: string, now: number): Promise<string> {
  const hit = timeZoneCache.get(userId);
  if (hit && now - hit.at < TIME_ZONE_TTL_MS) return hit.tz;
  let tz = 'UTC';
  try {
    const info = await client.users.info({ user: userId });
    tz = resolveTimeZone(info.user?.tz);
  } catch {
    // users:read missing or Slack slow: the preview shows GMT only, which is what runs anyway.
  }
  remember(timeZoneCache, userId, { tz, at: now });
  return tz;
}

/** A schedule form that could not be saved, kept so "Try again" reopens it filled in. Never holds secrets. */
export interface ScheduleDraft {
  runbookId: string;
  scheduleId: string | null;
  proxyId: string | null;
  channel: string | null;
  params: Record<string, unknown>;
  builder: ScheduleBuilder;
}

/** Keeps a schedule form that could not be saved in the store (any replica's "Try again" finds it). */
export function saveScheduleDraft(deps: SlackDeps, draft: ScheduleDraft, spec: FormSpec): Promise<string> {
  const { runbookId, proxyId, channel, params, scheduleId, builder } = draft;
  return deps.drafts.save(
    { runbookId, proxyId, channel, params, extra: { kind: 'schedule', scheduleId, builder } },
    spec,
  );
}

/** The schedule draft, or null when it expired, never existed or is not a schedule form's. */
export async function takeScheduleDraft(deps: SlackDeps, id: string): Promise<ScheduleDraft | null> {
  const draft = await deps.drafts.take(id);
  const extra = draft?.extra;
  if (!draft || extra?.kind !== 'schedule' || !extra.builder || typeof extra.builder !== 'object') return null;
  return {
    runbookId: draft.runbookId,
    scheduleId: typeof extra.scheduleId === 'string' ? extra.scheduleId : null,
    proxyId: draft.proxyId,
    channel: draft.channel,
    params: draft.params,
    builder: extra.builder as ScheduleBuilder,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The list

export interface SchedulesTarget {
  query?: string | null;
  runbookId?: string | null;
  /** 0-based page of the list. */
  page?: number;
}

/** Lists schedules, optionally of one runbook. `notice` (escaped mrkdwn) is shown above the list. */
export async function showSchedules(
  ctx: HandlerContext,
  target: SchedulesTarget,
  replaceOriginal = false,
  notice: string | null = null,
): Promise<void> {
  const { deps } = ctx;
  const visible = await visibleTo(ctx);
  let runbook: { id: string; name: string } | null = null;
  if (target.runbookId) {
    const known = await deps.catalog.get(target.runbookId).catch(() => null);
    // A button's runbook id is not sealed: a hidden runbook's name is not shown for it.
    runbook = { id: target.runbookId, name: known && visible.runbook(known) ? known.name : '' };
  } else if (target.query) {
    const resolution = await visible.resolve(target.query);
    if (resolution.kind !== 'match') {
      await ctx.respond({ ...buildRunbookChoice(target.query, resolution, 'schedules'), replaceOriginal });
      return;
    }
    runbook = { id: resolution.runbook.id, name: resolution.runbook.name };
  }
  const schedules: Schedule[] = [];
  for await (const schedule of deps.api.schedules.iterate({ pageSize: 100 })) {
    if (runbook && schedule.runbookId !== runbook.id) continue;
    if (visible.ref({ id: schedule.runbookId, name: schedule.runbookName })) schedules.push(schedule);
    if (schedules.length >= MAX_LISTED) break;
  }
  // A runbook the catalog no longer knows still has a name on its schedules.
  if (runbook && !runbook.name) runbook.name = schedules[0]?.runbookName || runbook.id;
  await ctx.respond({
    ...buildScheduleList({
      schedules,
      runbook,
      page: target.page ?? 0,
      now: new Date(deps.now()),
      schemas: await knownSchemas(deps),
      notice,
      owners: await ownersOf(deps, schedules),
      pauses: await pausesOf(deps),
      proxyNames: new Map(
        schedules.flatMap((s) => {
          const name = deps.proxies.nameOf(s.proxyId);
          return name ? [[s.proxyId, name] as const] : [];
        }),
      ),
    }),
    replaceOriginal,
  });
}

/** Input schemas of catalog runbooks, to mask the params of schedules that do not carry their own schema. */
async function knownSchemas(deps: SlackDeps): Promise<Map<string, string>> {
  const schemas = new Map<string, string>();
  try {
    for (const runbook of await deps.catalog.all())
      if (runbook.inputSchema) schemas.set(runbook.id, runbook.inputSchema);
  } catch {
    // Without schemas the list shows parameter names only, never values.
  }
  return schemas;
}

// ---------------------------------------------------------------------------------------------------------------
// The modal

function modalTitle(target: ScheduleModalTarget): string {
  return target.scheduleId || target.draft?.scheduleId ? 'Edit schedule' : 'New schedule';
}

/** Opens a loading view at once (inside the trigger's 3 s), then fills it when the data arrives. */
export async function openScheduleModal(ctx: HandlerContext, target: ScheduleModalTarget): Promise<void> {
  if (!ctx.triggerId) throw new Error('openScheduleModal needs a trigger_id');
  const title = modalTitle(target);
  const opened = await ctx.client.views.open({
    trigger_id: ctx.triggerId,
    view: loadingModal(title, target.scheduleId ? 'Loading the schedule…' : 'Loading…'),
  });
  const viewId = opened.view?.id;
  if (!viewId) return;
  const update = (view: Parameters<WebClient['views']['update']>[0]['view']) =>
    ctx.client.views.update({ view_id: viewId, view });
  try {
    await update(await scheduleModalView(ctx, target));
  } catch (err) {
    ctx.deps.logger.warn({ err }, 'could not fill the schedule modal');
    const sentence =
      err instanceof NotFoundError && target.scheduleId
        ? 'That schedule no longer exists; it may have been deleted. Run /runbook schedules to see the current list.'
        : describeFailure(err);
    await update(errorModal(title, sentence)).catch(() => {});
  }
}

function parseParams(text: string): Record<string, unknown> | null {
  if (text.trim() === '') return {};
  try {
    const value = JSON.parse(text) as unknown;
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}

/** The view for a target: the form (create, edit or draft), a pick list, or the bare picker. */
export async function scheduleModalView(ctx: HandlerContext, target: ScheduleModalTarget) {
  const { deps } = ctx;
  const now = new Date(deps.now());
  const timeZone = await userTimeZone(ctx.client, ctx.userId, deps.now());
  const draft = target.draft ?? null;

  if (target.scheduleId || draft) {
    let schedule: Schedule | null = null;
    if (target.scheduleId) {
      schedule = await deps.api.schedules.get(target.scheduleId, { timeoutMs: deps.interactiveTimeoutMs });
    }
    const runbookId = schedule?.runbookId ?? draft!.runbookId;
    const notes: string[] = [];
    let runbook: Workflow;
    try {
      runbook = await scheduleRunbook(deps, runbookId, true);
    } catch (err) {
      if (!(err instanceof NotFoundError) || !schedule) throw err;
      // The runbook is gone but its schedule is not: still editable with the schema the schedule was saved with.
      runbook = Workflow.parse({
        id: runbookId,
        name: schedule.runbookName || runbookId,
        inputSchema: schedule.inputSchema,
      });
      remember(runbookCache, runbookId, { runbook, at: deps.now() });
      notes.push(':warning: The Runbook API no longer knows this runbook; runs of this schedule will probably fail.');
    }
    // Whoever may not change this schedule does not get its form (nor its stored parameters); a draft
    // reopened with "Try again" passes the same gate as a new form.
    const refusal = schedule
      ? await checkScheduleChange(deps, await actorOf(ctx), schedule, 'schedule.open')
      : await checkScheduleForm(deps, await actorOf(ctx), runbook);
    if (refusal) return errorModal(modalTitle(target), refusal.sentence);
    if (!isRunnable(runbook))
      notes.push(':no_entry: Running this runbook is disabled, so scheduled runs will not start.');
    const spec = parseInputSchema(runbook.inputSchema);
    const storedParams = schedule ? parseParams(schedule.params) : draft!.params;
    if (storedParams === null) notes.push(':warning: The saved parameters could not be read; enter them again.');
    const channel = draft?.channel ?? ctx.channelId;
    // A schedule keeps its proxy; one saved without any gets what a run started here would.
    const proxy = await scheduleProxy(ctx, runbook, channel, schedule ? schedule.proxyId || null : draft!.proxyId);
    return buildScheduleModal({
      runbook,
      spec,
      proxies: await deps.proxies.choicesFor(runbook),
      proxyId: proxy.proxyId,
      fieldTimeZone: await formTimeZone(deps.access.identity, ctx.client, ctx.userId, spec),
      // Secret values are never shown again: they stay empty and must be re-entered on save.
      prefill: stripSecrets(spec, storedParams ?? {}),
      builder: schedule ? builderFromCron(schedule.schedule) : draft!.builder,
      metadata: {
        r: runbook.id,
        s: schedule?.id ?? draft!.scheduleId,
        c: channel,
        ...(target.list ? { l: target.list } : {}),
      },
      now,
      timeZone,
      notes: [...notes, ...proxy.notes],
    });
  }

  let runbookId = target.runbookId ?? null;
  if (!runbookId && target.query) {
    const resolution = await (await visibleTo(ctx)).resolve(target.query);
    if (resolution.kind !== 'match') {
      return infoModal('New schedule', ' ', buildChoiceBlocks(target.query, resolution, 'schedule'));
    }
    runbookId = resolution.runbook.id;
  }
  const metadata = { r: runbookId, s: null, c: ctx.channelId, ...(ctx.threadTs ? { t: ctx.threadTs } : {}) };
  return newScheduleView(ctx, runbookId, metadata, DEFAULT_BUILDER, now, timeZone);
}

/** The create form for `runbookId` (or the bare picker when null), keeping a builder already chosen. */
export async function newScheduleView(
  ctx: HandlerContext,
  runbookId: string | null,
  metadata: ScheduleModalMetadata,
  builder: ScheduleBuilder,
  now: Date,
  timeZone: string,
  proxyId: string | null = null,
) {
  if (!runbookId) {
    return buildScheduleModal({
      runbook: null,
      spec: null,
      proxies: { options: [], initial: null },
      builder,
      metadata: { ...metadata, r: null },
      now,
      timeZone,
    });
  }
  const runbook = await scheduleRunbook(ctx.deps, runbookId, true);
  // The form of a runbook the person may not schedule is not shown (nor, when hidden, its name).
  const refusal = await checkScheduleForm(ctx.deps, await actorOf(ctx), runbook);
  if (refusal) return errorModal('New schedule', refusal.sentence);
  const notes = isRunnable(runbook)
    ? []
    : [':no_entry: Running this runbook is disabled, so scheduled runs will not start until it is enabled.'];
  const proxy = await scheduleProxy(ctx, runbook, metadata.c ?? ctx.channelId, proxyId);
  const spec = parseInputSchema(runbook.inputSchema);
  return buildScheduleModal({
    runbook,
    spec,
    proxies: await ctx.deps.proxies.choicesFor(runbook),
    proxyId: proxy.proxyId,
    fieldTimeZone: await formTimeZone(ctx.deps.access.identity, ctx.client, ctx.userId, spec),
    builder,
    metadata: { ...metadata, r: runbook.id },
    now,
    timeZone,
    notes: [...notes, ...proxy.notes],
  });
}

/**
 * The proxy a run started in this channel would get — what was chosen, else the channel's default, else the
 * bot's — and, when the channel's default chose it, the note that says so (as on the run form).
 */
async function scheduleProxy(
  ctx: HandlerContext,
  runbook: Workflow,
  channelId: string | null,
  chosen: string | null,
): Promise<{ proxyId: string | null; notes: string[] }> {
  const choice = await chooseRun(ctx.deps, runbook, channelId, { proxyId: chosen });
  const fromDefault = choice.fromDefaults.proxyId;
  const name = fromDefault ? proxyText({ id: fromDefault, name: ctx.deps.proxies.nameOf(fromDefault) }) : null;
  return {
    proxyId: choice.proxyId,
    notes: name ? [`:pushpin: This channel's run defaults: proxy ${name}.`] : [],
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Submission

export type ScheduleSubmission =
  | { ok: false; errors: Record<string, string> }
  | {
      ok: true;
      runbook: Workflow;
      spec: FormSpec;
      proxyId: string;
      params: Record<string, unknown>;
      builder: ScheduleBuilder;
      cron: string;
    };

type StateValues = Record<string, Record<string, unknown>>;

/** The proxy chosen in the form (a select, or a text box when no proxies are configured). */
export function readProxy(values: StateValues): string | null {
  const state = values[BLOCKS.proxy]?.[ACTIONS.proxySelect] as
    | { value?: unknown; selected_option?: { value?: unknown } | null }
    | undefined;
  const raw = state?.selected_option?.value ?? state?.value;
  return typeof raw === 'string' && raw.trim() !== '' ? raw.trim() : null;
}

/** Reads and validates a submitted schedule form; every problem is reported at once, keyed by block id. */
export function readScheduleSubmission(
  runbook: Workflow,
  values: StateValues,
  /** The person's IANA zone: a picked date-time is written with its offset, as the run form writes it. */
  timeZone: string | null = null,
): ScheduleSubmission {
  const errors: Record<string, string> = {};
  const builder = readScheduleBuilder(values);
  const cron = cronFromBuilder(builder);
  if (!cron.ok) errors[cron.blockId] = cron.error;
  const spec = parseInputSchema(runbook.inputSchema);
  const form = readFormValues(spec, values, timeZone);
  if (!form.ok) Object.assign(errors, form.errors);
  const proxyId = readProxy(values);
  if (!proxyId) errors[BLOCKS.proxy] = 'Choose the proxy that runs this schedule.';
  if (Object.keys(errors).length > 0 || !cron.ok || !form.ok || !proxyId) return { ok: false, errors };
  return { ok: true, runbook, spec, proxyId, params: form.params, builder, cron: cron.expression };
}

/**
 * Saves the submitted schedule through the use case (the modal is already closed), then tells the person in
 * the channel the modal came from: a confirmation with the English description and next run, the approval
 * request, the refusal, or one sentence and "Try again".
 */
export async function saveSubmittedSchedule(
  deps: SlackDeps,
  client: WebClient,
  userId: string,
  metadata: ScheduleModalMetadata,
  submission: Extract<ScheduleSubmission, { ok: true }>,
  /** The workspace and Grid org the form was submitted from (the request's). */
  where: { teamId: string | null; enterpriseId?: string | null | undefined },
): Promise<Schedule | null> {
  const { runbook } = submission;
  const actor = await actorFor(deps, client, {
    userId,
    teamId: where.teamId,
    enterpriseId: where.enterpriseId ?? null,
    channelId: metadata.c,
  });
  const tell = (message: SlackMessage) =>
    postToConversation(client, deps.logger, metadata.c, userId, {
      ...message,
      ephemeralTo: userId,
      ...(metadata.t ? { threadTs: metadata.t } : {}),
    });
  const result = await saveSchedule(deps, actor, {
    runbook,
    proxyId: submission.proxyId,
    params: submission.params,
    cron: submission.cron,
    scheduleId: metadata.s,
  });
  const name = escapeMrkdwn(truncate(runbook.name || runbook.id, 150));
  switch (result.kind) {
    case 'refused':
      await tell(errorMessage(result.sentence));
      return null;
    case 'approval-requested':
      await publishApprovalRequest(deps, client, result.approval, result.need, actor.channelId);
      await tell(
        noticeMessage(
          `:lock: *${name}* needs approval, so this schedule is a request to the approvers: ${inlineCode(submission.cron)} ${escapeMrkdwn(describeCron(submission.cron))}. It is saved when someone approves it.`,
          `Schedule of ${runbook.name} sent for approval`,
        ),
      );
      return null;
    case 'failed': {
      const draftId = await saveScheduleDraft(
        deps,
        {
          runbookId: runbook.id,
          scheduleId: metadata.s,
          proxyId: submission.proxyId,
          channel: metadata.c,
          params: submission.params,
          builder: submission.builder,
        },
        submission.spec,
      );
      const sentence = `The schedule of ${runbook.name || runbook.id} was not saved. ${describeFailure(result.error)}`;
      const blocks: KnownBlock[] = [
        { type: 'section', text: mrkdwnText(`:warning: ${escapeMrkdwn(truncate(sentence, 2900))}`) },
        {
          type: 'actions',
          block_id: 'schedule_retry_actions',
          elements: [button('Try again', ACTIONS.scheduleRetry, draftId, { style: 'primary' })],
        },
      ];
      await tell({ text: escapeMrkdwn(truncate(sentence, 3000)), blocks });
      return null;
    }
    case 'saved':
      break;
  }
  const next = nextRunOf(submission.cron, new Date(deps.now()));
  const nextText = next
    ? slackDate(Math.floor(next.getTime() / 1000), `${next.toISOString().replace('T', ' ').slice(0, 16)} UTC`)
    : 'never';
  const verb = metadata.s ? 'Updated the schedule of' : 'Scheduled';
  const saidCron = `${inlineCode(submission.cron)} ${escapeMrkdwn(describeCron(submission.cron))}`;
  // Made inside a change freeze: paused at once, so there is no next run to name until it ends.
  const line = result.frozen
    ? `:white_check_mark: ${verb} *${name}*: ${saidCron}.\n:double_vertical_bar: ${escapeMrkdwn(result.frozen)}`
    : `:white_check_mark: ${verb} *${name}*: ${saidCron}. Next run ${nextText}.`;
  await tell({
    text: `${verb} ${escapeMrkdwn(truncate(runbook.name || runbook.id, 200))}: ${escapeMrkdwn(describeCron(submission.cron))}${result.frozen ? `. ${escapeMrkdwn(result.frozen)}` : ''}`,
    blocks: [
      { type: 'section', text: mrkdwnText(line) },
      {
        type: 'context',
        elements: [
          mrkdwnText(
            `See all schedules of this runbook with \`/runbook schedules ${escapeMrkdwn(commandArgument(runbookArgument(runbook)))}\`.`,
          ),
        ],
      },
    ],
  });
  return result.schedule;
}

// ---------------------------------------------------------------------------------------------------------------
// Who may change a schedule

async function ownersOf(deps: SlackDeps, schedules: Schedule[]): Promise<Map<string, string>> {
  const owners = await deps.access.store.scheduleOwners
    .getMany(
      schedules.map((s) => s.id),
      installationKey(),
    )
    .catch(() => new Map());
  return new Map([...owners].map(([id, owner]) => [id, owner.userId]));
}

/** Paused schedules (and those in flight) by schedule id; none shown when the store cannot be read. */
async function pausesOf(deps: SlackDeps): Promise<Map<string, SchedulePause>> {
  const pauses = await deps.access.store.schedulePauses.list(MAX_LISTED, installationKey()).catch(() => []);
  return new Map(pauses.map((p) => [p.scheduleId, p]));
}

// ---------------------------------------------------------------------------------------------------------------
// List actions

/** Deletes a schedule and redraws the list it was deleted from (a 404 means someone else was faster). */
/** Deletes and redraws the list; false when refused (nothing changed). */
export async function deleteFromList(ctx: HandlerContext, ref: ScheduleRef): Promise<boolean> {
  const result = await deleteSchedule(ctx.deps, await actorOf(ctx), ref.id);
  if (result.kind === 'refused' && result.reason !== 'not-found') {
    await ctx.respond(errorMessage(result.sentence));
    return false;
  }
  const notice =
    result.kind === 'deleted'
      ? ':wastebasket: The schedule was deleted.'
      : ':information_source: That schedule no longer exists; the list below is up to date.';
  await showSchedules(ctx, { runbookId: ref.r }, true, notice);
  return true;
}

/** Runs a schedule's runbook now, with the schedule's proxy and params; the live message goes to this channel. */
export async function runScheduleNowHere(ctx: HandlerContext, scheduleId: string): Promise<void> {
  const actor = await runNowActor(ctx, { email: true });
  const result = await runScheduleNow(ctx.deps, actor, scheduleId);
  if (result.kind === 'started') {
    // The used confirmation is replaced by what started (and where), so it cannot be clicked again.
    const posted = await postRunningCard(ctx.deps, ctx.client, result.run);
    await ctx.respond(await runStartedNotice(ctx.client, result.run, posted));
    return;
  }
  // Run now has no form to reopen: a failure is told without "Try again".
  await renderRunResult(ctx.deps, { client: ctx.client, tell: (message) => ctx.respond(message) }, actor, null, result);
}
