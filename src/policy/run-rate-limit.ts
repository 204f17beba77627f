// At most N runs per user per minute (sliding window), so a stuck key or a loop in a workflow tool
// cannot start a runbook hundreds of times. In memory per replica: a limit, not an accounting record.
export class RunRateLimit {
  readonly #perMinute: number;
  readonly #now: () => number;
  readonly #starts = new Map<string, number[]>();

  constructor(perMinute: number, now: () => number = Date.now) {
    this.#perMinute = perMinute;
    this.#now = now;
  }

  /** Records a run for `userId` if under the limit; otherwise returns the ms until the next is allowed. */
  take(userId: string): { ok: true } | { ok: false; retryInMs: number } {
    const now = this.#now();
    const recent = (this.#starts.get(userId) ?? []).filter((t) => now - t < 60_000);
    if (recent.length >= this.#perMinute) {
      this.#starts.set(userId, recent);
      return { ok: false, retryInMs: 60_000 - (now - recent[0]!) };
    }
    recent.push(now);
    this.#starts.set(userId, recent);
    return { ok: true };
  }
}
