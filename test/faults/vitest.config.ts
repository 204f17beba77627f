// `npm run test:faults`: the fault-injection suite, kept out of `npm test` because it is slower
// and load-shaped. TEST_FAULTS_SCALE (default 1) multiplies the number of runs for CI or soak use.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    // The Postgres of the run: TEST_DATABASE_URL checked, or a packaged server started (test/support).
    globalSetup: ['test/support/test-postgres.ts'],
    testTimeout: 120_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // chaos-processes restarts the Postgres server and SIGKILLs bot processes: nothing else of
    // this suite may run beside it.
    fileParallelism: false,
  },
});
