// The audit trail, approval requests, schedule owners and run drafts scoped by installation, the behaviour both databases must have: entries kept with their
// installation and read back per installation; entries without one (single-workspace mode, or written
// before the upgrade) given their workspace's installation — an org-wide install's where the workspace is
// known to be in it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEntry, Store } from '../../../src/store/store.ts';
import type { StoreHarness } from './store-contract.ts';

const T0 = 1_700_000_000_000;

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
    let harness: StoreHarness;
    let store: Store;
    beforeEach(async () => {
      harness = await createHarness();
      store = await harness.open();
    });
    afterEach(() => harness.destroy());

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
