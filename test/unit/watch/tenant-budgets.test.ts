// Each tenant's requests spend its own budget, then the global ceiling; outside a tenant only the ceiling.
// Virtual time: a sleep is a timer on a virtual clock that `settle` fires in order, so waits are
// counted, never measured.
import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/store.ts';
import { TenantBudgets } from '../../../src/watch/tenant-budgets.ts';

function setup(rate: number, globalRate: number, slots = 100, weightOf?: (tenant: string) => number) {
  let t = 0;
  const timers: Array<{ at: number; resolve: () => void }> = [];
  const scope = new AsyncLocalStorage<string>();
  const budgets = new TenantBudgets({
    store: { kind: 'sqlite' } as Store,
    ratePerSecond: rate,
    concurrency: 100,
    globalRatePerSecond: globalRate,
    globalConcurrency: slots,
    ...(weightOf ? { weightOf } : {}),
    currentTenant: () => scope.getStore(),
    now: () => t,
    sleep: (ms) => new Promise<void>((resolve) => timers.push({ at: t + ms, resolve })),
  });
  const calls: Array<{ tenant: string; at: number }> = [];
  const call = (tenant: string) =>
    scope.run(tenant, () =>
      budgets.run(async () => {
        calls.push({ tenant, at: t });
      }),
    );
  /** Runs the work to its end, firing the earliest timer whenever everything else waits. */
  async function settle(work: Array<Promise<unknown>>): Promise<void> {
    let done = false;
    const all = Promise.all(work).then(() => {
      done = true;
    });
    while (!done) {
      await new Promise((r) => setImmediate(r));
      if (done || timers.length === 0) continue;
      timers.sort((a, b) => a.at - b.at);
      const next = timers.shift()!;
      t = Math.max(t, next.at);
      next.resolve();
    }
    await all;
  }
  return { budgets, calls, call, settle };
}

describe('TenantBudgets', () => {
  it('a tenant past its own budget waits on it, and another tenant is served at once', async () => {
    const { calls, call, settle } = setup(2, 100);
    // Tenant A asks for 6 (a burst of 2, then 2 a second); B asks for 1 after A's backlog is queued.
    await settle([...Array.from({ length: 6 }, () => call('A')), call('B')]);
    expect(calls.find((c) => c.tenant === 'B')!.at).toBe(0);
    const aTimes = calls.filter((c) => c.tenant === 'A').map((c) => c.at);
    expect(aTimes.filter((at) => at === 0)).toHaveLength(2);
    // 6 at 2/s after a burst of 2: the last goes out about 2 s later, never sooner.
    expect(Math.max(...aTimes)).toBeGreaterThanOrEqual(1_900);
  });

  it('the global ceiling bounds every tenant together', async () => {
    const { budgets, calls, call, settle } = setup(100, 3);
    await settle(['A', 'B', 'C', 'D', 'E', 'F'].map((tenant) => call(tenant)));
    // Three at once (the ceiling's burst), the other three only as it refills at 3/s.
    expect(calls.filter((c) => c.at === 0)).toHaveLength(3);
    expect(Math.max(...calls.map((c) => c.at))).toBeGreaterThanOrEqual(900);
    expect(budgets.global.spent).toBe(6);
    expect(budgets.of('A').spent).toBe(1);
  });

  it('a call outside any tenant spends only the ceiling', async () => {
    const { budgets, settle } = setup(1, 10);
    let ran = 0;
    await settle(Array.from({ length: 5 }, () => budgets.run(async () => ran++)));
    expect(ran).toBe(5);
    expect(budgets.global.spent).toBe(5);
  });

  it('when the ceiling’s slots are all taken, waiting tenants get in by weight, not by arrival', async () => {
    // One slot. Ten small tenants queue 5 calls each, then BIG (weight 10, as its plan wants 10× the
    // rate) queues 5: in arrival order BIG would go last; by weight its 5 go within the first rounds.
    const { calls, call, settle } = setup(1_000, 1_000_000, 1, (tenant) => (tenant === 'BIG' ? 10 : 1));
    const small = Array.from({ length: 10 }, (_, i) => `S${i}`);
    const work = [...small.flatMap((tenant) => Array.from({ length: 5 }, () => call(tenant)))];
    work.push(...Array.from({ length: 5 }, () => call('BIG')));
    await settle(work);
    const order = calls.map((c) => c.tenant);
    expect(order).toHaveLength(55);
    const lastBig = order.lastIndexOf('BIG');
    expect(lastBig).toBeLessThan(20);
    // Equal weights among the small ones: each of them is served once before any is served a third time.
    const firstThird = order.findIndex((t, i) => t !== 'BIG' && order.slice(0, i).filter((u) => u === t).length === 2);
    for (const tenant of small)
      expect(order.slice(0, firstThird).filter((t) => t === tenant).length).toBeGreaterThanOrEqual(1);
  });
});
