// Time source of the emulator. Tests inject a ManualClock so runs finish and schedules fire
// exactly when the test says, never by waiting on the wall clock.

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export class ManualClock implements Clock {
  #nowMs: number;

  constructor(startMs: number = Date.UTC(2025, 0, 15, 12, 0, 0)) {
    this.#nowMs = startMs;
  }

  now(): number {
    return this.#nowMs;
  }

  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`ManualClock.advance: ms must be a finite number >= 0`);
    this.#nowMs += ms;
  }

  set(ms: number): void {
    if (!Number.isFinite(ms)) throw new RangeError('ManualClock.set: ms must be finite');
    this.#nowMs = ms;
  }
}

export function isManualClock(clock: Clock): clock is ManualClock {
  return clock instanceof ManualClock;
}
