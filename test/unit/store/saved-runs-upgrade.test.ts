// The upgrades to migrations 21, 23, 24 and 25: aliases, channel defaults, schedule owners, schedule pauses and
// subscriptions gain the installation in their key. A
// many-workspace deployment's rows go to their workspace's installation (or its Grid org's); a
// single-workspace deployment's stay its own ('') until a many-workspace start assigns them.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, runMigrations } from '../../../src/store/migrations.ts';
import type { SqlDriver } from '../../../src/store/sql-driver.ts';
import { createSqlStore } from '../../../src/store/sql-store.ts';
import { openSqliteDriver } from '../../../src/store/sqlite-driver.ts';

async function before21(withInstallations: boolean): Promise<string> {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'saved-runs-upgrade-')), 'db.sqlite');
  const db = openSqliteDriver(file);
  await runMigrations(db, { migrations: MIGRATIONS.filter((m) => m.version <= 20) });
  for (const [channel, name, team] of [
    ['C1', 'deploy', 'T0ONE'],
    ['C2', 'purge', 'T0GRIDA'],
  ] as const) {
    await db.query(
      `INSERT INTO run_aliases (channel, name, runbook_id, runbook_name, params, proxy_id, result_channel,
         created_by, team_id, created_at, updated_at)
       VALUES ($1, $2, 'rb', 'R', '{}', NULL, NULL, 'U1', $3, 1, 1)`,
      [channel, name, team],
    );
  }
  await db.query(
    `INSERT INTO channel_defaults (channel, proxy_id, result_channel, updated_by, updated_at) VALUES ('C1', 'p1', NULL, 'U1', 5)`,
  );
  await db.query(
    `INSERT INTO audit (at, user_id, team_id, channel, action, target, outcome, detail, tid)
     VALUES (5, 'U1', 'T0ONE', 'C1', 'defaults.set', 'channel C1', 'ok', NULL, NULL)`,
  );
  await db.query(`INSERT INTO installation_teams (team_id, installation_id, seen_at) VALUES ('T0GRIDA', 'E0GRID', 0)`);
  await db.query(
    `INSERT INTO schedule_owners (schedule_id, user_id, team_id, user_name, created_at, updated_at, channel)
     VALUES ('s-1', 'U1', 'T0GRIDA', NULL, 1, 1, 'C2')`,
  );
  await db.query(
    `INSERT INTO schedule_pauses (schedule_id, state, cron, runbook_id, runbook_name, paused_by, team_id, paused_at,
       updated_at, resume_at, frozen_by)
     VALUES ('s-1', 'paused', '0 5 * * *', 'rb', 'R', 'U1', 'T0GRIDA', 1, 2, 3, 'Year end')`,
  );
  for (const [runbook, team] of [
    ['rb-1', 'T0ONE'],
    ['rb-2', 'T0GRIDA'],
  ] as const) {
    await db.query(
      `INSERT INTO subscriptions (channel, runbook_id, runbook_name, failures_only, created_by, team_id, created_at,
         updated_at)
       VALUES ('C1', $1, 'R', true, 'U1', $2, 1, 2)`,
      [runbook, team],
    );
  }
  if (withInstallations) await addInstallation(db);
  await db.close();
  return file;
}

function addInstallation(db: SqlDriver) {
  return db.query(
    `INSERT INTO installations (id, team_id, enterprise_id, is_enterprise_install, sealed, generation, installed_at, updated_at)
     VALUES ('T0ONE', 'T0ONE', NULL, false, 'x', 1, 0, 0)`,
  );
}

describe('upgrade to aliases, channel defaults (migration 21) schedule owners (23), schedule pauses (24) and subscriptions (25) per installation', () => {
  it('a many-workspace deployment: each row goes to its workspace’s installation (or its org’s)', async () => {
    const store = createSqlStore(openSqliteDriver(await before21(true)));
    try {
      expect((await store.migrate()).version).toBeGreaterThanOrEqual(21);
      expect(await store.aliases.get('C1', 'deploy', 'T0ONE')).not.toBeNull();
      expect(await store.aliases.get('C2', 'purge', 'E0GRID')).not.toBeNull();
      expect(await store.aliases.get('C1', 'deploy')).toBeNull();
      expect(await store.channelDefaults.get('C1', 'T0ONE')).toMatchObject({ proxyId: 'p1' });
      expect(await store.channelDefaults.get('C1')).toBeNull();
      // Migration 23: schedule owners the same way.
      expect(await store.scheduleOwners.get('s-1', 'E0GRID')).toMatchObject({ userId: 'U1', channel: 'C2' });
      expect(await store.scheduleOwners.get('s-1')).toBeNull();
      // Migration 24: schedule pauses the same way, every column kept.
      expect(await store.schedulePauses.get('s-1', 'E0GRID')).toMatchObject({
        installationId: 'E0GRID',
        state: 'paused',
        cron: '0 5 * * *',
        pausedBy: 'U1',
        teamId: 'T0GRIDA',
        pausedAt: 1,
        updatedAt: 2,
        resumeAt: 3,
        freeze: 'Year end',
      });
      expect(await store.schedulePauses.get('s-1')).toBeNull();
      // Migration 25: subscriptions the same way, every column kept.
      expect(await store.subscriptions.listForChannel('C1', 'T0ONE')).toEqual([
        {
          installationId: 'T0ONE',
          channel: 'C1',
          runbookId: 'rb-1',
          runbookName: 'R',
          failuresOnly: true,
          createdBy: 'U1',
          teamId: 'T0ONE',
          createdAt: 1,
          updatedAt: 2,
        },
      ]);
      expect((await store.subscriptions.listForChannel('C1', 'E0GRID')).map((x) => x.runbookId)).toEqual(['rb-2']);
      expect(await store.subscriptions.listForChannel('C1')).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('a single-workspace deployment keeps its rows as they are, until a many-workspace start assigns them', async () => {
    const file = await before21(false);
    const store = createSqlStore(openSqliteDriver(file));
    try {
      await store.migrate();
      expect(await store.aliases.get('C1', 'deploy')).not.toBeNull();
      expect(await store.channelDefaults.get('C1')).toMatchObject({ proxyId: 'p1' });
      expect(await store.scheduleOwners.get('s-1')).toMatchObject({ userId: 'U1' });
      expect(await store.schedulePauses.get('s-1')).toMatchObject({ cron: '0 5 * * *', freeze: 'Year end' });
      expect(await store.schedulePauses.assignInstallations()).toBe(0);
      // Still single-workspace: nothing to assign to.
      expect(await store.aliases.assignInstallations()).toBe(0);
      expect(await store.channelDefaults.assignInstallations()).toBe(0);
      expect(await store.subscriptions.assignInstallations()).toBe(0);
      expect(await store.subscriptions.listForChannel('C1')).toHaveLength(2);
    } finally {
      await store.close();
    }
    const db = openSqliteDriver(file);
    await addInstallation(db);
    await db.close();
    const later = createSqlStore(openSqliteDriver(file));
    try {
      await later.migrate();
      expect(await later.aliases.assignInstallations()).toBe(2);
      expect(await later.channelDefaults.assignInstallations()).toBe(1);
      expect(await later.scheduleOwners.assignInstallations()).toBe(1);
      expect(await later.scheduleOwners.get('s-1', 'E0GRID')).toMatchObject({ userId: 'U1' });
      expect(await later.schedulePauses.assignInstallations()).toBe(1);
      expect(await later.schedulePauses.get('s-1', 'E0GRID')).toMatchObject({ pausedBy: 'U1' });
      expect(await later.schedulePauses.get('s-1')).toBeNull();
      expect(await later.aliases.get('C1', 'deploy', 'T0ONE')).not.toBeNull();
      expect(await later.aliases.get('C2', 'purge', 'E0GRID')).not.toBeNull();
      expect(await later.channelDefaults.get('C1', 'T0ONE')).toMatchObject({ proxyId: 'p1' });
      expect(await later.aliases.get('C1', 'deploy')).toBeNull();
      expect(await later.subscriptions.assignInstallations()).toBe(2);
      expect((await later.subscriptions.listForChannel('C1', 'T0ONE')).map((x) => x.runbookId)).toEqual(['rb-1']);
      expect((await later.subscriptions.listForChannel('C1', 'E0GRID')).map((x) => x.runbookId)).toEqual(['rb-2']);
      expect(await later.subscriptions.listForChannel('C1')).toEqual([]);
    } finally {
      await later.close();
    }
  });
});
