// Request counters by route template and status, plus a bounded log of recent requests, for
// tests and benchmarks (GET /_admin/stats).

export interface RequestLogEntry {
  atMs: number;
  method: string;
  path: string;
  route: string;
  status: number;
  requestTid: string;
}

const LOG_LIMIT = 1000;

export class RequestStats {
  #byRoute = new Map<string, Map<number, number>>();
  #total = 0;
  #log: RequestLogEntry[] = [];

  record(entry: RequestLogEntry): void {
    this.#total++;
    let statuses = this.#byRoute.get(entry.route);
    if (!statuses) {
      statuses = new Map();
      this.#byRoute.set(entry.route, statuses);
    }
    statuses.set(entry.status, (statuses.get(entry.status) ?? 0) + 1);
    this.#log.push(entry);
    // Trim in batches so recording stays O(1) amortised.
    if (this.#log.length > LOG_LIMIT * 2) this.#log = this.#log.slice(-LOG_LIMIT);
  }

  /** Most recent requests, oldest first (at most 1000). */
  get log(): readonly RequestLogEntry[] {
    return this.#log.slice(-LOG_LIMIT);
  }

  get total(): number {
    return this.#total;
  }

  /** Count for one route template ("GET /v1alpha1/workflows") and optionally one status. */
  count(route: string, status?: number): number {
    const statuses = this.#byRoute.get(route);
    if (!statuses) return 0;
    if (status !== undefined) return statuses.get(status) ?? 0;
    let sum = 0;
    for (const n of statuses.values()) sum += n;
    return sum;
  }

  snapshot(): { total: number; byRoute: Record<string, Record<string, number>> } {
    const byRoute: Record<string, Record<string, number>> = {};
    for (const [route, statuses] of this.#byRoute) {
      byRoute[route] = Object.fromEntries([...statuses].map(([status, n]) => [String(status), n]));
    }
    return { total: this.#total, byRoute };
  }

  reset(): void {
    this.#byRoute.clear();
    this.#total = 0;
    this.#log = [];
  }
}
