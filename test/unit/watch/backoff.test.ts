import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKOFF, nextCheckDelay } from '../../../src/watch/backoff.ts';

describe('nextCheckDelay', () => {
  it('checks first after ~2 s, then grows by 1.5 per attempt', () => {
    expect(nextCheckDelay(0)).toBe(2_000);
    expect(nextCheckDelay(1)).toBe(3_000);
    expect(nextCheckDelay(2)).toBe(4_500);
    expect(nextCheckDelay(3)).toBe(6_750);
  });

  it('never exceeds the cap and never drops below the first delay', () => {
    for (let n = 0; n < 200; n++) {
      const d = nextCheckDelay(n);
      expect(d).toBeGreaterThanOrEqual(DEFAULT_BACKOFF.firstMs);
      expect(d).toBeLessThanOrEqual(DEFAULT_BACKOFF.maxMs);
      expect(d).toBeGreaterThanOrEqual(nextCheckDelay(Math.max(0, n - 1)));
    }
    expect(nextCheckDelay(1_000)).toBe(60_000);
    expect(nextCheckDelay(-3)).toBe(2_000);
  });

  it('follows custom settings', () => {
    expect(nextCheckDelay(0, { firstMs: 50, factor: 2, maxMs: 300 })).toBe(50);
    expect(nextCheckDelay(2, { firstMs: 50, factor: 2, maxMs: 300 })).toBe(200);
    expect(nextCheckDelay(5, { firstMs: 50, factor: 2, maxMs: 300 })).toBe(300);
  });
});
