// The upgrade to migration 26, on SQLite and on Postgres: output uploads, Workflow Builder steps, break-glass
// passes, run limits, cursors and request buckets gain the installation. A many-workspace deployment's go to
// their workspace's installation (or its Grid org's): an upload and a step by the watch of their run, a pass by
// the audited grant, a subscription scan cursor and a tenant's bucket by the installation their name carried;
// a single-workspace deployment's stay its own ('') until a many-workspace start assigns them.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS, runMigrations } from '../../../src/store/migrations.ts';
import { openPostgresDriver } from '../../../src/store/postgres-driver.ts';
import type { SqlDriver } from '../../../src/store/sql-driver.ts';
import { createSqlStore } from '../../../src/store/sql-store.ts';
import { openSqliteDriver } from '../../../src/store/sqlite-driver.ts';
import type { Store } from '../../../src/store/store.ts';
import { TEST_DATABASE_URL } from '../../support/test-database.ts';

interface Database {
  /** A driver on the database (a new one each call, as a restart opens). */
  open(): SqlDriver;
  options: { schema?: string };
}

const schemas: string[] = [];
afterAll(async () => {
  if (schemas.length === 0) return;
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
});

const DATABASES: Record<string, () => Database> = {
  sqlite: () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'keys-upgrade-')), 'db.sqlite');
    return { open: () => openSqliteDriver(file), options: {} };
  },
  postgres: () => {
    const schema = `test_${randomBytes(6).toString('hex')}`;
    schemas.push(schema);
    return { open: () => openPostgresDriver({ url: TEST_DATABASE_URL, schema }), options: { schema } };
  },
};

const LATER = 2_000_000_000_000;

/** A database at migration 25 with one of everything 26 changes, of two workspaces (one in a Grid org). */
async function before26(database: Database, withInstallations: boolean): Promise<void> {
  const db = database.open();
  await runMigrations(db, { ...database.options, migrations: MIGRATIONS.filter((m) => m.version <= 25) });
  await db.query(`INSERT INTO installation_teams (team_id, installation_id, seen_at) VALUES ('T0GRIDA', 'E0GRID', 0)`);
  for (const [execution, team] of [
    ['e-1', 'T0ONE'],
    ['e-2', 'T0GRIDA'],
  ] as const) {
    await db.query(
      `INSERT INTO watches (execution_id, runbook_id, runbook_name, channel, team_id, proxy_id, inputs_summary, origin,
         state, next_check_at, created_at, updated_at)
       VALUES ($1, 'rb', 'R', 'C1', $2, 'p', '{}', 'slack', 'finished', 0, 1, 1)`,
      [execution, team],
    );
  }
  for (const [execution, file] of [
    ['e-1', 'F1'],
    ['e-2', null],
    ['e-3', null],
  ] as const) {
    await db.query(
      'INSERT INTO output_uploads (execution_id, claimed_at, file_id, completed_at) VALUES ($1, 5, $2, 6)',
      [execution, file],
    );
  }
  for (const [step, execution] of [
    ['Fx1', 'e-1'],
    ['Fx2', 'e-2'],
  ] as const) {
    await db.query(
      `INSERT INTO workflow_steps (function_execution_id, runbook_id, runbook_name, actor_id, channel,
         wait_for_completion, execution_id, state, outputs, error, created_at, updated_at)
       VALUES ($1, 'rb', 'R', 'U1', 'C1', true, $2, 'pending', NULL, NULL, 1, 2)`,
      [step, execution],
    );
  }
  await db.query(
    `INSERT INTO freeze_passes (id, user_id, runbook_id, window_name, reason, created_at, expires_at, used_at)
     VALUES ('p-1', 'U1', 'rb', 'Year end', 'prod down', 10, $1, NULL)`,
    [LATER],
  );
  await db.query(
    `INSERT INTO audit (at, user_id, team_id, channel, action, target, outcome, detail, tid)
     VALUES (11, 'U1', 'T0GRIDA', 'C1', 'freeze.break-glass', 'R (rb)', 'ok', NULL, NULL)`,
  );
  await db.query(`INSERT INTO run_limits (key, starts, last_at) VALUES ('run:U1', '[5]', 5)`);
  await db.query(
    `INSERT INTO cursors (name, value, updated_at) VALUES ('subscriptions:T0ONE', 'scan-one', 1), ('readiness-probe', 'x', 1)`,
  );
  await db.query(
    `INSERT INTO rate_buckets (name, tokens, at) VALUES ('runbook-api/tenant/T0ONE', 3, 1), ('runbook-api:global', 9, 1)`,
  );
  if (withInstallations) await addInstallation(db);
  await db.close();
}

function addInstallation(db: SqlDriver) {
  return db.query(
    `INSERT INTO installations (id, team_id, enterprise_id, is_enterprise_install, sealed, generation, installed_at, updated_at)
     VALUES ('T0ONE', 'T0ONE', NULL, false, 'x', 1, 0, 0)`,
  );
}

async function withStore<T>(database: Database, fn: (store: Store, db: SqlDriver) => Promise<T>): Promise<T> {
  const db = database.open();
  const store = createSqlStore(db, database.options);
  try {
    await store.migrate();
    return await fn(store, db);
  } finally {
    await store.close();
  }
}

const installationsOf = async (db: SqlDriver, table: string, key: string) =>
  Object.fromEntries(
    (await db.query(`SELECT ${key} AS k, installation_id FROM ${table}`)).rows.map((r) => [r.k, r.installation_id]),
  );

for (const [kind, create] of Object.entries(DATABASES)) {
  describe(`${kind}: upgrade to uploads, steps, passes, run limits, cursors and buckets per installation (migration 26)`, () => {
    it('a many-workspace deployment: each row goes to its workspace’s installation (or its org’s), every column kept', async () => {
      const database = create();
      await before26(database, true);
      await withStore(database, async (store, db) => {
        expect((await store.migrate()).version).toBeGreaterThanOrEqual(26);
        expect(await store.outputUploads.get('e-1', 'T0ONE')).toEqual({
          executionId: 'e-1',
          claimedAt: 5,
          fileId: 'F1',
          completedAt: 6,
        });
        expect(await store.outputUploads.get('e-1')).toBeNull();
        expect(await store.outputUploads.claim('e-1', 7, 'T0ONE')).toBe(false);
        expect(await store.outputUploads.get('e-2', 'E0GRID')).toMatchObject({ fileId: null });
        // No watch says whose run it was: kept for none.
        expect(await store.outputUploads.get('e-3')).toMatchObject({ claimedAt: 5 });
        expect(await store.workflowSteps.get('Fx1', 'T0ONE')).toMatchObject({
          executionId: 'e-1',
          waitForCompletion: true,
          state: 'pending',
          actorId: 'U1',
          createdAt: 1,
          updatedAt: 2,
        });
        expect(await store.workflowSteps.pendingForExecution('e-2', 'E0GRID')).toMatchObject({
          functionExecutionId: 'Fx2',
        });
        expect(await store.workflowSteps.get('Fx1')).toBeNull();
        expect(await store.freezePasses.peek('U1', 'rb', 12, 'E0GRID')).toMatchObject({
          id: 'p-1',
          freeze: 'Year end',
          reason: 'prod down',
        });
        expect(await store.freezePasses.peek('U1', 'rb', 12)).toBeNull();
        expect(await installationsOf(db, 'run_limits', 'key')).toEqual({ 'run:U1': '' });
        expect(await store.cursors.get('subscriptions', 'T0ONE')).toBe('scan-one');
        expect(await store.cursors.get('readiness-probe')).toBe('x');
        expect(await installationsOf(db, 'rate_buckets', 'name')).toEqual({
          'runbook-api/tenant/T0ONE': 'T0ONE',
          'runbook-api:global': '',
        });
      });
    });

    it('a single-workspace deployment keeps its rows as they are, until a many-workspace start assigns them', async () => {
      const database = create();
      await before26(database, false);
      await withStore(database, async (store) => {
        expect(await store.outputUploads.get('e-1')).toMatchObject({ fileId: 'F1' });
        expect(await store.workflowSteps.pendingForExecution('e-2')).toMatchObject({ functionExecutionId: 'Fx2' });
        expect(await store.freezePasses.peek('U1', 'rb', 12)).toMatchObject({ id: 'p-1' });
        expect(await store.outputUploads.assignInstallations()).toBe(0);
        expect(await store.workflowSteps.assignInstallations()).toBe(0);
        expect(await store.freezePasses.assignInstallations()).toBe(0);
      });
      const db = database.open();
      await addInstallation(db);
      await db.close();
      await withStore(database, async (store) => {
        expect(await store.outputUploads.assignInstallations()).toBe(2);
        expect(await store.workflowSteps.assignInstallations()).toBe(2);
        expect(await store.freezePasses.assignInstallations()).toBe(1);
        expect(await store.outputUploads.get('e-1', 'T0ONE')).toMatchObject({ fileId: 'F1' });
        expect(await store.outputUploads.get('e-2', 'E0GRID')).not.toBeNull();
        expect(await store.outputUploads.get('e-3')).not.toBeNull();
        expect(await store.workflowSteps.get('Fx1', 'T0ONE')).not.toBeNull();
        expect(await store.workflowSteps.get('Fx2')).toBeNull();
        expect(await store.freezePasses.peek('U1', 'rb', 12, 'E0GRID')).toMatchObject({ id: 'p-1' });
      });
    });
  });
}
