// Many workspaces: each tenant's Runbook API requests spend that tenant's own budget
// (WATCH_REQUESTS_PER_SECOND per installation, a bucket in the store shared by every replica on
// Postgres), and every request also spends the deployment's global ceiling (WATCH_GLOBAL_REQUESTS_PER_SECOND).
// A tenant waits for its own tokens before it asks for a global one, so a tenant over its budget
// holds no global concurrency slot. One workspace (no tenant in scope): the single budget, as before.
import type { Store } from '../store/store.ts';
import { API_BUDGET_BUCKET, createApiBudget } from './shared-budget.ts';
import type { RequestBudget, Sleep } from './token-bucket.ts';

/** What spends API requests: a RequestBudget, or the tenants' budgets (same `run`). */
export interface RequestSpender {
  run<T>(call: () => Promise<T>): Promise<T>;
}

/** Name of the global ceiling's bucket in the store. */
export const GLOBAL_BUDGET_BUCKET = `${API_BUDGET_BUCKET}:global`;

/** Name of one tenant's bucket in the store. */
export function tenantBucket(tenant: string): string {
  return `${API_BUDGET_BUCKET}/tenant/${tenant}`;
}

/** Idle tenants' local budgets are forgotten beyond this many (their store buckets stay). */
const MAX_KEPT = 5_000;

export class TenantBudgets implements RequestSpender {
  readonly #store: Store;
  readonly #rate: number;
  readonly #concurrency: number;
  readonly #global: RequestBudget;
  readonly #current: () => string | null | undefined;
  readonly #sleep: Sleep | undefined;
  readonly #now: (() => number) | undefined;
  readonly #tenants = new Map<string, RequestBudget>();

  constructor(options: {
    store: Store;
    /** Each tenant's budget (requests/s). */
    ratePerSecond: number;
    /** Concurrent calls per tenant. */
    concurrency: number;
    /** The deployment's ceiling (requests/s) and its concurrent calls. */
    globalRatePerSecond: number;
    globalConcurrency: number;
    /** The tenant in scope (many-workspace mode: the installation), or none. */
    currentTenant: () => string | null | undefined;
    now?: () => number;
    sleep?: Sleep;
  }) {
    this.#store = options.store;
    this.#rate = options.ratePerSecond;
    this.#concurrency = options.concurrency;
    this.#current = options.currentTenant;
    this.#sleep = options.sleep;
    this.#now = options.now;
    this.#global = createApiBudget({
      store: options.store,
      bucket: GLOBAL_BUDGET_BUCKET,
      ratePerSecond: options.globalRatePerSecond,
      concurrency: options.globalConcurrency,
      ...(options.now ? { now: options.now } : {}),
      ...(options.sleep ? { sleep: options.sleep } : {}),
    });
  }

  /** The per-tenant rate. */
  get ratePerSecond(): number {
    return this.#rate;
  }

  get globalRatePerSecond(): number {
    return this.#global.ratePerSecond;
  }

  /** The deployment's ceiling (requests this process sent, across tenants: `global.spent`). */
  get global(): RequestBudget {
    return this.#global;
  }

  /** One tenant's budget (made on first use). */
  of(tenant: string): RequestBudget {
    let budget = this.#tenants.get(tenant);
    if (budget) {
      // Most recently used last, so the idle ones are forgotten first.
      this.#tenants.delete(tenant);
      this.#tenants.set(tenant, budget);
      return budget;
    }
    budget = createApiBudget({
      store: this.#store,
      bucket: tenantBucket(tenant),
      installationId: tenant,
      ratePerSecond: this.#rate,
      concurrency: this.#concurrency,
      ...(this.#now ? { now: this.#now } : {}),
      ...(this.#sleep ? { sleep: this.#sleep } : {}),
    });
    this.#tenants.set(tenant, budget);
    if (this.#tenants.size > MAX_KEPT) {
      for (const [key, kept] of this.#tenants) {
        if (this.#tenants.size <= MAX_KEPT) break;
        if (kept.active === 0) this.#tenants.delete(key);
      }
    }
    return budget;
  }

  /** A call on the budget of the tenant in scope, then on the global ceiling (outside any tenant: the ceiling alone). */
  run<T>(call: () => Promise<T>): Promise<T> {
    const tenant = this.#current();
    if (!tenant) return this.#global.run(call);
    return this.of(tenant).run(() => this.#global.run(call));
  }
}
