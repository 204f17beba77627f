// Many workspaces: each tenant's Runbook API requests spend that tenant's own budget
// (WATCH_REQUESTS_PER_SECOND per installation, a bucket in the store shared by every replica on
// Postgres), and every request also spends the deployment's global ceiling (WATCH_GLOBAL_REQUESTS_PER_SECOND).
// A tenant waits for its own tokens before it asks for a global one, so a tenant over its budget
// holds no global concurrency slot. One workspace (no tenant in scope): the single budget, as before.
// When the ceiling's concurrent calls are all taken, waiting tenants are let in by weighted fair
// queueing (start-time fair queueing, weight = the tenant's planned rate), not in arrival order: a
// tenant listing page after page is not queued behind one request of every other tenant per page.
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
  readonly #weightOf: (tenant: string) => number;
  readonly #slots: number;
  #admitted = 0;
  /** Virtual time: the start tag of the call last let in. */
  #virtual = 0;
  /** Each tenant's last finish tag. */
  readonly #finish = new Map<string, number>();
  /** Calls waiting for a slot of the ceiling: a min-heap by finish tag, then arrival. */
  readonly #queue: Array<{ tag: number; start: number; seq: number; go: () => void }> = [];
  #seq = 0;

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
    /** A tenant's share when the ceiling's slots are contended (default equal): its planned rate. */
    weightOf?: (tenant: string) => number;
    now?: () => number;
    sleep?: Sleep;
  }) {
    this.#weightOf = options.weightOf ?? (() => 1);
    this.#slots = Math.max(1, options.globalConcurrency);
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
    return this.of(tenant).run(async () => {
      await this.#admit(tenant);
      try {
        return await this.#global.run(call);
      } finally {
        this.#release();
      }
    });
  }

  /** A slot of the ceiling's concurrency, in weighted fair order among the tenants waiting. */
  #admit(tenant: string): Promise<void> {
    const start = Math.max(this.#virtual, this.#finish.get(tenant) ?? 0);
    const tag = start + 1 / Math.max(1e-3, this.#weightOf(tenant));
    this.#finish.set(tenant, tag);
    if (this.#finish.size > MAX_KEPT) {
      for (const [key, finish] of this.#finish) if (finish <= this.#virtual) this.#finish.delete(key);
    }
    if (this.#admitted < this.#slots && this.#queue.length === 0) {
      this.#admitted++;
      this.#virtual = start;
      return Promise.resolve();
    }
    return new Promise((go) => heapPush(this.#queue, { tag, start, seq: this.#seq++, go }));
  }

  #release(): void {
    this.#admitted--;
    const next = heapPop(this.#queue);
    if (!next) return;
    this.#admitted++;
    this.#virtual = next.start;
    next.go();
  }
}

interface Waiter {
  tag: number;
  seq: number;
}

const before = (a: Waiter, b: Waiter) => a.tag < b.tag || (a.tag === b.tag && a.seq < b.seq);

function heapPush<T extends Waiter>(heap: T[], item: T): void {
  heap.push(item);
  let i = heap.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!before(heap[i]!, heap[parent]!)) break;
    [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
    i = parent;
  }
}

function heapPop<T extends Waiter>(heap: T[]): T | undefined {
  const top = heap[0];
  const last = heap.pop();
  if (heap.length === 0 || !last) return top;
  heap[0] = last;
  let i = 0;
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let m = i;
    if (l < heap.length && before(heap[l]!, heap[m]!)) m = l;
    if (r < heap.length && before(heap[r]!, heap[m]!)) m = r;
    if (m === i) break;
    [heap[i], heap[m]] = [heap[m]!, heap[i]!];
    i = m;
  }
  return top;
}
