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
