import { afterEach, describe, expect, it } from 'vitest';
import { RunRateLimit } from '../../../src/policy/run-rate-limit.ts';
import { openReplicaStores, type Replicas } from '../store/replica-stores.ts';

const T0 = 1_700_000_000_000;

describe('RunRateLimit', () => {
  let replicas: Replicas | null = null;
  afterEach(async () => {
    await replicas?.close();
    replicas = null;
  });

  it('two replicas on Postgres: eleven runs by one person in a minute are refused at the limit of 10', async () => {
    replicas = await openReplicaStores('postgres', 2);
    let now = T0;
    const [a, b] = replicas.stores.map(
      (store) => new RunRateLimit({ perMinute: 10, store: store.runLimits, now: () => now }),
    );
    const outcomes = [];
    for (let i = 0; i < 11; i++) {
      now = T0 + i * 1_000;
      outcomes.push(await (i % 2 ? b! : a!).take('U1'));
    }
    expect(outcomes.slice(0, 10)).toEqual(Array(10).fill({ ok: true }));
    // The 11th, on replica b, at T0+10 s: the first start (T0, on replica a) leaves the window at T0+60 s.
    expect(outcomes[10]).toEqual({ ok: false, retryInMs: 50_000 });
    expect(await a!.take('U2')).toEqual({ ok: true });

    now = T0 + 60_000;
    expect(await a!.take('U1')).toEqual({ ok: true });
    expect(await b!.take('U1')).toMatchObject({ ok: false });
  });

  it('two replicas on Postgres taking at the same moment still start at most 10', async () => {
    replicas = await openReplicaStores('postgres', 2);
    const limits = replicas.stores.map(
      (store) => new RunRateLimit({ perMinute: 10, store: store.runLimits, now: () => T0 }),
    );
    const outcomes = await Promise.all(Array.from({ length: 16 }, (_, i) => limits[i % 2]!.take('U1')));
    expect(outcomes.filter((o) => o.ok)).toHaveLength(10);
  });

  it('forgets people whose window is over, once a minute', async () => {
    replicas = await openReplicaStores('sqlite', 1);
    const store = replicas.stores[0]!;
    let now = T0;
    const limit = new RunRateLimit({ perMinute: 2, store: store.runLimits, now: () => now });
    await limit.take('U1');
    now = T0 + 30_000;
    await limit.take('U2');
    now = T0 + 60_000;
    // The sweep ran at T0 (nothing idle then) and runs again now: U1's only start has left the window.
    await limit.take('U3');
    expect(await store.runLimits.deleteIdle(now - 60_000)).toBe(0);
    expect(await store.runLimits.deleteIdle(now)).toBe(2);
  });

  it('refuses to answer rather than lift the limit when the store fails', async () => {
    const limit = new RunRateLimit({
      perMinute: 10,
      store: {
        take: async () => {
          throw new Error('Connection terminated unexpectedly');
        },
        deleteIdle: async () => 0,
      },
    });
    await expect(limit.take('U1')).rejects.toThrow(/Connection terminated/);
  });
});
