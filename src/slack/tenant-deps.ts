// Many-workspace mode: the dependencies of one request, for its installation (the request context's
// `depsFor`). Each connected installation has its own Runbook API client, runbook catalog, proxy list,
// identity cache and places cache, built from its connection and kept until the connection changes (any
// replica: the row is read on every request, so a replaced or removed key takes effect at once). Until
// it is connected, every API call answers the one sentence saying so and who can connect it; a connection
// to an address the operator has since removed from RUNBOOK_API_URLS counts as none (and says so). The policy is
// the operator's one file as this installation applies it (`forInstallation`: its ids count for `teams:`).
import { LRUCache } from 'lru-cache';
import type { RunbookApi } from '../api/runbook-api.ts';
import type { Workflow } from '../api/schemas.ts';
import type { ProxyDirectory } from '../catalog/proxy-directory.ts';
import {
  type BrowsePage,
  type BrowseQuery,
  type Resolution,
  RunbookCatalog,
  type Visible,
} from '../catalog/runbook-catalog.ts';
import type { GroupsHere, Policy, UsersHere } from '../policy/policy.ts';
import {
  policyForInstallation,
  withGroupsHere,
  withInstallationSettings,
  withUsersHere,
} from '../runs/installation-settings.ts';
import type { ApiConnections, ConnectionStatus, OpenConnection } from '../tenants/api-connections.ts';
import type { TenantInstallation } from '../tenants/installation.ts';
import type { SlackDeps } from './kit/deps.ts';
import type { Identity } from './kit/identity.ts';
import type { Places } from './kit/places.ts';
import { unconnectedSentence } from './kit/tenancy.ts';
import { ApiUnavailableError } from './kit/user-facing-error.ts';

/** One installation's Runbook API side, built from its opened connection (or from the not-connected API). */
export interface TenantApi {
  api: RunbookApi;
  catalog: RunbookCatalog;
  proxies: ProxyDirectory;
  /** Closes what the client holds open. */
  close(): Promise<void>;
}

export interface TenantDepsOptions {
  /** What every installation shares: the store, the policy, the audit trail, the watcher, the logger. */
  base: SlackDeps;
  connections: ApiConnections;
  /** The installation's client, catalog and proxies for its connection. */
  connect(connection: OpenConnection): TenantApi;
  /** The same over an API that only says the workspace is not connected. */
  unconnected(api: RunbookApi): TenantApi;
  /** Fresh per-installation caches of people and of places. */
  newIdentity(policy: Policy): Identity;
  newPlaces(): Places;
  /**
   * The installation's own user groups (installation-groups.ts; null: the policy names none, nothing to
   * filter): only those are named, mentioned or read for it. Absent: not filtered.
   */
  groupsHere?(access: SlackDeps['access']): Promise<GroupsHere | null>;
  /**
   * Of the approver users the policy names, those Slack puts in the installation (null: it names none):
   * only those are named or mentioned for it. Absent: not filtered.
   */
  usersHere?(access: SlackDeps['access'], installationId: string): Promise<UsersHere | null>;
  /** Who installed the app in this installation (null when unknown). */
  installerOf(installationId: string): Promise<string | null>;
  /**
   * Told once (per replica and saved connection) that an installation's connection is to an address the
   * operator no longer allows: its background work stops (runtime.ts). Nothing is sent to that address.
   */
  onWithdrawn?(installationId: string, baseUrl: string): Promise<void>;
  /** Installations kept built at once (default 2,000); the least recently used are closed beyond it. */
  maxCached?: number;
  /** How long a replaced client stays open for requests still using it (default 60 s). */
  closeGraceMs?: number;
}

interface Entry {
  version: string;
  deps: SlackDeps;
  tenant: TenantApi;
}

/** A Runbook API whose every call fails with `sentence`, as the person's answer. */
export function unavailableApi(sentence: string): RunbookApi {
  const fail = async (): Promise<never> => {
    throw new ApiUnavailableError(sentence);
  };
  // biome-ignore lint/correctness/useYield: it fails before the first item, like a failing first page
  const failEach = async function* (): AsyncGenerator<never> {
    throw new ApiUnavailableError(sentence);
  };
  return {
    workflows: { list: fail, iterate: failEach, get: fail, run: fail },
    schedules: { list: fail, iterate: failEach, create: fail, get: fail, update: fail, delete: fail },
    executions: { list: fail, iterate: failEach, get: fail },
    close: async () => {},
  };
}

/**
 * Background work's one catalog (many workspaces): every lookup is the installation in scope's own catalog
 * (`current()`, which fails outside any), so a notice of B never reads A's copy of a runbook. Keeps nothing.
 */
export class RoutedRunbookCatalog extends RunbookCatalog {
  readonly #current: () => Promise<RunbookCatalog>;

  constructor(current: () => Promise<RunbookCatalog>) {
    super({ api: unavailableApi('This catalog keeps no runbooks of its own.') });
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

export interface TenantDeps {
  connections: ApiConnections;
  depsFor(installation: TenantInstallation | undefined): Promise<SlackDeps>;
  /** The same by installation id (background work, in an installation's scope). */
  depsForId(installationId: string): Promise<SlackDeps>;
  /** Closes every installation's client. */
  close(): Promise<void>;
}

const NO_INSTALLATION =
  'This request names no workspace the app is installed in, so it cannot reach a Runbook API; install the app there first.';

export function createTenantDeps(options: TenantDepsOptions): TenantDeps {
  const grace = options.closeGraceMs ?? 60_000;
  const timers = new Set<NodeJS.Timeout>();
  const closeLater = (tenant: TenantApi) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      void tenant.close().catch(() => {});
    }, grace);
    timer.unref();
    timers.add(timer);
  };
  const cache = new LRUCache<string, Entry>({
    // Above the installations a deployment keeps busy (the benchmark's 1,001): beyond it every background call
    // of one evicted rebuilt its client and catalog, and kept the old ones open for the grace.
    max: options.maxCached ?? 2_000,
    dispose: (entry) => closeLater(entry.tenant),
  });
  const unscoped = (() => {
    const tenant = options.unconnected(unavailableApi(NO_INSTALLATION));
    return { ...options.base, api: tenant.api, catalog: tenant.catalog, proxies: tenant.proxies };
  })();

  /**
   * Where the installation is, for the policy's `teams:` (the same file for all, seen from here): its id,
   * its workspace unless org-wide, and its Grid org (from its record; a request's context when there is none).
   */
  const homeOf = async (installation: TenantInstallation) => {
    const { id } = installation;
    const record = await options.base.access.store.installations.get(id).catch(() => null);
    const orgWide = record?.isEnterpriseInstall ?? (installation.isEnterpriseInstall || id.startsWith('E'));
    const enterpriseId = record?.enterpriseId ?? installation.enterpriseId ?? (orgWide ? id : null);
    return { installationId: id, teamId: orgWide ? null : id, enterpriseId };
  };

  const build = async (
    installation: TenantInstallation,
    opened: OpenConnection | null,
    version: string,
    withdrawn: ConnectionStatus | null,
    installerNow?: string | null,
  ): Promise<Entry> => {
    const installationId = installation.id;
    const installerId =
      installerNow !== undefined ? installerNow : await options.installerOf(installationId).catch(() => null);
    const tenant = opened
      ? options.connect(opened)
      : options.unconnected(unavailableApi(unconnectedSentence({ installerId, withdrawn })));
    const { base } = options;
    const policy = policyForInstallation(base.access, await homeOf(installation));
    const deps: SlackDeps = {
      ...base,
      api: tenant.api,
      catalog: tenant.catalog,
      proxies: tenant.proxies,
      access: {
        ...base.access,
        policy,
        identity: options.newIdentity(policy),
        places: options.newPlaces(),
        apiAccount: opened?.status.account ?? null,
      },
      tenancy: {
        installationId,
        connections: options.connections,
        status: opened?.status ?? null,
        withdrawn,
        installerId,
        // Unreadable: nobody is taken for the installer (only an admin or owner may connect).
        installerNow: () => options.installerOf(installationId).catch(() => null),
        settings: null,
        operatorApprovalsChannel: base.access.approvalsChannel,
      },
    };
    return { version, deps, tenant };
  };

  // The workspace's own approval settings, read on every request like the connection (any replica); then
  // its own user groups and people (cached), so that no other workspace's group or person is named for it.
  const withSettings = async (installationId: string, deps: SlackDeps): Promise<SlackDeps> => {
    const settings = await options.base.access.store.installationSettings.get(installationId);
    const set =
      settings && deps.tenancy
        ? {
            ...deps,
            access: withInstallationSettings(deps.access, options.base.access.approvalsChannel, settings),
            tenancy: { ...deps.tenancy, settings },
          }
        : deps;
    let access = set.access;
    if (options.groupsHere) access = withGroupsHere(access, await options.groupsHere(access));
    if (options.usersHere) access = withUsersHere(access, await options.usersHere(access, installationId));
    return access === set.access ? set : { ...set, access };
  };

  const tenantDeps: TenantDeps = {
    connections: options.connections,
    depsForId: (installationId) =>
      tenantDeps.depsFor({ id: installationId, teamId: null, enterpriseId: null, isEnterpriseInstall: false }),
    async depsFor(installation) {
      if (!installation) return unscoped;
      let opened: OpenConnection | null = null;
      try {
        opened = await options.connections.open(installation.id);
      } catch (err) {
        // A key sealed with a key we no longer hold: the workspace has to connect again.
        options.base.logger.error({ err, installation: installation.id }, 'could not open a Runbook API connection');
      }
      // Saved to an address since removed from RUNBOOK_API_URLS: not used; an admin connects again.
      let withdrawn: ConnectionStatus | null = null;
      if (opened && !options.connections.allows(opened.status.baseUrl)) {
        withdrawn = opened.status;
        opened = null;
      }
      // Not connected: every answer names who installed it, read now (a reinstall by someone else may have
      // landed, here or on another replica); connected workspaces do not name them, so pay no read for it.
      const installerNow = opened ? undefined : await options.installerOf(installation.id).catch(() => null);
      const version =
        opened?.version ?? `${withdrawn ? `withdrawn:${withdrawn.baseUrl}` : 'not-connected'}:${installerNow ?? ''}`;
      const cached = cache.get(installation.id);
      if (cached && cached.version === version) return withSettings(installation.id, cached.deps);
      if (withdrawn) {
        options.base.logger.warn(
          { installation: installation.id, baseUrl: withdrawn.baseUrl },
          "a workspace's Runbook API address is no longer allowed by the operator (RUNBOOK_API_URLS): its connection is not used and its background work stops until an admin connects again",
        );
        await options
          .onWithdrawn?.(installation.id, withdrawn.baseUrl)
          .catch((err: unknown) =>
            options.base.logger.warn({ err, installation: installation.id }, 'could not stop its background work'),
          );
      }
      const entry = await build(installation, opened, version, withdrawn, installerNow);
      cache.set(installation.id, entry);
      return withSettings(installation.id, entry.deps);
    },
    async close() {
      const tenants = [...cache.values()].map((entry) => entry.tenant);
      cache.clear();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await Promise.all(tenants.map((tenant) => tenant.close().catch(() => {})));
    },
  };
  return tenantDeps;
}
