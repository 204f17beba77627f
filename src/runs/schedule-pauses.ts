// Pausing a schedule. The API has no pause, so the schedule stays in the API (its id, params, proxy and
// the API's owner unchanged) with an expression that never fires, and the store keeps the real one.
// Each change is recorded in the store before the API call and settled after it (as runs are, in
// run-intents.ts): `pausing` → PATCH never → `paused`; `paused` → `resuming` → PATCH real → row removed.
// A crash between the two leaves a row in flight that `reconcilePauses` finishes (at start and every
// minute, on any replica); both API calls are idempotent, so finishing one twice is harmless. The real
// expression is dropped only after the API holds it again, so a paused schedule is never lost, and a
// row says paused only once the API's copy no longer fires.
import { ConnectionError, describeApiError, NotFoundError, RunbookApiError } from '../api/errors.ts';
import type { Schedule } from '../api/schemas.ts';
import type { SchedulePause } from '../store/store.ts';
import type { Actor } from './actor.ts';
import type { RunsDeps } from './deps.ts';
import { recordAction } from './gate.ts';
import { type Refusal, refused } from './run.ts';
import { checkScheduleChange } from './schedules.ts';

/**
 * February 30th: a valid five-field expression (croner, the emulator and the service accept it) that
 * never matches a date. The bot's own cron checks say so ("This never runs").
 */
export const NEVER_FIRES = '0 0 30 2 *';

export type PauseResult =
  | { kind: 'paused'; schedule: Schedule; pause: SchedulePause }
  | { kind: 'resumed'; schedule: Schedule; cron: string }
  | { kind: 'failed'; error: unknown }
  | Refusal;

const GONE = 'That schedule no longer exists; run /runbook schedules to see the current list.';

/**
 * An error that proves the API did not apply the change: a 4xx answer, or a request that never left.
 * A lost answer, a timeout, a 5xx from a gateway or a 2xx we could not read may have applied it.
 */
function definitelyNotApplied(err: unknown): boolean {
  if (err instanceof ConnectionError) return !err.requestSent;
  return err instanceof RunbookApiError && err.status !== null && err.status >= 400 && err.status < 500;
}

function targetOf(schedule: Pick<Schedule, 'id' | 'runbookId' | 'runbookName'>): string {
  return `${schedule.runbookName} (${schedule.runbookId}) schedule ${schedule.id}`;
}

async function scheduleOrNull(deps: RunsDeps, id: string): Promise<Schedule | null> {
  try {
    return await deps.api.schedules.get(id, { timeoutMs: deps.interactiveTimeoutMs });
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
}

/** Pauses a schedule: `change-schedule` on it, then intent → API → settled. */
export async function pauseSchedule(deps: RunsDeps, actor: Actor, scheduleId: string): Promise<PauseResult> {
  const schedule = await scheduleOrNull(deps, scheduleId);
  if (!schedule) return refused('not-found', GONE);
  const refusal = await checkScheduleChange(deps, actor, schedule, 'schedule.pause');
  if (refusal) return refusal;
  const store = deps.access.store.schedulePauses;
  const began = await store.begin(
    {
      scheduleId,
      cron: schedule.schedule,
      runbookId: schedule.runbookId,
      runbookName: schedule.runbookName,
      pausedBy: actor.userId,
      teamId: actor.teamId,
    },
    deps.now(),
  );
  if (!began) return refused('duplicate', 'That schedule is already paused; the list shows it with Resume.');
  try {
    await deps.api.schedules.update(scheduleId, { schedule: NEVER_FIRES });
  } catch (err) {
    if (err instanceof NotFoundError) {
      await store.remove(scheduleId, 'pausing');
      return refused('not-found', GONE);
    }
    // An answer came back: nothing changed in the API, so the intent goes. A lost answer may have paused
    // it: the intent stays and reconciliation finishes the pause the person asked for.
    if (definitelyNotApplied(err)) await store.remove(scheduleId, 'pausing');
    await recordAction(deps, actor, 'schedule.pause', targetOf(schedule), 'error', describeApiError(err));
    return { kind: 'failed', error: err };
  }
  await store.move(scheduleId, 'pausing', 'paused', deps.now());
  await recordAction(deps, actor, 'schedule.pause', targetOf(schedule), 'ok', `was ${schedule.schedule}`);
  const pause = (await store.get(scheduleId)) as SchedulePause;
  return { kind: 'paused', schedule, pause };
}

/** Resumes a paused schedule with its real expression; one caller wins when several click at once. */
export async function resumeSchedule(deps: RunsDeps, actor: Actor, scheduleId: string): Promise<PauseResult> {
  const store = deps.access.store.schedulePauses;
  const pause = await store.get(scheduleId);
  if (pause?.state !== 'paused') {
    return refused('duplicate', 'That schedule is not paused (any more); the list below is up to date.');
  }
  const schedule = await scheduleOrNull(deps, scheduleId);
  if (!schedule) {
    await store.remove(scheduleId);
    return refused('not-found', GONE);
  }
  const refusal = await checkScheduleChange(deps, actor, schedule, 'schedule.resume');
  if (refusal) return refusal;
  if (!(await store.move(scheduleId, 'paused', 'resuming', deps.now()))) {
    return refused('duplicate', 'Someone else is resuming that schedule already; the list below is up to date.');
  }
  try {
    await deps.api.schedules.update(scheduleId, { schedule: pause.cron });
  } catch (err) {
    if (err instanceof NotFoundError) {
      await store.remove(scheduleId);
      return refused('not-found', GONE);
    }
    if (definitelyNotApplied(err)) await store.move(scheduleId, 'resuming', 'paused', deps.now());
    await recordAction(deps, actor, 'schedule.resume', targetOf(schedule), 'error', describeApiError(err));
    return { kind: 'failed', error: err };
  }
  await store.remove(scheduleId, 'resuming');
  await recordAction(deps, actor, 'schedule.resume', targetOf(schedule), 'ok', pause.cron);
  return { kind: 'resumed', schedule: { ...schedule, schedule: pause.cron }, cron: pause.cron };
}

export interface PauseReconcileReport {
  paused: string[];
  resumed: string[];
  /** Schedules deleted in the API meanwhile: their rows were dropped. */
  gone: string[];
  /** The API could not be asked: left for the next pass. */
  pending: string[];
}

/**
 * Finishes pauses and resumes a crash (or a lost answer) left in flight for longer than `graceMs` (a
 * call still in flight on some replica is younger): the same API call again, then the same settlement.
 */
export async function reconcilePauses(deps: RunsDeps, options: { graceMs: number }): Promise<PauseReconcileReport> {
  const store = deps.access.store.schedulePauses;
  const report: PauseReconcileReport = { paused: [], resumed: [], gone: [], pending: [] };
  for (const row of await store.listUnsettled(deps.now() - options.graceMs, 50)) {
    const who = { userId: row.pausedBy, teamId: row.teamId, channelId: null };
    const target = targetOf({ id: row.scheduleId, runbookId: row.runbookId, runbookName: row.runbookName });
    const resuming = row.state === 'resuming';
    try {
      await deps.api.schedules.update(row.scheduleId, { schedule: resuming ? row.cron : NEVER_FIRES });
    } catch (err) {
      if (err instanceof NotFoundError) {
        await store.remove(row.scheduleId, row.state);
        report.gone.push(row.scheduleId);
        continue;
      }
      deps.logger.warn({ err, scheduleId: row.scheduleId }, 'could not finish pausing or resuming a schedule');
      report.pending.push(row.scheduleId);
      continue;
    }
    const detail = `${row.cron}; finished after a restart (the answer to the API call was not recorded)`;
    if (resuming) {
      if (await store.remove(row.scheduleId, 'resuming')) {
        await recordAction(deps, who, 'schedule.resume', target, 'ok', detail);
        report.resumed.push(row.scheduleId);
      }
    } else if (await store.move(row.scheduleId, 'pausing', 'paused', deps.now())) {
      await recordAction(deps, who, 'schedule.pause', target, 'ok', detail);
      report.paused.push(row.scheduleId);
    }
  }
  return report;
}
