// The runs due in a window across the schedules a person may view (`/runbook schedules --next`, App Home).
// A paused schedule does not run; a skipped one runs again after its timer; a run due inside a change freeze
// covering its schedule is marked held. Real expressions come from the
// store for paused ones (the API holds a never-firing placeholder). The times are src/schedules/forecast.ts's.
import {
  FORECAST_WINDOWS,
  type ForecastRun,
  type ForecastWindow,
  type FrequentSchedule,
  forecastRuns,
} from '../schedules/forecast.ts';
import { installationKey } from '../tenants/tenant-scope.ts';
import type { RunsDeps } from './deps.ts';
import { type ScheduleFreezeScope, scheduleFreezeScope } from './gate.ts';
import type { Visibility } from './visibility.ts';

/** Schedules read at most (the forecast says when it was cut). */
const MAX_SCHEDULES = 1_000;

/** A forecast run, and the change freeze that will hold it (its schedule paused then), if any. */
export interface HeldRun extends ForecastRun {
  frozenBy?: string | null;
}

/** A schedule firing more often than hourly, summed up; held when a freeze covers its first run. */
export interface HeldFrequent extends FrequentSchedule {
  frozenBy?: string | null;
}

export interface VisibleForecast {
  runs: HeldRun[];
  /** Schedules firing more often than hourly: one summary each, their runs not listed. */
  frequent: HeldFrequent[];
  /** More runs were due than listed. */
  truncated: boolean;
  /** Schedules left out while paused. */
  pausedCount: number;
  /** Schedules whose expression could not be read. */
  unreadableCount: number;
}

export async function forecastFor(
  deps: RunsDeps,
  visible: Pick<Visibility, 'ref'>,
  window: ForecastWindow,
  /** Only this runbook's schedules (`/runbook schedules <runbook> --next`); all by default. */
  runbookId: string | null = null,
): Promise<VisibleForecast> {
  const pauses = new Map(
    (await deps.access.store.schedulePauses.list(MAX_SCHEDULES, installationKey())).map(
      (p) => [p.scheduleId, p] as const,
    ),
  );
  const schedules = [];
  let pausedCount = 0;
  for await (const s of deps.api.schedules.iterate({ pageSize: 100 })) {
    if (runbookId !== null && s.runbookId !== runbookId) continue;
    if (!visible.ref({ id: s.runbookId, name: s.runbookName })) continue;
    const pause = pauses.get(s.id);
    if (pause && pause.resumeAt === null) {
      pausedCount += 1;
      continue;
    }
    // A skipped schedule's runs before its timer do not happen.
    schedules.push({
      id: s.id,
      runbookId: s.runbookId,
      runbookName: s.runbookName,
      cron: pause?.cron ?? s.schedule,
      after: pause?.resumeAt ?? null,
    });
    if (schedules.length >= MAX_SCHEDULES) break;
  }
  const forecast = forecastRuns(schedules, deps.now(), FORECAST_WINDOWS[window]);
  // A run due inside a change freeze that covers its schedule will not happen (the freeze pauses it): said.
  const { policy } = deps.access;
  const scopes = new Map<string, ScheduleFreezeScope>();
  const heldBy = async (run: { scheduleId: string; runbookId: string; runbookName: string; at: number }) => {
    if (policy.freezes.length === 0) return null;
    let judged = scopes.get(run.scheduleId);
    if (!judged) {
      judged = await scheduleFreezeScope(deps, { id: run.scheduleId, ...run });
      scopes.set(run.scheduleId, judged);
    }
    return policy.freezeAt(judged.scope, judged.runbook, run.at)?.name ?? null;
  };
  const held: HeldRun[] = [];
  for (const run of forecast.runs) held.push({ ...run, frozenBy: await heldBy(run) });
  const frequent: HeldFrequent[] = [];
  for (const f of forecast.frequent) frequent.push({ ...f, frozenBy: await heldBy({ ...f, at: f.firstAt }) });
  return {
    runs: held,
    frequent,
    truncated: forecast.truncated,
    pausedCount,
    unreadableCount: forecast.unreadable.length,
  };
}
