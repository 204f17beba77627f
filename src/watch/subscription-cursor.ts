// Where subscription discovery is in the execution history, and which executions it still owes a
// report. Pure: the scanner feeds it listed executions (newest first) and stores what it returns.
//
// Executions are listed newest-first by createTime, but they FINISH in any order: a run created an
// hour ago may end after ten newer ones. So the cursor is not one position but three things:
//   - `horizon`: executions created before it are history (already examined or deliberately skipped);
//   - `seen`: ids at or after the horizon that were already examined (ties and clock skew: the
//     horizon trails the newest createTime by `skewMs`, so a late-listed execution is not missed);
//   - `pending`: examined while still running; re-checked every scan until they finish (then
//     reported once), vanish from the listing, or are older than `maxPendingAgeMs`.
//   - `gap`: when a scan was cut short (page limit), the part it did not read: createTimes between
//     `bottom` and `top`, continued from the page `token`. The horizon still moves up to the newest
//     run, so the next scan reads the (short) top of the history first and then carries on in the gap
//     where the last one stopped: a backlog bigger than one scan is worked off, never re-read from
//     the top, and `seen` only ever holds the last few minutes.
// Every scan lists back to min(horizon, oldest pending createTime). Reports are deduplicated by the
// notification claims, so re-reading an overlap (or a replica writing an older cursor) is harmless;
// the cursor only has to guarantee nothing is skipped.
import type { Execution } from '../api/schemas.ts';
import { isTerminal } from './bulk-discovery.ts';

/** [executionId, createTime in epoch ms] */
export type TimedId = [string, number];

export interface CursorGap {
  /** createTime of the oldest execution read before the cut: everything above it was read. */
  top: number;
  /** Down to here (the boundary the cut scan was heading for) still has to be read. */
  bottom: number;
  /** The listing's page token where the cut scan stopped. */
  token: string;
}

export interface CursorState {
  v: 1;
  horizon: number;
  seen: TimedId[];
  pending: TimedId[];
  gap?: CursorGap;
}

export interface CursorSettings {
  /** How far the horizon trails the newest createTime seen (API ordering / clock skew). */
  skewMs: number;
  /** A run still unfinished this long after its creation (by the API's clock) is given up on. */
  maxPendingAgeMs: number;
  /** At most this many pending runs are remembered (newest kept). */
  maxPending: number;
}

export const DEFAULT_CURSOR_SETTINGS: CursorSettings = {
  skewMs: 2 * 60_000,
  maxPendingAgeMs: 24 * 60 * 60_000,
  maxPending: 1_000,
};

export function encodeCursor(state: CursorState): string {
  return JSON.stringify(state);
}

const isTimedId = (v: unknown): v is TimedId =>
  Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'number';

/** null for no cursor, '' (reset) or anything unreadable: the next scan starts from "now". */
export function decodeCursor(raw: string | null): CursorState | null {
  if (!raw) return null;
  try {
    const v = JSON.parse(raw) as Partial<CursorState>;
    if (v.v !== 1 || typeof v.horizon !== 'number' || !Array.isArray(v.seen) || !Array.isArray(v.pending)) return null;
    const g = v.gap;
    const gap =
      g && typeof g.top === 'number' && typeof g.bottom === 'number' && typeof g.token === 'string' && g.token
        ? { top: g.top, bottom: g.bottom, token: g.token }
        : null;
    return {
      v: 1,
      horizon: v.horizon,
      seen: v.seen.filter(isTimedId),
      pending: v.pending.filter(isTimedId),
      ...(gap ? { gap } : {}),
    };
  } catch {
    return null;
  }
}

/**
 * The oldest createTime a scan from this cursor may still read (and so find owed again): the horizon, a
 * pending run's, the bottom of an unread gap. Nothing created before it is ever reported from this cursor.
 */
export function reachOf(state: CursorState): number {
  let reach = Math.min(state.horizon, state.gap?.bottom ?? Number.POSITIVE_INFINITY);
  for (const [, t] of state.pending) reach = Math.min(reach, t);
  return reach;
}

/**
 * One scan over the newest-first listing. `consider` each execution in listing order; `shouldStop`
 * after each page; `finish` gives the cursor to store. A window made without a previous state is a
 * baseline: everything already finished is history and is not reported; running ones are pending.
 */
export class ScanWindow {
  readonly #settings: CursorSettings;
  readonly #baseline: boolean;
  #horizon: number;
  readonly #seen: Map<string, number>;
  readonly #pending: Map<string, number>;
  readonly #found = new Set<string>();
  /** Pending runs this scan found finished (owed again; already known to be owed before). */
  readonly #resumed = new Set<string>();
  readonly #gap: CursorGap | null;
  #newest = Number.NEGATIVE_INFINITY;
  #oldest = Number.POSITIVE_INFINITY;
  /** Which part is being listed: from the top, or continuing the previous scan's gap. */
  #segment: 'top' | 'gap' = 'top';
  #segmentOldest = Number.POSITIVE_INFINITY;

  constructor(previous: CursorState | null, settings: CursorSettings = DEFAULT_CURSOR_SETTINGS) {
    this.#settings = settings;
    this.#baseline = previous === null;
    this.#horizon = previous?.horizon ?? Number.NaN;
    this.#seen = new Map(previous?.seen ?? []);
    this.#pending = new Map(previous?.pending ?? []);
    this.#gap = previous?.gap ?? null;
  }

  /** The previous scan's unread part, if it was cut short. */
  get gap(): CursorGap | null {
    return this.#gap;
  }

  /** Listing continues in the gap from its token (after the top segment reached its boundary). */
  enterGap(): void {
    this.#segment = 'gap';
    this.#segmentOldest = Number.POSITIVE_INFINITY;
  }

  get baseline(): boolean {
    return this.#baseline;
  }

  /** Listing may stop once it is below this createTime (NaN until a baseline has seen its first item). */
  get boundary(): number {
    let b = this.#horizon;
    for (const t of this.#pending.values()) b = Math.min(b, t);
    return b;
  }

  /** True when this finished execution is owed a report (new, or pending and now finished). */
  consider(execution: Execution): boolean {
    const parsed = execution.createTime ? Date.parse(execution.createTime) : Number.NaN;
    // No createTime: place it with the newest seen so far, which is where a newest-first listing put it.
    const t = Number.isFinite(parsed) ? parsed : Number.isFinite(this.#newest) ? this.#newest : Date.now();
    this.#newest = Math.max(this.#newest, t);
    this.#oldest = Math.min(this.#oldest, t);
    this.#segmentOldest = Math.min(this.#segmentOldest, t);
    if (Number.isNaN(this.#horizon)) this.#horizon = t - this.#settings.skewMs;
    const id = execution.id;
    const finished = isTerminal(execution);
    if (this.#pending.has(id)) {
      this.#found.add(id);
      if (!finished) return false;
      this.#pending.delete(id);
      this.#resumed.add(id);
      return true;
    }
    const inGap = this.#gap !== null && t >= this.#gap.bottom && t <= this.#gap.top + this.#settings.skewMs;
    if ((t < this.#horizon && !inGap) || this.#seen.has(id)) return false;
    this.#seen.set(id, t);
    if (!finished) {
      this.#pending.set(id, t);
      this.#found.add(id);
      return false;
    }
    return !this.#baseline;
  }

  /**
   * Whether the listing has gone past everything this segment must look at: from the top, down to
   * the boundary but not into the gap (that is read from its token); in the gap, down to its bottom
   * (or an older pending run).
   */
  reachedBoundary(): boolean {
    if (!Number.isFinite(this.#segmentOldest)) return false;
    const gap = this.#gap;
    if (!gap) return this.#segmentOldest < this.boundary;
    if (this.#segment === 'top') {
      // Pending runs inside or below the gap are met when the gap is read.
      let above = this.#horizon;
      for (const t of this.#pending.values()) if (t > gap.top) above = Math.min(above, t);
      return this.#segmentOldest < Math.max(gap.top, above);
    }
    return this.#segmentOldest < Math.min(gap.bottom, this.boundary);
  }

  /** Whether this execution came back from `pending` in this scan (rather than being new). */
  wasPending(executionId: string): boolean {
    return this.#resumed.has(executionId);
  }

  /**
   * Pending runs another replica's cursor holds: a cursor written later must not drop them (that
   * replica may have released a refused notice and be counting on the next scan to retry it).
   */
  adoptPending(others: TimedId[]): void {
    for (const [id, t] of others) if (!this.#pending.has(id) && !this.#resumed.has(id)) this.#pending.set(id, t);
  }

  /** A report that could not be delivered (Slack refused it): look at it again next scan. */
  retryLater(execution: Execution): void {
    const t = execution.createTime ? Date.parse(execution.createTime) : Number.NaN;
    this.#pending.set(execution.id, Number.isFinite(t) ? t : this.#newest);
    this.#found.add(execution.id);
  }

  /**
   * The cursor to store. `complete` = the listing reached the boundary (or its end); when it was cut
   * short, the horizon stays where it was so the unread part is read next time.
   */
  finish(complete: boolean, resumeToken: string | null = null): { state: CursorState; abandoned: string[] } {
    const abandoned: string[] = [];
    let horizon = this.#horizon;
    if (Number.isNaN(horizon)) horizon = 0; // empty history: everything from now on is new
    // What the listing did not reach: the rest of the old gap, or a new one below where it stopped.
    let gap: CursorGap | null = null;
    if (!complete) {
      const bottom = Math.min(this.#gap?.bottom ?? Number.POSITIVE_INFINITY, this.boundary);
      if (resumeToken && Number.isFinite(this.#segmentOldest) && Number.isFinite(bottom)) {
        gap = { top: this.#segmentOldest, bottom, token: resumeToken };
      } else if (this.#gap) {
        gap = this.#gap; // nothing read in it this time
      }
    }
    // Everything above the gap (or the whole window) was read: the horizon follows the newest run.
    if ((complete || gap) && Number.isFinite(this.#newest)) {
      horizon = Math.max(horizon, this.#newest - this.#settings.skewMs);
    }
    const seen: TimedId[] = [...this.#seen].filter(([, t]) => t >= horizon);
    let pending: TimedId[] = [];
    for (const [id, t] of this.#pending) {
      const tooOld = Number.isFinite(this.#newest) && t < this.#newest - this.#settings.maxPendingAgeMs;
      // The listing went below its createTime without meeting it: it no longer exists.
      const vanished = complete && !this.#found.has(id) && Number.isFinite(this.#oldest) && this.#oldest < t;
      if (tooOld || vanished) abandoned.push(id);
      else pending.push([id, t]);
    }
    if (pending.length > this.#settings.maxPending) {
      pending.sort((a, b) => b[1] - a[1]);
      for (const [id] of pending.slice(this.#settings.maxPending)) abandoned.push(id);
      pending = pending.slice(0, this.#settings.maxPending);
    }
    return { state: { v: 1, horizon, seen, pending, ...(gap ? { gap } : {}) }, abandoned };
  }
}
