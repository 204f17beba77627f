// The two writes of a pause, each recorded in the store before its API call (schedule-pauses.ts says why):
// `applyPause` (intent `pausing` → PATCH never → `paused`) and `restore` (`paused` → `resuming` → PATCH the
// real expression → row removed). Below the use cases that decide them (a person's Pause, Skip and Resume, a
// change freeze, a schedule created inside one), so each imports them without importing the others.
import { ConnectionError, describeApiError, NotFoundError, RunbookApiError } from '../api/errors.ts';
import { Schedule } from '../api/schemas.ts';
import type { SchedulePause } from '../store/store.ts';
import { installationKey } from '../tenants/tenant-scope.ts';
import type { Actor } from './actor.ts';
import type { RunsDeps } from './deps.ts';
import { recordAction } from './gate.ts';
import { type Refusal, refused } from './run.ts';

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

export const GONE = 'That schedule no longer exists; run /runbook schedules to see the current list.';

/**
 * An error that proves the API did not apply the change: a 4xx answer, or a request that never left.
 * A lost answer, a timeout, a 5xx from a gateway or a 2xx we could not read may have applied it.
 */
export function definitelyNotApplied(err: unknown): boolean {
  if (err instanceof ConnectionError) return !err.requestSent;
  return err instanceof RunbookApiError && err.status !== null && err.status >= 400 && err.status < 500;
}

export function targetOf(schedule: Pick<Schedule, 'id' | 'runbookId' | 'runbookName'>): string {
  return `${schedule.runbookName} (${schedule.runbookId}) schedule ${schedule.id}`;
}

/**
 * The pause itself, after whatever decided it (a person through the gate, or a change freeze): intent
 * recorded → PATCH never → settled `paused`; audited as `action` on behalf of `who`.
 */
export async function applyPause(
  deps: RunsDeps,
  who: Pick<Actor, 'userId' | 'teamId' | 'channelId'>,
  schedule: Schedule,
  how: { resumeAt: number | null; freeze: string | null; action: string; detail: string },
): Promise<PauseResult> {
  const store = deps.access.store.schedulePauses;
  const key = installationKey();
  const scheduleId = schedule.id;
  const began = await store.begin(
    {
      scheduleId,
      cron: schedule.schedule,
      runbookId: schedule.runbookId,
      runbookName: schedule.runbookName,
      pausedBy: who.userId,
      teamId: who.teamId,
      resumeAt: how.resumeAt,
      freeze: how.freeze,
    },
    deps.now(),
    key,
  );
  if (!began) return refused('duplicate', 'That schedule is already paused; the list shows it with Resume.');
  try {
    await deps.api.schedules.update(scheduleId, { schedule: NEVER_FIRES });
  } catch (err) {
    if (err instanceof NotFoundError) {
      await store.remove(scheduleId, 'pausing', key);
      return refused('not-found', GONE);
    }
    // An answer came back: nothing changed in the API, so the intent goes. A lost answer may have paused
    // it: the intent stays and reconciliation finishes the pause the person asked for.
    if (definitelyNotApplied(err)) await store.remove(scheduleId, 'pausing', key);
    await recordAction(deps, who, how.action, targetOf(schedule), 'error', describeApiError(err));
    return { kind: 'failed', error: err };
  }
  await store.move(scheduleId, 'pausing', 'paused', deps.now(), key);
  await recordAction(deps, who, how.action, targetOf(schedule), 'ok', how.detail);
  const pause = (await store.get(scheduleId, key)) as SchedulePause;
  return { kind: 'paused', schedule, pause };
}

/** paused → resuming (compare-and-set) → PATCH the real expression → row removed; audited. */
export async function restore(
  deps: RunsDeps,
  who: Pick<Actor, 'userId' | 'teamId' | 'channelId'>,
  pause: SchedulePause,
  detail: string,
): Promise<PauseResult> {
  const store = deps.access.store.schedulePauses;
  const { scheduleId, installationId: key } = pause;
  const target = targetOf({ id: scheduleId, runbookId: pause.runbookId, runbookName: pause.runbookName });
  if (!(await store.move(scheduleId, 'paused', 'resuming', deps.now(), key))) {
    return refused('duplicate', 'Someone else is resuming that schedule already; the list below is up to date.');
  }
  try {
    await deps.api.schedules.update(scheduleId, { schedule: pause.cron });
  } catch (err) {
    if (err instanceof NotFoundError) {
      await store.remove(scheduleId, undefined, key);
      return refused('not-found', GONE);
    }
    if (definitelyNotApplied(err)) await store.move(scheduleId, 'resuming', 'paused', deps.now(), key);
    await recordAction(deps, who, 'schedule.resume', target, 'error', describeApiError(err));
    return { kind: 'failed', error: err };
  }
  await store.remove(scheduleId, 'resuming', key);
  await recordAction(deps, who, 'schedule.resume', target, 'ok', detail);
  const schedule = Schedule.parse({
    id: scheduleId,
    runbookId: pause.runbookId,
    runbookName: pause.runbookName,
    schedule: pause.cron,
  });
  return { kind: 'resumed', schedule, cron: pause.cron };
}
