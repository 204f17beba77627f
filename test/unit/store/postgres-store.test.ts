// Runs against a real Postgres (TEST_DATABASE_URL: the one the test run settled on, see test/support). Every
// harness gets its own schema, dropped afterwards. Postgres being unreachable fails these tests.
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/open-store.ts';
import { openPostgresDriver } from '../../../src/store/postgres-driver.ts';
import { createSqlStore } from '../../../src/store/sql-store.ts';
import type { Store } from '../../../src/store/store.ts';
import { TEST_DATABASE_URL, withPostgres } from '../../support/test-database.ts';
import { runApiConnectionsContract } from './api-connections-contract.ts';
import { runAuditScopeContract } from './audit-scope-contract.ts';
import { runInstallationKeysContract } from './installation-keys-contract.ts';
import { runInstallationSettingsContract } from './installation-settings-contract.ts';
import { runInstallationsContract } from './installations-contract.ts';
import { runRetentionContract } from './retention-contract.ts';
import { runRetentionCoverageContract } from './retention-coverage-contract.ts';
import { runSavedRunsContract } from './saved-runs-contract.ts';
import { newWatch, runStoreContract, type StoreHarness } from './store-contract.ts';

const DATABASE_URL = TEST_DATABASE_URL;

const freshSchema = () => `test_${randomBytes(6).toString('hex')}`;

async function createPostgresHarness(): Promise<StoreHarness> {
  const schema = freshSchema();
  await withPostgres((c) => c.query(`CREATE SCHEMA ${schema}`));
  const opened: Store[] = [];
  return {
    async open() {
      const store = await openStore({ kind: 'postgres', url: DATABASE_URL, schema });
      opened.push(store);
      return store;
    },
    async destroy() {
      for (const store of opened) await store.close();
      await withPostgres((c) => c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
    },
    rawRows: (table) => withPostgres(async (c) => (await c.query(`SELECT * FROM ${schema}.${table}`)).rows),
    tables: () =>
      withPostgres(async (c) =>
        (
          await c.query<{ table_name: string }>(
            'SELECT table_name FROM information_schema.tables WHERE table_schema = $1',
            [schema],
          )
        ).rows.map((row) => row.table_name),
      ),
  };
}

runStoreContract('postgres', createPostgresHarness);
runSavedRunsContract('postgres', createPostgresHarness);
runInstallationsContract('postgres', createPostgresHarness);
runApiConnectionsContract('postgres', createPostgresHarness);
runAuditScopeContract('postgres', createPostgresHarness);
runInstallationSettingsContract('postgres', createPostgresHarness);
runRetentionContract('postgres', createPostgresHarness);
runInstallationKeysContract('postgres', createPostgresHarness);
runRetentionCoverageContract('postgres', createPostgresHarness);

describe('postgres store', () => {
  const cleanup: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  const dropLater = (schema: string) =>
    cleanup.push(() => withPostgres((c) => c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)));

  it('creates its schema and keeps its tables there, not in public', async () => {
    const schema = freshSchema();
    dropLater(schema);
    const store = await openStore({ kind: 'postgres', url: DATABASE_URL, schema });
    cleanup.push(() => store.close());
    expect(store.kind).toBe('postgres');
    await store.watches.insert(newWatch('e-1', { nextCheckAt: 1_700_000_000_000 }), 1_700_000_000_000);
    const tables = await withPostgres((c) =>
      c.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name`,
        [schema],
      ),
    );
    expect(tables.rows.map((r) => r.table_name)).toEqual([
      'api_connections',
      'approval_votes',
      'approvals',
      'audit',
      'channel_defaults',
      'cursors',
      'freeze_passes',
      'installation_settings',
      'installation_teams',
      'installations',
      'leases',
      'notifications',
      'oauth_states',
      'output_uploads',
      'rate_buckets',
      'run_aliases',
      'run_drafts',
      'run_intents',
      'run_limits',
      'schedule_owners',
      'schedule_pauses',
      'schema_migrations',
      'slack_events',
      'subscriptions',
      'watches',
      'workflow_steps',
    ]);
    // BIGINT epoch milliseconds come back as numbers.
    expect((await store.watches.get('e-1'))?.createdAt).toBe(1_700_000_000_000);
  });

  it('two replicas migrating a new schema at once apply each migration exactly once', async () => {
    const schema = freshSchema();
    dropLater(schema);
    const a = createSqlStore(openPostgresDriver({ url: DATABASE_URL, schema }), { schema });
    const b = createSqlStore(openPostgresDriver({ url: DATABASE_URL, schema }), { schema });
    cleanup.push(
      () => a.close(),
      () => b.close(),
    );
    const [ra, rb] = await Promise.all([a.migrate(), b.migrate()]);
    expect(ra.version).toBe(rb.version);
    expect(ra.applied + rb.applied).toBe(ra.version);
    expect(Math.min(ra.applied, rb.applied)).toBe(0);
  });

  it('rejects a schema name that is not a plain identifier', async () => {
    await expect(openStore({ kind: 'postgres', url: DATABASE_URL, schema: 'x; DROP TABLE watches' })).rejects.toThrow(
      /Invalid Postgres schema name/,
    );
  });

  it('logs an idle connection killed by the server and reconnects on the next query', async () => {
    const schema = freshSchema();
    dropLater(schema);
    const lines: string[] = [];
    const logger = pino(
      { level: 'warn' },
      new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    const store = await openStore({ kind: 'postgres', url: DATABASE_URL, schema }, logger);
    cleanup.push(() => store.close());
    await store.cursors.set('k', 'before', 1);

    const killed = await withPostgres((c) =>
      c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [
        `runbook-bot:${schema}`,
      ]),
    );
    expect(killed.rowCount).toBeGreaterThan(0);
    for (let i = 0; i < 200 && !lines.some((l) => l.includes('postgres idle client error')); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(lines.some((l) => l.includes('postgres idle client error'))).toBe(true);

    await store.cursors.set('k', 'after', 2);
    expect(await store.cursors.get('k')).toBe('after');
  });
});
