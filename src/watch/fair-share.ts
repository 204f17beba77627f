// Many workspaces: how the deployment's global request ceiling is shared between tenants, and how many
// of each tenant's due watches a claim round takes. Pure, so the scheduler is tested on known data.
//
// Each tenant has its own budget (WATCH_REQUESTS_PER_SECOND) and wants what its open watches need: one
// look per watch per second at most (the plan's shortest interval), over the plan's share of the
// budget. When the wants add up to more than the global ceiling, the ceiling is split by max-min
// fairness (water-filling): a tenant wanting less than an equal split gets what it wants, the rest is
// split evenly among the others. So ten watches never wait behind ten thousand: the small tenant's
// share covers its ten, and the big one gets what is left.

/** Requests/s each tenant may plan with: min(its own budget, its max-min fair share of the ceiling). */
export function fairShares(
  wants: ReadonlyMap<string, number>,
  perTenantRate: number,
  globalRate: number,
): Map<string, number> {
  const shares = new Map<string, number>();
  const pending = [...wants].map(([tenant, want]) => ({ tenant, want: Math.min(perTenantRate, Math.max(0, want)) }));
  pending.sort((a, b) => a.want - b.want);
  let left = Math.max(0, globalRate);
  let count = pending.length;
  for (const { tenant, want } of pending) {
    const even = left / count;
    const share = Math.min(want, even);
    shares.set(tenant, share);
    left -= share;
    count--;
  }
  return shares;
}

/**
 * The rate a tenant's open watches want: every watch looked at once per `minIntervalMs`, over the
 * `share` of the budget the plan spends on sweeps (check-plan.ts), at least one request a second.
 */
export function wantedRate(openWatches: number, minIntervalMs: number, share: number): number {
  return Math.max(1, openWatches / (Math.max(1, minIntervalMs) / 1000) / Math.max(0.01, share));
}

/**
 * How many due watches one claim round takes per tenant: about a quarter second of its rate, at
 * least one. A tenant already holding `cap` watches in flight takes none (they would only wait on its
 * own bucket while holding slots other tenants need).
 */
export function claimQuota(rate: number): { perRound: number; cap: number } {
  return { perRound: Math.max(1, Math.ceil(rate / 4)), cap: Math.max(2, Math.ceil(rate)) };
}
