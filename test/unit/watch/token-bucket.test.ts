import { describe, expect, it } from 'vitest';
import { RequestBudget, TokenBucket } from '../../../src/watch/token-bucket.ts';

describe('TokenBucket', () => {
  it('spends its burst, then hands out tokens at the configured rate', () => {
    let t = 0;
    const bucket = new TokenBucket({ ratePerSecond: 10, now: () => t });
    for (let i = 0; i < 10; i++) expect(bucket.tryTake()).toBe(0);
    expect(bucket.tryTake()).toBe(100);
    t += 50;
    expect(bucket.tryTake()).toBe(50);
    t += 50;
    expect(bucket.tryTake()).toBe(0);
    expect(bucket.tryTake()).toBe(100);
  });

  it('does not save up more than the burst', () => {
    let t = 0;
    const bucket = new TokenBucket({ ratePerSecond: 5, burst: 2, now: () => t });
    t += 60_000;
    expect(bucket.available()).toBe(2);
    expect(bucket.tryTake()).toBe(0);
    expect(bucket.tryTake()).toBe(0);
    expect(bucket.tryTake()).toBe(200);
  });
});

describe('RequestBudget', () => {
  it('keeps to the rate in virtual time', async () => {
    let t = 0;
    const budget = new RequestBudget({
      ratePerSecond: 4,
      burst: 1,
      concurrency: 100,
      now: () => t,
      sleep: async (ms) => {
        t += ms;
      },
    });
    const at: number[] = [];
    for (let i = 0; i < 5; i++) await budget.run(async () => at.push(t));
    expect(at).toEqual([0, 250, 500, 750, 1000]);
  });

  it('never runs more calls at once than the concurrency cap', async () => {
    const budget = new RequestBudget({ ratePerSecond: 1_000_000, concurrency: 3, now: () => 0, sleep: async () => {} });
    let running = 0;
    let peak = 0;
    const releases: Array<() => void> = [];
    const calls = Array.from({ length: 10 }, () =>
      budget.run(async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise<void>((r) => releases.push(r));
        running--;
      }),
    );
    for (let i = 0; i < 10; i++) {
      await new Promise((r) => setImmediate(r));
      expect(running).toBeLessThanOrEqual(3);
      releases.shift()?.();
    }
    while (releases.length) {
      releases.shift()?.();
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(calls);
    expect(peak).toBe(3);
  });
});

describe('RequestBudget with a shared token source', () => {
  /** A source over one TokenBucket, as the store's bucket behaves for every replica at once. */
  function sharedSource(bucket: TokenBucket, log: number[]) {
    return {
      async take(want: number) {
        let granted = 0;
        let waitMs = 0;
        while (granted < want) {
          const wait = bucket.tryTake();
          if (wait > 0) {
            waitMs = wait;
            break;
          }
          granted++;
        }
        log.push(granted);
        return { granted, waitMs };
      },
    };
  }

  it('two budgets on one source together keep to the one rate', async () => {
    let t = 0;
    const clock = () => t;
    const sleep = async (ms: number) => {
      t += ms;
    };
    const bucket = new TokenBucket({ ratePerSecond: 10, burst: 10, now: clock });
    const takes: number[] = [];
    const source = sharedSource(bucket, takes);
    const a = new RequestBudget({ ratePerSecond: 10, concurrency: 4, now: clock, sleep, source });
    const b = new RequestBudget({ ratePerSecond: 10, concurrency: 4, now: clock, sleep, source });
    const at: number[] = [];
    const calls = Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? a : b).run(async () => at.push(t)));
    await Promise.all(calls);
    expect(at).toHaveLength(60);
    expect(a.shared).toBe(true);
    expect(a.spent + b.spent).toBe(60);
    // 10 at once (the burst), then 10 per second between them: 50 more take at least 5 s.
    expect(Math.max(...at)).toBeGreaterThanOrEqual(4_900);
    // Fetched a tenth of a second's worth at a time, never more.
    expect(Math.max(...takes)).toBeLessThanOrEqual(1);
  });

  it('drops held tokens it did not spend within a second instead of saving them up', async () => {
    let t = 0;
    const clock = () => t;
    const bucket = new TokenBucket({ ratePerSecond: 40, burst: 40, now: clock });
    const takes: number[] = [];
    const budget = new RequestBudget({
      ratePerSecond: 40,
      concurrency: 1,
      now: clock,
      sleep: async (ms) => {
        t += ms;
      },
      source: sharedSource(bucket, takes),
    });
    await budget.run(async () => {});
    expect(takes).toEqual([4]);
    t += 1_500;
    await budget.run(async () => {});
    // The 3 left over were dropped: a fresh fetch.
    expect(takes).toEqual([4, 4]);
  });

  it('falls back to a local bucket at half the rate while the source fails', async () => {
    let t = 0;
    const budget = new RequestBudget({
      ratePerSecond: 10,
      concurrency: 1,
      now: () => t,
      sleep: async (ms) => {
        t += ms;
      },
      source: {
        take: async () => {
          throw new Error('store down');
        },
      },
    });
    const at: number[] = [];
    for (let i = 0; i < 4; i++) await budget.run(async () => at.push(t));
    expect(at).toEqual([0, 200, 400, 600]);
  });
});
