// A runbook's health from its executions: runs, success rate, median and p95 duration, the last outcomes,
// the most common failure reasons, the expected duration of a new run, and the same per day (for a chart).
// Pure: the caller gives the executions it read and says how far back they reach; nothing here reads a
// clock or the API. Every execution is placed by its own timestamps, whatever a list filter promised.
import type { Execution } from '../api/schemas.ts';

export const DAY_MS = 24 * 60 * 60_000;
/** The window health is asked over. */
export const HEALTH_WINDOW_DAYS = 30;
/** Outcomes shown as a strip. */
export const LAST_OUTCOMES = 10;
/** Runs the expected duration of a new run is the median of. */
export const ETA_RUNS = 20;
/** Fewer finished runs than this say nothing about how long the next one takes. */
export const ETA_MIN_RUNS = 3;
/** Failure reasons listed. */
export const TOP_REASONS = 3;

export type Outcome = 'succeeded' | 'failed' | 'running' | 'unknown';

/** Why what was read reaches less far back than the window (none: it covers the whole window). */
export type HealthLimit = 'none' | 'runs' | 'pages';

export interface HealthCoverage {
  /** Epoch ms: the executions given are every one of the runbook's since this time (≥ the window start). */
  coveredFrom: number;
  /** What stopped the reading short of the window start: the run cap, or the page bound. */
  limitedBy: HealthLimit;
}

export interface FailureReason {
  reason: string;
  count: number;
}

export interface DailyHealth {
  /** UTC date, YYYY-MM-DD. */
  day: string;
  /** Epoch ms of that day's 00:00 UTC. */
  startMs: number;
  succeeded: number;
  failed: number;
  /** Running or of unknown status. */
  other: number;
  /** Median duration of that day's finished runs (null: none with a duration). */
  medianMs: number | null;
  /** Longest finished run that day (null: none). */
  maxMs: number | null;
  /** The data reaches back over this day (false: it was read only from later on, so its zeros mean "unknown"). */
  covered: boolean;
}

export interface RunbookEta {
  /** Median duration of the latest finished runs. */
  medianMs: number;
  /** How many runs that median is of (≤ ETA_RUNS). */
  runs: number;
  /** Past this a run is longer than usual (p95 of the window; null when too few runs). */
  p95Ms: number | null;
}

export interface RunbookHealth {
  runbookName: string;
  /** When it was computed (epoch ms). */
  asOf: number;
  /** Days asked (HEALTH_WINDOW_DAYS). */
  windowDays: number;
  /** Start of the window asked (epoch ms). */
  windowStart: number;
  coverage: HealthCoverage;
  /** Whole days the data covers (≤ windowDays). */
  daysCovered: number;
  /** Executions in the covered window, every status. */
  runs: number;
  succeeded: number;
  failed: number;
  running: number;
  /** succeeded / (succeeded + failed); null when none finished. */
  successRate: number | null;
  medianMs: number | null;
  p95Ms: number | null;
  /** Newest first, at most LAST_OUTCOMES. */
  lastOutcomes: Outcome[];
  /** Most common first (ties: the most recent first), at most TOP_REASONS. */
  failureReasons: FailureReason[];
  eta: RunbookEta | null;
  /** One entry per day of the window, oldest first. */
  daily: DailyHealth[];
}

export function outcomeOf(e: Pick<Execution, 'executionStatus'>): Outcome {
  switch (e.executionStatus) {
    case 'EXECUTION_STATUS_SUCCEEDED':
      return 'succeeded';
    case 'EXECUTION_STATUS_FAILED':
      return 'failed';
    case 'EXECUTION_STATUS_IN_PROGRESS':
      return 'running';
    default:
      return 'unknown';
  }
}

function timeOf(value: string | null | undefined): number | null {
  if (!value) return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}

/** When an execution happened by its own timestamps: its start, else its creation; null when neither reads. */
export function executionTime(e: Pick<Execution, 'startTime' | 'createTime'>): number | null {
  return timeOf(e.startTime) ?? timeOf(e.createTime);
}

const UNIT_MS: Record<string, number> = { d: DAY_MS, h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/**
 * The `duration` field as ms: "65s", "65.5s" (protobuf Duration), "1m 5s", "1h2m", "00:01:05", or a bare
 * number of seconds. null when it does not read as one.
 */
export function parseDuration(text: string): number | null {
  const t = text.trim().toLowerCase();
  if (t === '') return null;
  if (/^\d+(\.\d+)?$/.test(t)) return Math.round(Number(t) * 1000);
  const clock = /^(?:(\d+):)?(\d{1,2}):(\d{1,2}(?:\.\d+)?)$/.exec(t);
  if (clock) return Math.round(((Number(clock[1] ?? 0) * 60 + Number(clock[2])) * 60 + Number(clock[3])) * 1000);
  const parts = [...t.matchAll(/(\d+(?:\.\d+)?)\s*(ms|d|h|m|s)/g)];
  if (parts.length === 0 || t.replace(/(\d+(?:\.\d+)?)\s*(ms|d|h|m|s)/g, '').trim() !== '') return null;
  return Math.round(parts.reduce((sum, p) => sum + Number(p[1]) * UNIT_MS[p[2]!]!, 0));
}

/** How long a finished execution took: end − start when both read, else its `duration`; null otherwise. */
export function durationMsOf(e: Pick<Execution, 'startTime' | 'endTime' | 'duration'>): number | null {
  const start = timeOf(e.startTime);
  const end = timeOf(e.endTime);
  if (start !== null && end !== null && end >= start) return end - start;
  return parseDuration(e.duration ?? '');
}

/** Nearest-rank percentile (p in 0..100) of values; null for none. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

/** The median (the mean of the two middle values for an even count); null for none. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : Math.round((sorted[mid - 1]! + sorted[mid]!) / 2);
}

interface Placed {
  e: Execution;
  at: number;
  outcome: Outcome;
  durationMs: number | null;
}

/** The executions inside [from, to], each with its time, newest first (ties keep their order). */
function place(executions: readonly Execution[], from: number, to: number): Placed[] {
  const placed: Placed[] = [];
  for (const e of executions) {
    const at = executionTime(e);
    if (at === null || at < from || at > to) continue;
    const outcome = outcomeOf(e);
    const finished = outcome === 'succeeded' || outcome === 'failed';
    placed.push({ e, at, outcome, durationMs: finished ? durationMsOf(e) : null });
  }
  return placed
    .map((p, i) => ({ p, i }))
    .sort((a, b) => b.p.at - a.p.at || a.i - b.i)
    .map(({ p }) => p);
}

function reasonText(reason: string): string {
  const text = reason.replace(/\s+/g, ' ').trim();
  return text === '' ? '(no reason given)' : text.length > 300 ? `${text.slice(0, 299)}…` : text;
}

/** Failed runs grouped by reason (case and spacing ignored), most common first; ties: the latest first. */
export function commonFailureReasons(executions: readonly Execution[], top = TOP_REASONS): FailureReason[] {
  const groups = new Map<string, { reason: string; count: number; order: number }>();
  let order = 0;
  // Newest first in, so the wording kept is the latest one.
  for (const e of executions) {
    if (outcomeOf(e) !== 'failed') continue;
    const reason = reasonText(e.reason ?? '');
    const key = reason.toLowerCase();
    const group = groups.get(key);
    if (group) group.count++;
    else groups.set(key, { reason, count: 1, order: order++ });
  }
  return [...groups.values()]
    .sort((a, b) => b.count - a.count || a.order - b.order)
    .slice(0, top)
    .map(({ reason, count }) => ({ reason, count }));
}

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * Runs per UTC day over the `days` days ending at `nowMs` (oldest first, today last): outcomes and the
 * median and longest duration of the finished ones. What a chart of daily runs by outcome is drawn from.
 */
export function dailyHealth(
  executions: readonly Execution[],
  options: { nowMs: number; days?: number; coveredFrom?: number },
): DailyHealth[] {
  const days = options.days ?? HEALTH_WINDOW_DAYS;
  const todayStart = Math.floor(options.nowMs / DAY_MS) * DAY_MS;
  const firstStart = todayStart - (days - 1) * DAY_MS;
  const buckets: Array<DailyHealth & { durations: number[] }> = [];
  for (let i = 0; i < days; i++) {
    const startMs = firstStart + i * DAY_MS;
    buckets.push({
      day: isoDay(startMs),
      startMs,
      succeeded: 0,
      failed: 0,
      other: 0,
      medianMs: null,
      maxMs: null,
      covered: startMs + DAY_MS > (options.coveredFrom ?? Number.NEGATIVE_INFINITY),
      durations: [],
    });
  }
  for (const p of place(executions, firstStart, options.nowMs)) {
    const bucket = buckets[Math.floor((p.at - firstStart) / DAY_MS)];
    if (!bucket) continue;
    if (p.outcome === 'succeeded') bucket.succeeded++;
    else if (p.outcome === 'failed') bucket.failed++;
    else bucket.other++;
    if (p.durationMs !== null) bucket.durations.push(p.durationMs);
  }
  return buckets.map(({ durations, ...day }) => ({
    ...day,
    medianMs: median(durations),
    maxMs: durations.length ? Math.max(...durations) : null,
  }));
}

/**
 * A runbook's health over the `windowDays` days before `nowMs`, from its executions (any order; only
 * the ones inside the window count, by their own timestamps). `coverage` says from when on the given
 * executions are all of them; without it they are taken to cover the whole window.
 */
export function computeHealth(
  runbookName: string,
  executions: readonly Execution[],
  options: { nowMs: number; windowDays?: number; coverage?: HealthCoverage },
): RunbookHealth {
  const windowDays = options.windowDays ?? HEALTH_WINDOW_DAYS;
  const windowStart = options.nowMs - windowDays * DAY_MS;
  const coverage: HealthCoverage =
    options.coverage && options.coverage.coveredFrom > windowStart
      ? { coveredFrom: Math.min(options.coverage.coveredFrom, options.nowMs), limitedBy: options.coverage.limitedBy }
      : { coveredFrom: windowStart, limitedBy: 'none' };
  const placed = place(executions, coverage.coveredFrom, options.nowMs);
  const count = (o: Outcome) => placed.filter((p) => p.outcome === o).length;
  const succeeded = count('succeeded');
  const failed = count('failed');
  const durations = placed.flatMap((p) => (p.durationMs === null ? [] : [p.durationMs]));
  const latest = durations.slice(0, ETA_RUNS);
  const p95Ms = percentile(durations, 95);
  return {
    runbookName,
    asOf: options.nowMs,
    windowDays,
    windowStart,
    coverage,
    daysCovered: Math.min(windowDays, Math.floor((options.nowMs - coverage.coveredFrom) / DAY_MS)),
    runs: placed.length,
    succeeded,
    failed,
    running: count('running'),
    successRate: succeeded + failed > 0 ? succeeded / (succeeded + failed) : null,
    medianMs: median(durations),
    p95Ms,
    lastOutcomes: placed.slice(0, LAST_OUTCOMES).map((p) => p.outcome),
    failureReasons: commonFailureReasons(placed.map((p) => p.e)),
    eta:
      latest.length >= ETA_MIN_RUNS
        ? { medianMs: median(latest)!, runs: latest.length, p95Ms: durations.length >= ETA_MIN_RUNS ? p95Ms : null }
        : null,
    daily: dailyHealth(
      placed.map((p) => p.e),
      { nowMs: options.nowMs, days: windowDays, coveredFrom: coverage.coveredFrom },
    ),
  };
}

/** Whether a run that has been going for `elapsedMs` is past the p95 of its runbook's recent runs. */
export function isLongerThanUsual(eta: RunbookEta | null, elapsedMs: number): boolean {
  return eta !== null && eta.p95Ms !== null && elapsedMs > eta.p95Ms;
}

/**
 * The runbooks failing most: by failed runs, then by failure rate, then by name. Runbooks with no failure
 * are left out.
 */
export function rankFailing(reports: readonly RunbookHealth[]): RunbookHealth[] {
  return reports
    .filter((r) => r.failed > 0)
    .sort(
      (a, b) =>
        b.failed - a.failed ||
        (a.successRate ?? 1) - (b.successRate ?? 1) ||
        a.runbookName.localeCompare(b.runbookName),
    );
}
