// The many-workspace scheduler on known data: how the global ceiling is shared (max-min fairness), what a
// tenant's open watches want, and how many due watches a claim round takes per tenant.
import { describe, expect, it } from 'vitest';
import { claimQuota, fairShares, wantedRate } from '../../../src/watch/fair-share.ts';

describe('fairShares', () => {
  it('gives every tenant what it wants, capped by its own budget, while the ceiling covers everyone', () => {
    const shares = fairShares(
      new Map([
        ['small', 3],
        ['big', 500],
      ]),
      20,
      1_000,
    );
    expect(shares.get('small')).toBe(3);
    // The big tenant is held to its own budget, not the ceiling.
    expect(shares.get('big')).toBe(20);
  });

  it('under a tight ceiling the small tenants keep what they need and the big ones split the rest evenly', () => {
    const wants = new Map<string, number>([
      ['a', 2],
      ['b', 4],
      ['huge-1', 10_000],
      ['huge-2', 10_000],
    ]);
    const shares = fairShares(wants, 100, 50);
    expect(shares.get('a')).toBe(2);
    expect(shares.get('b')).toBe(4);
    expect(shares.get('huge-1')).toBe(22);
    expect(shares.get('huge-2')).toBe(22);
    const total = [...shares.values()].reduce((x, y) => x + y, 0);
    expect(total).toBeCloseTo(50, 9);
  });

  it('1,000 tenants with 10 watches each beside one with 10,000: each small one is fully served, the big one gets its budget', () => {
    const wants = new Map<string, number>();
    for (let i = 0; i < 1_000; i++) wants.set(`t${i}`, wantedRate(10, 1_000, 0.75));
    wants.set('big', wantedRate(10_000, 1_000, 0.75));
    const shares = fairShares(wants, 20, 14_000);
    for (let i = 0; i < 1_000; i++) expect(shares.get(`t${i}`)).toBeCloseTo(10 / 0.75, 9);
    expect(shares.get('big')).toBe(20);
    // A ceiling below what the small ones want together: an equal split for all, the big one no more than any other.
    const tight = fairShares(wants, 20, 2_000);
    for (const share of tight.values()) expect(share).toBeCloseTo(2_000 / 1_001, 9);
  });

  it('with no wants there is nothing to share, and a negative want counts as none', () => {
    expect(fairShares(new Map(), 20, 100).size).toBe(0);
    expect(fairShares(new Map([['x', -5]]), 20, 100).get('x')).toBe(0);
  });
});

describe('wantedRate', () => {
  it('is one look per watch per shortest interval over the sweep share, at least one request a second', () => {
    expect(wantedRate(10, 1_000, 0.75)).toBeCloseTo(13.333, 3);
    expect(wantedRate(30, 2_000, 0.5)).toBe(30);
    expect(wantedRate(0, 1_000, 0.75)).toBe(1);
  });
});

describe('claimQuota', () => {
  it('takes about a quarter second of the rate per round and caps a tenant’s watches in flight at a second of it', () => {
    expect(claimQuota(20)).toEqual({ perRound: 5, cap: 20 });
    expect(claimQuota(0.5)).toEqual({ perRound: 1, cap: 2 });
    expect(claimQuota(7)).toEqual({ perRound: 2, cap: 7 });
  });
});
