// Forecast: every run due in a window across schedules, computed as the API fires them (GMT, through the
// one croner configuration in cron-builder.ts), with overlapping runs of one runbook flagged. Pure: the
// caller gives the schedules, the start and the window; showing times in a person's zone is the builder's.

import { validateCron } from './cron.ts';
import { buildCron } from './cron-builder.ts';

export interface ForecastSchedule {
  id: string;
  runbookId: string;
  runbookName: string;
  /** The real expression (a paused schedule is left out by the caller; it does not run). */
  cron: string;
}

export interface ForecastRun {
  scheduleId: string;
  runbookId: string;
  runbookName: string;
  /** Epoch ms (UTC) the API fires it. */
  at: number;
  /** Another run of the same runbook is due within `overlapMs` of this one. */
  overlaps: boolean;
}

export interface Forecast {
  runs: ForecastRun[];
  /** More runs were due than `maxRuns`: the list stops at the earliest ones. */
  truncated: boolean;
  /** Schedules whose expression could not be read (left out). */
  unreadable: string[];
}

/** Windows `/runbook schedules --next` accepts. */
export const FORECAST_WINDOWS = { '24h': 24 * 60 * 60_000, '7d': 7 * 24 * 60 * 60_000 } as const;
export type ForecastWindow = keyof typeof FORECAST_WINDOWS;

/** Two runs of one runbook this close together count as overlapping (how long a run usually takes is unknown here). */
export const DEFAULT_OVERLAP_MS = 15 * 60_000;

/** Runs due in (from, from + windowMs], earliest first (ties: runbook name, schedule id). */
export function forecastRuns(
  schedules: readonly ForecastSchedule[],
  from: number,
  windowMs: number,
  options: { maxRuns?: number; overlapMs?: number } = {},
): Forecast {
  const maxRuns = options.maxRuns ?? 500;
  const overlapMs = options.overlapMs ?? DEFAULT_OVERLAP_MS;
  const end = from + windowMs;
  const runs: Omit<ForecastRun, 'overlaps'>[] = [];
  const unreadable: string[] = [];
  let truncated = false;
  for (const s of schedules) {
    const check = validateCron(s.cron);
    if (!check.ok) {
      unreadable.push(s.id);
      continue;
    }
    const cron = buildCron(check.expression);
    let next = cron.nextRun(new Date(from));
    // Per schedule at most maxRuns + 1: enough to know the whole list is cut.
    for (let n = 0; next && next.getTime() <= end; n++) {
      if (n > maxRuns) {
        truncated = true;
        break;
      }
      runs.push({ scheduleId: s.id, runbookId: s.runbookId, runbookName: s.runbookName, at: next.getTime() });
      next = cron.nextRun(next);
    }
  }
  runs.sort(
    (a, b) => a.at - b.at || a.runbookName.localeCompare(b.runbookName) || a.scheduleId.localeCompare(b.scheduleId),
  );
  if (runs.length > maxRuns) truncated = true;
  const flagged = flagOverlaps(runs, overlapMs);
  return { runs: flagged.slice(0, maxRuns), truncated, unreadable };
}

/** Marks runs with another run of the same runbook within `overlapMs` (runs sorted by time). */
function flagOverlaps(runs: readonly Omit<ForecastRun, 'overlaps'>[], overlapMs: number): ForecastRun[] {
  const flagged: ForecastRun[] = runs.map((r) => ({ ...r, overlaps: false }));
  const lastOf = new Map<string, ForecastRun>();
  for (const run of flagged) {
    const previous = lastOf.get(run.runbookId);
    if (previous && run.at - previous.at <= overlapMs) {
      previous.overlaps = true;
      run.overlaps = true;
    }
    lastOf.set(run.runbookId, run);
  }
  return flagged;
}
