import { describe, expect, it } from 'vitest';
import { DEFAULT_PLAN_SETTINGS, nextLookIn, planChecks } from '../../../src/watch/check-plan.ts';

describe('planChecks', () => {
  it('one watch: single gets, at most one a second', () => {
    const plan = planChecks({ watches: 1, requestsPerSecond: 20, listingPages: null });
    expect(plan).toMatchObject({ mode: 'single', sweepCost: 1, intervalMs: 1_000, backstopMs: 1_000 });
    expect(plan.boundMs).toBe(50);
  });

  it('a few watches on one listing page: one listing a second instead of one get per watch', () => {
    const plan = planChecks({ watches: 20, requestsPerSecond: 20, listingPages: 1 });
    expect(plan.mode).toBe('list');
    expect(plan.sweepCost).toBe(1);
    expect(plan.intervalMs).toBe(1_000);
    // The backstop single checks spend at most 5% of the budget.
    expect(plan.backstopMs).toBe(60_000);
  });

  it('10,000 watches on 20 req/s: the sweep costs the listing pages and its interval follows the budget', () => {
    const plan = planChecks({ watches: 10_000, requestsPerSecond: 20, listingPages: 110 });
    expect(plan.mode).toBe('list');
    expect(plan.sweepCost).toBe(110);
    expect(plan.boundMs).toBe(5_500);
    expect(plan.intervalMs).toBe(Math.ceil(5_500 / DEFAULT_PLAN_SETTINGS.share));
    expect(plan.backstopMs).toBe((10_000 / (20 * DEFAULT_PLAN_SETTINGS.backstopShare)) * 1000);
  });

  it('sweeps may start again as soon as one sweep at the whole budget could have ended, never under a second', () => {
    const big = planChecks({ watches: 10_000, requestsPerSecond: 20, listingPages: 100 });
    expect(big.sweepGapMs).toBe(5_000);
    expect(big.sweepGapMs).toBeLessThan(big.intervalMs);
    const few = planChecks({ watches: 20, requestsPerSecond: 20, listingPages: 1 });
    expect(few.sweepGapMs).toBe(1_000);
    for (const watches of [1, 50, 5_000, 50_000])
      for (const rate of [2, 20, 200]) {
        const plan = planChecks({ watches, requestsPerSecond: rate, listingPages: null });
        expect(plan.sweepGapMs).toBeGreaterThanOrEqual(Math.max(DEFAULT_PLAN_SETTINGS.minIntervalMs, plan.boundMs));
        expect(plan.sweepGapMs).toBeLessThanOrEqual(plan.intervalMs);
      }
  });

  it('backs off only when the budget is short: listings that cost more than single gets', () => {
    // 30 watches, but the oldest lies 80 pages back: 30 gets per sweep are cheaper.
    const plan = planChecks({ watches: 30, requestsPerSecond: 20, listingPages: 80 });
    expect(plan.mode).toBe('single');
    expect(plan.sweepCost).toBe(30);
    expect(plan.intervalMs).toBe(2_000);
    const short = planChecks({ watches: 30, requestsPerSecond: 2, listingPages: 80 });
    expect(short.intervalMs).toBe(20_000);
    expect(short.intervalMs).toBeGreaterThan(plan.intervalMs);
  });

  it('a bigger budget never makes the interval longer', () => {
    for (const watches of [1, 5, 50, 500, 5_000, 50_000]) {
      for (const pages of [null, 1, 10, 100, 1_000]) {
        const slow = planChecks({ watches, requestsPerSecond: 5, listingPages: pages });
        const fast = planChecks({ watches, requestsPerSecond: 50, listingPages: pages });
        expect(fast.intervalMs).toBeLessThanOrEqual(slow.intervalMs);
        expect(slow.intervalMs).toBeGreaterThanOrEqual(slow.boundMs);
      }
    }
  });
});

describe('nextLookIn', () => {
  it('first look soon, then the plan interval (single) or the backstop (list)', () => {
    const single = planChecks({ watches: 1, requestsPerSecond: 20, listingPages: null });
    const list = planChecks({ watches: 20, requestsPerSecond: 20, listingPages: 1 });
    expect(nextLookIn(single, 0, 2_000)).toBe(2_000);
    expect(nextLookIn(single, 3, 2_000)).toBe(1_000);
    expect(nextLookIn(list, 3, 2_000)).toBe(60_000);
  });
});
