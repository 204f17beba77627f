// Bulk discovery: when many executions are watched, one newest-first listing page (100 executions)
// answers for up to 100 watches, where individual checks would cost one request each. The watcher
// asks `chooseBulkDiscovery` every round and lists only when it is cheaper than checking the due
// watches one by one within a couple of seconds of request budget.
import type { RunbookApi } from '../api/runbook-api.ts';
import type { Execution, ExecutionStatus } from '../api/schemas.ts';
import { isTerminal } from '../runs/execution-facts.ts';

export { isTerminal };

export const BULK_PAGE_SIZE = 100;

export interface BulkChoiceInput {
  /** Watches due for a check now. */
  dueCount: number;
  /** All active watches (what a listing must cover). */
  watchedCount: number;
  requestsPerSecond: number;
  /** Pages the last listing needed to get past the oldest watch (null: never listed). */
  lastPages: number | null;
  /** How much budget individual checks may take before listing is preferred (default 2 s). */
  windowSeconds?: number;
}

/** Estimated pages to list back to the oldest watched execution. */
export function estimatePages(watchedCount: number, lastPages: number | null): number {
  return Math.max(1, lastPages ?? 0, Math.ceil(watchedCount / BULK_PAGE_SIZE));
}

/**
 * List in bulk when the due checks would not fit in ~2 s of budget AND listing costs fewer
 * requests than checking each due watch.
 */
export function chooseBulkDiscovery(input: BulkChoiceInput): boolean {
  const window = input.windowSeconds ?? 2;
  const affordable = input.requestsPerSecond * window;
  if (input.dueCount <= affordable) return false;
  return estimatePages(input.watchedCount, input.lastPages) < input.dueCount;
}

/** True once a listed execution is older than every watch: nothing further back is watched. */
export function isPastOldest(createTime: string | null, oldestWatchCreatedAt: number, skewMs: number): boolean {
  if (!createTime) return false;
  const t = Date.parse(createTime);
  // A watch is inserted after its execution was created, so an execution created before the oldest
  // watch (minus clock skew between the API and us) cannot belong to any watch.
  return Number.isFinite(t) && t < oldestWatchCreatedAt - skewMs;
}

export interface DiscoveryResult {
  /** Status of every watched execution seen in the listing. */
  statuses: Map<string, ExecutionStatus>;
  /** Watched ids seen finished. */
  finished: string[];
  /** The finished ones as listed (with output when the list carries it). */
  finishedExecutions: Map<string, Execution>;
  pages: number;
}

export interface DiscoverOptions {
  watched: ReadonlySet<string>;
  oldestWatchCreatedAt: number;
  /** Allowed clock difference between the API and us (default 10 minutes). */
  skewMs?: number;
  maxPages?: number;
  /** Wraps every API call (the shared request budget). */
  call: <T>(fn: () => Promise<T>) => Promise<T>;
  /**
   * Called with the watched runs each page saw finished, as soon as that page is read (awaited before the
   * next page): a run's end is acted on when its page is read, not when the whole listing is.
   */
  onFinished?: (finished: Execution[]) => Promise<void>;
}

export async function discoverFinished(api: RunbookApi, options: DiscoverOptions): Promise<DiscoveryResult> {
  const skewMs = options.skewMs ?? 10 * 60_000;
  // Enough pages to reach back past every watched execution, plus a few for runs started meanwhile.
  const maxPages = options.maxPages ?? Math.max(50, Math.ceil(options.watched.size / BULK_PAGE_SIZE) + 5);
  const statuses = new Map<string, ExecutionStatus>();
  const finished: string[] = [];
  const finishedExecutions = new Map<string, Execution>();
  let pageToken: string | undefined;
  let pages = 0;
  for (;;) {
    const token = pageToken;
    const page = await options.call(() =>
      api.executions.list({ orderBy: 'descending', pageSize: BULK_PAGE_SIZE, ...(token ? { pageToken: token } : {}) }),
    );
    pages++;
    let past = page.items.length === 0;
    const ended: Execution[] = [];
    for (const execution of page.items) {
      if (isPastOldest(execution.createTime, options.oldestWatchCreatedAt, skewMs)) {
        past = true;
        continue;
      }
      if (!options.watched.has(execution.id)) continue;
      statuses.set(execution.id, execution.executionStatus);
      // A run can show on two pages (runs started meanwhile shift a newest-first listing): once is enough.
      if (isTerminal(execution) && !finishedExecutions.has(execution.id)) {
        finished.push(execution.id);
        finishedExecutions.set(execution.id, execution);
        ended.push(execution);
      }
    }
    if (ended.length > 0 && options.onFinished) await options.onFinished(ended);
    const allSeen = statuses.size >= options.watched.size;
    if (past || allSeen || !page.nextPageToken || pages >= maxPages) break;
    pageToken = page.nextPageToken;
  }
  return { statuses, finished, finishedExecutions, pages };
}
