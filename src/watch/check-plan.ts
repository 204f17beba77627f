// How often each watch can be looked at, from the budget. Pure: the watcher feeds it the number of
// open watches, its request budget and what the last listing cost, and schedules by the answer.
//
// The bound: with W open watches, a budget of B requests/s and a newest-first listing that needs
// L pages (of P = 100 executions) to reach back past the oldest watch, one sweep that looks at
// every watch costs S = min(W, L) requests (W single gets, or L listing pages, whichever is
// fewer), so no scheduler can look at every watch more often than every S / B seconds. We sweep
// at least every S / (B × share) seconds (share = 0.75 of the budget; the rest is for first looks,
// full fetches of finished runs and subscription scans), but never more often than once a second.
// While the budget is idle a sweep starts again as soon as the last one ends (at least S / B after
// it began): the budget paces its pages one at a time, and the other calls are served in arrival
// order between them, so the sweep yields when they need the budget. Each page's finished runs are
// delivered as the page is read: a run waits on average half a sweep, at worst one sweep plus its
// delivery.
import { estimatePages } from './bulk-discovery.ts';

export type CheckMode = 'single' | 'list';

export interface PlanSettings {
  /** Part of the budget the sweeps plan to use. */
  share: number;
  /** Shortest sweep interval (bounds the request rate while few runs are open). */
  minIntervalMs: number;
  /**
   * In list mode a watch is also checked on its own every so often, in case the listing missed it
   * (cut short, a run older than the pages reach): at most this part of the budget.
   */
  backstopShare: number;
  /** Shortest backstop interval. */
  minBackstopMs: number;
}

export const DEFAULT_PLAN_SETTINGS: PlanSettings = {
  share: 0.75,
  minIntervalMs: 1_000,
  backstopShare: 0.05,
  minBackstopMs: 60_000,
};

export interface PlanInput {
  /** Open (active) watches, across all replicas. */
  watches: number;
  /** The whole budget (requests/s), across all replicas. */
  requestsPerSecond: number;
  /** Pages the last listing needed to get past the oldest watch (null: unknown). */
  listingPages: number | null;
}

export interface CheckPlan {
  mode: CheckMode;
  /** Requests one sweep over every watch costs: min(W, L). */
  sweepCost: number;
  /** The physical bound: sweepCost / B, in ms. */
  boundMs: number;
  /** Time between two looks at the same watch, at most (the sweeps' share of the budget). */
  intervalMs: number;
  /**
   * Shortest time between the starts of two sweeps: one sweep at the whole budget (S / B), never under
   * the minimum interval. A sweep that took this long already starts again at once.
   */
  sweepGapMs: number;
  /** In list mode, the single-check backstop of each watch; in single mode equal to intervalMs. */
  backstopMs: number;
}

export function planChecks(input: PlanInput, settings: PlanSettings = DEFAULT_PLAN_SETTINGS): CheckPlan {
  const w = Math.max(0, Math.floor(input.watches));
  const b = Math.max(1e-3, input.requestsPerSecond);
  const pages = estimatePages(w, input.listingPages);
  const mode: CheckMode = pages < w ? 'list' : 'single';
  const sweepCost = Math.max(1, Math.min(w, pages));
  const boundMs = (sweepCost / b) * 1000;
  const intervalMs = Math.max(settings.minIntervalMs, Math.ceil(boundMs / settings.share));
  const sweepGapMs = Math.max(settings.minIntervalMs, Math.ceil(boundMs));
  const backstopMs =
    mode === 'single'
      ? intervalMs
      : Math.max(settings.minBackstopMs, intervalMs, Math.ceil((w / (b * settings.backstopShare)) * 1000));
  return { mode, sweepCost, boundMs, intervalMs, sweepGapMs, backstopMs };
}

/**
 * Delay before the next look at a watch that was just seen running. The first look comes
 * `firstMs` after the start (short runs are reported within a couple of seconds); after that,
 * the plan's interval (single mode) or its backstop (list mode, where the periodic listing is
 * what notices the end).
 */
export function nextLookIn(plan: CheckPlan, checksSoFar: number, firstMs: number): number {
  if (checksSoFar <= 0) return firstMs;
  return plan.mode === 'list' ? plan.backstopMs : plan.intervalMs;
}
