// Forecast: every run due in a window across schedules, computed as the API fires them (GMT, through the
// one croner configuration in cron-builder.ts), with overlapping runs of one runbook flagged and a schedule
// firing more often than hourly summed up. Pure: the caller gives the schedules, the start and the window;
// showing times in a person's zone is the builder's.

import { validateCron } from './cron.ts';
import { buildCron } from './cron-builder.ts';

export interface ForecastSchedule {
  id: string;
  runbookId: string;
  runbookName: string;
  /** The real expression (a paused schedule is left out by the caller; it does not run). */
  cron: string;
  /** Skipped until then (epoch ms): its runs at or before it do not happen. */
  after?: number | null;
}

/**
 * A schedule firing more often than hourly, summed up in one line instead of a line per run: every
 * minute would otherwise fill the window (1,440 lines a day), each one "overlapping" its neighbour.
 */
export interface FrequentSchedule {
  scheduleId: string;
  runbookId: string;
  runbookName: string;
  cron: string;
  /** Runs due in the window (at most MAX_COUNTED; `countCut` says when there are more). */
  count: number;
  countCut: boolean;
  /** Epoch ms of its first run in the window. */
  firstAt: number;
  /** The shortest time between two of its runs. */
  minGapMs: number;
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
  /** Schedules firing more often than FREQUENT_GAP_MS: summed up, their runs not listed one by one. */
  frequent: FrequentSchedule[];
}

/** A schedule whose runs come closer than this is summed up (FrequentSchedule). */
export const FREQUENT_GAP_MS = 60 * 60_000;
/** Runs of one schedule counted at most (every minute for 7 days is 10,080). */
const MAX_COUNTED = 11_000;
/** Runs computed at most across all schedules of one forecast, so many busy schedules stay cheap (counts then cut). */
const COMPUTE_BUDGET = 20_000;

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
  const frequent: FrequentSchedule[] = [];
  /** Run times of each runbook's frequent schedules, so a listed run close to one is still flagged. */
  const frequentTimes = new Map<string, number[][]>();
  let truncated = false;
  let budget = COMPUTE_BUDGET;
  for (const s of schedules) {
    const check = validateCron(s.cron);
    if (!check.ok) {
      unreadable.push(s.id);
      continue;
    }
    const cron = buildCron(check.expression);
    const times: number[] = [];
    let minGapMs = Number.POSITIVE_INFINITY;
    let next = cron.nextRun(new Date(Math.max(from, s.after ?? from)));
    let countCut = false;
    while (next && next.getTime() <= end) {
      // The budget only cuts a schedule already known to fire more often than hourly (its count then
      // says "+"); any other has at most one run an hour, so it is always computed whole.
      const frequentSoFar = minGapMs < FREQUENT_GAP_MS;
      if (times.length >= MAX_COUNTED || (frequentSoFar && budget <= 0)) {
        countCut = true;
        break;
      }
      budget -= 1;
      const at = next.getTime();
      if (times.length > 0) minGapMs = Math.min(minGapMs, at - times.at(-1)!);
      times.push(at);
      next = cron.nextRun(next);
    }
    if (times.length >= 2 && minGapMs < FREQUENT_GAP_MS) {
      frequent.push({
        scheduleId: s.id,
        runbookId: s.runbookId,
        runbookName: s.runbookName,
        cron: s.cron,
        count: times.length,
        countCut,
        firstAt: times[0]!,
        minGapMs,
      });
      frequentTimes.set(s.runbookId, [...(frequentTimes.get(s.runbookId) ?? []), times]);
      continue;
    }
    // Per schedule at most maxRuns + 1: enough to know the whole list is cut.
    if (times.length > maxRuns) truncated = true;
    for (const at of times.slice(0, maxRuns + 1)) {
      runs.push({ scheduleId: s.id, runbookId: s.runbookId, runbookName: s.runbookName, at });
    }
  }
  runs.sort(
    (a, b) => a.at - b.at || a.runbookName.localeCompare(b.runbookName) || a.scheduleId.localeCompare(b.scheduleId),
  );
  if (runs.length > maxRuns) truncated = true;
  const flagged = flagOverlaps(runs, overlapMs);
  for (const run of flagged) {
    if (frequentTimes.get(run.runbookId)?.some((times) => nearest(times, run.at) <= overlapMs)) run.overlaps = true;
  }
  frequent.sort((a, b) => a.firstAt - b.firstAt || a.runbookName.localeCompare(b.runbookName));
  return { runs: flagged.slice(0, maxRuns), truncated, unreadable, frequent };
}

/** The distance from `at` to the closest of `times` (sorted). */
function nearest(times: readonly number[], at: number): number {
  let lo = 0;
  let hi = times.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid]! < at) lo = mid + 1;
    else hi = mid;
  }
  const after = Math.abs(times[lo]! - at);
  return lo > 0 ? Math.min(after, Math.abs(at - times[lo - 1]!)) : after;
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
