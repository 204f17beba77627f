import { afterEach, describe, expect, it } from 'vitest';
import { parseInputSchema } from '../../../../src/forms/input-schema.ts';
import { RunDrafts } from '../../../../src/slack/kit/run-drafts.ts';
import { openReplicaStores, type Replicas } from '../../store/replica-stores.ts';

const T0 = 1_700_000_000_000;

const spec = parseInputSchema(
  JSON.stringify({
    type: 'object',
    properties: {
      region: { type: 'string' },
      password: { type: 'string', format: 'password' },
      db: { type: 'object', properties: { host: { type: 'string' }, token: { type: 'string', 'x-secret': true } } },
    },
  }),
);

const draft = {
  runbookId: 'rb-1',
  proxyId: 'proxy-a',
  channel: 'C100',
  params: { region: 'eu-west-1', password: 'hunter2', db: { host: 'db1', token: 'tok-123' } },
};

describe('RunDrafts', () => {
  let replicas: Replicas | null = null;
  afterEach(async () => {
    await replicas?.close();
    replicas = null;
  });

  it.each(['sqlite', 'postgres'] as const)(
    'a schedule draft (its builder in `extra`) saved on one %s replica is found on another, without secrets',
    async (kind) => {
      replicas = await openReplicaStores(kind, 2);
      const [a, b] = replicas.stores.map((store) => new RunDrafts({ store: store.runDrafts, now: () => T0 }));
      const extra = { kind: 'schedule', scheduleId: 'sch-1', builder: { preset: 'custom', cron: '17 4 * * *' } };
      const id = await a!.save({ ...draft, extra }, spec);
      expect(await b!.take(id)).toEqual({
        runbookId: 'rb-1',
        proxyId: 'proxy-a',
        channel: 'C100',
        params: { region: 'eu-west-1', db: { host: 'db1' } },
        extra,
      });
      expect((await replicas.stores[1]!.runDrafts.get(id, T0))?.params).not.toMatch(/hunter2|tok-123/);
    },
  );

  it('a draft saved via one Postgres replica is found via the other, without its secrets', async () => {
    replicas = await openReplicaStores('postgres', 2);
    const [a, b] = replicas.stores.map((store) => new RunDrafts({ store: store.runDrafts, now: () => T0 }));
    const id = await a!.save(draft, spec);
    const expected = {
      runbookId: 'rb-1',
      proxyId: 'proxy-a',
      channel: 'C100',
      params: { region: 'eu-west-1', db: { host: 'db1' } },
    };
    expect(await b!.take(id)).toEqual(expected);
    // Not consumed: "Try again" clicked twice reopens the form twice.
    expect(await a!.take(id)).toEqual(expected);
    // What the database holds has no secret in it at all.
    const stored = await replicas.stores[1]!.runDrafts.get(id, T0);
    expect(stored?.params).not.toMatch(/hunter2|tok-123/);
    expect(draft.params.password).toBe('hunter2');
  });

  it('an expired draft is gone, and the next save deletes it from the store', async () => {
    replicas = await openReplicaStores('sqlite', 1);
    const store = replicas.stores[0]!;
    let now = T0;
    const drafts = new RunDrafts({ store: store.runDrafts, ttlMs: 1_000, now: () => now });
    const old = await drafts.save(draft, spec);
    now = T0 + 1_000;
    expect(await drafts.take(old)).toBeNull();
    expect(await drafts.take('not-a-draft')).toBeNull();
    const fresh = await drafts.save(draft, spec);
    expect(await store.runDrafts.deleteExpired(now)).toBe(0);
    expect(await drafts.take(fresh)).not.toBeNull();
  });
});
