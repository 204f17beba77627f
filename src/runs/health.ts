// A runbook's health, read from the executions list within a bound and cached (src/health/). The list's
// `filter` and order are hints (src/api/filter-hint.ts): rows are re-checked by name here, placed by their
// own timestamps, and reading stops at the window's start only when the pages really come newest first.
// `view` is not decided here: callers pass runbooks the person may view (`visibility.ts`, the gate's path)
// and filter a scan's reports by it.
import { filterHintsFor, listMatching, workflowNameTerm } from '../api/filter-hint.ts';
import type { ExecutionPage } from '../api/runbook-api.ts';
import type { Execution } from '../api/schemas.ts';
import { type CachedHealth, HEALTH_FRESH_MS, healthCacheFor, isFresh } from '../health/health-cache.ts';
import {
  computeHealth,
  DAY_MS,
  executionTime,
  HEALTH_WINDOW_DAYS,
  type HealthCoverage,
  type RunbookHealth,
  rankFailing,
} from '../health/runbook-health.ts';
import type { RunsDeps } from './deps.ts';
import { sameRunbookName } from './execution-facts.ts';

/** Runs of one runbook read at most (a runbook that runs more often is judged on its latest ones). */
export const HEALTH_MAX_RUNS = 500;
/** Requests one runbook's health may cost (the filter's first-use check included). */
export const HEALTH_PAGES = 6;
/** Requests a running card's ETA may cost when nothing is cached (a person waits for that card). */
export const ETA_PAGES = 2;
/** How long a running card waits for that reading before it goes up without an ETA. */
export const ETA_WAIT_MS = 2_000;
/** Requests a scan across runbooks (`/runbook health`, App Home) may cost: its latest 1,000 executions. */
export const SCAN_PAGES = 10;

interface Read {
  items: Execution[];
  coverage: HealthCoverage;
  rowsRead: number;
}

/** Whether each row is no newer than the one before (the API sorted as asked). */
function newestFirst(rows: readonly Execution[], after: number): { sorted: boolean; oldest: number } {
  let last = after;
  let sorted = true;
  for (const row of rows) {
    const at = executionTime(row);
    if (at === null) continue;
    if (at > last) sorted = false;
    last = Math.min(last, at);
  }
  return { sorted, oldest: last };
}

/**
 * Executions newest first, page by page, until the window's start is passed (on pages that really come
 * sorted), the list ends, `maxRuns` matching rows were read or `maxPages` requests were made.
 */
async function readWindow(
  deps: RunsDeps,
  request: { filter: string; matches: (e: Execution) => boolean; maxPages: number; maxRuns: number },
): Promise<Read> {
  const api = deps.api.executions;
  const now = deps.now();
  const windowStart = now - HEALTH_WINDOW_DAYS * DAY_MS;
  let pages = 0;
  // Per sequence of pages (filtered, or not: the filter's first-use check reads one unfiltered page beside
  // the filtered one, and a server that drops rows is read again without it): whether its pages came newest
  // first, and the oldest time it reached. What the rows kept come from decides which one counts.
  const reach = {
    filtered: { sorted: true, oldest: Number.POSITIVE_INFINITY },
    plain: { sorted: true, oldest: Number.POSITIVE_INFINITY },
  };
  const list = async (page: { filter?: string; pageSize: number; pageToken?: string }): Promise<ExecutionPage> => {
    pages++;
    const answer = await api.list({ ...page, orderBy: 'descending' }, { timeoutMs: deps.interactiveTimeoutMs });
    const sequence = page.filter ? reach.filtered : reach.plain;
    // A first page begins again from the newest.
    const seen = newestFirst(answer.items, page.pageToken ? sequence.oldest : Number.POSITIVE_INFINITY);
    sequence.sorted = (page.pageToken ? sequence.sorted : true) && seen.sorted;
    sequence.oldest = seen.oldest;
    return answer;
  };
  const items: Execution[] = [];
  let rowsRead = 0;
  let cursor = '';
  for (;;) {
    // One page per call, so the reading can stop as soon as it is past the window's start.
    const found = await listMatching({
      list,
      filter: request.filter,
      matches: request.matches,
      key: (e) => e.id,
      want: Number.POSITIVE_INFINITY,
      cursor,
      maxPages: 1,
      hints: filterHintsFor(api),
    });
    items.push(...found.items);
    rowsRead += found.rowsRead;
    const { sorted, oldest } = found.filtered ? reach.filtered : reach.plain;
    const full = { coveredFrom: windowStart, limitedBy: 'none' as const };
    if (found.next === '') return { items, coverage: full, rowsRead };
    if (sorted && oldest < windowStart) return { items, coverage: full, rowsRead };
    cursor = found.next;
    const limitedBy = items.length >= request.maxRuns ? 'runs' : pages >= request.maxPages ? 'pages' : null;
    if (limitedBy) {
      // Sorted pages: everything since the last page's oldest row was read. Otherwise only the rows' own
      // times say anything: from the oldest one kept.
      const kept = items.map(executionTime).filter((t): t is number => t !== null);
      const coveredFrom = sorted ? oldest : kept.length ? Math.min(...kept) : now;
      return { items, coverage: { coveredFrom, limitedBy }, rowsRead };
    }
  }
}

/** Readings in progress per API client: people asking at once for the same thing share one reading. */
const inFlight = new WeakMap<object, Map<string, Promise<unknown>>>();

function shared<T>(deps: RunsDeps, key: string, read: () => Promise<T>): Promise<T> {
  let readings = inFlight.get(deps.api.executions);
  if (!readings) {
    readings = new Map();
    inFlight.set(deps.api.executions, readings);
  }
  const running = readings.get(key);
  if (running) return running as Promise<T>;
  const reading = read().finally(() => readings.delete(key));
  readings.set(key, reading);
  return reading;
}

/** Reads one runbook's executions and keeps its report (one reading at a time per runbook). */
function readHealth(deps: RunsDeps, runbookName: string, maxPages: number): Promise<CachedHealth> {
  return shared(deps, `runbook:${maxPages}:${runbookName.trim().toLowerCase()}`, () =>
    readRunbook(deps, runbookName, maxPages),
  );
}

async function readRunbook(deps: RunsDeps, runbookName: string, maxPages: number): Promise<CachedHealth> {
  const fetchedAt = deps.now();
  const read = await readWindow(deps, {
    filter: workflowNameTerm(runbookName),
    matches: (e) => sameRunbookName(e.workflowName, runbookName),
    maxPages,
    maxRuns: HEALTH_MAX_RUNS,
  });
  const report = computeHealth(runbookName, read.items, { nowMs: fetchedAt, coverage: read.coverage });
  healthCacheFor(deps.api.executions).set(report, fetchedAt);
  return { report, fetchedAt };
}

/**
 * The health of a runbook the person may view: the cached report while it is fresh (HEALTH_FRESH_MS),
 * else read again (at most HEALTH_PAGES requests). With `waitMs`, null when the reading takes longer (it
 * goes on and fills the cache for the next ask).
 */
export async function runbookHealth(deps: RunsDeps, runbookName: string): Promise<CachedHealth>;
export async function runbookHealth(
  deps: RunsDeps,
  runbookName: string,
  options: { waitMs: number },
): Promise<CachedHealth | null>;
export async function runbookHealth(
  deps: RunsDeps,
  runbookName: string,
  options?: { waitMs: number },
): Promise<CachedHealth | null> {
  const cached = healthCacheFor(deps.api.executions).get(runbookName, deps.now());
  if (cached && isFresh(cached, deps.now())) return cached;
  const reading = readHealth(deps, runbookName, HEALTH_PAGES);
  if (!options) return reading;
  // Whoever stops waiting leaves the reading to finish (or fail) on its own.
  reading.catch((err: unknown) => deps.logger.debug({ err }, 'health reading failed after its wait'));
  return within(reading, options.waitMs);
}

/** The answer, or null once `ms` have passed without one (a failure before that is thrown). */
async function within<T>(answer: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
    timer.unref();
  });
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** What the cache holds for a runbook, however old (within HEALTH_KEEP_MS); never reads the API. */
export function cachedHealth(deps: Pick<RunsDeps, 'api' | 'now'>, runbookName: string): CachedHealth | null {
  return healthCacheFor(deps.api.executions).get(runbookName, deps.now());
}

/**
 * For a new run's card: the cached report, else one read of at most ETA_PAGES requests, waited for at most
 * ETA_WAIT_MS (it goes on filling the cache for the watcher); null when the API cannot say in time, and the
 * card goes up without an ETA rather than late.
 */
export async function healthForRun(deps: RunsDeps, runbookName: string): Promise<CachedHealth | null> {
  const cached = cachedHealth(deps, runbookName);
  if (cached) return cached;
  const reading = readHealth(deps, runbookName, ETA_PAGES).catch((err: unknown) => {
    deps.logger.debug({ err }, 'no health for the running card');
    return null;
  });
  return within(reading, ETA_WAIT_MS);
}

export interface FailingRunbooks {
  /** Failing most first, only runbooks `mayView` accepts. */
  reports: RunbookHealth[];
  /** Runbooks seen with runs (the person may view), failing or not. */
  seen: number;
  fetchedAt: number;
  /** Executions the scan read. */
  rowsRead: number;
  coverage: HealthCoverage;
}

/**
 * The runbooks failing most among the latest executions (at most SCAN_PAGES requests, one scan shared by
 * everyone for HEALTH_FRESH_MS), each runbook's report kept in the cache for badges and ETAs; only those
 * `mayView` accepts are returned.
 */
export async function failingRunbooks(
  deps: RunsDeps,
  mayView: (runbookName: string) => boolean,
): Promise<FailingRunbooks> {
  const cache = healthCacheFor(deps.api.executions);
  const now = deps.now();
  const recent = cache.scan(now, HEALTH_FRESH_MS);
  const scan = recent
    ? { ...recent, reports: recent.names.flatMap((n) => cache.get(n, now)?.report ?? []) }
    : await shared(deps, 'scan', () => scanLatest(deps));
  const visible = scan.reports.filter((r) => mayView(r.runbookName));
  const { fetchedAt, rowsRead, coverage } = scan;
  return { reports: rankFailing(visible), seen: visible.length, fetchedAt, rowsRead, coverage };
}

/** One scan of the latest executions: every runbook's report, kept in the cache with the scan itself. */
async function scanLatest(deps: RunsDeps): Promise<Omit<FailingRunbooks, 'seen'>> {
  const cache = healthCacheFor(deps.api.executions);
  const fetchedAt = deps.now();
  const read = await readWindow(deps, {
    filter: '',
    matches: () => true,
    maxPages: SCAN_PAGES,
    maxRuns: Number.POSITIVE_INFINITY,
  });
  const byName = new Map<string, { name: string; items: Execution[] }>();
  for (const e of read.items) {
    if (!e.workflowName.trim()) continue;
    const key = e.workflowName.trim().toLowerCase();
    const group = byName.get(key) ?? { name: e.workflowName.trim(), items: [] };
    group.items.push(e);
    byName.set(key, group);
  }
  const reports = [...byName.values()].map((g) =>
    computeHealth(g.name, g.items, { nowMs: fetchedAt, coverage: read.coverage }),
  );
  // A runbook's own reading (filtered, deeper) is kept over the scan's while it is fresh.
  for (const r of reports) {
    const own = cache.get(r.runbookName, fetchedAt);
    if (!own || !isFresh(own, fetchedAt)) cache.set(r, fetchedAt);
  }
  const { rowsRead, coverage } = read;
  cache.setScan({ names: [...byName.keys()], fetchedAt, rowsRead, coverage });
  return { reports, fetchedAt, rowsRead, coverage };
}
