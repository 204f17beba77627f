// The watcher's request budget: on Postgres one token bucket in the store shared by every replica
// (so N replicas together send at most WATCH_REQUESTS_PER_SECOND to the Runbook API, the tenant's
// limit); on SQLite (one process) a local bucket.
import type { Store } from '../store/store.ts';
import { RequestBudget, type Sleep } from './token-bucket.ts';

/** Name of the watcher's bucket in the store. */
export const API_BUDGET_BUCKET = 'runbook-api';

export function createApiBudget(options: {
  store: Store;
  /** The store's bucket (default: the watcher's one budget). */
  bucket?: string;
  /** The installation the bucket is of (a tenant's budget), so its purge finds it; default none. */
  installationId?: string;
  ratePerSecond: number;
  concurrency: number;
  now?: () => number;
  sleep?: Sleep;
}): RequestBudget {
  const now = options.now ?? Date.now;
  const rate = options.ratePerSecond;
  // One second's worth at once after a quiet spell, as the local bucket allows.
  const spec = { ratePerSecond: rate, burst: Math.max(1, Math.ceil(rate)) };
  const shared = options.store.kind === 'postgres';
  return new RequestBudget({
    ratePerSecond: rate,
    concurrency: options.concurrency,
    now,
    ...(options.sleep ? { sleep: options.sleep } : {}),
    ...(shared
      ? {
          source: {
            take: (want: number) =>
              options.store.coordination.takeTokens(
                options.bucket ?? API_BUDGET_BUCKET,
                spec,
                want,
                now(),
                options.installationId,
              ),
          },
        }
      : {}),
  });
}
