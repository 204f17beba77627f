// DATA_RETENTION_DAYS, the behaviour both databases must have (the pass: src/tenants/retention.ts): an
// uninstalled installation's aliases, channel defaults, subscriptions, settings and approvals are kept
// through the retention — a reinstall within it finds them again — and purged after it (a moved clock),
// including rows keyed only by a workspace of an org-wide install; the audit trail, other installations and a
// workspace another installation now serves are left alone; one replica purges at a time.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.ts';
import type { Store } from '../../../src/store/store.ts';
import { purgeUninstalled } from '../../../src/tenants/retention.ts';
import { freshStoreEachTest, type StoreHarness } from './store-contract.ts';

const T0 = 1_700_000_000_000;
const DAY = 24 * 60 * 60 * 1000;
const logger = createLogger({ level: 'silent' });

/**
 * An alias, a channel default, a schedule owner, a subscription, a watch with its card claim, a run intent,
 * settings and an audit entry of `team` served by `id`.
 */
export async function seedInstallation(store: Store, id: string, team: string, channel: string): Promise<void> {
  await store.aliases.add(
    {
      channel,
      name: 'restart',
      runbookId: 'r1',
      runbookName: 'Restart',
      params: '{}',
      proxyId: null,
      resultChannel: null,
      createdBy: 'U1',
      teamId: team,
    },
    T0,
    id,
  );
  await store.channelDefaults.set(channel, { proxyId: 'p1' }, 'U1', T0, id);
  await store.scheduleOwners.set(`s-${channel}`, { userId: 'U1', teamId: team, channel }, T0, id);
  await store.subscriptions.add(
    { channel, runbookId: 'r1', runbookName: 'Restart', failuresOnly: false, createdBy: 'U1', teamId: team },
    T0,
    id,
  );
  // A watch and a run intent kept for the installation (no workspace on them: found by the installation),
  // with the same execution id in every installation, and the claim of its card.
  await store.watches.insert(
    {
      installationId: id,
      executionId: 'X',
      runbookId: 'r1',
      runbookName: 'Restart',
      channel,
      teamId: null,
      proxyId: 'p1',
      inputsSummary: '{}',
      origin: 'slack',
    },
    T0,
  );
  await store.notifications.claim(`message:${id}:X`, T0);
  await store.intents.record(
    {
      id: `i-${id}`,
      userId: 'U1',
      userEmail: null,
      teamId: null,
      runbookId: 'r1',
      runbookName: 'Restart',
      proxyId: 'p1',
      paramsHash: 'h',
      channel,
      inputsSummary: '{}',
      via: null,
      installationId: id,
    },
    T0,
  );
  await store.installationSettings.put({
    installationId: id,
    approvalsChannel: channel,
    approverGroup: null,
    updatedBy: 'U1',
    updatedAt: T0,
  });
  await store.audit.append({
    at: T0,
    userId: 'U1',
    teamId: team,
    channel,
    action: 'alias.save',
    target: 'restart',
    outcome: 'ok',
    detail: null,
    tid: null,
    installationId: id,
  });
}

export function runRetentionContract(name: string, createHarness: () => Promise<StoreHarness>): void {
  describe(`${name} store contract: purging uninstalled installations after DATA_RETENTION_DAYS`, () => {
    let store: Store;
    freshStoreEachTest(createHarness, (fresh) => {
      store = fresh.store;
    });

    const install = (id: string, at: number, org = false) =>
      store.installations.save(
        { id, teamId: org ? null : id, enterpriseId: org ? id : null, isEnterpriseInstall: org, sealed: 'sealed' },
        at,
      );
    const uninstall = async (id: string, at: number) => {
      const record = (await store.installations.get(id))!;
      expect(await store.installations.revoke(id, record.generation, at)).toBe(true);
    };
    const seed = (id: string, team: string, channel: string) => seedInstallation(store, id, team, channel);
    const pass = (at: number, owner = 'replica-a') =>
      purgeUninstalled({ store, retentionDays: 30, owner, leaseMs: 60_000, now: () => at, logger });
    const kept = async (id: string, channel: string) => ({
      alias: (await store.aliases.get(channel, 'restart', id)) !== null,
      defaults: (await store.channelDefaults.get(channel, id)) !== null,
      subscriptions: (await store.subscriptions.listForChannel(channel, id)).length,
      settings: (await store.installationSettings.get(id)) !== null,
      owner: (await store.scheduleOwners.get(`s-${channel}`, id)) !== null,
      watch: (await store.watches.get('X', id)) !== null,
      cardClaim: await store.notifications.has(`message:${id}:X`),
      intents: (await store.intents.listOpen(T0 + 1, 10, id)).length,
    });
    const ALL = {
      alias: true,
      defaults: true,
      subscriptions: 1,
      settings: true,
      owner: true,
      watch: true,
      cardClaim: true,
      intents: 1,
    };
    const NONE = {
      alias: false,
      defaults: false,
      subscriptions: 0,
      settings: false,
      owner: false,
      watch: false,
      cardClaim: false,
      intents: 0,
    };

    it('a reinstall within the retention finds everything again', async () => {
      await install('T1', T0);
      await seed('T1', 'T1', 'C1');
      await uninstall('T1', T0 + DAY);
      expect(await pass(T0 + 30 * DAY)).toEqual([]); // 29 days after the uninstall
      await install('T1', T0 + 30 * DAY);
      expect(await kept('T1', 'C1')).toEqual(ALL);
      // Installed again: never purged, however long after.
      expect(await pass(T0 + 400 * DAY, 'replica-b')).toEqual([]);
      expect(await kept('T1', 'C1')).toEqual(ALL);
    });

    it('after it, the purge removes its rows — not the audit trail, nor another installation’s', async () => {
      await install('T1', T0);
      await install('T2', T0);
      await seed('T1', 'T1', 'C1');
      await seed('T2', 'T2', 'C2');
      await uninstall('T1', T0 + DAY);
      const purged = await pass(T0 + 31 * DAY + 1);
      expect(purged.map((p) => p.installationId)).toEqual(['T1']);
      expect(purged[0]!.rows).toMatchObject({
        run_aliases: 1,
        channel_defaults: 1,
        subscriptions: 1,
        watches: 1,
        run_intents: 1,
        notifications: 1,
        installations: 1,
      });
      expect(await kept('T1', 'C1')).toEqual(NONE);
      expect(await store.installations.get('T1')).toBeNull();
      expect(await kept('T2', 'C2')).toEqual(ALL);
      expect((await store.audit.recent(10, 'T1')).map((e) => e.action)).toEqual(['alias.save']);
      // A reinstall after the purge starts empty.
      await install('T1', T0 + 32 * DAY);
      expect(await kept('T1', 'C1')).toEqual(NONE);
    });

    /** Org E1 with its workspaces T0EU (seeded in C0EU) and T0US (a subscription in C0US, kept for `usFor`). */
    const orgWithTwoWorkspaces = async (usFor?: string) => {
      await install('E1', T0, true);
      await store.installations.rememberTeam('T0EU', 'E1', T0);
      await store.installations.rememberTeam('T0US', 'E1', T0);
      await seed('E1', 'T0EU', 'C0EU');
      await store.subscriptions.add(
        { channel: 'C0US', runbookId: 'r1', runbookName: 'R', failuresOnly: false, createdBy: 'U1', teamId: 'T0US' },
        T0,
        usFor,
      );
    };

    it('purges an org-wide install’s workspaces by team id, except one another installation now serves', async () => {
      await orgWithTwoWorkspaces();
      await install('T0US', T0 + DAY); // the US workspace installed the app on its own since
      await uninstall('E1', T0 + DAY);
      const purged = await pass(T0 + 40 * DAY);
      expect(purged.map((p) => p.installationId)).toEqual(['E1']);
      expect(await kept('E1', 'C0EU')).toEqual(NONE);
      expect(await store.subscriptions.listForChannel('C0US')).toHaveLength(1);
    });

    it('a workspace removed from an org-wide install: its own rows purged after the retention, the org’s kept', async () => {
      await orgWithTwoWorkspaces('E1');
      await store.watches.insert(
        {
          installationId: 'E1',
          executionId: 'Y',
          runbookId: 'r1',
          runbookName: 'Restart',
          channel: 'C0EU',
          teamId: 'T0EU',
          proxyId: 'p1',
          inputsSummary: '{}',
          origin: 'slack',
        },
        T0,
      );
      expect(await store.installations.revokeTeam('T0EU', 'E1', T0 + DAY)).toBe(true);
      // Removed, then added back within the retention: never purged.
      expect(await store.installations.revokeTeam('T0US', 'E1', T0 + DAY)).toBe(true);
      await store.installations.grantTeam('T0US', 'E1', T0 + 2 * DAY);
      expect(await pass(T0 + 30 * DAY)).toEqual([]);
      expect((await kept('E1', 'C0EU')).subscriptions).toBe(1);
      const purged = await pass(T0 + 32 * DAY);
      expect(purged.map((p) => [p.installationId, p.teamId])).toEqual([['E1', 'T0EU']]);
      expect(purged[0]!.rows).toMatchObject({
        subscriptions: 1,
        watches: 1,
        schedule_owners: 1,
        installation_teams: 1,
      });
      expect(await kept('E1', 'C0EU')).toMatchObject({ subscriptions: 0, owner: false, alias: true, defaults: true });
      expect(await store.watches.get('Y', 'E1')).toBeNull();
      expect(await store.subscriptions.listForChannel('C0US', 'E1')).toHaveLength(1);
      expect(await store.installations.installationOfTeam('T0US')).toBe('E1');
      expect((await store.installations.get('E1'))?.sealed).not.toBeNull();
      expect(await pass(T0 + 60 * DAY, 'replica-b')).toEqual([]);
    });

    it('one replica purges at a time: another finds the lease held', async () => {
      await install('T1', T0);
      await uninstall('T1', T0);
      await store.coordination.holdLease('installation-retention', 'replica-a', T0 + 40 * DAY + 60_000, T0 + 40 * DAY);
      expect(await pass(T0 + 40 * DAY, 'replica-b')).toEqual([]);
      expect(await store.installations.get('T1')).not.toBeNull();
      expect((await pass(T0 + 40 * DAY, 'replica-a')).map((p) => p.installationId)).toEqual(['T1']);
    });
  });
}
