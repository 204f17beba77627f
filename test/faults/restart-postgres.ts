// Restarts the local Postgres cluster (Debian's pg_ctlcluster; the suite runs as root on the CI box)
// and waits until it accepts connections again. Whatever is connected sees its sessions terminated,
// exactly as in a failover or a managed-database maintenance restart.
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Restarts the cluster and resolves once `pg_isready` answers; returns how long it was gone, in ms. */
export async function restartPostgres(options: { host?: string; timeoutMs?: number } = {}): Promise<number> {
  const host = options.host ?? '127.0.0.1';
  const version = readdirSync('/etc/postgresql').sort().at(-1);
  if (!version) throw new Error('no Postgres cluster under /etc/postgresql');
  const started = Date.now();
  await run('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'restart']);
  const deadline = started + (options.timeoutMs ?? 30_000);
  for (;;) {
    try {
      await run('pg_isready', ['-h', host, '-t', '2']);
      return Date.now() - started;
    } catch {
      if (Date.now() > deadline) throw new Error(`Postgres not ready ${options.timeoutMs ?? 30_000} ms after restart`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
