// Restarts the Postgres the run uses and waits until it accepts connections again. Whatever is
// connected sees its sessions terminated, exactly as in a failover or a managed-database
// maintenance restart. The server the run started itself (TEST_DATABASE_URL unset) is restarted
// with its own pg_ctl; a TEST_DATABASE_URL naming this machine's Debian cluster is restarted with
// pg_ctlcluster (the suite runs as root on the CI box); any other server cannot be restarted here.
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import pg from 'pg';
import { DATA_DIR_ENV, restartPackagedPostgres } from '../support/packaged-postgres.ts';
import { TEST_DATABASE_URL } from '../support/test-database.ts';

const run = promisify(execFile);

async function answers(): Promise<boolean> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 2_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

async function restartLocalCluster(): Promise<void> {
  const host = new URL(TEST_DATABASE_URL).hostname;
  if (host !== '127.0.0.1' && host !== 'localhost') {
    throw new Error(`Cannot restart the Postgres at ${host}: unset TEST_DATABASE_URL to let the suite start its own.`);
  }
  const version = readdirSync('/etc/postgresql').sort().at(-1);
  if (!version) throw new Error('no Postgres cluster under /etc/postgresql');
  await run('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'restart']);
}

/** Restarts the server and resolves once it answers; returns how long it was gone, in ms. */
export async function restartPostgres(options: { timeoutMs?: number } = {}): Promise<number> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const started = Date.now();
  const dataDir = process.env[DATA_DIR_ENV];
  if (dataDir) await restartPackagedPostgres(dataDir);
  else await restartLocalCluster();
  const deadline = started + timeoutMs;
  for (;;) {
    if (await answers()) return Date.now() - started;
    if (Date.now() > deadline) throw new Error(`Postgres not ready ${timeoutMs} ms after restart`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
