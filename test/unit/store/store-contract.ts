// The behaviour every Store implementation must have. Each implementation's test file calls
// runStoreContract with a harness that can open several stores on ONE database (replicas, restarts).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type NewApproval, type NewWatch, SLACK_EVENT_MEMORY_MS, type Store } from '../../../src/store/store.ts';

export interface StoreHarness {
  /** Opens (and migrates) another store on the same database: a second replica, or a restart. */
  open(): Promise<Store>;
  /** Closes every store it opened and removes the database. */
  destroy(): Promise<void>;
  /** Every row of a table as the database holds it, read past the store (what an attacker with the file sees). */
  rawRows(table: string): Promise<Array<Record<string, unknown>>>;
  /** Every table of the schema, by name. */
  tables(): Promise<string[]>;
}

/**
 * The setup every contract file shares: before each test of the enclosing describe, a fresh database and a
 * store opened on it, handed to `opened` (which keeps them, and does what else the file sets up per test);
 * after each test, the database destroyed (every store opened on it closed).
 */
export function freshStoreEachTest(
  createHarness: () => Promise<StoreHarness>,
  opened: (fresh: { harness: StoreHarness; store: Store }) => void | Promise<void>,
): void {
  let harness: StoreHarness | undefined;
  beforeEach(async () => {
    harness = await createHarness();
    await opened({ harness, store: await harness.open() });
  });
  afterEach(async () => {
    const done = harness;
    harness = undefined;
    await done?.destroy();
  });
}

const T0 = 1_700_000_000_000;
const LEASE = 60_000;

export function newWatch(executionId: string, overrides: Partial<NewWatch> = {}): NewWatch {
  return {
    executionId,
    runbookId: 'rb-1',
    runbookName: 'Restart pods',
    channel: 'C100',
    messageTs: null,
    threadTs: null,
    startedBy: 'U1',
    teamId: 'T1',
    proxyId: 'proxy-a',
    inputsSummary: 'region=us-west-2, token=••••',
    origin: 'slack',
    ...overrides,
  };
}

export function newApproval(overrides: Partial<NewApproval> = {}): NewApproval {
  return {
    runbookId: 'rb-9',
    runbookName: 'Drop caches',
    proxyId: 'proxy-a',
    params: '{"password":"hunter2"}',
    paramsMasked: '{"password":"••••"}',
    requesterId: 'U7',
    requesterTeam: 'T1',
    channel: 'C200',
    expiresAt: T0 + 3_600_000,
    ...overrides,
  };
}

function ids(watches: Array<{ executionId: string }>): string[] {
  return watches.map((w) => w.executionId);
}

export function runStoreContract(name: string, createHarness: () => Promise<StoreHarness>): void {
  describe(`${name} store contract`, () => {
    let harness: StoreHarness;
    let store: Store;
    freshStoreEachTest(createHarness, (fresh) => {
      ({ harness, store } = fresh);
    });

    describe('migrations', () => {
      it('migrating again is a no-op that keeps the data', async () => {
        await store.cursors.set('c', 'v1', T0);
        const first = await store.migrate();
        const second = await store.migrate();
        expect(first.applied).toBe(0);
        expect(second).toEqual({ version: first.version, applied: 0 });
        expect(first.version).toBeGreaterThanOrEqual(1);
        expect(await store.cursors.get('c')).toBe('v1');
      });

      it('a reopened store sees what an earlier one wrote', async () => {
        await store.watches.insert(newWatch('e-1'), T0);
        await store.approvals.create(newApproval(), T0);
        await store.close();
        const reopened = await harness.open();
        expect((await reopened.watches.get('e-1'))?.runbookName).toBe('Restart pods');
        expect(await reopened.watches.countByState()).toEqual({ active: 1, finished: 0, stale: 0 });
      });
    });

    describe('watches', () => {
      it('insert is idempotent per execution id and applies defaults', async () => {
        expect(await store.watches.insert(newWatch('e-1'), T0)).toBe(true);
        expect(await store.watches.insert(newWatch('e-1', { runbookName: 'Other' }), T0 + 5)).toBe(false);
        expect(await store.watches.get('e-1')).toEqual({
          installationId: '',
          executionId: 'e-1',
          runbookId: 'rb-1',
          runbookName: 'Restart pods',
          channel: 'C100',
          messageTs: null,
          threadTs: null,
          startedBy: 'U1',
          teamId: 'T1',
          proxyId: 'proxy-a',
          inputsSummary: 'region=us-west-2, token=••••',
          origin: 'slack',
          state: 'active',
          nextCheckAt: T0,
          attempts: 0,
          createdAt: T0,
          updatedAt: T0,
          leaseOwner: null,
          leaseUntil: null,
          finalStatus: null,
          resultPostedAt: null,
          replyPostedAt: null,
          sourceLink: null,
          approvedBy: [],
          proxyName: null,
          startedAt: null,
          eta: null,
        });
        expect(await store.watches.get('missing')).toBeNull();
      });

      it('keeps optional fields and an explicit first check time', async () => {
        await store.watches.insert(
          newWatch('e-2', {
            messageTs: '111.222',
            threadTs: '100.000',
            startedBy: null,
            teamId: null,
            origin: 'adopted',
            nextCheckAt: T0 + 5_000,
          }),
          T0,
        );
        const w = await store.watches.get('e-2');
        expect(w).toMatchObject({
          messageTs: '111.222',
          threadTs: '100.000',
          startedBy: null,
          teamId: null,
          origin: 'adopted',
          nextCheckAt: T0 + 5_000,
        });
      });

      it('setMessage records where the running message lives', async () => {
        await store.watches.insert(newWatch('e-1'), T0);
        await store.watches.setMessage('e-1', 'C999', '1700000000.000100', T0 + 10);
        expect(await store.watches.get('e-1')).toMatchObject({
          channel: 'C999',
          messageTs: '1700000000.000100',
          updatedAt: T0 + 10,
        });
      });

      it("keeps a watch's thread while its card is in the watch's channel; a card elsewhere (a DM) drops it", async () => {
        await store.watches.insert(newWatch('in-thread', { channel: 'C100', threadTs: '100.000' }), T0);
        await store.watches.setMessage('in-thread', 'C100', '100.500', T0 + 1);
        expect(await store.watches.get('in-thread')).toMatchObject({ messageTs: '100.500', threadTs: '100.000' });
        await store.watches.setMessage('in-thread', 'C100', '100.600', T0 + 2, { medianMs: 1, p95Ms: null, runs: 1 });
        expect((await store.watches.get('in-thread'))?.threadTs).toBe('100.000');
        await store.watches.setMessage('in-thread', 'D7', '200.000', T0 + 3);
        expect(await store.watches.get('in-thread')).toMatchObject({ channel: 'D7', threadTs: null });
      });

      it("keeps an adopted run's own start and the usual duration its card showed (claimed watches carry both)", async () => {
        await store.watches.insert(newWatch('e-own', { origin: 'adopted', startedAt: T0 - 600_000 }), T0);
        await store.watches.insert(newWatch('e-new'), T0);
        expect(await store.watches.get('e-new')).toMatchObject({ startedAt: null, eta: null });
        // A card drawn without an ETA records none; one drawn with it keeps median, p95 and sample size.
        await store.watches.setMessage('e-new', 'C1', '1.1', T0 + 1);
        expect((await store.watches.get('e-new'))?.eta).toBeNull();
        await store.watches.setMessage('e-own', 'C1', '1.2', T0 + 2, { medianMs: 240_500.4, p95Ms: 480_000, runs: 20 });
        await store.watches.setMessage('e-new', 'C1', '1.1', T0 + 3, { medianMs: 1_000, p95Ms: null, runs: 3 });
        const claimed = await store.watches.claimDue('other-replica', T0 + 10, LEASE, 10);
        const byId = new Map(claimed.map((w) => [w.executionId, w]));
        expect(byId.get('e-own')).toMatchObject({
          startedAt: T0 - 600_000,
          eta: { medianMs: 240_500, p95Ms: 480_000, runs: 20 },
          messageTs: '1.2',
        });
        expect(byId.get('e-new')).toMatchObject({ startedAt: null, eta: { medianMs: 1_000, p95Ms: null, runs: 3 } });
      });

      it('claimDue takes only due, active, unleased watches, ordered by nextCheckAt, up to the limit', async () => {
        await store.watches.insert(newWatch('late', { nextCheckAt: T0 + 30 }), T0);
        await store.watches.insert(newWatch('first', { nextCheckAt: T0 + 10 }), T0);
        await store.watches.insert(newWatch('second', { nextCheckAt: T0 + 20 }), T0);
        await store.watches.insert(newWatch('future', { nextCheckAt: T0 + 1_000 }), T0);
        await store.watches.insert(newWatch('done', { nextCheckAt: T0 }), T0);
        const [finishing] = await store.watches.claimDue('setup', T0, LEASE, 1);
        expect(finishing?.executionId).toBe('done');
        expect(await store.watches.complete('done', 'setup', 'finished', 'EXECUTION_STATUS_SUCCEEDED', T0)).toBe(true);

        const now = T0 + 100;
        const claimed = await store.watches.claimDue('owner-a', now, LEASE, 2);
        expect(ids(claimed)).toEqual(['first', 'second']);
        for (const w of claimed) {
          expect(w.leaseOwner).toBe('owner-a');
          expect(w.leaseUntil).toBe(now + LEASE);
        }
        expect((await store.watches.get('first'))?.leaseOwner).toBe('owner-a');

        expect(ids(await store.watches.claimDue('owner-b', now, LEASE, 10))).toEqual(['late']);
        expect(await store.watches.claimDue('owner-c', now, LEASE, 10)).toEqual([]);
        expect(await store.watches.claimDue('owner-c', now, LEASE, 0)).toEqual([]);
        expect(ids(await store.watches.claimDue('owner-c', T0 + 1_000, LEASE, 10))).toEqual(['future']);
      });

      it('a fair claimDue goes round-robin over tenants: each tenant’s earliest first, perTenant at most, excluded tenants none', async () => {
        // Team BIG has 6 due watches, all older than SMALL's 2 and NOTEAM's 1.
        for (let i = 0; i < 6; i++) {
          await store.watches.insert(newWatch(`big-${i}`, { teamId: 'TBIG', nextCheckAt: T0 + i }), T0);
        }
        await store.watches.insert(newWatch('small-0', { teamId: 'TSMALL', nextCheckAt: T0 + 50 }), T0);
        await store.watches.insert(newWatch('small-1', { teamId: 'TSMALL', nextCheckAt: T0 + 60 }), T0);
        await store.watches.insert(newWatch('none-0', { teamId: null, nextCheckAt: T0 + 70 }), T0);
        await store.watches.insert(newWatch('small-later', { teamId: 'TSMALL', nextCheckAt: T0 + 5_000 }), T0);
        // An org-wide installation E1 serving two workspaces is one tenant; a watch kept for '' counts for its team.
        const org = (id: string, teamId: string, nextCheckAt: number) =>
          store.watches.insert(newWatch(id, { installationId: 'E1', teamId, nextCheckAt }), T0);
        await org('org-a-0', 'TA', T0 + 80);
        await org('org-b-0', 'TB', T0 + 90);
        await org('org-a-1', 'TA', T0 + 95);
        await store.watches.insert(newWatch('legacy-a', { teamId: 'TA', nextCheckAt: T0 + 97 }), T0);
        const now = T0 + 100;
        expect(
          (await store.watches.countActiveByTenant()).sort((a, b) => ((a.tenant ?? '~') < (b.tenant ?? '~') ? -1 : 1)),
        ).toEqual([
          { tenant: 'E1', count: 3 },
          { tenant: 'TA', count: 1 },
          { tenant: 'TBIG', count: 6 },
          { tenant: 'TSMALL', count: 3 },
          { tenant: null, count: 1 },
        ]);
        // The plain claim takes the oldest: BIG's only.
        const plain = await store.watches.claimDue('plain', now, LEASE, 3);
        expect(ids(plain)).toEqual(['big-0', 'big-1', 'big-2']);
        await store.watches.releaseAll('plain');

        // Rank 1 of each tenant first (big-0, small-0, none-0, org-a-0 for both of E1's workspaces, legacy-a),
        // then rank 2 (big-1, small-1, org-b-0): limit 6 cuts rank 2 by next check.
        const fair = await store.watches.claimDue('fair', now, LEASE, 6, { perTenant: 2, excludeTenants: [] });
        expect(ids(fair).sort()).toEqual(['big-0', 'big-1', 'legacy-a', 'none-0', 'org-a-0', 'small-0']);
        expect(fair.every((w) => w.leaseOwner === 'fair')).toBe(true);
        // perTenant caps BIG and E1 at 2 even with room for more; leased watches are not claimed again.
        const next = await store.watches.claimDue('fair2', now, LEASE, 10, { perTenant: 2, excludeTenants: [] });
        expect(ids(next).sort()).toEqual(['big-2', 'big-3', 'org-a-1', 'org-b-0', 'small-1']);
        // An excluded tenant (E1: both its workspaces), and (excludeNoTenant) watches of no tenant, get none.
        await store.watches.releaseAll('fair');
        await store.watches.releaseAll('fair2');
        const excluded = await store.watches.claimDue('fair3', now, LEASE, 10, {
          perTenant: 10,
          excludeTenants: ['TBIG', 'E1'],
          excludeNoTenant: true,
        });
        expect(ids(excluded).sort()).toEqual(['legacy-a', 'small-0', 'small-1']);
      });

      it('an expired lease lets another owner take over, and the old owner can no longer write', async () => {
        await store.watches.insert(newWatch('e-1'), T0);
        expect(ids(await store.watches.claimDue('a', T0, 1_000, 10))).toEqual(['e-1']);
        expect(await store.watches.claimDue('b', T0 + 999, 1_000, 10)).toEqual([]);
        expect(ids(await store.watches.claimDue('b', T0 + 1_000, 1_000, 10))).toEqual(['e-1']);

        expect(await store.watches.reschedule('e-1', 'a', T0 + 5_000, 1, T0 + 1_001)).toBe(false);
        expect(await store.watches.complete('e-1', 'a', 'finished', 'EXECUTION_STATUS_FAILED', T0 + 1_001)).toBe(false);
        expect(await store.watches.renewLeases('a', ['e-1'], T0 + 9_000)).toBe(0);
        expect(await store.watches.get('e-1')).toMatchObject({ state: 'active', leaseOwner: 'b', attempts: 0 });

        expect(await store.watches.reschedule('e-1', 'b', T0 + 5_000, 3, T0 + 1_002)).toBe(true);
        expect(await store.watches.get('e-1')).toMatchObject({
          nextCheckAt: T0 + 5_000,
          attempts: 3,
          updatedAt: T0 + 1_002,
          leaseOwner: null,
          leaseUntil: null,
        });
        // Released, so it is claimable again once due — by anyone.
        expect(await store.watches.claimDue('a', T0 + 4_999, 1_000, 10)).toEqual([]);
        expect(ids(await store.watches.claimDue('a', T0 + 5_000, 1_000, 10))).toEqual(['e-1']);
      });

      it('reschedule and complete refuse a watch nobody claimed', async () => {
        await store.watches.insert(newWatch('e-1'), T0);
        expect(await store.watches.reschedule('e-1', 'a', T0 + 10, 1, T0)).toBe(false);
        expect(await store.watches.complete('e-1', 'a', 'stale', null, T0)).toBe(false);
        expect(await store.watches.reschedule('missing', 'a', T0 + 10, 1, T0)).toBe(false);
      });

      it('renewLeases extends only the leases the owner holds', async () => {
        await store.watches.insert(newWatch('e-1'), T0);
        await store.watches.insert(newWatch('e-2'), T0);
        await store.watches.insert(newWatch('e-3'), T0);
        await store.watches.claimDue('a', T0, 1_000, 2);
        await store.watches.claimDue('b', T0, 1_000, 1);
        expect(await store.watches.renewLeases('a', ['e-1', 'e-2', 'e-3', 'e-1'], T0 + 10_000)).toBe(2);
        expect(await store.watches.renewLeases('a', [], T0 + 10_000)).toBe(0);
        expect((await store.watches.get('e-1'))?.leaseUntil).toBe(T0 + 10_000);
        expect((await store.watches.get('e-3'))?.leaseUntil).toBe(T0 + 1_000);
        // The renewed ones are not up for grabs when the original lease would have run out.
        expect(ids(await store.watches.claimDue('c', T0 + 1_000, 1_000, 10))).toEqual(['e-3']);
      });

      it('complete marks the watch terminal and releases it for good', async () => {
        await store.watches.insert(newWatch('e-1'), T0);
        await store.watches.insert(newWatch('e-2'), T0);
        await store.watches.claimDue('a', T0, LEASE, 10);
        expect(await store.watches.complete('e-1', 'a', 'finished', 'EXECUTION_STATUS_SUCCEEDED', T0 + 5)).toBe(true);
        expect(await store.watches.complete('e-2', 'a', 'stale', null, T0 + 6)).toBe(true);
        expect(await store.watches.get('e-1')).toMatchObject({
          state: 'finished',
          finalStatus: 'EXECUTION_STATUS_SUCCEEDED',
          leaseOwner: null,
          leaseUntil: null,
          updatedAt: T0 + 5,
        });
        expect((await store.watches.get('e-2'))?.state).toBe('stale');
        expect(await store.watches.complete('e-1', 'a', 'stale', null, T0 + 7)).toBe(false);
        expect(await store.watches.claimDue('a', T0 + LEASE * 10, LEASE, 10)).toEqual([]);
        expect(await store.watches.countByState()).toEqual({ active: 0, finished: 1, stale: 1 });
      });

      it('countDue counts active watches whose check is due, leased or not', async () => {
        await store.watches.insert(newWatch('e-1', { nextCheckAt: T0 }), T0);
        await store.watches.insert(newWatch('e-2', { nextCheckAt: T0 + 100 }), T0);
        await store.watches.insert(newWatch('e-3', { nextCheckAt: T0 + 200 }), T0);
        expect(await store.watches.countDue(T0 - 1)).toBe(0);
        expect(await store.watches.countDue(T0 + 100)).toBe(2);
        await store.watches.claimDue('a', T0 + 100, LEASE, 1);
        expect(await store.watches.complete('e-1', 'a', 'finished', null, T0 + 150)).toBe(true);
        expect(await store.watches.countDue(T0 + 1_000)).toBe(2);
      });

      it('markResultPosted keeps the first time', async () => {
        await store.watches.insert(newWatch('e-1'), T0);
        await store.watches.markResultPosted('e-1', T0 + 1);
        await store.watches.markResultPosted('e-1', T0 + 2);
        expect((await store.watches.get('e-1'))?.resultPostedAt).toBe(T0 + 1);
      });

      it('claimReply succeeds for exactly one of many concurrent callers', async () => {
        await store.watches.insert(newWatch('e-1'), T0);
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => store.watches.claimReply('e-1', T0 + i)),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
        const winner = results.indexOf(true);
        expect((await store.watches.get('e-1'))?.replyPostedAt).toBe(T0 + winner);
        expect(await store.watches.claimReply('e-1', T0 + 100)).toBe(false);
        expect(await store.watches.claimReply('missing', T0)).toBe(false);
      });

      it('claimReply succeeds exactly once across two replicas', async () => {
        const replica = await harness.open();
        await store.watches.insert(newWatch('e-1'), T0);
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? store : replica).watches.claimReply('e-1', T0)),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
      });

      it('two replicas claiming concurrently never get the same watch', async () => {
        const replica = await harness.open();
        const total = 60;
        for (let i = 0; i < total; i++) {
          await store.watches.insert(newWatch(`e-${String(i).padStart(3, '0')}`, { nextCheckAt: T0 + i }), T0);
        }
        const claimedBy = new Map<string, string>();
        const duplicates: string[] = [];
        const claimLoop = async (replicaStore: Store, owner: string) => {
          for (let round = 0; round < 40; round++) {
            const batch = await replicaStore.watches.claimDue(owner, T0 + total, LEASE, 3);
            for (const w of batch) {
              if (claimedBy.has(w.executionId)) duplicates.push(w.executionId);
              claimedBy.set(w.executionId, owner);
            }
            if (batch.length === 0) return;
          }
        };
        await Promise.all([
          claimLoop(store, 'a1'),
          claimLoop(replica, 'b1'),
          claimLoop(store, 'a2'),
          claimLoop(replica, 'b2'),
        ]);
        expect(duplicates).toEqual([]);
        expect(claimedBy.size).toBe(total);
        for (const [executionId, owner] of claimedBy) {
          expect((await store.watches.get(executionId))?.leaseOwner).toBe(owner);
        }
      });

      it('claimIds takes the named active watches whose lease is free, due or not, once', async () => {
        const replica = await harness.open();
        await store.watches.insert(newWatch('e-1', { nextCheckAt: T0 + 60_000 }), T0);
        await store.watches.insert(newWatch('e-2'), T0);
        await store.watches.insert(newWatch('e-3'), T0);
        await store.watches.claimDue('other', T0, LEASE, 1);
        const [a, b] = await Promise.all([
          store.watches.claimIds('a', ['e-1', 'e-2', 'e-3', 'missing'], T0, LEASE),
          replica.watches.claimIds('b', ['e-1', 'e-2', 'e-3'], T0, LEASE),
        ]);
        const won = [...ids(a), ...ids(b)].sort();
        expect(won).toEqual(['e-1', 'e-3']);
        expect(await store.watches.claimIds('c', [], T0, LEASE)).toEqual([]);
        // An expired lease is taken over.
        expect(ids(await store.watches.claimIds('c', ['e-2'], T0 + LEASE, LEASE))).toEqual(['e-2']);
      });

      it('releaseAll frees every lease of one owner', async () => {
        await store.watches.insert(newWatch('e-1'), T0);
        await store.watches.insert(newWatch('e-2'), T0);
        await store.watches.insert(newWatch('e-3'), T0);
        await store.watches.claimDue('a', T0, LEASE, 2);
        await store.watches.claimDue('b', T0, LEASE, 1);
        expect(await store.watches.releaseAll('a')).toBe(2);
        expect(await store.watches.releaseAll('a')).toBe(0);
        expect(ids(await store.watches.claimDue('c', T0, LEASE, 10))).toEqual(['e-1', 'e-2']);
        expect((await store.watches.get('e-3'))?.leaseOwner).toBe('b');
      });

      it('counts by state, lists active oldest first and reports the oldest', async () => {
        expect(await store.watches.countByState()).toEqual({ active: 0, finished: 0, stale: 0 });
        expect(await store.watches.oldestActiveCreatedAt()).toBeNull();
        await store.watches.insert(newWatch('old-done'), T0 - 500);
        await store.watches.insert(newWatch('newer'), T0 + 20);
        await store.watches.insert(newWatch('older'), T0 + 10);
        await store.watches.insert(newWatch('newest'), T0 + 30);
        await store.watches.claimDue('a', T0 - 500, LEASE, 1);
        await store.watches.complete('old-done', 'a', 'finished', 'EXECUTION_STATUS_SUCCEEDED', T0);

        expect(await store.watches.countByState()).toEqual({ active: 3, finished: 1, stale: 0 });
        expect(ids(await store.watches.listActive(10))).toEqual(['older', 'newer', 'newest']);
        expect(ids(await store.watches.listActive(2))).toEqual(['older', 'newer']);
        expect(await store.watches.oldestActiveCreatedAt()).toBe(T0 + 10);
        expect((await store.watches.listActiveIds(10)).sort()).toEqual(['newer', 'newest', 'older']);
        expect(await store.watches.listActiveIds(2)).toHaveLength(2);
        await store.watches.insert(newWatch('team-b', { teamId: 'TB' }), T0 + 40);
        await store.watches.insert(newWatch('no-team', { teamId: null }), T0 + 50);
        await store.watches.insert(newWatch('older', { teamId: 'TB', installationId: 'TB' }), T0 + 60);
        const keys = await store.watches.listActiveKeys(10);
        expect(keys.sort((a, b) => a.createdAt - b.createdAt)).toEqual([
          { installationId: '', executionId: 'older', teamId: 'T1', createdAt: T0 + 10 },
          { installationId: '', executionId: 'newer', teamId: 'T1', createdAt: T0 + 20 },
          { installationId: '', executionId: 'newest', teamId: 'T1', createdAt: T0 + 30 },
          { installationId: '', executionId: 'team-b', teamId: 'TB', createdAt: T0 + 40 },
          { installationId: '', executionId: 'no-team', teamId: null, createdAt: T0 + 50 },
          // Another installation's execution of the same id: a key of its own.
          { installationId: 'TB', executionId: 'older', teamId: 'TB', createdAt: T0 + 60 },
        ]);
        expect(await store.watches.listActiveKeys(2)).toHaveLength(2);
      });

      it('deferSeen moves only never-looked-at, unleased, posted watches, and counts it as their first look', async () => {
        await store.watches.insert(newWatch('fresh', { messageTs: '1.1', nextCheckAt: T0 + 10 }), T0);
        await store.watches.insert(newWatch('unposted', { nextCheckAt: T0 + 10 }), T0);
        await store.watches.insert(newWatch('leased', { messageTs: '1.2', nextCheckAt: T0 + 10 }), T0);
        await store.watches.insert(newWatch('looked', { messageTs: '1.3', nextCheckAt: T0 + 10 }), T0);
        await store.watches.claimIds('other', ['leased', 'looked'], T0, LEASE);
        await store.watches.reschedule('looked', 'other', T0 + 10, 1, T0);
        const now = T0 + 100;
        expect(
          await store.watches.deferSeen(['fresh', 'unposted', 'leased', 'looked', 'missing'], T0 + 60_000, now),
        ).toBe(1);
        expect(await store.watches.deferSeen([], T0 + 60_000, now)).toBe(0);
        // Only the named installation's watches ('' by default): another's of the same id is not moved.
        await store.watches.insert(
          newWatch('fresh', { messageTs: '9.9', nextCheckAt: T0 + 10, installationId: 'T0B' }),
          T0,
        );
        expect(await store.watches.deferSeen(['fresh'], T0 + 90_000, now)).toBe(0);
        expect((await store.watches.get('fresh', 'T0B'))?.nextCheckAt).toBe(T0 + 10);
        expect(await store.watches.deferSeen(['fresh'], T0 + 90_000, now, 'T0B')).toBe(1);
        expect(await store.watches.get('fresh')).toMatchObject({ nextCheckAt: T0 + 60_000, attempts: 1 });
        expect(await store.watches.get('unposted')).toMatchObject({ nextCheckAt: T0 + 10, attempts: 0 });
        expect(await store.watches.get('leased')).toMatchObject({
          nextCheckAt: T0 + 10,
          attempts: 0,
          leaseOwner: 'other',
        });
        expect(await store.watches.get('looked')).toMatchObject({ nextCheckAt: T0 + 10, attempts: 1 });
        // Once looked at, a second listing leaves it alone.
        expect(await store.watches.deferSeen(['fresh'], T0 + 90_000, now)).toBe(0);
      });

      it('expedite brings active watches forward and leaves the rest alone', async () => {
        await store.watches.insert(newWatch('far', { nextCheckAt: T0 + 60_000 }), T0);
        await store.watches.insert(newWatch('near', { nextCheckAt: T0 + 10 }), T0);
        await store.watches.insert(newWatch('other', { nextCheckAt: T0 + 60_000 }), T0);
        const now = T0 + 100;
        await store.watches.expedite(['far', 'near', 'missing'], now);
        await store.watches.expedite([], now);
        expect((await store.watches.get('far'))?.nextCheckAt).toBe(now);
        expect((await store.watches.get('near'))?.nextCheckAt).toBe(T0 + 10);
        expect((await store.watches.get('other'))?.nextCheckAt).toBe(T0 + 60_000);
        expect(ids(await store.watches.claimDue('a', now, LEASE, 10))).toEqual(['near', 'far']);
      });

      it('listUnposted returns active watches without a running message', async () => {
        await store.watches.insert(newWatch('posted', { messageTs: '1.1' }), T0);
        await store.watches.insert(newWatch('b-unposted'), T0 + 2);
        await store.watches.insert(newWatch('a-unposted'), T0 + 1);
        await store.watches.insert(newWatch('later-posted'), T0 + 3);
        await store.watches.setMessage('later-posted', 'C100', '2.2', T0 + 4);
        expect(ids(await store.watches.listUnposted(10))).toEqual(['a-unposted', 'b-unposted']);
        expect(ids(await store.watches.listUnposted(1))).toEqual(['a-unposted']);
      });

      it('many workspaces: the same execution id is watched once per installation, each row its own', async () => {
        // Two tenants' Runbook APIs may hand out the same id: A's watch and B's are two rows, neither overwrites.
        const inA = newWatch('X', { installationId: 'T0A', teamId: 'T0A', channel: 'C-A', runbookName: 'A run' });
        const inB = newWatch('X', { installationId: 'T0B', teamId: 'T0B', channel: 'C-B', runbookName: 'B run' });
        expect(await store.watches.insert(inA, T0)).toBe(true);
        expect(await store.watches.insert(inB, T0 + 1)).toBe(true);
        expect(await store.watches.insert(inB, T0 + 2)).toBe(false);
        expect(await store.watches.get('X')).toBeNull();
        expect(await store.watches.get('X', 'T0A')).toMatchObject({ installationId: 'T0A', channel: 'C-A' });
        expect(await store.watches.get('X', 'T0B')).toMatchObject({ installationId: 'T0B', channel: 'C-B' });

        const claimed = await store.watches.claimDue('r1', T0 + 5, LEASE, 10);
        expect(claimed.map((w) => `${w.installationId}/${w.executionId}/${w.runbookName}`)).toEqual([
          'T0A/X/A run',
          'T0B/X/B run',
        ]);
        await store.watches.setMessage('X', 'C-A', '1.1', T0 + 6, null, 'T0A');
        expect(await store.watches.claimReply('X', T0 + 7, 'T0A')).toBe(true);
        expect(await store.watches.claimReply('X', T0 + 7, 'T0A')).toBe(false);
        await store.watches.markResultPosted('X', T0 + 7, 'T0A');
        expect(await store.watches.renewLeases('r1', ['X'], T0 + 99_000, 'T0B')).toBe(1);
        expect(await store.watches.complete('X', 'r1', 'finished', 'OK', T0 + 8, 'T0A')).toBe(true);
        const b = await store.watches.get('X', 'T0B');
        expect(b).toMatchObject({ state: 'active', messageTs: null, replyPostedAt: null, resultPostedAt: null });
        expect(b?.leaseUntil).toBe(T0 + 99_000);
        expect(await store.watches.claimReply('X', T0 + 9, 'T0B')).toBe(true);
        expect(await store.watches.reschedule('X', 'r1', T0 + 50, 1, T0 + 9, 'T0B')).toBe(true);
        expect((await store.watches.get('X', 'T0A'))?.state).toBe('finished');
        expect(await store.watches.listActiveIds(10, 'T0B')).toEqual(['X']);
        expect(await store.watches.listActiveIds(10)).toEqual([]);
        expect(await store.watches.oldestActiveCreatedAt('T0B')).toBe(T0 + 1);
        expect(await store.watches.oldestActiveCreatedAt()).toBeNull();
        await store.watches.expedite(['X'], T0 + 20, 'T0B');
        expect((await store.watches.get('X', 'T0B'))?.nextCheckAt).toBe(T0 + 20);
        expect(ids(await store.watches.claimIds('r2', ['X'], T0 + 21, LEASE, 'T0B'))).toEqual(['X']);
      });

      it('stopInstallation ends that installation’s active watches only', async () => {
        await store.watches.insert(newWatch('X', { installationId: 'T0A' }), T0);
        await store.watches.insert(newWatch('Y', { installationId: 'T0A' }), T0);
        await store.watches.insert(newWatch('X', { installationId: 'T0B' }), T0);
        await store.watches.insert(newWatch('X'), T0);
        await store.watches.claimDue('r1', T0, LEASE, 10);
        expect(await store.watches.stopInstallation('T0A', T0 + 1)).toBe(2);
        expect(await store.watches.stopInstallation('', T0 + 1)).toBe(0);
        expect((await store.watches.get('X', 'T0A'))?.state).toBe('stale');
        expect((await store.watches.get('Y', 'T0A'))?.leaseOwner).toBeNull();
        expect((await store.watches.get('X', 'T0B'))?.state).toBe('active');
        expect((await store.watches.get('X'))?.state).toBe('active');
        // The holder of a stopped watch's lease cannot complete it any more.
        expect(await store.watches.complete('X', 'r1', 'finished', 'OK', T0 + 2, 'T0A')).toBe(false);
      });

      it('assignInstallations gives the single workspace’s watches and their card claims their installation, only with installations', async () => {
        await store.watches.insert(newWatch('X', { teamId: 'T0A' }), T0);
        await store.watches.insert(newWatch('Y', { teamId: null }), T0);
        await store.notifications.claim('message:X', T0);
        await store.notifications.claim('message:Y', T0);
        expect(await store.watches.assignInstallations()).toBe(0);
        expect(await store.watches.get('X')).not.toBeNull();
        await store.installations.save(
          { id: 'T0A', teamId: 'T0A', enterpriseId: null, isEnterpriseInstall: false, sealed: 's' },
          T0,
        );
        expect(await store.watches.assignInstallations()).toBe(1);
        expect(await store.watches.get('X')).toBeNull();
        expect(await store.watches.get('X', 'T0A')).not.toBeNull();
        expect(await store.notifications.has('message:T0A:X')).toBe(true);
        expect(await store.notifications.has('message:X')).toBe(false);
        // Without a workspace it stays the single workspace's, and so does its claim.
        expect(await store.watches.get('Y')).not.toBeNull();
        expect(await store.notifications.has('message:Y')).toBe(true);
        expect(await store.watches.assignInstallations()).toBe(0);
      });

      // Watch retention (tenants/retention.ts picks the cutoff): an ended watch goes once its last change is
      // before it; a younger ended one and every active one stay, however old.
      it('pruneEnded: ended watches last changed before the cutoff go; younger ended and all active stay', async () => {
        for (const id of ['done-old', 'done-young', 'open']) await store.watches.insert(newWatch(id), T0);
        await store.watches.insert(newWatch('open', { installationId: 'T9' }), T0);
        await store.watches.insert(newWatch('stopped', { installationId: 'T8' }), T0);
        await store.watches.insert(newWatch('done-old', { installationId: 'T9' }), T0);
        expect(await store.watches.claimDue('r1', T0, LEASE, 10)).toHaveLength(6);
        expect(await store.watches.complete('done-old', 'r1', 'finished', 'OK', T0 + 1)).toBe(true);
        expect(await store.watches.complete('done-old', 'r1', 'finished', 'OK', T0 + 1, 'T9')).toBe(true);
        expect(await store.watches.complete('done-young', 'r1', 'finished', 'OK', T0 + 1)).toBe(true);
        // Changed after it ended (its card recorded later): counted from then.
        await store.watches.setMessage('done-young', 'C1', '1.1', T0 + 50);
        expect(await store.watches.stopInstallation('T8', T0 + 2)).toBe(1);
        await store.watches.releaseAll('r1');

        expect(await store.watches.pruneEnded(T0 + 50, 100)).toBe(3);
        expect(await store.watches.get('done-old')).toBeNull();
        expect(await store.watches.get('done-old', 'T9')).toBeNull();
        expect(await store.watches.get('stopped', 'T8')).toBeNull();
        expect((await store.watches.get('done-young'))?.state).toBe('finished');
        expect(await store.watches.pruneEnded(T0 + 50, 100)).toBe(0);

        expect(await store.watches.pruneEnded(T0 + 400 * 86_400_000, 100)).toBe(1);
        expect(await store.watches.get('done-young')).toBeNull();
        expect((await store.watches.get('open'))?.state).toBe('active');
        expect((await store.watches.get('open', 'T9'))?.state).toBe('active');
        expect(await store.watches.countByState()).toEqual({ active: 2, finished: 0, stale: 0 });
        // Gone, it may be watched again (a new watch, as for a run never watched).
        expect(await store.watches.insert(newWatch('done-old'), T0 + 400 * 86_400_000)).toBe(true);
      });

      it('pruneEnded: at most `limit` a statement, oldest first', async () => {
        for (let i = 0; i < 5; i++)
          await store.watches.insert(newWatch(`e-${i}`, { installationId: 'T8' }), T0 + 5 - i);
        expect(await store.watches.stopInstallation('T8', T0 + 10)).toBe(5);
        expect(await store.watches.pruneEnded(T0 + 100, 2)).toBe(2);
        expect(await store.watches.get('e-4', 'T8')).toBeNull();
        expect(await store.watches.get('e-3', 'T8')).toBeNull();
        expect(await store.watches.get('e-2', 'T8')).not.toBeNull();
        expect(await store.watches.pruneEnded(T0 + 100, 2)).toBe(2);
        expect(await store.watches.pruneEnded(T0 + 100, 2)).toBe(1);
        expect(await store.watches.pruneEnded(T0 + 100, 2)).toBe(0);
      });
    });

    describe('coordination', () => {
      const spec = { ratePerSecond: 10, burst: 5 };

      it('a token bucket starts full, refills at its rate and never grants more than it holds', async () => {
        expect(await store.coordination.takeTokens('api', spec, 3, T0)).toEqual({ granted: 3, waitMs: 0 });
        const rest = await store.coordination.takeTokens('api', spec, 4, T0);
        expect(rest.granted).toBe(2);
        expect(rest.waitMs).toBe(100);
        expect((await store.coordination.takeTokens('api', spec, 1, T0)).granted).toBe(0);
        // 350 ms at 10/s = 3.5 tokens; capped at the burst after a long quiet spell.
        expect((await store.coordination.takeTokens('api', spec, 10, T0 + 350)).granted).toBe(3);
        expect((await store.coordination.takeTokens('api', spec, 10, T0 + 60_000)).granted).toBe(5);
        // A clock behind the bucket's never refills it backwards.
        expect((await store.coordination.takeTokens('api', spec, 10, T0 + 1_000)).granted).toBe(0);
        // Buckets are independent by name.
        expect((await store.coordination.takeTokens('other', spec, 2, T0)).granted).toBe(2);
      });

      it('replicas taking tokens at once share one bucket', async () => {
        const replica = await harness.open();
        const takes = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            (i % 2 === 0 ? store : replica).coordination.takeTokens('shared', { ratePerSecond: 1, burst: 7 }, 1, T0),
          ),
        );
        expect(takes.reduce((sum, t) => sum + t.granted, 0)).toBe(7);
      });

      it('a lease has one holder, is renewed by it and taken over only once it ran out', async () => {
        const replica = await harness.open();
        expect(await store.coordination.holdLease('sweep', 'a', T0 + 1_000, T0)).toBe(true);
        expect(await replica.coordination.holdLease('sweep', 'b', T0 + 1_500, T0 + 500)).toBe(false);
        expect(await store.coordination.holdLease('sweep', 'a', T0 + 2_000, T0 + 900)).toBe(true);
        expect(await replica.coordination.holdLease('sweep', 'b', T0 + 2_500, T0 + 1_500)).toBe(false);
        expect(await replica.coordination.holdLease('sweep', 'b', T0 + 3_000, T0 + 2_000)).toBe(true);
        expect(await store.coordination.holdLease('sweep', 'a', T0 + 3_000, T0 + 2_100)).toBe(false);
        await store.coordination.releaseLease('sweep', 'a');
        expect(await store.coordination.holdLease('sweep', 'a', T0 + 3_000, T0 + 2_100)).toBe(false);
        await replica.coordination.releaseLease('sweep', 'b');
        expect(await store.coordination.holdLease('sweep', 'a', T0 + 3_000, T0 + 2_100)).toBe(true);
      });
    });

    describe('notifications', () => {
      it('claim succeeds once across concurrent callers and replicas; release allows a retry', async () => {
        const replica = await harness.open();
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => (i % 2 ? store : replica).notifications.claim('fail:e-1', T0)),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await store.notifications.has('fail:e-1')).toBe(true);
        expect(await store.notifications.has('fail:e-2')).toBe(false);

        await store.notifications.release('fail:e-1');
        expect(await replica.notifications.has('fail:e-1')).toBe(false);
        expect(await replica.notifications.claim('fail:e-1', T0 + 1)).toBe(true);
        await store.notifications.release('never-claimed');
      });

      it('remembers who claimed a key and when, for any replica to tell', async () => {
        const replica = await harness.open();
        expect(await store.notifications.claim('click:a', T0 + 5, 'U01ALICE')).toBe(true);
        expect(await replica.notifications.claim('click:a', T0 + 6, 'U02BOB')).toBe(false);
        expect(await replica.notifications.holder('click:a')).toEqual({ by: 'U01ALICE', at: T0 + 5 });
        expect(await store.notifications.claim('fail:e-9', T0 + 7)).toBe(true);
        expect(await replica.notifications.holder('fail:e-9')).toEqual({ by: null, at: T0 + 7 });
        expect(await replica.notifications.holder('never-claimed')).toBeNull();
      });

      // Claims retention (tenants/retention.ts picks each kind's cutoff): prune deletes only its kind's
      // claims taken before the cutoff; younger ones, other kinds and claims of no pruned kind stay.
      it('prune: per kind, claims taken before the cutoff go and younger ones stay', async () => {
        const OLD = T0;
        const YOUNG = T0 + 10;
        const kinds = {
          card: { old: ['message:e-1', 'message:T9:e-2'], young: ['message:e-3'] },
          notice: { old: ['sub:C1:e-1', 'sub:T9:C1:e-2'], young: ['sub:C1:e-3'] },
          form: {
            old: ['submission:V1:h1:x', 'click:schedule-save:U1:V2:h:x:', 'click:T9:schedule-save:U1:V3:h:x:'],
            young: ['submission:V4:h1:x'],
          },
          confirmation: {
            old: ['click:confirmation:d-1:', 'click:T9:confirmation:d-2:', 'confirm-run:d-3', 'T9:confirm-run:d-4'],
            young: ['click:T9:confirmation:d-5:'],
          },
        } as const;
        // Clicks of buttons that stay on screen, and keys of no kind: never pruned.
        const kept = ['click:run-now:s-1:171.1', 'click:T9:schedule-pause:s-1:171.1/2', 'click:approve:a-1::U1', 'x:1'];
        for (const { old, young } of Object.values(kinds)) {
          for (const key of old) expect(await store.notifications.claim(key, OLD)).toBe(true);
          for (const key of young) expect(await store.notifications.claim(key, YOUNG)).toBe(true);
        }
        for (const key of kept) expect(await store.notifications.claim(key, OLD)).toBe(true);

        for (const [kind, { old, young }] of Object.entries(kinds)) {
          expect(await store.notifications.prune(kind as keyof typeof kinds, YOUNG, 100), kind).toBe(old.length);
          for (const key of old) expect(await store.notifications.has(key), key).toBe(false);
          for (const key of young) expect(await store.notifications.has(key), key).toBe(true);
        }
        for (const key of kept) expect(await store.notifications.has(key), key).toBe(true);
        expect(await store.notifications.prune('form', YOUNG, 100)).toBe(0);
      });

      it('prune: a card claim stays while its watch is active (that installation’s), however old', async () => {
        await store.watches.insert(newWatch('e-1'), T0);
        await store.watches.insert(newWatch('e-2', { installationId: 'T9' }), T0);
        await store.watches.insert(newWatch('e-3', { installationId: 'T8' }), T0);
        // Ended: no path posts a card for a watch that is not active (/runbook watch finds it already watched).
        expect(await store.watches.stopInstallation('T8', T0)).toBe(1);
        const keys = ['message:e-1', 'message:T9:e-2', 'message:T8:e-3', 'message:T9:e-1', 'message:e-2'];
        for (const key of keys) expect(await store.notifications.claim(key, T0)).toBe(true);
        expect(await store.notifications.prune('card', T0 + 400 * 86_400_000, 100)).toBe(3);
        expect(await store.notifications.has('message:e-1')).toBe(true);
        expect(await store.notifications.has('message:T9:e-2')).toBe(true);
        // Still claimed: a second card for an active watch stays impossible.
        expect(await store.notifications.claim('message:T9:e-2', T0 + 400 * 86_400_000)).toBe(false);
        for (const key of ['message:T8:e-3', 'message:T9:e-1', 'message:e-2']) {
          expect(await store.notifications.has(key), key).toBe(false);
        }
      });

      it('prune: at most `limit` a statement, oldest first', async () => {
        for (let i = 0; i < 5; i++) expect(await store.notifications.claim(`sub:C1:e-${i}`, T0 + 5 - i)).toBe(true);
        expect(await store.notifications.prune('notice', T0 + 100, 2)).toBe(2);
        expect(await store.notifications.has('sub:C1:e-4')).toBe(false);
        expect(await store.notifications.has('sub:C1:e-3')).toBe(false);
        expect(await store.notifications.has('sub:C1:e-2')).toBe(true);
        expect(await store.notifications.prune('notice', T0 + 100, 2)).toBe(2);
        expect(await store.notifications.prune('notice', T0 + 100, 2)).toBe(1);
        expect(await store.notifications.prune('notice', T0 + 100, 2)).toBe(0);
      });
    });

    describe('slackEvents', () => {
      it('the first delivery of an event wins, once across concurrent callers and replicas', async () => {
        const replica = await harness.open();
        const keys = ['event:Ev1', 'message:C1:1700000000.000100'];
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => (i % 2 ? store : replica).slackEvents.claim(keys, T0)),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
        // A retry (same event id) and a re-sent mention of the same message (new event id) both lose.
        expect(await replica.slackEvents.claim(['event:Ev1'], T0 + 1)).toBe(false);
        expect(await store.slackEvents.claim(['event:Ev2', 'message:C1:1700000000.000100'], T0 + 2)).toBe(false);
        // ...and that second delivery's own id is remembered too.
        expect(await store.slackEvents.claim(['event:Ev2'], T0 + 3)).toBe(false);
        expect(await store.slackEvents.claim(['event:Ev3', 'message:C1:1700000000.000200'], T0 + 4)).toBe(true);
        expect(await store.slackEvents.claim([], T0 + 5)).toBe(false);
      });

      it('keys are forgotten after SLACK_EVENT_MEMORY_MS', async () => {
        expect(await store.slackEvents.claim(['event:Old'], T0)).toBe(true);
        expect(await store.slackEvents.claim(['event:Old'], T0 + SLACK_EVENT_MEMORY_MS - 1)).toBe(false);
        expect(await store.slackEvents.claim(['event:Old'], T0 + SLACK_EVENT_MEMORY_MS + 1)).toBe(true);
      });
    });

    describe('intents', () => {
      const intent = (id: string) => ({
        id,
        userId: 'U1',
        userEmail: 'u1@example.com',
        teamId: 'T1',
        runbookId: 'rb-1',
        runbookName: 'Restart pods',
        proxyId: 'proxy-1',
        paramsHash: 'abc',
        channel: 'C1',
        inputsSummary: '{"a":1}',
        via: 'approval (approved by U2)' as string | null,
      });

      it('records an intent open, lists it, and settles it once across replicas', async () => {
        await store.intents.record(intent('i-1'), T0);
        await store.intents.record(
          { ...intent('i-2'), userEmail: null, teamId: null, channel: null, via: null },
          T0 + 10,
        );
        expect((await store.intents.listOpen(T0 + 5, 10)).map((i) => i.id)).toEqual(['i-1']);
        const open = await store.intents.listOpen(T0 + 100, 10);
        expect(open.map((i) => i.id)).toEqual(['i-1', 'i-2']);
        expect(open[0]).toMatchObject({
          ...intent('i-1'),
          state: 'open',
          executionIds: [],
          createdAt: T0,
          settledAt: null,
        });
        expect(open[1]).toMatchObject({ userEmail: null, teamId: null, channel: null, via: null });

        const replica = await harness.open();
        const settled = await Promise.all([
          store.intents.settle('i-1', 'reconciled', ['e-1', 'e-2'], T0 + 20),
          replica.intents.settle('i-1', 'lost', [], T0 + 21),
        ]);
        expect(settled.filter(Boolean)).toHaveLength(1);
        const after = await store.intents.get('i-1');
        expect(after?.state === 'reconciled' ? after.executionIds : []).toEqual(
          after?.state === 'reconciled' ? ['e-1', 'e-2'] : [],
        );
        expect(after?.settledAt).not.toBeNull();
        expect((await store.intents.listOpen(T0 + 100, 10)).map((i) => i.id)).toEqual(['i-2']);
        expect(await store.intents.get('nope')).toBeNull();
      });

      it('many workspaces: each intent is kept with its installation and listed by it', async () => {
        await store.intents.record({ ...intent('i-a'), installationId: 'T0A' }, T0);
        await store.intents.record({ ...intent('i-b'), teamId: 'T0B', installationId: 'T0B' }, T0 + 1);
        await store.intents.record({ ...intent('i-0'), teamId: 'T0C' }, T0 + 2);
        expect((await store.intents.listOpen(T0 + 100, 10)).map((i) => i.id)).toEqual(['i-a', 'i-b', 'i-0']);
        expect((await store.intents.listOpen(T0 + 100, 10, 'T0A')).map((i) => i.id)).toEqual(['i-a']);
        expect((await store.intents.listOpen(T0 + 100, 10, '')).map((i) => i.id)).toEqual(['i-0']);
        expect((await store.intents.get('i-b'))?.installationId).toBe('T0B');
        // A single workspace's intents go to its installation only once there are installations.
        expect(await store.intents.assignInstallations()).toBe(0);
        await store.installations.save(
          { id: 'T0C', teamId: 'T0C', enterpriseId: null, isEnterpriseInstall: false, sealed: 's' },
          T0,
        );
        expect(await store.intents.assignInstallations()).toBe(1);
        expect((await store.intents.listOpen(T0 + 100, 10, 'T0C')).map((i) => i.id)).toEqual(['i-0']);
      });

      // Run record retention (tenants/retention.ts picks the cutoff): a settled intent goes once settled before it.
      it('pruneSettled: intents settled before the cutoff go, oldest first; younger settled and all open stay', async () => {
        for (let i = 0; i < 4; i++)
          await store.intents.record({ ...intent(`i-${i}`), installationId: `T${i}` }, T0 + i);
        await store.intents.record(intent('open'), T0);
        expect(await store.intents.settle('i-0', 'started', ['e-0'], T0 + 10)).toBe(true);
        expect(await store.intents.settle('i-1', 'lost', [], T0 + 10)).toBe(true);
        expect(await store.intents.settle('i-2', 'reconciled', ['e-2'], T0 + 10)).toBe(true);
        expect(await store.intents.settle('i-3', 'failed', [], T0 + 50)).toBe(true);
        expect(await store.intents.pruneSettled(T0 + 50, 2)).toBe(2);
        expect(await store.intents.get('i-0')).toBeNull();
        expect(await store.intents.get('i-1')).toBeNull();
        expect(await store.intents.pruneSettled(T0 + 50, 2)).toBe(1);
        expect(await store.intents.get('i-2')).toBeNull();
        expect((await store.intents.get('i-3'))?.state).toBe('failed');
        expect(await store.intents.pruneSettled(T0 + 400 * 86_400_000, 10)).toBe(1);
        expect((await store.intents.listOpen(T0 + 400 * 86_400_000, 10)).map((i) => i.id)).toEqual(['open']);
        // Gone, a late answer finds nothing open, as for an intent another replica settled.
        expect(await store.intents.settle('i-0', 'failed', [], T0 + 60)).toBe(false);
      });
    });

    describe('output uploads', () => {
      it('one claim per execution across concurrent callers, replicas and restarts; release only before completion', async () => {
        const replica = await harness.open();
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => (i % 2 ? store : replica).outputUploads.claim('e-1', T0)),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await store.outputUploads.get('e-1')).toEqual({
          executionId: 'e-1',
          claimedAt: T0,
          fileId: null,
          completedAt: null,
        });
        // A definite failure gives the claim back; a later delivery may upload.
        await replica.outputUploads.release('e-1');
        expect(await store.outputUploads.get('e-1')).toBeNull();
        expect(await store.outputUploads.claim('e-1', T0 + 1)).toBe(true);
        await store.outputUploads.complete('e-1', 'F123', T0 + 2);
        await store.outputUploads.complete('e-1', 'F999', T0 + 3);
        // Once uploaded, the record stays: no release, no second claim, even after a restart.
        await store.outputUploads.release('e-1');
        const restarted = await harness.open();
        expect(await restarted.outputUploads.claim('e-1', T0 + 4)).toBe(false);
        expect(await restarted.outputUploads.get('e-1')).toMatchObject({ fileId: 'F123', completedAt: T0 + 2 });
        expect(await restarted.outputUploads.get('e-2')).toBeNull();
      });

      it('pruneUnwatched: claims before the cutoff go once their execution has no watch in their installation', async () => {
        // The same execution id in two installations, each watched.
        for (const id of ['T8', 'T9']) {
          await store.watches.insert(newWatch('e-1', { installationId: id }), T0);
          expect(await store.outputUploads.claim('e-1', T0 + 1, id)).toBe(true);
        }
        await store.outputUploads.complete('e-1', 'F1', T0 + 2, 'T9');
        expect(await store.outputUploads.claim('e-2', T0 + 1, 'T9')).toBe(true);
        expect(await store.outputUploads.claim('e-3', T0 + 20, 'T9')).toBe(true);
        expect(await store.watches.stopInstallation('T9', T0 + 3)).toBe(1);
        // Unwatched and older than the cutoff: e-2 only (T9's e-1 has its ended watch still; e-3 is younger).
        expect(await store.outputUploads.pruneUnwatched(T0 + 10, 10)).toBe(1);
        expect(await store.outputUploads.get('e-2', 'T9')).toBeNull();
        expect(await store.outputUploads.get('e-1', 'T9')).toMatchObject({ fileId: 'F1' });
        // Its watch pruned, T9's claim of e-1 goes too; T8's of the same id stays with its active watch.
        expect(await store.watches.pruneEnded(T0 + 10, 10)).toBe(1);
        expect(await store.outputUploads.pruneUnwatched(T0 + 10, 10)).toBe(1);
        expect(await store.outputUploads.get('e-1', 'T9')).toBeNull();
        expect(await store.outputUploads.get('e-1', 'T8')).not.toBeNull();
        expect(await store.outputUploads.pruneUnwatched(T0 + 400 * 86_400_000, 10)).toBe(1);
        expect(await store.outputUploads.get('e-3', 'T9')).toBeNull();
        expect(await store.outputUploads.get('e-1', 'T8')).not.toBeNull();
        // Gone, the run watched afresh may have its output uploaded once more (into its new card's thread).
        expect(await store.outputUploads.claim('e-1', T0 + 400 * 86_400_000, 'T9')).toBe(true);
      });

      it('pruneUnwatched: at most `limit` a statement, oldest first', async () => {
        for (let i = 0; i < 5; i++) expect(await store.outputUploads.claim(`e-${i}`, T0 + 5 - i)).toBe(true);
        expect(await store.outputUploads.pruneUnwatched(T0 + 100, 2)).toBe(2);
        expect(await store.outputUploads.get('e-4')).toBeNull();
        expect(await store.outputUploads.get('e-3')).toBeNull();
        expect(await store.outputUploads.get('e-2')).not.toBeNull();
        expect(await store.outputUploads.pruneUnwatched(T0 + 100, 2)).toBe(2);
        expect(await store.outputUploads.pruneUnwatched(T0 + 100, 2)).toBe(1);
        expect(await store.outputUploads.pruneUnwatched(T0 + 100, 2)).toBe(0);
      });
    });

    describe('subscriptions', () => {
      const sub = {
        channel: 'C1',
        runbookId: 'rb-1',
        runbookName: 'Restart pods',
        failuresOnly: false,
        createdBy: 'U1',
        teamId: 'T1',
      };

      it('adds, updates, lists and removes', async () => {
        expect(await store.subscriptions.add(sub, T0)).toBe('added');
        expect(await store.subscriptions.add({ ...sub, runbookId: '*', runbookName: 'All runbooks' }, T0 + 1)).toBe(
          'added',
        );
        expect(await store.subscriptions.add({ ...sub, channel: 'C2', teamId: null }, T0 + 2)).toBe('added');
        expect(
          await store.subscriptions.add(
            { ...sub, runbookName: 'Restart pods v2', failuresOnly: true, createdBy: 'U2' },
            T0 + 3,
          ),
        ).toBe('updated');

        expect(await store.subscriptions.listForChannel('C1')).toEqual([
          {
            channel: 'C1',
            runbookId: 'rb-1',
            runbookName: 'Restart pods v2',
            failuresOnly: true,
            createdBy: 'U1',
            teamId: 'T1',
            createdAt: T0,
            updatedAt: T0 + 3,
            installationId: '',
          },
          {
            channel: 'C1',
            runbookId: '*',
            runbookName: 'All runbooks',
            failuresOnly: false,
            createdBy: 'U1',
            teamId: 'T1',
            createdAt: T0 + 1,
            updatedAt: T0 + 1,
            installationId: '',
          },
        ]);
        const all = await store.subscriptions.listAll();
        expect(all.map((s) => `${s.channel}/${s.runbookId}`)).toEqual(['C1/rb-1', 'C1/*', 'C2/rb-1']);
        expect(all[2]?.teamId).toBeNull();
        expect(await store.subscriptions.listForChannel('C3')).toEqual([]);

        expect(await store.subscriptions.remove('C1', 'rb-1')).toBe(true);
        expect(await store.subscriptions.remove('C1', 'rb-1')).toBe(false);
        expect((await store.subscriptions.listForChannel('C1')).map((s) => s.runbookId)).toEqual(['*']);
      });

      it('keeps one per installation: the same channel and runbook in two installations are two rows', async () => {
        expect(await store.subscriptions.add({ ...sub, teamId: 'TA' }, T0, 'TA')).toBe('added');
        // B subscribing the same runbook in the shared channel adds its own, it does not update A's.
        expect(
          await store.subscriptions.add({ ...sub, teamId: 'TB', createdBy: 'U9', failuresOnly: true }, T0 + 1, 'TB'),
        ).toBe('added');
        const a = await store.subscriptions.listForChannel('C1', 'TA');
        const b = await store.subscriptions.listForChannel('C1', 'TB');
        expect(a.map((s) => [s.createdBy, s.failuresOnly, s.installationId])).toEqual([['U1', false, 'TA']]);
        expect(b.map((s) => [s.createdBy, s.failuresOnly, s.installationId])).toEqual([['U9', true, 'TB']]);
        expect(await store.subscriptions.listForChannel('C1')).toEqual([]);
        expect((await store.subscriptions.listAll('TB')).map((s) => s.createdBy)).toEqual(['U9']);
        expect(await store.subscriptions.listAll()).toHaveLength(2);

        expect(await store.subscriptions.remove('C1', 'rb-1', 'TA')).toBe(true);
        expect(await store.subscriptions.remove('C1', 'rb-1', 'TA')).toBe(false);
        expect((await store.subscriptions.listForChannel('C1', 'TB')).map((s) => s.createdBy)).toEqual(['U9']);
      });
    });

    describe('cursors', () => {
      it('gets, sets and overwrites', async () => {
        expect(await store.cursors.get('executions')).toBeNull();
        await store.cursors.set('executions', 'page-1', T0);
        await store.cursors.set('other', 'x', T0);
        await store.cursors.set('executions', 'page-2', T0 + 1);
        expect(await store.cursors.get('executions')).toBe('page-2');
        expect(await store.cursors.get('other')).toBe('x');
      });

      it('lists every installation’s value of one cursor', async () => {
        expect(await store.cursors.list('subscriptions')).toEqual([]);
        await store.cursors.set('subscriptions', 'a', T0);
        await store.cursors.set('subscriptions', 'b', T0, 'T9');
        await store.cursors.set('other', 'c', T0, 'T9');
        const listed = await store.cursors.list('subscriptions');
        expect(listed.sort((x, y) => x.value.localeCompare(y.value))).toEqual([
          { installationId: '', value: 'a' },
          { installationId: 'T9', value: 'b' },
        ]);
      });
    });

    describe('scheduleOwners', () => {
      it('sets, gets one or many, updates and removes', async () => {
        expect(await store.scheduleOwners.get('s-1')).toBeNull();
        await store.scheduleOwners.set('s-1', { userId: 'U1', teamId: 'T1', userName: 'ada' }, T0);
        await store.scheduleOwners.set('s-2', { userId: 'U2', teamId: null }, T0);
        expect(await store.scheduleOwners.get('s-1')).toEqual({
          scheduleId: 's-1',
          userId: 'U1',
          teamId: 'T1',
          userName: 'ada',
          channel: null,
          createdAt: T0,
          updatedAt: T0,
        });
        // Where it was made is kept when a later write does not say.
        await store.scheduleOwners.set('s-3', { userId: 'U1', teamId: null, channel: 'C1' }, T0);
        await store.scheduleOwners.set('s-3', { userId: 'U1', teamId: null }, T0 + 1);
        expect(await store.scheduleOwners.get('s-3')).toMatchObject({ channel: 'C1' });

        // Same user without a name keeps the name; another user replaces it.
        await store.scheduleOwners.set('s-1', { userId: 'U1', teamId: 'T1' }, T0 + 1);
        expect(await store.scheduleOwners.get('s-1')).toMatchObject({ userName: 'ada', updatedAt: T0 + 1 });
        await store.scheduleOwners.set('s-2', { userId: 'U3', teamId: 'T3', userName: 'grace' }, T0 + 2);
        expect(await store.scheduleOwners.get('s-2')).toMatchObject({
          userId: 'U3',
          teamId: 'T3',
          userName: 'grace',
          createdAt: T0,
        });

        const many = await store.scheduleOwners.getMany(['s-1', 's-2', 's-missing', 's-1']);
        expect([...many.keys()].sort()).toEqual(['s-1', 's-2']);
        expect(many.get('s-2')?.userId).toBe('U3');
        expect((await store.scheduleOwners.getMany([])).size).toBe(0);

        await store.scheduleOwners.remove('s-1');
        await store.scheduleOwners.remove('s-missing');
        expect(await store.scheduleOwners.get('s-1')).toBeNull();
      });
    });

    describe('schedulePauses', () => {
      const pause = { scheduleId: 's-1', cron: '0 5 * * *', runbookId: 'rb', runbookName: 'Restart', pausedBy: 'U1' };

      it('records the intent once, moves it by compare-and-set and lists what a crash left in flight', async () => {
        expect(await store.schedulePauses.begin({ ...pause, teamId: 'T1' }, T0)).toBe(true);
        expect(await store.schedulePauses.begin({ ...pause, cron: '* * * * *', teamId: null }, T0 + 1)).toBe(false);
        expect(await store.schedulePauses.get('s-1')).toEqual({
          ...pause,
          installationId: '',
          teamId: 'T1',
          state: 'pausing',
          resumeAt: null,
          freeze: null,
          pausedAt: T0,
          updatedAt: T0,
        });
        expect((await store.schedulePauses.listUnsettled(T0 + 1, 10)).map((p) => p.scheduleId)).toEqual(['s-1']);
        expect(await store.schedulePauses.listUnsettled(T0, 10)).toEqual([]);

        expect(await store.schedulePauses.move('s-1', 'paused', 'resuming', T0 + 2)).toBe(false);
        expect(await store.schedulePauses.move('s-1', 'pausing', 'paused', T0 + 2)).toBe(true);
        expect(await store.schedulePauses.listUnsettled(T0 + 10, 10)).toEqual([]);
        expect(await store.schedulePauses.get('s-1')).toMatchObject({
          state: 'paused',
          pausedAt: T0,
          updatedAt: T0 + 2,
        });

        await store.schedulePauses.begin({ ...pause, scheduleId: 's-2', teamId: null }, T0 + 3);
        expect((await store.schedulePauses.list(10)).map((p) => p.scheduleId)).toEqual(['s-1', 's-2']);
        expect(await store.schedulePauses.list(1)).toHaveLength(1);

        expect(await store.schedulePauses.remove('s-1', 'resuming')).toBe(false);
        expect(await store.schedulePauses.remove('s-1')).toBe(true);
        expect(await store.schedulePauses.get('s-1')).toBeNull();
      });

      it('a skip is due once its time has passed and it is paused', async () => {
        await store.schedulePauses.begin({ ...pause, teamId: null, resumeAt: T0 + 100 }, T0);
        await store.schedulePauses.begin({ ...pause, scheduleId: 's-2', teamId: null }, T0);
        expect(await store.schedulePauses.listDue(T0 + 100, 10)).toEqual([]);
        await store.schedulePauses.move('s-1', 'pausing', 'paused', T0);
        await store.schedulePauses.move('s-2', 'pausing', 'paused', T0);
        expect(await store.schedulePauses.listDue(T0 + 99, 10)).toEqual([]);
        expect((await store.schedulePauses.listDue(T0 + 100, 10)).map((p) => [p.scheduleId, p.resumeAt])).toEqual([
          ['s-1', T0 + 100],
        ]);
      });

      it('a freeze-paused row is listed and handed over by compare-and-set', async () => {
        await store.schedulePauses.begin({ ...pause, teamId: null, freeze: 'Year end' }, T0);
        await store.schedulePauses.begin({ ...pause, scheduleId: 's-2', teamId: null, resumeAt: T0 + 5 }, T0);
        expect((await store.schedulePauses.listFrozen(10)).map((p) => [p.scheduleId, p.freeze])).toEqual([
          ['s-1', 'Year end'],
        ]);
        // Only paused rows are handed over.
        expect(await store.schedulePauses.handOver('s-1', 'Year end', { freeze: null, pausedBy: 'U9' }, T0 + 1)).toBe(
          false,
        );
        await store.schedulePauses.move('s-1', 'pausing', 'paused', T0);
        await store.schedulePauses.move('s-2', 'pausing', 'paused', T0);
        // A person takes a freeze's pause over: paused by hand from then on.
        expect(await store.schedulePauses.handOver('s-1', 'Weekend', { freeze: null, pausedBy: 'U9' }, T0 + 1)).toBe(
          false,
        );
        expect(await store.schedulePauses.handOver('s-1', 'Year end', { freeze: null, pausedBy: 'U9' }, T0 + 2)).toBe(
          true,
        );
        expect(await store.schedulePauses.get('s-1')).toMatchObject({ freeze: null, pausedBy: 'U9', pausedAt: T0 + 2 });
        expect(await store.schedulePauses.listFrozen(10)).toEqual([]);
        // A skip handed to a freeze loses its timer and keeps who paused it.
        expect(await store.schedulePauses.handOver('s-2', null, { freeze: 'Year end' }, T0 + 3)).toBe(true);
        expect(await store.schedulePauses.handOver('s-2', null, { freeze: 'Year end' }, T0 + 3)).toBe(false);
        expect(await store.schedulePauses.get('s-2')).toMatchObject({
          freeze: 'Year end',
          resumeAt: null,
          pausedBy: 'U1',
          pausedAt: T0,
        });
      });

      it('two replicas resuming at once: one moves it', async () => {
        const replica = await harness.open();
        await store.schedulePauses.begin({ ...pause, teamId: null }, T0);
        await store.schedulePauses.move('s-1', 'pausing', 'paused', T0);
        const moves = await Promise.all(
          [store, replica, store, replica].map((s) => s.schedulePauses.move('s-1', 'paused', 'resuming', T0 + 1)),
        );
        expect(moves.filter(Boolean)).toHaveLength(1);
      });
    });

    describe('freezePasses', () => {
      it('grants a pass that one run takes once, before it expires', async () => {
        const pass = { userId: 'U1', runbookId: 'rb', freeze: 'Year end', reason: 'prod down', expiresAt: T0 + 100 };
        await store.freezePasses.grant(pass, T0);
        expect(await store.freezePasses.peek('U1', 'rb', T0 + 1)).toMatchObject({ reason: 'prod down', usedAt: null });
        expect(await store.freezePasses.peek('U1', 'other', T0 + 1)).toBeNull();
        expect(await store.freezePasses.peek('U2', 'rb', T0 + 1)).toBeNull();
        expect(await store.freezePasses.peek('U1', 'rb', T0 + 100)).toBeNull();
        const replica = await harness.open();
        const taken = await Promise.all([store, replica, store].map((s) => s.freezePasses.take('U1', 'rb', T0 + 2)));
        expect(taken.filter(Boolean)).toHaveLength(1);
        expect(await store.freezePasses.take('U1', 'rb', T0 + 3)).toBeNull();
      });
    });

    describe('approvals', () => {
      it('keeps a quorum and one vote per approver; votes only while pending and unexpired', async () => {
        const a = await store.approvals.create(newApproval({ quorum: { count: 2, eachOf: ['S1'] } }), T0);
        expect(a.quorum).toEqual({ count: 2, eachOf: ['S1'] });
        const replica = await harness.open();
        // Two approvers clicking at once, twice each, on two replicas: one vote each.
        const results = await Promise.all(
          ['U1', 'U2', 'U1', 'U2'].map((u, i) => (i % 2 ? replica : store).approvals.vote(a.id, u, ['S1'], T0 + i)),
        );
        expect(results.filter(Boolean)).toHaveLength(2);
        const votes = await replica.approvals.votes(a.id);
        expect(votes.map((v) => v.userId).sort()).toEqual(['U1', 'U2']);
        expect(votes[0]!.groups).toEqual(['S1']);
        expect(await store.approvals.listPending(T0, 10)).toEqual([expect.objectContaining({ id: a.id })]);
        expect(await store.approvals.listPending(a.expiresAt, 10)).toEqual([]);
        // Expired, or decided: no more votes.
        expect(await store.approvals.vote(a.id, 'U3', [], a.expiresAt)).toBe(false);
        expect(await store.approvals.decide(a.id, 'approved', 'U2', null, T0 + 5)).toBe(true);
        expect(await store.approvals.vote(a.id, 'U3', [], T0 + 6)).toBe(false);
        expect(await store.approvals.votes(a.id)).toHaveLength(2);
        expect(await store.approvals.listPending(T0 + 6, 10)).toEqual([]);
        expect(await store.approvals.vote('no-such-id', 'U3', [], T0)).toBe(false);
      });

      it('withdrawVote takes back one approval while the request is pending, never after the decision', async () => {
        const a = await store.approvals.create(newApproval({ quorum: { count: 2, eachOf: [] } }), T0);
        await store.approvals.vote(a.id, 'U1', [], T0);
        await store.approvals.vote(a.id, 'U2', [], T0 + 1);
        const replica = await harness.open();
        expect(await replica.approvals.withdrawVote(a.id, 'U1')).toBe(true);
        expect(await store.approvals.withdrawVote(a.id, 'U1')).toBe(false);
        expect((await store.approvals.votes(a.id)).map((v) => v.userId)).toEqual(['U2']);
        // Withdrawn, the person may approve again later (their entitlement back).
        expect(await store.approvals.vote(a.id, 'U1', [], T0 + 2)).toBe(true);
        expect(await store.approvals.decide(a.id, 'approved', 'U1', null, T0 + 3)).toBe(true);
        expect(await store.approvals.withdrawVote(a.id, 'U2')).toBe(false);
        expect(await store.approvals.votes(a.id)).toHaveLength(2);
      });

      it('create stores a pending approval with a fresh uuid', async () => {
        const a = await store.approvals.create(newApproval(), T0);
        const b = await store.approvals.create(newApproval(), T0);
        expect(a.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect(b.id).not.toBe(a.id);
        expect(a).toEqual({
          id: a.id,
          runbookId: 'rb-9',
          runbookName: 'Drop caches',
          proxyId: 'proxy-a',
          params: '{"password":"hunter2"}',
          paramsMasked: '{"password":"••••"}',
          requesterId: 'U7',
          requesterTeam: 'T1',
          channel: 'C200',
          state: 'pending',
          decidedBy: null,
          reason: null,
          createdAt: T0,
          expiresAt: T0 + 3_600_000,
          decidedAt: null,
          executionIds: [],
          error: null,
          ranAt: null,
          approversChannel: null,
          approversTs: null,
          requesterChannel: null,
          requesterTs: null,
          quorum: null,
        });
        expect(await store.approvals.get(a.id)).toEqual(a);
        expect(await store.approvals.get('00000000-0000-4000-8000-000000000000')).toBeNull();
      });

      it('decide lets exactly one of several concurrent deciders win, across replicas', async () => {
        const replica = await harness.open();
        const a = await store.approvals.create(newApproval(), T0);
        const attempts = Array.from({ length: 12 }, (_, i) => {
          const on = i % 2 === 0 ? store : replica;
          const to = i % 3 === 0 ? 'rejected' : 'approved';
          return on.approvals.decide(a.id, to, `U${i}`, to === 'rejected' ? 'no' : null, T0 + 10);
        });
        const results = await Promise.all(attempts);
        expect(results.filter(Boolean)).toHaveLength(1);
        const winner = results.indexOf(true);
        const decided = await store.approvals.get(a.id);
        expect(decided).toMatchObject({
          state: winner % 3 === 0 ? 'rejected' : 'approved',
          decidedBy: `U${winner}`,
          decidedAt: T0 + 10,
        });
        expect(await store.approvals.decide(a.id, 'expired', null, null, T0 + 20)).toBe(false);
        expect(await store.approvals.decide('missing', 'approved', 'U1', null, T0)).toBe(false);
      });

      it('an expired request cannot be approved or rejected, only expired', async () => {
        const a = await store.approvals.create(newApproval({ expiresAt: T0 + 100 }), T0);
        expect(await store.approvals.decide(a.id, 'approved', 'U1', null, T0 + 100)).toBe(false);
        expect(await store.approvals.decide(a.id, 'rejected', 'U1', 'late', T0 + 150)).toBe(false);
        expect(await store.approvals.decide(a.id, 'expired', null, 'timed out', T0 + 150)).toBe(true);
        expect(await store.approvals.get(a.id)).toMatchObject({
          state: 'expired',
          decidedBy: null,
          reason: 'timed out',
          decidedAt: T0 + 150,
        });
      });

      it('listExpired returns pending approvals past their expiry, soonest first', async () => {
        const late = await store.approvals.create(newApproval({ expiresAt: T0 + 200 }), T0);
        const early = await store.approvals.create(newApproval({ expiresAt: T0 + 100 }), T0);
        const future = await store.approvals.create(newApproval({ expiresAt: T0 + 10_000 }), T0);
        const decided = await store.approvals.create(newApproval({ expiresAt: T0 + 50 }), T0);
        await store.approvals.decide(decided.id, 'rejected', 'U1', null, T0 + 10);

        expect((await store.approvals.listExpired(T0 + 200, 10)).map((a) => a.id)).toEqual([early.id, late.id]);
        expect((await store.approvals.listExpired(T0 + 200, 1)).map((a) => a.id)).toEqual([early.id]);
        expect((await store.approvals.listExpired(T0 + 199, 10)).map((a) => a.id)).toEqual([early.id]);
        expect((await store.approvals.listExpired(T0 + 20_000, 10)).map((a) => a.id)).toContain(future.id);
      });

      it('records run results and message refs', async () => {
        const a = await store.approvals.create(newApproval(), T0);
        await store.approvals.setMessages(a.id, { approversChannel: 'C-approvers', approversTs: '1.1' });
        await store.approvals.setMessages(a.id, { requesterChannel: 'D7', requesterTs: '2.2' });
        await store.approvals.setRunResult(a.id, ['x-1', 'x-2'], null, T0 + 5);
        expect(await store.approvals.get(a.id)).toMatchObject({
          approversChannel: 'C-approvers',
          approversTs: '1.1',
          requesterChannel: 'D7',
          requesterTs: '2.2',
          executionIds: ['x-1', 'x-2'],
          error: null,
          ranAt: T0 + 5,
        });
        await store.approvals.setRunResult(a.id, [], 'proxy unavailable', T0 + 6);
        expect(await store.approvals.get(a.id)).toMatchObject({ executionIds: [], error: 'proxy unavailable' });
      });

      // Approval retention (tenants/retention.ts picks the cutoff): a decided request goes, with its votes, once
      // decided and run before it; a pending one stays, however old, expired or not.
      it('pruneDecided: decided requests before the cutoff go with their votes, oldest first; pending ones stay', async () => {
        const make = async (quorum = false) =>
          store.approvals.create(newApproval(quorum ? { quorum: { count: 2, eachOf: [] } } : {}), T0);
        const approved = await make(true);
        expect(await store.approvals.vote(approved.id, 'U1', [], T0 + 1)).toBe(true);
        expect(await store.approvals.vote(approved.id, 'U2', [], T0 + 2)).toBe(true);
        expect(await store.approvals.decide(approved.id, 'approved', 'U2', null, T0 + 3)).toBe(true);
        await store.approvals.setRunResult(approved.id, ['x-1'], null, T0 + 4);
        const rejected = await make();
        expect(await store.approvals.decide(rejected.id, 'rejected', 'U1', 'no', T0 + 5)).toBe(true);
        const expired = await make();
        expect(await store.approvals.decide(expired.id, 'expired', null, null, T0 + 6)).toBe(true);
        const ranLate = await make();
        expect(await store.approvals.decide(ranLate.id, 'approved', 'U1', null, T0 + 7)).toBe(true);
        await store.approvals.setRunResult(ranLate.id, ['x-2'], null, T0 + 50);
        const pendingVoted = await make(true);
        expect(await store.approvals.vote(pendingVoted.id, 'U1', [], T0 + 8)).toBe(true);
        const pendingPastExpiry = await make();

        expect(await store.approvals.pruneDecided(T0 + 50, 2)).toBe(2);
        expect(await store.approvals.get(approved.id)).toBeNull();
        expect(await store.approvals.votes(approved.id)).toEqual([]);
        expect(await store.approvals.get(rejected.id)).toBeNull();
        expect(await store.approvals.pruneDecided(T0 + 50, 2)).toBe(1);
        expect(await store.approvals.get(expired.id)).toBeNull();
        // Decided before the cutoff but run after it: kept until that too is older.
        expect((await store.approvals.get(ranLate.id))?.state).toBe('approved');
        expect(await store.approvals.pruneDecided(T0 + 50, 2)).toBe(0);

        const later = T0 + 400 * 86_400_000;
        expect(await store.approvals.pruneDecided(later, 10)).toBe(1);
        expect(await store.approvals.get(ranLate.id)).toBeNull();
        expect((await store.approvals.get(pendingVoted.id))?.state).toBe('pending');
        expect(await store.approvals.votes(pendingVoted.id)).toHaveLength(1);
        expect((await store.approvals.get(pendingPastExpiry.id))?.state).toBe('pending');
        expect((await store.approvals.listExpired(later, 10)).map((a) => a.id).sort()).toEqual(
          [pendingVoted.id, pendingPastExpiry.id].sort(),
        );
        // Gone, a late click finds nothing to decide.
        expect(await store.approvals.decide(approved.id, 'rejected', 'U3', null, T0 + 60)).toBe(false);
      });
    });

    describe('audit', () => {
      it('returns the newest entries first', async () => {
        const entry = {
          userId: 'U1',
          teamId: 'T1',
          channel: 'C1',
          target: 'rb-1',
          outcome: 'ok' as const,
          detail: null,
          tid: null,
        };
        await store.audit.append({ ...entry, at: T0 + 10, action: 'run' });
        await store.audit.append({ ...entry, at: T0 + 30, action: 'approve', tid: 'tid-1' });
        await store.audit.append({ ...entry, at: T0 + 20, action: 'schedule.create', outcome: 'denied' });
        await store.audit.append({
          at: T0 + 30,
          userId: null,
          teamId: null,
          channel: null,
          action: 'expire',
          target: null,
          outcome: 'error',
          detail: 'sweeper',
          tid: null,
        });

        const recent = await store.audit.recent(10);
        expect(recent.map((e) => e.action)).toEqual(['expire', 'approve', 'schedule.create', 'run']);
        expect(recent[0]).toEqual({
          at: T0 + 30,
          userId: null,
          teamId: null,
          channel: null,
          action: 'expire',
          target: null,
          outcome: 'error',
          detail: 'sweeper',
          tid: null,
        });
        expect(recent[1]).toMatchObject({ tid: 'tid-1', outcome: 'ok', userId: 'U1' });
        expect((await store.audit.recent(2)).map((e) => e.action)).toEqual(['expire', 'approve']);
      });
    });

    describe('runDrafts', () => {
      const draft = {
        runbookId: 'rb-1',
        proxyId: 'proxy-a',
        channel: 'C100',
        params: '{"region":"us-west-2","tags":["a","b"]}',
        expiresAt: T0 + 3_600_000,
      };

      it('keeps a draft until it expires, readable more than once and from another replica', async () => {
        const id = await store.runDrafts.save(draft, T0);
        const other = await harness.open();
        const expected = { id, ...draft, createdAt: T0 };
        expect(await other.runDrafts.get(id, T0 + 1)).toEqual(expected);
        expect(await store.runDrafts.get(id, T0 + 2)).toEqual(expected);
        expect(await store.runDrafts.get(id, draft.expiresAt - 1)).not.toBeNull();
        expect(await store.runDrafts.get(id, draft.expiresAt)).toBeNull();
        expect(await store.runDrafts.get('missing', T0)).toBeNull();
      });

      it('gives every draft its own id and keeps null proxy and channel', async () => {
        const a = await store.runDrafts.save({ ...draft, proxyId: null, channel: null }, T0);
        const b = await store.runDrafts.save(draft, T0);
        expect(a).not.toBe(b);
        expect(await store.runDrafts.get(a, T0)).toMatchObject({ proxyId: null, channel: null });
      });

      it('deleteExpired removes only expired drafts', async () => {
        const old = await store.runDrafts.save({ ...draft, expiresAt: T0 + 10 }, T0);
        const fresh = await store.runDrafts.save({ ...draft, expiresAt: T0 + 1_000 }, T0);
        expect(await store.runDrafts.deleteExpired(T0 + 10)).toBe(1);
        expect(await store.runDrafts.deleteExpired(T0 + 10)).toBe(0);
        expect(await store.runDrafts.get(old, T0)).toBeNull();
        expect(await store.runDrafts.get(fresh, T0)).not.toBeNull();
      });
    });

    describe('runLimits', () => {
      const WINDOW = 60_000;

      it('allows `limit` starts in a sliding window and says when the next one is allowed', async () => {
        for (let i = 0; i < 3; i++) {
          expect(await store.runLimits.take('run:U1', T0 + i * 1_000, WINDOW, 3)).toEqual({ ok: true });
        }
        expect(await store.runLimits.take('run:U1', T0 + 10_000, WINDOW, 3)).toEqual({ ok: false, retryInMs: 50_000 });
        // A refusal records nothing: the first start leaving the window frees exactly one slot.
        expect(await store.runLimits.take('run:U1', T0 + WINDOW, WINDOW, 3)).toEqual({ ok: true });
        expect(await store.runLimits.take('run:U1', T0 + WINDOW + 1, WINDOW, 3)).toEqual({
          ok: false,
          retryInMs: 1_000 - 1,
        });
        expect(await store.runLimits.take('run:U2', T0 + WINDOW + 1, WINDOW, 3)).toEqual({ ok: true });
      });

      it('counts one window across replicas, also when they take at the same moment', async () => {
        const other = await harness.open();
        const results = await Promise.all(
          Array.from({ length: 8 }, (_, i) => (i % 2 ? other : store).runLimits.take('run:U1', T0 + i, WINDOW, 5)),
        );
        expect(results.filter((r) => r.ok)).toHaveLength(5);
        expect(await other.runLimits.take('run:U1', T0 + 100, WINDOW, 5)).toMatchObject({ ok: false });
      });

      it('deleteIdle forgets keys whose last start left the window, and they start afresh', async () => {
        await store.runLimits.take('run:old', T0, WINDOW, 1);
        await store.runLimits.take('run:new', T0 + 30_000, WINDOW, 1);
        expect(await store.runLimits.deleteIdle(T0 + 30_000 - WINDOW + 1)).toBe(0);
        expect(await store.runLimits.deleteIdle(T0)).toBe(1);
        expect(await store.runLimits.take('run:new', T0 + 31_000, WINDOW, 1)).toMatchObject({ ok: false });
        expect(await store.runLimits.take('run:old', T0 + 31_000, WINDOW, 1)).toEqual({ ok: true });
      });
    });
  });
}
