// At most N runs per user per minute (sliding window), so a stuck key or a loop in a workflow tool
// cannot start a runbook hundreds of times. The window lives in the store, so N replicas enforce one
// limit between them instead of N limits side by side: a limit, not an accounting record.
import type { RunLimitDecision, RunLimitStore } from '../store/store.ts';
import { installationKey } from '../tenants/tenant-scope.ts';

const WINDOW_MS = 60_000;

export interface RunRateLimitOptions {
  perMinute: number;
  /** `store.runLimits`: shared by every replica on the same database. */
  store: RunLimitStore;
  now?: () => number;
}

export class RunRateLimit {
  readonly #perMinute: number;
  readonly #store: RunLimitStore;
  readonly #now: () => number;
  #sweptAt = Number.NEGATIVE_INFINITY;

  constructor(options: RunRateLimitOptions) {
    this.#perMinute = options.perMinute;
    this.#store = options.store;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Records a run for `userId` if under the limit; otherwise returns the ms until the next is allowed.
   * Rejects when the store cannot answer: starting a run without knowing the count would lift the limit.
   */
  async take(userId: string): Promise<RunLimitDecision> {
    const now = this.#now();
    // Per installation: a person in two installed workspaces has each one's limit, not one shared.
    const decision = await this.#store.take(`run:${userId}`, now, WINDOW_MS, this.#perMinute, installationKey());
    await this.#sweep(now);
    return decision;
  }

  /** Once a window, forget people whose last start has left it, so the table holds only the active. */
  async #sweep(now: number): Promise<void> {
    if (now - this.#sweptAt < WINDOW_MS) return;
    this.#sweptAt = now;
    // A failed sweep only leaves idle rows behind for the next one; it must not refuse a run.
    await this.#store.deleteIdle(now - WINDOW_MS).catch(() => undefined);
  }
}
