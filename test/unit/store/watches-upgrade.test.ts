// The upgrade to migration 27, on SQLite and Postgres: watches gain the installation in their key (two tenants'
// APIs may hand out the same execution id) and run intents the installation whose API they went to. A
// many-workspace deployment's rows go to their workspace's installation (or its Grid org's), every column kept,
// and a card claimed before the upgrade stays claimed under its new key; a single-workspace deployment's stay
// its own ('') until a many-workspace start assigns them.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, runMigrations } from '../../../src/store/migrations.ts';
import { openPostgresDriver } from '../../../src/store/postgres-driver.ts';
import type { SqlDriver } from '../../../src/store/sql-driver.ts';
import { createSqlStore } from '../../../src/store/sql-store.ts';
import { openSqliteDriver } from '../../../src/store/sqlite-driver.ts';
import type { Store } from '../../../src/store/store.ts';
import { TEST_DATABASE_URL } from '../../support/test-database.ts';

const VERSION = 27;

/** A database at migration VERSION − 1, reopened (driver) and opened as a store after the upgrade. */
interface Before {
  /** Postgres: the schema the run lives in (created by the first migration). */
  schema?: string;
  driver(): SqlDriver;
  store(): Store;
  drop(): Promise<void>;
}

function sqlite(): Before {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'watches-upgrade-')), 'db.sqlite');
  return {
    driver: () => openSqliteDriver(file),
    store: () => createSqlStore(openSqliteDriver(file)),
    drop: async () => {},
  };
}

function postgres(): Before {
  const schema = `test_${randomBytes(6).toString('hex')}`;
  return {
    schema,
    driver: () => openPostgresDriver({ url: TEST_DATABASE_URL, schema }),
    store: () => createSqlStore(openPostgresDriver({ url: TEST_DATABASE_URL, schema }), { schema }),
    drop: async () => {
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).finally(() => client.end());
    },
  };
}

async function seed(before: Before, withInstallations: boolean): Promise<void> {
  const db = before.driver();
  try {
    await runMigrations(db, {
      migrations: MIGRATIONS.filter((m) => m.version < VERSION),
      ...(before.schema ? { schema: before.schema } : {}),
    });
    for (const [id, team] of [
      ['X', 'T0ONE'],
      ['Y', 'T0GRIDA'],
      ['Z', null],
    ] as const) {
      await db.query(
        `INSERT INTO watches (execution_id, runbook_id, runbook_name, channel, message_ts, thread_ts, started_by,
           team_id, proxy_id, inputs_summary, origin, state, next_check_at, attempts, created_at, updated_at,
           lease_owner, lease_until, final_status, result_posted_at, reply_posted_at, source_link, approved_by,
           proxy_name, started_at, eta_median_ms, eta_p95_ms, eta_runs)
         VALUES ($1, 'rb', 'Restart', 'C1', NULL, '9.9', 'U1', $2, 'p1', '{"a":1}', 'slack', 'active', 10, 2, 1, 3,
           'r1', 99, NULL, NULL, 7, 'https://x/p1', '["U2"]', 'Proxy One', 1, 60000, 90000, 12)`,
        [id, team],
      );
      await db.query('INSERT INTO notifications (key, claimed_at, claimed_by) VALUES ($1, 5, NULL)', [`message:${id}`]);
    }
    await db.query(`INSERT INTO notifications (key, claimed_at) VALUES ('click:run:X:1.1', 5)`);
    for (const [id, team] of [
      ['i-1', 'T0ONE'],
      ['i-2', null],
    ] as const) {
      await db.query(
        `INSERT INTO run_intents (id, user_id, user_email, team_id, runbook_id, runbook_name, proxy_id, params_hash,
           channel, inputs_summary, state, created_at, via)
         VALUES ($1, 'U1', NULL, $2, 'rb', 'Restart', 'p1', 'h', 'C1', '{}', 'open', 1, 'form')`,
        [id, team],
      );
    }
    await db.query(
      `INSERT INTO installation_teams (team_id, installation_id, seen_at) VALUES ('T0GRIDA', 'E0GRID', 0)`,
    );
    if (withInstallations) await addInstallation(db);
  } finally {
    await db.close();
  }
}

function addInstallation(db: Pick<SqlDriver, 'query'>) {
  return db.query(
    `INSERT INTO installations (id, team_id, enterprise_id, is_enterprise_install, sealed, generation, installed_at, updated_at)
     VALUES ('T0ONE', 'T0ONE', NULL, false, 'x', 1, 0, 0)`,
  );
}

const KEPT = {
  runbookId: 'rb',
  runbookName: 'Restart',
  channel: 'C1',
  messageTs: null,
  threadTs: '9.9',
  startedBy: 'U1',
  teamId: 'T0ONE',
  proxyId: 'p1',
  inputsSummary: '{"a":1}',
  origin: 'slack',
  state: 'active',
  nextCheckAt: 10,
  attempts: 2,
  createdAt: 1,
  updatedAt: 3,
  leaseOwner: 'r1',
  leaseUntil: 99,
  finalStatus: null,
  resultPostedAt: null,
  replyPostedAt: 7,
  sourceLink: 'https://x/p1',
  approvedBy: ['U2'],
  proxyName: 'Proxy One',
  startedAt: 1,
  eta: { medianMs: 60_000, p95Ms: 90_000, runs: 12 },
};

for (const [name, make] of [
  ['sqlite', sqlite],
  ['postgres', postgres],
] as const) {
  describe(`${name}: upgrade to watches and run intents per installation (migration ${VERSION})`, () => {
    it('a many-workspace deployment: each row goes to its workspace’s installation (or its org’s), every column kept', async () => {
      const before = make();
      await seed(before, true);
      const store = before.store();
      try {
        expect((await store.migrate()).version).toBeGreaterThanOrEqual(VERSION);
        expect(await store.watches.get('X', 'T0ONE')).toEqual({ installationId: 'T0ONE', executionId: 'X', ...KEPT });
        expect(await store.watches.get('X')).toBeNull();
        expect(await store.watches.get('Y', 'E0GRID')).toMatchObject({ teamId: 'T0GRIDA', state: 'active' });
        // No workspace: kept for '' (no installation reads it).
        expect(await store.watches.get('Z')).toMatchObject({ teamId: null, installationId: '' });
        // The card claims went with their watches: no card is claimed (and posted) twice.
        expect(await store.notifications.has('message:T0ONE:X')).toBe(true);
        expect(await store.notifications.has('message:E0GRID:Y')).toBe(true);
        expect(await store.notifications.has('message:X')).toBe(false);
        expect(await store.notifications.has('message:Z')).toBe(true);
        expect(await store.notifications.has('click:run:X:1.1')).toBe(true);
        // Run intents: by their workspace too.
        expect((await store.intents.listOpen(100, 10, 'T0ONE')).map((i) => i.id)).toEqual(['i-1']);
        expect((await store.intents.listOpen(100, 10, '')).map((i) => i.id)).toEqual(['i-2']);
        // The new key: another tenant's execution with the same id is a watch of its own.
        expect(
          await store.watches.insert(
            {
              installationId: 'T0TWO',
              executionId: 'X',
              runbookId: 'rb',
              runbookName: 'Other',
              channel: 'C2',
              proxyId: 'p',
              inputsSummary: '{}',
              origin: 'slack',
            },
            50,
          ),
        ).toBe(true);
        expect((await store.watches.get('X', 'T0ONE'))?.runbookName).toBe('Restart');
      } finally {
        await store.close();
        await before.drop();
      }
    });

    it('a single-workspace deployment keeps its rows as they are, until a many-workspace start assigns them', async () => {
      const before = make();
      await seed(before, false);
      const store = before.store();
      try {
        expect((await store.migrate()).version).toBeGreaterThanOrEqual(VERSION);
        expect(await store.watches.get('X')).toEqual({ installationId: '', executionId: 'X', ...KEPT });
        expect(await store.notifications.has('message:X')).toBe(true);
        expect((await store.intents.listOpen(100, 10, '')).map((i) => i.id)).toEqual(['i-1', 'i-2']);
        // The deployment moves to many workspaces: its start assigns them (runtime.ts).
        await store.installations.save(
          { id: 'T0ONE', teamId: 'T0ONE', enterpriseId: null, isEnterpriseInstall: false, sealed: 'x' },
          0,
        );
        expect(await store.watches.assignInstallations()).toBe(2);
        expect(await store.intents.assignInstallations()).toBe(1);
        expect(await store.watches.get('X', 'T0ONE')).toMatchObject({ replyPostedAt: 7, eta: KEPT.eta });
        expect(await store.watches.get('Y', 'E0GRID')).not.toBeNull();
        expect(await store.notifications.has('message:T0ONE:X')).toBe(true);
        expect(await store.notifications.has('message:X')).toBe(false);
        expect((await store.intents.listOpen(100, 10, 'T0ONE')).map((i) => i.id)).toEqual(['i-1']);
      } finally {
        await store.close();
        await before.drop();
      }
    });
  });
}
