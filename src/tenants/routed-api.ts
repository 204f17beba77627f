// Many-workspace mode: one Runbook API for code that holds a long-lived client (the watcher, the
// subscription scanner, background use cases). Each call goes to the API of the installation in scope
// (tenant-scope.ts), so a watch of one workspace is checked with that workspace's own key; outside any
// installation's scope a call fails rather than fall back to a key nobody connected (the runtime's
// `current` reads the scope and throws NoApiInScopeError). The runbook catalog's counterpart:
// RoutedRunbookCatalog (src/slack/tenant-deps.ts).
import type { RunbookApi } from '../api/runbook-api.ts';

export class NoApiInScopeError extends Error {
  constructor() {
    super('A Runbook API call was made outside any installation’s scope: there is no key to send.');
    this.name = 'NoApiInScopeError';
  }
}

/** The API whose every call goes to `current()`: the API of the installation in scope (`scopedApi`). */
export function routedRunbookApi(current: () => Promise<RunbookApi>): RunbookApi {
  return {
    workflows: {
      list: async (...args) => (await current()).workflows.list(...args),
      async *iterate(...args) {
        yield* (await current()).workflows.iterate(...args);
      },
      get: async (...args) => (await current()).workflows.get(...args),
      run: async (...args) => (await current()).workflows.run(...args),
    },
    schedules: {
      list: async (...args) => (await current()).schedules.list(...args),
      async *iterate(...args) {
        yield* (await current()).schedules.iterate(...args);
      },
      create: async (...args) => (await current()).schedules.create(...args),
      get: async (...args) => (await current()).schedules.get(...args),
      update: async (...args) => (await current()).schedules.update(...args),
      delete: async (...args) => (await current()).schedules.delete(...args),
    },
    executions: {
      list: async (...args) => (await current()).executions.list(...args),
      async *iterate(...args) {
        yield* (await current()).executions.iterate(...args);
      },
      get: async (...args) => (await current()).executions.get(...args),
    },
    // Each installation's client is closed by its owner (tenant-deps.ts).
    close: async () => {},
  };
}
