import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/open-store.ts';
import type { Store } from '../../../src/store/store.ts';
import { runApiConnectionsContract } from './api-connections-contract.ts';
import { runAuditScopeContract } from './audit-scope-contract.ts';
import { runInstallationKeysContract } from './installation-keys-contract.ts';
import { runInstallationSettingsContract } from './installation-settings-contract.ts';
import { runInstallationsContract } from './installations-contract.ts';
import { runRetentionContract } from './retention-contract.ts';
import { runRetentionCoverageContract } from './retention-coverage-contract.ts';
import { runSavedRunsContract } from './saved-runs-contract.ts';
import { newWatch, runStoreContract, type StoreHarness } from './store-contract.ts';

async function createSqliteHarness(): Promise<StoreHarness> {
  const dir = mkdtempSync(path.join(tmpdir(), 'runbook-store-'));
  const file = path.join(dir, 'store.sqlite');
  const opened: Store[] = [];
  return {
    async open() {
      const store = await openStore({ kind: 'sqlite', path: file });
      opened.push(store);
      return store;
    },
    async destroy() {
      for (const store of opened) await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
    async rawRows(table) {
      const raw = new DatabaseSync(file);
      try {
        return raw.prepare(`SELECT * FROM ${table}`).all() as Array<Record<string, unknown>>;
      } finally {
        raw.close();
      }
    },
    async tables() {
      const raw = new DatabaseSync(file);
      try {
        const rows = raw
          .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
          .all();
        return rows.map((row) => String(row.name));
      } finally {
        raw.close();
      }
    },
  };
}

runStoreContract('sqlite', createSqliteHarness);
runSavedRunsContract('sqlite', createSqliteHarness);
runInstallationsContract('sqlite', createSqliteHarness);
runApiConnectionsContract('sqlite', createSqliteHarness);
runAuditScopeContract('sqlite', createSqliteHarness);
runInstallationSettingsContract('sqlite', createSqliteHarness);
runRetentionContract('sqlite', createSqliteHarness);
runInstallationKeysContract('sqlite', createSqliteHarness);
runRetentionCoverageContract('sqlite', createSqliteHarness);

describe('sqlite store', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0)) await fn();
  });

  it('works in memory', async () => {
    const store = await openStore({ kind: 'sqlite', path: ':memory:' });
    cleanup.push(() => store.close());
    expect(store.kind).toBe('sqlite');
    expect(await store.watches.insert(newWatch('e-1'), 1)).toBe(true);
    expect((await store.watches.get('e-1'))?.executionId).toBe('e-1');
  });

  it('creates the parent directory and uses WAL', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'runbook-store-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'nested', 'deeper', 'bot.sqlite');
    const store = await openStore({ kind: 'sqlite', path: file });
    await store.cursors.set('k', 'v', 1);
    await store.close();

    const raw = new DatabaseSync(file);
    try {
      expect(raw.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
      const versions = raw.prepare('SELECT version FROM schema_migrations ORDER BY version').all();
      expect(versions.length).toBeGreaterThanOrEqual(1);
    } finally {
      raw.close();
    }
  });

  it('connections in separate threads claiming from one file never get the same watch', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'runbook-store-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'bot.sqlite');
    const store = await openStore({ kind: 'sqlite', path: file });
    cleanup.push(() => store.close());
    const total = 600;
    const owners = ['w1', 'w2', 'w3'];
    const gate = new Int32Array(new SharedArrayBuffer(4));
    let ready = 0;
    for (let i = 0; i < total; i++) await store.watches.insert(newWatch(`e-${i}`, { nextCheckAt: i }), 0);

    const runWorker = (owner: string) =>
      new Promise<string[]>((resolve, reject) => {
        const worker = new Worker(new URL('./fixtures/claim-worker.ts', import.meta.url), {
          workerData: { file, owner, now: total, leaseMs: 60_000, limit: 2, gate },
        });
        worker.on('message', (message: 'ready' | string[]) => {
          if (message !== 'ready') return resolve(message);
          ready += 1;
          if (ready === owners.length) {
            Atomics.store(gate, 0, 1);
            Atomics.notify(gate, 0);
          }
        });
        worker.once('error', reject);
        worker.once('exit', (code) => {
          if (code !== 0) reject(new Error(`worker ${owner} exited with ${code}`));
        });
      });
    const results = await Promise.all(owners.map(runWorker));

    const all = results.flat();
    expect(new Set(all).size).toBe(all.length);
    expect(all.length).toBe(total);
    for (const [i, owner] of owners.entries()) {
      for (const id of results[i] ?? []) expect((await store.watches.get(id))?.leaseOwner).toBe(owner);
    }
  });

  it('recovers the data of a process killed with SIGKILL, and its lease expires', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'runbook-store-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'bot.sqlite');
    const script = fileURLToPath(new URL('./fixtures/write-then-die.ts', import.meta.url));
    const child = spawnSync(process.execPath, [script, file], { encoding: 'utf8' });
    expect(child.signal).toBe('SIGKILL');
    // Killed without closing: the committed writes are still only in the WAL file.
    expect(existsSync(`${file}-wal`)).toBe(true);

    const store = await openStore({ kind: 'sqlite', path: file });
    cleanup.push(() => store.close());
    expect(await store.watches.get('e-crash')).toMatchObject({ leaseOwner: 'dead-replica', leaseUntil: 6_000 });
    expect(await store.notifications.claim('started:e-crash', 2_000)).toBe(false);
    expect(await store.watches.claimDue('restarted', 5_999, 5_000, 10)).toEqual([]);
    expect((await store.watches.claimDue('restarted', 6_000, 5_000, 10)).map((w) => w.executionId)).toEqual([
      'e-crash',
    ]);
  });

  it('close is idempotent and later calls fail clearly', async () => {
    const store = await openStore({ kind: 'sqlite', path: ':memory:' });
    await Promise.all([store.close(), store.close()]);
    await store.close();
    await expect(store.cursors.get('k')).rejects.toThrow('store is closed');
  });
});
