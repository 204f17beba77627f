// Request budget for the watcher's Runbook API calls: a token bucket (rate) plus a concurrency cap,
// shared by every check, full fetch and bulk listing, so a thousand watched runs never turn into a
// thousand requests at once. The bucket itself is pure arithmetic over an injected clock.

export interface TokenBucketOptions {
  ratePerSecond: number;
  /** Tokens that may be spent at once after a quiet period (default: one second's worth, at least 1). */
  burst?: number;
  now: () => number;
}

export class TokenBucket {
  readonly ratePerSecond: number;
  readonly burst: number;
  #tokens: number;
  #at: number;
  readonly #now: () => number;

  constructor(options: TokenBucketOptions) {
    this.ratePerSecond = options.ratePerSecond;
    this.burst = Math.max(1, options.burst ?? Math.ceil(options.ratePerSecond));
    this.#now = options.now;
    this.#tokens = this.burst;
    this.#at = this.#now();
  }

  #refill(): void {
    const now = this.#now();
    const elapsed = Math.max(0, now - this.#at);
    this.#tokens = Math.min(this.burst, this.#tokens + (elapsed * this.ratePerSecond) / 1000);
    this.#at = now;
  }

  /** Takes a token if one is there and returns 0; otherwise takes nothing and returns the ms to wait. */
  tryTake(): number {
    this.#refill();
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.#tokens) * 1000) / this.ratePerSecond);
  }

  /** Tokens available now (fractional). */
  available(): number {
    this.#refill();
    return this.#tokens;
  }
}

export type Sleep = (ms: number) => Promise<void>;

export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Where tokens come from when the budget is shared (replicas on Postgres): the store's bucket.
 * `take` grants up to `want` tokens; `waitMs` says when to ask again if fewer were granted.
 */
export interface TokenSource {
  take(want: number): Promise<{ granted: number; waitMs: number }>;
}

/** Tokens fetched from a shared source but not spent within this long are dropped (never hoarded). */
const HELD_TOKEN_MS = 1_000;

/**
 * Rate + concurrency limit around async calls. Waiters are served in arrival order. With a
 * `source` the rate is one bucket shared by every replica: tokens are fetched from it a few at a
 * time (about a tenth of a second's worth) and only while a call is waiting, so all replicas
 * together stay within the rate; when the source fails (the store is down) calls fall back to a
 * local bucket at half the rate until it answers again.
 */
export class RequestBudget {
  readonly #bucket: TokenBucket;
  readonly #concurrency: number;
  readonly #sleep: Sleep;
  readonly #now: () => number;
  readonly #source: TokenSource | null;
  readonly #batch: number;
  readonly #fallback: TokenBucket | null;
  #held = 0;
  #heldUntil = 0;
  #fetching: Promise<number> | null = null;
  #active = 0;
  #spent = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(options: {
    ratePerSecond: number;
    concurrency: number;
    now: () => number;
    sleep?: Sleep;
    burst?: number;
    source?: TokenSource;
  }) {
    this.#bucket = new TokenBucket({ ratePerSecond: options.ratePerSecond, now: options.now, burst: options.burst });
    this.#concurrency = Math.max(1, options.concurrency);
    this.#sleep = options.sleep ?? realSleep;
    this.#now = options.now;
    this.#source = options.source ?? null;
    this.#batch = Math.max(1, Math.min(this.#bucket.burst, Math.round(options.ratePerSecond / 10)));
    this.#fallback = this.#source
      ? new TokenBucket({ ratePerSecond: options.ratePerSecond / 2, now: options.now, burst: 1 })
      : null;
  }

  get ratePerSecond(): number {
    return this.#bucket.ratePerSecond;
  }

  get active(): number {
    return this.#active;
  }

  /** Calls that got a token so far (what this process spent). */
  get spent(): number {
    return this.#spent;
  }

  /** True when the rate is one bucket shared through the store. */
  get shared(): boolean {
    return this.#source !== null;
  }

  async run<T>(call: () => Promise<T>): Promise<T> {
    await this.#acquireSlot();
    try {
      await this.#token();
      this.#spent++;
      return await call();
    } finally {
      this.#releaseSlot();
    }
  }

  async #token(): Promise<void> {
    if (!this.#source) {
      for (;;) {
        const wait = this.#bucket.tryTake();
        if (wait === 0) return;
        await this.#sleep(wait);
      }
    }
    for (;;) {
      if (this.#held > 0 && this.#now() < this.#heldUntil) {
        this.#held--;
        return;
      }
      this.#held = 0;
      // One fetch at a time; everyone waiting shares its answer.
      if (!this.#fetching) {
        this.#fetching = this.#fetch().finally(() => {
          this.#fetching = null;
        });
      }
      const wait = await this.#fetching;
      if (this.#held > 0) continue;
      await this.#sleep(wait);
    }
  }

  /** Refills the held tokens from the source; returns how long to wait when none came. */
  async #fetch(): Promise<number> {
    try {
      const { granted, waitMs } = await this.#source!.take(this.#batch);
      this.#held = granted;
      this.#heldUntil = this.#now() + HELD_TOKEN_MS;
      return granted > 0 ? 0 : Math.max(5, waitMs);
    } catch {
      const wait = this.#fallback!.tryTake();
      if (wait === 0) {
        this.#held = 1;
        this.#heldUntil = this.#now() + HELD_TOKEN_MS;
      }
      return Math.max(5, wait);
    }
  }

  #acquireSlot(): Promise<void> {
    if (this.#active < this.#concurrency) {
      this.#active++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  #releaseSlot(): void {
    const next = this.#waiting.shift();
    // The slot passes straight to the next waiter, so #active stays the same.
    if (next) next();
    else this.#active--;
  }
}
