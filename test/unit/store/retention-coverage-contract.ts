// Every table of the schema, on both databases, is either purged for an installation uninstalled longer than
// DATA_RETENTION_DAYS ago, or on the short list of tables that hold nothing of any one installation (each with
// its reason). Two installations get one of everything, with the same ids where a tenant's ids may meet
// another's (an execution id, a channel shared over Slack Connect, a user, a service runbook); after the pass
// every purged table holds exactly what it held before the uninstalled one's rows were written, and the other
// installation's rows are all still there. A table added later without being purged or listed fails here.
// The claims pass (every mode, by age) deletes from `notifications` only, and only the kinds it prunes; the
// ended-watches pass from `watches` only, and only ended ones; the run records pass from the per-run tables
// only (intents, uploads, workflow steps, approvals and their votes), and only settled or unwatched rows.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.ts';
import type { Store } from '../../../src/store/store.ts';
import {
  CLAIM_RETENTION_LEASE,
  pruneClaims,
  pruneEndedWatches,
  pruneRunRecords,
  purgeUninstalled,
  RETENTION_LEASE,
  RUN_RECORD_RETENTION_LEASE,
  WATCH_HORIZON_MS,
  WATCH_RETENTION_LEASE,
} from '../../../src/tenants/retention.ts';
import { subscriptionNoticeKey } from '../../../src/watch/subscription-notice.ts';
import { seedInstallation } from './retention-contract.ts';
import { step } from './saved-runs-contract.ts';
import { freshStoreEachTest, newApproval, type StoreHarness } from './store-contract.ts';

const T0 = 1_700_000_000_000;
const DAY = 24 * 60 * 60 * 1000;
const logger = createLogger({ level: 'silent' });

/** Tables that hold nothing of any one installation, and why they are not purged with it. */
export const GLOBAL_TABLES: Record<string, string> = {
  schema_migrations: 'the schema version of the whole deployment',
  oauth_states: 'installs in progress, before an installation exists; swept after 10 minutes, taken once',
  slack_events: 'event ids Slack delivered (unique across Slack), forgotten after 7 days',
  audit: 'the audit trail follows its own retention, not the installation’s',
  leases:
    'one row per deployment-wide job (the sweep, the scans, freezes, skips, this purge, the claims, watches and run records passes), none per installation',
};

/** Everything an installation can leave behind: `id` installed (org-wide when `org`), used from workspace `team`. */
async function seed(store: Store, id: string, team: string, org: boolean): Promise<void> {
  await store.installations.save(
    { id, teamId: org ? null : id, enterpriseId: org ? id : null, isEnterpriseInstall: org, sealed: 'sealed' },
    T0,
  );
  if (org) await store.installations.rememberTeam(team, id, T0);
  await seedInstallation(store, id, team, 'C1');
  await store.apiConnections.put({ installationId: id, baseUrl: 'https://api', sealedKey: 'k', connectedBy: 'U1' }, T0);
  const approval = await store.approvals.create(newApproval({ requesterTeam: team, installationId: id }), T0);
  expect(await store.approvals.vote(approval.id, 'U2', [], T0)).toBe(true);
  await store.schedulePauses.begin(
    { scheduleId: 's-1', cron: '0 5 * * *', runbookId: 'rb', runbookName: 'Restart', pausedBy: 'U1', teamId: team },
    T0,
    id,
  );
  await store.runDrafts.save(
    { runbookId: 'rb', proxyId: null, channel: 'C1', params: '{}', expiresAt: T0 + DAY },
    T0,
    id,
  );
  expect(await store.notifications.claim(subscriptionNoticeKey('C1', 'e-1', id), T0)).toBe(true);
  // A click's claim (src/runs/once.ts): the installation leads its key, and an older release's key too.
  expect(await store.notifications.claim(`click:${id}:confirm_run:rb:C1`, T0, 'U1')).toBe(true);
  expect(await store.notifications.claim(`${id}:confirm_run:rb:C1`, T0, 'U1')).toBe(true);
  expect(await store.outputUploads.claim('e-1', T0, id)).toBe(true);
  expect(await store.workflowSteps.begin(step('Fx1'), T0, id)).toBe(true);
  await store.freezePasses.grant(
    { userId: 'U1', runbookId: 'rb', freeze: 'Year end', reason: 'prod down', expiresAt: T0 + DAY },
    T0,
    id,
  );
  await store.runLimits.take('run:U1', T0, 60_000, 10, id);
  await store.cursors.set('subscriptions', 'scan', T0, id);
  await store.coordination.takeTokens(`runbook-api/tenant/${id}`, { ratePerSecond: 1, burst: 5 }, 1, T0, id);
}

export function runRetentionCoverageContract(name: string, createHarness: () => Promise<StoreHarness>): void {
  describe(`${name}: every table is purged with its installation after DATA_RETENTION_DAYS, or holds none`, () => {
    let harness: StoreHarness;
    let store: Store;
    freshStoreEachTest(createHarness, async (fresh) => {
      ({ harness, store } = fresh);
      // The passes' own leases, held beforehand by the replica that runs them: renewing one adds no row.
      await store.coordination.holdLease(RETENTION_LEASE, 'replica-a', T0 + 400 * DAY, T0);
      await store.coordination.holdLease(CLAIM_RETENTION_LEASE, 'replica-a', T0 + 400 * DAY, T0);
      await store.coordination.holdLease(WATCH_RETENTION_LEASE, 'replica-a', T0 + 400 * DAY, T0);
      await store.coordination.holdLease(RUN_RECORD_RETENTION_LEASE, 'replica-a', T0 + 400 * DAY, T0);
    });

    const counts = async (): Promise<Record<string, number>> =>
      Object.fromEntries(
        await Promise.all((await harness.tables()).map(async (t) => [t, (await harness.rawRows(t)).length] as const)),
      );
    const pass = (at: number) =>
      purgeUninstalled({ store, retentionDays: 30, owner: 'replica-a', leaseMs: 60_000, now: () => at, logger });
    const uninstall = async (id: string, at: number) => {
      const record = (await store.installations.get(id))!;
      expect(await store.installations.revoke(id, record.generation, at)).toBe(true);
    };
    /** The other installation (kept) first, then the one that is uninstalled (org-wide, used from one workspace). */
    const seedBoth = async () => {
      await seed(store, 'T0KEPT', 'T0KEPT', false);
      const before = await counts();
      await seed(store, 'E0GONE', 'T0GONE', true);
      return { before, after: await counts() };
    };

    it('names every table: purged with its installation, or listed as holding none with a reason', async () => {
      const { before, after } = await seedBoth();
      const tables = Object.keys(after).sort();
      const unaccounted = tables.filter((t) => !(t in GLOBAL_TABLES) && after[t] === before[t]);
      // A table the seed above writes nothing to for the second installation is neither shown purged nor listed.
      expect(unaccounted, 'tables neither written per installation here nor listed in GLOBAL_TABLES').toEqual([]);
      expect(Object.keys(GLOBAL_TABLES).filter((t) => !tables.includes(t))).toEqual([]);

      await uninstall('E0GONE', T0 + DAY);
      const purged = await pass(T0 + 31 * DAY + 1);
      expect(purged.map((p) => p.installationId)).toEqual(['E0GONE']);
      const left = await counts();
      const notPurged = tables.filter((t) => !(t in GLOBAL_TABLES) && left[t] !== before[t]);
      expect(notPurged, 'tables still holding the purged installation’s rows (or missing the other’s)').toEqual([]);
      // The audit trail stays whole.
      expect(left.audit).toBe(after.audit);
    });

    it('the claims pass prunes old claims of the kinds it knows, in notifications only', async () => {
      const { after } = await seedBoth();
      const deleted = await pruneClaims({
        store,
        owner: 'replica-a',
        leaseMs: 60_000,
        now: () => T0 + 400 * DAY,
        logger,
        noticeReach: async () => null,
      });
      // Each installation's subscription notice; not its card (its watch is active) nor its clicks (kept).
      expect(deleted).toEqual({ card: 0, notice: 2, form: 0, confirmation: 0 });
      const left = await counts();
      for (const t of Object.keys(after)) expect(left[t], t).toBe(t === 'notifications' ? after[t]! - 2 : after[t]);
      for (const id of ['T0KEPT', 'E0GONE']) {
        expect(await store.notifications.has(`message:${id}:X`)).toBe(true);
        expect(await store.notifications.has(subscriptionNoticeKey('C1', 'e-1', id))).toBe(false);
      }
    });

    it('the watches pass prunes old ended watches, in watches only', async () => {
      const { after } = await seedBoth();
      // The uninstalled one's watch ends (stale) with the uninstall; the other's stays active.
      await uninstall('E0GONE', T0 + DAY);
      expect(await store.watches.stopInstallation('E0GONE', T0 + DAY)).toBe(1);
      const prune = (at: number) =>
        pruneEndedWatches({
          store,
          owner: 'replica-a',
          leaseMs: 60_000,
          now: () => at,
          logger,
          scanReach: async () => null,
        });
      expect(await prune(T0 + DAY + WATCH_HORIZON_MS)).toBe(0);
      expect(await prune(T0 + 400 * DAY)).toBe(1);
      const left = await counts();
      for (const t of Object.keys(after)) expect(left[t], t).toBe(t === 'watches' ? after[t]! - 1 : after[t]);
      expect(await store.watches.get('X', 'E0GONE')).toBeNull();
      expect((await store.watches.get('X', 'T0KEPT'))?.state).toBe('active');
    });

    it('the run records pass prunes settled intents, unwatched uploads, ended steps, decided requests: those only', async () => {
      const { after } = await seedBoth();
      // The uninstalled one's run intent, workflow step and approval request are settled; the other's still open.
      expect(await store.intents.settle('i-E0GONE', 'lost', [], T0 + 1)).toBe(true);
      expect(await store.workflowSteps.finish('Fx1', 'failed', { error: 'x' }, T0 + 1, 'E0GONE')).toBe(true);
      const [gone] = (await store.approvals.listPending(T0, 10, 'E0GONE')).map((a) => a.id);
      expect(await store.approvals.decide(gone!, 'expired', null, null, T0 + 1)).toBe(true);
      const deleted = await pruneRunRecords({
        store,
        owner: 'replica-a',
        leaseMs: 60_000,
        now: () => T0 + 400 * DAY,
        logger,
      });
      // Both upload claims: no watch of `e-1` in either installation (the watch kept is of `X`).
      expect(deleted).toEqual({ intents: 1, uploads: 2, steps: 1, approvals: 1 });
      const fewer: Record<string, number> = {
        run_intents: 1,
        output_uploads: 2,
        workflow_steps: 1,
        approvals: 1,
        approval_votes: 1,
      };
      const left = await counts();
      for (const t of Object.keys(after)) expect(left[t], t).toBe(after[t]! - (fewer[t] ?? 0));
      expect((await store.intents.listOpen(T0 + 1, 10, 'T0KEPT')).map((i) => i.id)).toEqual(['i-T0KEPT']);
      expect((await store.workflowSteps.get('Fx1', 'T0KEPT'))?.state).toBe('pending');
      expect(await store.approvals.listPending(T0, 10, 'T0KEPT')).toHaveLength(1);
    });

    it('a reinstall within the retention finds all of it again; one after it finds none', async () => {
      const { before, after } = await seedBoth();
      await uninstall('E0GONE', T0 + DAY);
      expect(await pass(T0 + 30 * DAY)).toEqual([]);
      expect(await counts()).toEqual(after);
      const reinstall = (at: number) =>
        store.installations.save(
          { id: 'E0GONE', teamId: null, enterpriseId: 'E0GONE', isEnterpriseInstall: true, sealed: 'again' },
          at,
        );
      await reinstall(T0 + 30 * DAY);
      expect(await pass(T0 + 400 * DAY)).toEqual([]);
      expect(await store.aliases.get('C1', 'restart', 'E0GONE')).not.toBeNull();
      expect(await store.channelDefaults.get('C1', 'E0GONE')).not.toBeNull();
      expect(await store.subscriptions.listForChannel('C1', 'E0GONE')).toHaveLength(1);
      expect(await store.installationSettings.get('E0GONE')).not.toBeNull();

      await uninstall('E0GONE', T0 + 401 * DAY);
      expect((await pass(T0 + 432 * DAY)).map((p) => p.installationId)).toEqual(['E0GONE']);
      await reinstall(T0 + 433 * DAY);
      expect(await store.aliases.get('C1', 'restart', 'E0GONE')).toBeNull();
      expect(await store.channelDefaults.get('C1', 'E0GONE')).toBeNull();
      expect(await store.subscriptions.listForChannel('C1', 'E0GONE')).toEqual([]);
      expect(await store.installationSettings.get('E0GONE')).toBeNull();
      // The other installation's are all still there.
      expect(await store.aliases.get('C1', 'restart', 'T0KEPT')).not.toBeNull();
      expect(await store.subscriptions.listForChannel('C1', 'T0KEPT')).toHaveLength(1);
      const left = await counts();
      for (const t of Object.keys(before).filter((t) => !(t in GLOBAL_TABLES) && t !== 'installations')) {
        expect(left[t], t).toBe(before[t]);
      }
    });
  });
}
