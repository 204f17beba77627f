// Several stores on ONE database, as N replicas of the bot would have: Postgres stores share a fresh
// schema (dropped by close()), SQLite stores share a file in a temporary directory.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../../src/store/open-store.ts';
import type { Store } from '../../../src/store/store.ts';
import { pgAdmin } from '../../support/process-harness.ts';
import { TEST_DATABASE_URL } from '../../support/test-database.ts';

export interface Replicas {
  stores: Store[];
  close(): Promise<void>;
}

export async function openReplicaStores(kind: 'postgres' | 'sqlite', count: number): Promise<Replicas> {
  const stores: Store[] = [];
  let removeDatabase: () => Promise<void>;
  if (kind === 'postgres') {
    const schema = `test_${randomBytes(6).toString('hex')}`;
    await pgAdmin(TEST_DATABASE_URL, `CREATE SCHEMA ${schema}`);
    removeDatabase = () => pgAdmin(TEST_DATABASE_URL, `DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    for (let i = 0; i < count; i++) stores.push(await openStore({ kind, url: TEST_DATABASE_URL, schema }));
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'runbook-bot-replicas-'));
    removeDatabase = async () => rmSync(dir, { recursive: true, force: true });
    for (let i = 0; i < count; i++) stores.push(await openStore({ kind, path: join(dir, 'bot.db') }));
  }
  return {
    stores,
    async close() {
      for (const store of stores) await store.close();
      await removeDatabase();
    },
  };
}
