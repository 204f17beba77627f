// The Postgres every test that needs one uses: the server the run's global setup settled on
// (test-postgres.ts), either TEST_DATABASE_URL as given or the packaged server it started.
import pg from 'pg';

export const TEST_DATABASE_URL: string = (() => {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    throw new Error(
      'TEST_DATABASE_URL is not set: run the tests through vitest (npm test), whose global setup starts a Postgres or checks the one you name.',
    );
  }
  return url;
})();

/** A client of the tests' Postgres, closed after `fn`. */
export async function withPostgres<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
