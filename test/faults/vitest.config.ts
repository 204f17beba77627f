// `npm run test:faults`: the fault-injection suite, kept out of `npm test` because it is slower
// and load-shaped. TEST_FAULTS_SCALE (default 1) multiplies the number of runs for CI or soak use.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // chaos-processes restarts the Postgres cluster and SIGKILLs bot processes: nothing else of
    // this suite may run beside it.
    fileParallelism: false,
  },
});
