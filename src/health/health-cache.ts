// Health reports kept in memory, per API client (so per tenant), least recently used first out. A report
// is fresh for HEALTH_FRESH_MS (then a person asking again reads the API again) and usable for
// HEALTH_KEEP_MS: the list's badges read only from here, never the API, and say how old what they show is. A
// running card's ETA starts here (or with one short reading) and is then kept with its watch in the store, so
// the watcher on any replica needs no cache of its own.
import type { HealthCoverage, RunbookHealth } from './runbook-health.ts';

/** A report younger than this is shown without reading the API again. */
export const HEALTH_FRESH_MS = 5 * 60_000;
/** A report older than this is dropped (badges and ETAs disappear rather than show old news). */
export const HEALTH_KEEP_MS = 6 * 60 * 60_000;
/** Runbooks remembered per client. */
export const HEALTH_CACHE_ENTRIES = 2_000;

export interface CachedHealth {
  report: RunbookHealth;
  /** When the executions behind it were read (epoch ms). */
  fetchedAt: number;
}

/** The result of one scan of the latest executions across runbooks (`/runbook health`, App Home). */
export interface CachedScan {
  /** Runbook names (lower case) the scan saw, each with its report in the cache. */
  names: string[];
  fetchedAt: number;
  /** Executions read. */
  rowsRead: number;
  /** How far back the scan reached. */
  coverage: HealthCoverage;
}

function keyOf(name: string): string {
  return name.trim().toLowerCase();
}

export class HealthCache {
  readonly #entries = new Map<string, CachedHealth>();
  #scan: CachedScan | null = null;
  readonly #maxEntries: number;
  readonly #keepMs: number;

  constructor(options: { maxEntries?: number; keepMs?: number } = {}) {
    this.#maxEntries = options.maxEntries ?? HEALTH_CACHE_ENTRIES;
    this.#keepMs = options.keepMs ?? HEALTH_KEEP_MS;
  }

  /** The report of a runbook (by name) read at most HEALTH_KEEP_MS before `nowMs`; null otherwise. */
  get(name: string, nowMs: number): CachedHealth | null {
    const key = keyOf(name);
    const entry = this.#entries.get(key);
    if (!entry) return null;
    if (nowMs - entry.fetchedAt > this.#keepMs) {
      this.#entries.delete(key);
      return null;
    }
    // Most recently used goes last.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry;
  }

  /** Keeps a report unless a newer one is already there. */
  set(report: RunbookHealth, fetchedAt: number): void {
    const key = keyOf(report.runbookName);
    const current = this.#entries.get(key);
    if (current && current.fetchedAt > fetchedAt) return;
    this.#entries.delete(key);
    this.#entries.set(key, { report, fetchedAt });
    while (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
  }

  scan(nowMs: number, maxAgeMs: number): CachedScan | null {
    return this.#scan && nowMs - this.#scan.fetchedAt <= maxAgeMs ? this.#scan : null;
  }

  setScan(scan: CachedScan): void {
    if (!this.#scan || this.#scan.fetchedAt <= scan.fetchedAt) this.#scan = scan;
  }
}

/** Whether a cached report is recent enough to show without reading again. */
export function isFresh(entry: CachedHealth, nowMs: number, freshMs = HEALTH_FRESH_MS): boolean {
  return nowMs - entry.fetchedAt <= freshMs;
}

const cachesByClient = new WeakMap<object, HealthCache>();

/**
 * The cache of one API resource object (`api.executions`): the Slack layer and the watcher share the
 * client, so they share its cache; another tenant's client has its own.
 */
export function healthCacheFor(resource: object): HealthCache {
  let cache = cachesByClient.get(resource);
  if (!cache) {
    cache = new HealthCache();
    cachesByClient.set(resource, cache);
  }
  return cache;
}
