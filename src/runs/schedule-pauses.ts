// Pausing a schedule. The API has no pause, so the schedule stays in the API (its id, params, proxy and
// the API's owner unchanged) with an expression that never fires, and the store keeps the real one.
// Each change is recorded in the store before the API call and settled after it (as runs are, in
// run-intents.ts): `pausing` → PATCH never → `paused`; `paused` → `resuming` → PATCH real → row removed.
// A crash between the two leaves a row in flight that `reconcilePauses` finishes (at start and every
// minute, on any replica); both API calls are idempotent, so finishing one twice is harmless. The real
// expression is dropped only after the API holds it again, so a paused schedule is never lost, and a
// row says paused only once the API's copy no longer fires.
import { NotFoundError } from '../api/errors.ts';
import type { Schedule } from '../api/schemas.ts';
import { freezeEnd } from '../policy/freezes.ts';
import { nextRuns, validateCron } from '../schedules/cron.ts';
import type { SchedulePause } from '../store/store.ts';
import { installationKey } from '../tenants/tenant-scope.ts';
import type { Actor } from './actor.ts';
import type { RunsDeps } from './deps.ts';
import { type FreezeOptions, recordAction, recordDenial, scheduleFreeze } from './gate.ts';
import { refused } from './run.ts';
import { applyPause, GONE, NEVER_FIRES, type PauseResult, restore, targetOf } from './schedule-pause-write.ts';
import { checkScheduleChange } from './schedules.ts';

async function scheduleOrNull(deps: RunsDeps, id: string): Promise<Schedule | null> {
  try {
    return await deps.api.schedules.get(id, { timeoutMs: deps.interactiveTimeoutMs });
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
}

/**
 * How long after the skipped run's time a skip resumes the schedule: the service's scheduler may fire a
 * little late, and resuming before it fired would not skip it.
 */
export const SKIP_MARGIN_MS = 60_000;

/** The lease under which one replica resumes skips whose run has passed. */
export const SKIP_LEASE = 'schedule-skips';

/** The schedule's next firing after `now` (GMT, as the API fires it), or null when it never fires. */
function nextFire(expression: string, now: number): number | null {
  if (!validateCron(expression).ok) return null;
  return nextRuns(expression, 1, new Date(now))[0]?.getTime() ?? null;
}

/** Pauses a schedule until Resume: `change-schedule` on it, then intent → API → settled. */
export function pauseSchedule(deps: RunsDeps, actor: Actor, scheduleId: string): Promise<PauseResult> {
  return holdSchedule(deps, actor, scheduleId, 'pause');
}

/**
 * Skips the schedule's next run: paused like Pause, with a durable timer (`resumeAt`, just after that
 * run's time) that `resumeDueSkips` acts on, on one replica at a time.
 */
export function skipNextRun(deps: RunsDeps, actor: Actor, scheduleId: string): Promise<PauseResult> {
  return holdSchedule(deps, actor, scheduleId, 'skip');
}

async function holdSchedule(
  deps: RunsDeps,
  actor: Actor,
  scheduleId: string,
  kind: 'pause' | 'skip',
): Promise<PauseResult> {
  const action = kind === 'pause' ? 'schedule.pause' : 'schedule.skip';
  const schedule = await scheduleOrNull(deps, scheduleId);
  if (!schedule) return refused('not-found', GONE);
  const refusal = await checkScheduleChange(deps, actor, schedule, action);
  if (refusal) return refusal;
  let resumeAt: number | null = null;
  if (kind === 'skip') {
    const next = nextFire(schedule.schedule, deps.now());
    if (next === null) return refused('invalid', 'That schedule has no next run to skip; edit its expression first.');
    resumeAt = next + SKIP_MARGIN_MS;
  }
  const store = deps.access.store.schedulePauses;
  const detail =
    resumeAt === null
      ? `was ${schedule.schedule}`
      : `${schedule.schedule}: skips the run at ${new Date(resumeAt - SKIP_MARGIN_MS).toISOString()}, resumes after it`;
  const result = await applyPause(deps, actor, schedule, { resumeAt, freeze: null, action, detail });
  if (result.kind !== 'refused' || result.reason !== 'duplicate' || kind !== 'pause') return result;
  // Paused by a change freeze: Pause takes it over, so it stays paused after the freeze.
  const key = installationKey();
  const held = await store.get(scheduleId, key);
  if (
    held?.freeze &&
    (await store.handOver(scheduleId, held.freeze, { freeze: null, pausedBy: actor.userId }, deps.now(), key))
  ) {
    await recordAction(
      deps,
      actor,
      action,
      targetOf(schedule),
      'ok',
      `was ${held.cron}; taken over from the change freeze “${held.freeze}”`,
    );
    return { kind: 'paused', schedule, pause: (await store.get(scheduleId, key)) as SchedulePause };
  }
  return result;
}

/** Resumes a paused schedule with its real expression; one caller wins when several click at once. */
export async function resumeSchedule(deps: RunsDeps, actor: Actor, scheduleId: string): Promise<PauseResult> {
  const store = deps.access.store.schedulePauses;
  const key = installationKey();
  const pause = await store.get(scheduleId, key);
  if (pause?.state !== 'paused') {
    return refused('duplicate', 'That schedule is not paused (any more); the list below is up to date.');
  }
  const schedule = await scheduleOrNull(deps, scheduleId);
  if (!schedule) {
    await store.remove(scheduleId, undefined, key);
    return refused('not-found', GONE);
  }
  const refusal = await checkScheduleChange(deps, actor, schedule, 'schedule.resume');
  if (refusal) return refusal;
  // A change freeze covering it would pause it again: it stays paused until the freeze ends.
  const { freeze } = await scheduleFreeze(deps, schedule);
  if (freeze) {
    const sentence = `That schedule stays paused during the change freeze “${freeze.name}”, until ${freezeEnd(freeze.end, actor.timeZone)}${pause.freeze ? '; it resumes by itself then' : ''}.`;
    await recordDenial(deps, actor, { action: 'schedule.resume', target: targetOf(schedule), sentence });
    return refused('frozen', sentence);
  }
  const result = await restore(deps, actor, pause, pause.cron);
  return result.kind === 'resumed' ? { ...result, schedule: { ...schedule, schedule: pause.cron } } : result;
}

/**
 * Only the rows of the installation in scope ('' = the single workspace); many workspaces: of one workspace
 * too (`deps` are its installation's, in its scope).
 */
function ofTeam(rows: SchedulePause[], teamId: string | null | undefined): SchedulePause[] {
  const key = installationKey();
  return rows.filter((row) => row.installationId === key && (teamId === undefined || row.teamId === teamId));
}

/**
 * Resumes skips whose run has passed. Called every minute on every replica; the lease lets one replica
 * act at a time, and the compare-and-set in `restore` keeps a late second one from doing it again.
 */
export async function resumeDueSkips(
  deps: RunsDeps,
  options: { owner: string; leaseMs: number; teamId?: string | null } & FreezeOptions,
): Promise<string[]> {
  const now = deps.now();
  const coordination = deps.access.store.coordination;
  if (!(await coordination.holdLease(SKIP_LEASE, options.owner, now + options.leaseMs, now))) return [];
  const resumed: string[] = [];
  const store = deps.access.store.schedulePauses;
  for (const pause of ofTeam(await store.listDue(now, 50), options.teamId)) {
    // Due inside a change freeze that covers it: the freeze holds it and resumes it when it ends.
    const { freeze } = await scheduleFreeze(deps, { id: pause.scheduleId, ...pause }, options);
    if (
      freeze &&
      (await store.handOver(pause.scheduleId, null, { freeze: freeze.name }, deps.now(), pause.installationId))
    ) {
      continue;
    }
    const who = { userId: pause.pausedBy, teamId: pause.teamId, channelId: null };
    const skipped = new Date((pause.resumeAt ?? now) - SKIP_MARGIN_MS).toISOString();
    const result = await restore(deps, who, pause, `${pause.cron}; by itself after skipping the run at ${skipped}`);
    if (result.kind === 'resumed') resumed.push(pause.scheduleId);
    // failed: still paused (or in flight, for reconciliation); the next pass tries again.
    if (result.kind === 'failed') deps.logger.warn({ err: result.error }, 'could not resume a skipped schedule');
  }
  return resumed;
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
export async function reconcilePauses(
  deps: RunsDeps,
  options: { graceMs: number; teamId?: string | null },
): Promise<PauseReconcileReport> {
  const store = deps.access.store.schedulePauses;
  const report: PauseReconcileReport = { paused: [], resumed: [], gone: [], pending: [] };
  for (const row of ofTeam(await store.listUnsettled(deps.now() - options.graceMs, 50), options.teamId)) {
    const who = { userId: row.pausedBy, teamId: row.teamId, channelId: null };
    const target = targetOf({ id: row.scheduleId, runbookId: row.runbookId, runbookName: row.runbookName });
    const resuming = row.state === 'resuming';
    try {
      await deps.api.schedules.update(row.scheduleId, { schedule: resuming ? row.cron : NEVER_FIRES });
    } catch (err) {
      if (err instanceof NotFoundError) {
        await store.remove(row.scheduleId, row.state, row.installationId);
        report.gone.push(row.scheduleId);
        continue;
      }
      deps.logger.warn({ err, scheduleId: row.scheduleId }, 'could not finish pausing or resuming a schedule');
      report.pending.push(row.scheduleId);
      continue;
    }
    const detail = `${row.cron}; finished after a restart (the answer to the API call was not recorded)`;
    if (resuming) {
      if (await store.remove(row.scheduleId, 'resuming', row.installationId)) {
        await recordAction(deps, who, 'schedule.resume', target, 'ok', detail);
        report.resumed.push(row.scheduleId);
      }
    } else if (await store.move(row.scheduleId, 'pausing', 'paused', deps.now(), row.installationId)) {
      await recordAction(deps, who, 'schedule.pause', target, 'ok', detail);
      report.paused.push(row.scheduleId);
    }
  }
  return report;
}
