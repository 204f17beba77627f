// When to look at an execution again. Most runs finish within seconds to minutes, so the first
// check comes soon and later ones spread out: the API sees few requests for long runs while short
// runs are still reported promptly. Pure, so the schedule is unit-tested without timers.

export interface BackoffSettings {
  /** Delay before the first check after the run started. */
  firstMs: number;
  /** Growth per attempt. */
  factor: number;
  /** Longest gap between two checks. */
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffSettings = { firstMs: 2_000, factor: 1.5, maxMs: 60_000 };

/** Delay before check number `attempts + 1` (attempts = checks already made). */
export function nextCheckDelay(attempts: number, settings: BackoffSettings = DEFAULT_BACKOFF): number {
  const n = Math.max(0, Math.floor(attempts));
  const delay = settings.firstMs * settings.factor ** n;
  return Math.round(Math.min(settings.maxMs, Math.max(settings.firstMs, delay)));
}
