import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/faults/**', 'node_modules/**'],
    // The Postgres of the run: TEST_DATABASE_URL checked, or a packaged server started (test/support).
    globalSetup: ['test/support/test-postgres.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
