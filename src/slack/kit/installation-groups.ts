// Many workspaces: the user groups of one installation's workspace(s), as its own token lists them —
// usergroups.list; for an org-wide install, each workspace of its org (auth.teams.list) by `team_id`, as
// Slack requires of an org token. Only these are named, mentioned or read for the installation (policy
// groupsHere): a group the operator's policy names that is another workspace's is nobody's here, and in a
// Slack Connect channel its mention would notify another company's people. Cached per installation for
// `ttlMs`; concurrent reads share one; a failed read falls back to what was known, else is unknown (null).
import type { WebClient } from '@slack/web-api';
import { LRUCache } from 'lru-cache';
import type { Logger } from '../../logger.ts';
import type { GroupsHere, Place } from '../../policy/policy.ts';
import { inInstallation } from '../../tenants/tenant-scope.ts';

export interface InstallationGroupsOptions {
  /** A client that sends the token of the installation in scope (RoutedWebClient). */
  client: WebClient;
  logger: Logger;
  /** How long a listing is used (default 5 minutes): a group made since shows up after it. */
  ttlMs?: number;
  now?: () => number;
}

interface Listed {
  value: GroupsHere;
  at: number;
}

export class InstallationGroups {
  readonly #o: InstallationGroupsOptions;
  readonly #listed = new LRUCache<string, Listed>({ max: 5_000 });
  readonly #loading = new Map<string, Promise<GroupsHere | null>>();

  constructor(options: InstallationGroupsOptions) {
    this.#o = options;
  }

  /** The groups of the installation `home` is (null: Slack could not say and nothing is known from before). */
  async of(home: Place): Promise<GroupsHere | null> {
    const id = home.installationId;
    if (!id) return null;
    const now = (this.#o.now ?? Date.now)();
    const listed = this.#listed.get(id);
    if (listed && now - listed.at < (this.#o.ttlMs ?? 5 * 60_000)) return listed.value;
    let loading = this.#loading.get(id);
    if (!loading) {
      const orgWide = !home.teamId && Boolean(home.enterpriseId);
      loading = inInstallation(id, () => this.#list(orgWide))
        .then((value) => {
          this.#listed.set(id, { value, at: (this.#o.now ?? Date.now)() });
          return value as GroupsHere | null;
        })
        .catch((err: unknown) => {
          this.#o.logger.warn({ err, installation: id }, "could not list the workspace's user groups");
          return this.#listed.get(id)?.value ?? null;
        })
        .finally(() => this.#loading.delete(id));
      this.#loading.set(id, loading);
    }
    return loading;
  }

  async #list(orgWide: boolean): Promise<GroupsHere> {
    const { client } = this.#o;
    const groups = new Map<string, string | null>();
    if (!orgWide) {
      const res = await client.usergroups.list({ include_disabled: false });
      for (const g of res.usergroups ?? []) if (g.id) groups.set(g.id, null);
      return groups;
    }
    let cursor: string | undefined;
    do {
      const res = await client.auth.teams.list({ limit: 100, ...(cursor ? { cursor } : {}) });
      for (const team of res.teams ?? []) {
        if (!team.id) continue;
        const listed = await client.usergroups.list({ team_id: team.id, include_disabled: false });
        for (const g of listed.usergroups ?? []) if (g.id) groups.set(g.id, team.id);
      }
      cursor = res.response_metadata?.next_cursor || undefined;
    } while (cursor);
    return groups;
  }
}
