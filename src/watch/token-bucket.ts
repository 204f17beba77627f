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

/** Rate + concurrency limit around async calls. Waiters are served in arrival order. */
export class RequestBudget {
  readonly #bucket: TokenBucket;
  readonly #concurrency: number;
  readonly #sleep: Sleep;
  #active = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(options: {
    ratePerSecond: number;
    concurrency: number;
    now: () => number;
    sleep?: Sleep;
    burst?: number;
  }) {
    this.#bucket = new TokenBucket({ ratePerSecond: options.ratePerSecond, now: options.now, burst: options.burst });
    this.#concurrency = Math.max(1, options.concurrency);
    this.#sleep = options.sleep ?? realSleep;
  }

  get ratePerSecond(): number {
    return this.#bucket.ratePerSecond;
  }

  get active(): number {
    return this.#active;
  }

  async run<T>(call: () => Promise<T>): Promise<T> {
    await this.#acquireSlot();
    try {
      for (;;) {
        const wait = this.#bucket.tryTake();
        if (wait === 0) break;
        await this.#sleep(wait);
      }
      return await call();
    } finally {
      this.#releaseSlot();
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
