// Many-workspace mode: one Runbook API for code that holds a long-lived client (the watcher, the
// subscription scanner, background use cases). Each call goes to the API of the installation in scope
// (tenant-scope.ts), so a watch of one workspace is checked with that workspace's own key; outside any
// installation's scope a call fails rather than fall back to a key nobody connected (the runtime's
// `current` reads the scope and throws NoApiInScopeError). The same for the runbook catalog, so background
// work that reads a runbook answers from the installation in scope's own catalog, never another tenant's.
import type { RunbookApi } from '../api/runbook-api.ts';
import type { Workflow } from '../api/schemas.ts';
import {
  type BrowsePage,
  type BrowseQuery,
  type Resolution,
  RunbookCatalog,
  type Visible,
} from '../catalog/runbook-catalog.ts';

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

/** A catalog whose every lookup is the installation in scope's own catalog (`current()`); it keeps nothing itself. */
export class RoutedRunbookCatalog extends RunbookCatalog {
  readonly #current: () => Promise<RunbookCatalog>;

  constructor(current: () => Promise<RunbookCatalog>) {
    super({ api: routedRunbookApi(() => Promise.reject(new NoApiInScopeError())) });
    this.#current = current;
  }

  override async all(): Promise<Workflow[]> {
    return (await this.#current()).all();
  }

  override async get(id: string): Promise<Workflow | null> {
    return (await this.#current()).get(id);
  }

  override async named(name: string): Promise<Workflow[]> {
    return (await this.#current()).named(name);
  }

  /** Unknown here (it would need the scope's catalog loaded): callers treat null as "ask the API". */
  override isService(): boolean | null {
    return null;
  }

  override invalidate(): void {
    void this.#current()
      .then((catalog) => catalog.invalidate())
      .catch(() => {});
  }

  override async browse(query: BrowseQuery): Promise<BrowsePage> {
    return (await this.#current()).browse(query);
  }

  override async search(query: string, limit?: number, visible?: Visible): Promise<Workflow[]> {
    return (await this.#current()).search(query, limit, visible);
  }

  override async resolve(text: string, visible?: Visible): Promise<Resolution> {
    return (await this.#current()).resolve(text, visible);
  }
}
