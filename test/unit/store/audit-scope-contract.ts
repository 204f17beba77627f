// The audit trail, approval requests, schedule owners, schedule pauses and run drafts scoped by installation, the behaviour both databases must have: entries kept with their
// installation and read back per installation; entries without one (single-workspace mode, or written
// before the upgrade) given their workspace's installation — an org-wide install's where the workspace is
// known to be in it. AUDIT_RETENTION_DAYS (the pass: src/tenants/retention.ts): entries older than the cut
// deleted of every installation alike, oldest first, at most a batch at a time; unset keeps all; one replica
// at a time (a lease); one log line with the count.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.ts';
import type { AuditEntry, Store } from '../../../src/store/store.ts';
import { AUDIT_RETENTION_LEASE, purgeOldAudit } from '../../../src/tenants/retention.ts';
import { collectLogs } from '../../support/bot-harness.ts';
import { freshStoreEachTest, type StoreHarness } from './store-contract.ts';

const T0 = 1_700_000_000_000;
const DAY = 24 * 60 * 60 * 1000;

function entry(at: number, teamId: string | null, installationId?: string): AuditEntry {
  return {
    at,
    userId: 'U1',
    teamId,
    channel: 'C1',
    action: 'run.start',
    target: `r-${at}`,
    outcome: 'ok',
    detail: null,
    tid: null,
    ...(installationId ? { installationId } : {}),
  };
}

export function runAuditScopeContract(name: string, createHarness: () => Promise<StoreHarness>): void {
  describe(`${name} store contract: the audit trail by installation`, () => {
    let store: Store;
    freshStoreEachTest(createHarness, (fresh) => {
      store = fresh.store;
    });

    it('reads back only the installation asked for; without one, everything as before', async () => {
      await store.audit.append(entry(T0 + 1, 'T1', 'T1'));
      await store.audit.append(entry(T0 + 2, 'T2', 'T2'));
      await store.audit.append(entry(T0 + 3, 'T3A', 'E1'));
      await store.audit.append(entry(T0 + 4, 'T1'));
      expect((await store.audit.recent(10, 'T1')).map((e) => e.target)).toEqual([`r-${T0 + 1}`]);
      expect((await store.audit.recent(10, 'E1')).map((e) => e.installationId)).toEqual(['E1']);
      expect(await store.audit.recent(10, 'T9')).toEqual([]);
      const all = await store.audit.recent(10);
      expect(all.map((e) => e.target)).toEqual([T0 + 4, T0 + 3, T0 + 2, T0 + 1].map((at) => `r-${at}`));
      // An entry without an installation keeps the single-workspace shape.
      expect(all[0]).toEqual(entry(T0 + 4, 'T1'));
    });

    it('gives unscoped entries their workspace’s installation, or its org’s', async () => {
      await store.installations.rememberTeam('T3A', 'E1', T0);
      await store.audit.append(entry(T0 + 1, 'T1'));
      await store.audit.append(entry(T0 + 2, 'T3A'));
      await store.audit.append(entry(T0 + 3, null));
      await store.audit.append(entry(T0 + 4, 'T2', 'T2'));
      expect(await store.audit.assignInstallations()).toBe(2);
      expect((await store.audit.recent(10, 'T1')).map((e) => e.at)).toEqual([T0 + 1]);
      expect((await store.audit.recent(10, 'E1')).map((e) => e.at)).toEqual([T0 + 2]);
      expect((await store.audit.recent(10, 'T2')).map((e) => e.at)).toEqual([T0 + 4]);
      expect(await store.audit.assignInstallations()).toBe(0);
    });

    describe('AUDIT_RETENTION_DAYS: older entries deleted, of every installation alike', () => {
      it('deletes entries before the cut of every installation, keeps the one at the cut and newer', async () => {
        await store.audit.append(entry(T0 + 1, 'T1', 'T1'));
        await store.audit.append(entry(T0 + 2, 'E1', 'E1'));
        await store.audit.append(entry(T0 + 3, null));
        await store.audit.append(entry(T0 + 10, 'T1', 'T1'));
        await store.audit.append(entry(T0 + 11, 'T2', 'T2'));
        expect(await store.audit.deleteBefore(T0 + 10, 100)).toBe(3);
        expect((await store.audit.recent(10)).map((e) => e.at)).toEqual([T0 + 11, T0 + 10]);
        expect(await store.audit.deleteBefore(T0 + 10, 100)).toBe(0);
      });

      it('deletes in batches of at most `limit`, oldest first', async () => {
        for (let i = 0; i < 7; i++) await store.audit.append(entry(T0 + 6 - i, null, i % 2 ? 'T1' : 'T2'));
        await store.audit.append(entry(T0 + 100, 'T1', 'T1'));
        expect(await store.audit.deleteBefore(T0 + 50, 3)).toBe(3);
        expect((await store.audit.recent(10)).map((e) => e.at)).toEqual([T0 + 100, T0 + 6, T0 + 5, T0 + 4, T0 + 3]);
        expect(await store.audit.deleteBefore(T0 + 50, 3)).toBe(3);
        expect(await store.audit.deleteBefore(T0 + 50, 3)).toBe(1);
        expect(await store.audit.deleteBefore(T0 + 50, 3)).toBe(0);
        expect((await store.audit.recent(10)).map((e) => e.at)).toEqual([T0 + 100]);
        expect(await store.audit.deleteBefore(T0 + 1_000, 0)).toBe(0);
        expect(await store.audit.recent(10)).toHaveLength(1);
      });

      describe('the pass (purgeOldAudit)', () => {
        const NOW = T0 + 100 * DAY;
        const seed = async () => {
          // Five entries 31–35 days old of three installations; two newer, one of them of no installation.
          for (let i = 0; i < 5; i++)
            await store.audit.append(entry(NOW - (31 + i) * DAY, null, ['T1', 'E1', 'T2'][i % 3]));
          await store.audit.append(entry(NOW - 29 * DAY, 'T1', 'T1'));
          await store.audit.append(entry(NOW - 1_000, null));
        };
        const pass = (retentionDays: number | null, owner = 'replica-a', logger = createLogger({ level: 'silent' })) =>
          purgeOldAudit({ store, retentionDays, owner, leaseMs: 60_000, now: () => NOW, logger, batch: 2 });

        it('deletes every installation’s entries older than the retention, in batches, and logs the count', async () => {
          await seed();
          const { logs, destination } = collectLogs();
          expect(await pass(30, 'replica-a', createLogger({ level: 'info', destination }))).toBe(5);
          expect((await store.audit.recent(10)).map((e) => e.at)).toEqual([NOW - 1_000, NOW - 29 * DAY]);
          const lines = logs.filter((l) => l.includes('AUDIT_RETENTION_DAYS'));
          expect(lines).toHaveLength(1);
          expect(JSON.parse(lines[0]!)).toMatchObject({ deleted: 5, retentionDays: 30 });
          expect(await pass(30)).toBe(0);
        });

        it('unset: nothing is deleted, and no lease is taken', async () => {
          await seed();
          expect(await pass(null)).toBeNull();
          expect(await store.audit.recent(10)).toHaveLength(7);
          expect(await pass(30, 'replica-b')).toBe(5);
        });

        it('one replica at a time: another finds the lease held and deletes nothing', async () => {
          await seed();
          await store.coordination.holdLease(AUDIT_RETENTION_LEASE, 'replica-a', NOW + 60_000, NOW);
          expect(await pass(30, 'replica-b')).toBeNull();
          expect(await store.audit.recent(10)).toHaveLength(7);
          expect(await pass(30, 'replica-a')).toBe(5);
        });
      });
    });

    it('keeps approval requests with their installation: listed per installation, unscoped ones assigned', async () => {
      const request = (team: string, installationId?: string) =>
        store.approvals.create(
          {
            runbookId: 'r',
            runbookName: 'R',
            proxyId: 'p',
            params: '{}',
            paramsMasked: '{}',
            requesterId: 'U1',
            requesterTeam: team,
            channel: 'C1',
            expiresAt: T0 + 60_000,
            ...(installationId ? { installationId } : {}),
          },
          T0,
        );
      const own = await request('T1', 'T1');
      const org = await request('T3A', 'E1');
      const old = await request('T2');
      expect(own.installationId).toBe('T1');
      expect(old.installationId).toBeUndefined();
      expect((await store.approvals.listPending(T0, 10, 'T1')).map((a) => a.id)).toEqual([own.id]);
      expect((await store.approvals.listPending(T0, 10, 'E1')).map((a) => a.id)).toEqual([org.id]);
      expect((await store.approvals.listPending(T0, 10)).map((a) => a.id).sort()).toEqual(
        [own.id, org.id, old.id].sort(),
      );
      expect(await store.approvals.assignInstallations()).toBe(1);
      expect((await store.approvals.get(old.id))?.installationId).toBe('T2');
    });

    it('keeps schedule owners per (installation, schedule): two tenants’ APIs may both hold schedule s-1', async () => {
      await store.scheduleOwners.set('s-1', { userId: 'U1', teamId: 'T1', channel: 'C1' }, T0, 'T1');
      await store.scheduleOwners.set('s-1', { userId: 'U2', teamId: 'T2', channel: 'C2' }, T0, 'E2');
      expect((await store.scheduleOwners.get('s-1', 'T1'))?.userId).toBe('U1');
      expect((await store.scheduleOwners.get('s-1', 'E2'))?.userId).toBe('U2');
      expect(await store.scheduleOwners.get('s-1')).toBeNull();
      expect([...(await store.scheduleOwners.getMany(['s-1'], 'E2')).values()].map((o) => o.userId)).toEqual(['U2']);
      expect((await store.scheduleOwners.getMany(['s-1'], 'T3')).size).toBe(0);
      await store.scheduleOwners.remove('s-1', 'T1');
      expect(await store.scheduleOwners.get('s-1', 'T1')).toBeNull();
      expect((await store.scheduleOwners.get('s-1', 'E2'))?.userId).toBe('U2');
      // Single workspace ('') until a many-workspace start: then its owner's workspace's installation.
      await store.scheduleOwners.set('s-9', { userId: 'U1', teamId: 'T1' }, T0);
      expect(await store.scheduleOwners.assignInstallations()).toBe(0);
      await store.installations.save(
        { id: 'T1', teamId: 'T1', enterpriseId: null, isEnterpriseInstall: false, sealed: 'x' },
        T0,
      );
      expect(await store.scheduleOwners.assignInstallations()).toBe(1);
      expect((await store.scheduleOwners.get('s-9', 'T1'))?.userId).toBe('U1');
    });

    it('keeps schedule pauses per (installation, schedule): the same schedule id paused in one, not the other', async () => {
      const pauses = store.schedulePauses;
      const pause = { scheduleId: 's-1', cron: '0 5 * * *', runbookId: 'r', runbookName: 'R', pausedBy: 'U1' };
      expect(await pauses.begin({ ...pause, teamId: 'T1' }, T0, 'T1')).toBe(true);
      expect(await pauses.begin({ ...pause, teamId: 'T1' }, T0, 'T1')).toBe(false);
      expect(await pauses.get('s-1', 'T1')).toMatchObject({ installationId: 'T1', state: 'pausing' });
      expect(await pauses.get('s-1', 'E2')).toBeNull();
      expect(await pauses.get('s-1')).toBeNull();
      // Another installation's move, hand-over and removal touch nothing of T1's.
      expect(await pauses.move('s-1', 'pausing', 'paused', T0 + 1, 'E2')).toBe(false);
      expect(await pauses.remove('s-1', undefined, 'E2')).toBe(false);
      expect(await pauses.move('s-1', 'pausing', 'paused', T0 + 1, 'T1')).toBe(true);
      expect(await pauses.handOver('s-1', null, { freeze: 'Year end' }, T0 + 2, 'E2')).toBe(false);
      expect(await pauses.handOver('s-1', null, { freeze: 'Year end' }, T0 + 2, 'T1')).toBe(true);
      // E2 pauses its own s-1: two rows, each listed only in its installation.
      expect(await pauses.begin({ ...pause, pausedBy: 'U2', teamId: 'T2', resumeAt: T0 }, T0, 'E2')).toBe(true);
      await pauses.move('s-1', 'pausing', 'paused', T0, 'E2');
      expect((await pauses.list(10, 'T1')).map((p) => [p.installationId, p.pausedBy])).toEqual([['T1', 'U1']]);
      expect((await pauses.list(10, 'E2')).map((p) => [p.installationId, p.pausedBy])).toEqual([['E2', 'U2']]);
      expect(await pauses.list(10)).toEqual([]);
      expect((await pauses.listFrozen(10, 'T1')).map((p) => p.freeze)).toEqual(['Year end']);
      expect(await pauses.listFrozen(10, 'E2')).toEqual([]);
      // Background lists span installations; each row names its own.
      expect((await pauses.listDue(T0 + 1, 10)).map((p) => p.installationId)).toEqual(['E2']);
      expect(await pauses.remove('s-1', 'paused', 'E2')).toBe(true);
      expect((await pauses.get('s-1', 'T1'))?.freeze).toBe('Year end');
      // Single workspace ('') until a many-workspace start: then its pauser's workspace's installation.
      await pauses.begin({ ...pause, scheduleId: 's-9', teamId: 'T1' }, T0);
      expect(await pauses.assignInstallations()).toBe(0);
      await store.installations.save(
        { id: 'T1', teamId: 'T1', enterpriseId: null, isEnterpriseInstall: false, sealed: 'x' },
        T0,
      );
      expect(await pauses.assignInstallations()).toBe(1);
      expect(await pauses.get('s-9')).toBeNull();
      expect(await pauses.get('s-9', 'T1')).toMatchObject({ installationId: 'T1', pausedBy: 'U1' });
    });

    it('keeps a run draft with its installation: found by id only there', async () => {
      const draft = { runbookId: 'rb', proxyId: null, channel: 'C1', params: '{}', expiresAt: T0 + 60_000 };
      const id = await store.runDrafts.save(draft, T0, 'T1');
      expect(await store.runDrafts.get(id, T0 + 1, 'T1')).not.toBeNull();
      expect(await store.runDrafts.get(id, T0 + 1, 'T2')).toBeNull();
      expect(await store.runDrafts.get(id, T0 + 1)).toBeNull();
      const single = await store.runDrafts.save(draft, T0);
      expect(await store.runDrafts.get(single, T0 + 1)).not.toBeNull();
      expect(await store.runDrafts.get(single, T0 + 1, 'T1')).toBeNull();
    });
  });
}
