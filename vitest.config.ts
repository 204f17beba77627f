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
    // Most files mostly wait (timers, child processes, HTTP round trips): one worker per core, where
    // vitest's default of one fewer leaves a single worker on a 2-core machine. Isolation stays on:
    // modules keep state a file must not inherit (e.g. the registry of the tokens the bot made,
    // src/slack/blocks/mrkdwn.ts, that the outgoing guard trusts).
    maxWorkers: '100%',
  },
});
