// The API has no proxy list, so the proxy choices for a run come from three places: the proxies an
// operator configured (RUNBOOK_PROXIES), the proxies seen on existing schedules, and the runbook's
// own proxyId. The configured default (RUNBOOK_DEFAULT_PROXY_ID) is preselected when present. One directory
// over many tenants' APIs (background work's, many workspaces) keeps what it saw per `scope`.
import type { RunbookApi } from '../api/runbook-api.ts';
import type { Workflow } from '../api/schemas.ts';
import type { RunbookProxy } from '../config.ts';

export interface ProxyChoices {
  options: RunbookProxy[];
  initial: string | null;
}

export interface ProxyDirectoryOptions {
  api: RunbookApi;
  configured: RunbookProxy[];
  defaultId: string | null;
  ttlMs?: number;
  now?: () => number;
  /** Whose API `api` reaches now (many workspaces: the installation in scope); the proxies seen are kept per scope. */
  scope?: () => string;
}

/** The proxies seen on one scope's schedules. */
interface Seen {
  proxies: RunbookProxy[];
  at: number;
  loading: Promise<void> | null;
}

/**
 * "Proxy "nosuch" is not one of the offered proxies: Development (proxy-dev), Staging (proxy-staging)."; with no
 * proxy chosen and none known at all (a fresh Runbook API with no schedules, nothing configured), what to do.
 */
export function notOfferedSentence(proxyId: string | null, options: readonly RunbookProxy[], prefix = ''): string {
  if (!proxyId && options.length === 0) {
    return `${prefix}proxy to run on is not known: no proxy is configured and none was seen yet. Name one with --proxy ID, or ask whoever runs the bot to set RUNBOOK_PROXIES.`;
  }
  const listed = options
    .slice(0, 10)
    .map((p) => (p.name && p.name !== p.id ? `${p.name} (${p.id})` : p.id))
    .join(', ');
  const more = options.length > 10 ? ` and ${options.length - 10} more` : '';
  return `${prefix}proxy "${proxyId ?? ''}" is not one of the offered proxies${listed ? `: ${listed}${more}` : ''}.`;
}

export class ProxyDirectory {
  readonly #options: ProxyDirectoryOptions;
  readonly #byScope = new Map<string, Seen>();

  constructor(options: ProxyDirectoryOptions) {
    this.#options = options;
  }

  /** What was seen in the scope now (made on first use; the least recently used beyond 1,000 scopes is forgotten). */
  #seen(): Seen {
    const scope = this.#options.scope?.() ?? '';
    let seen = this.#byScope.get(scope);
    if (seen) {
      this.#byScope.delete(scope);
    } else {
      seen = { proxies: [], at: Number.NEGATIVE_INFINITY, loading: null };
      if (this.#byScope.size >= 1_000) this.#byScope.delete(this.#byScope.keys().next().value!);
    }
    this.#byScope.set(scope, seen);
    return seen;
  }

  /** Choices for running `runbook`; never throws (schedule discovery failing only narrows the list). */
  async choicesFor(runbook: Pick<Workflow, 'proxyId'> | null): Promise<ProxyChoices> {
    await this.#refreshSeen().catch(() => {});
    const byId = new Map<string, RunbookProxy>();
    const add = (p: RunbookProxy) => {
      if (p.id && !byId.has(p.id)) byId.set(p.id, p);
    };
    this.#options.configured.forEach(add);
    if (runbook?.proxyId) add({ id: runbook.proxyId, name: runbook.proxyId });
    this.#seen().proxies.forEach(add);
    const options = [...byId.values()].slice(0, 100);
    const initial =
      (this.#options.defaultId && byId.has(this.#options.defaultId) ? this.#options.defaultId : null) ??
      (runbook?.proxyId || null) ??
      options[0]?.id ??
      null;
    return { options, initial };
  }

  /** The one display name of a proxy (configured, else seen on a schedule), so every screen says the same; null: unknown. */
  nameOf(id: string): string | null {
    const known = this.#options.configured.find((p) => p.id === id) ?? this.#seen().proxies.find((p) => p.id === id);
    return known?.name && known.name !== id ? known.name : null;
  }

  /** The bot's default proxy (RUNBOOK_DEFAULT_PROXY_ID, else the first configured), with its display name. */
  defaultProxy(): RunbookProxy | null {
    const id = this.#options.defaultId;
    return id ? { id, name: this.nameOf(id) ?? id } : null;
  }

  /** Remember a proxy seen elsewhere (a schedule we just created, say). */
  remember(proxy: RunbookProxy): void {
    const seen = this.#seen();
    if (proxy.id && !seen.proxies.some((p) => p.id === proxy.id)) seen.proxies.push(proxy);
  }

  async #refreshSeen(): Promise<void> {
    const now = (this.#options.now ?? Date.now)();
    const state = this.#seen();
    if (now - state.at < (this.#options.ttlMs ?? 5 * 60_000)) return;
    if (!state.loading) {
      state.loading = (async () => {
        const seen = new Map<string, RunbookProxy>();
        for await (const schedule of this.#options.api.schedules.iterate({ pageSize: 100 }, { timeoutMs: 2_500 })) {
          if (schedule.proxyId && !seen.has(schedule.proxyId)) {
            seen.set(schedule.proxyId, { id: schedule.proxyId, name: schedule.proxyName || schedule.proxyId });
          }
        }
        state.proxies = [...seen.values()];
        state.at = now;
      })().finally(() => {
        state.loading = null;
      });
    }
    await state.loading;
  }
}
