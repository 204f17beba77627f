// Who is asking: the Slack user's email (sent as userEmail on runs), whether they are a bot, their
// workspace and org (Slack Connect), and the user groups the policy cares about; and which workspace
// and org the bot is installed in. All come from the Web API and are cached, so a busy channel does
// not turn into a users.info call per click. Emails sit in an LRU cache (lru-cache) with a TTL: the least recently
// used fall out one by one at the bound, and concurrent lookups of one user share one users.info call.
// Many workspaces: everything is kept per installation in scope (one Identity may serve several, as background
// work's does), so what one workspace's Slack said about a user id or a group is never an answer in another.

import type { WebClient } from '@slack/web-api';
import { LRUCache } from 'lru-cache';
import type { FormSpec } from '../../forms/input-schema.ts';
import type { Logger } from '../../logger.ts';
import type { GroupsHere } from '../../policy/policy.ts';
import { currentInstallation } from '../../tenants/tenant-scope.ts';
import { UserFacingError } from './user-facing-error.ts';

export interface IdentityOptions {
  /** User groups named anywhere in the policy; only these are resolved. */
  groups: readonly string[];
  /**
   * Many workspaces: the installation's own user groups (installation-groups.ts; null: unknown). Only
   * those of `groups` are read, each with its workspace (`team_id`) where the install is org-wide; another
   * workspace's group has no members here (its token cannot read it, as Slack answers no_such_subteam).
   */
  groupsHere?: () => Promise<GroupsHere | null>;
  ttlMs?: number;
  /** Most emails kept (default 10,000); past it the least recently used is dropped. */
  maxUsers?: number;
  now?: () => number;
  logger: Logger;
}

/** What users.info says about a person: their email, whether they are a bot, their workspace and org. */
export interface Profile {
  email: string | null;
  /** A bot user (another app's, or ours) or Slackbot: never an actor. */
  isBot: boolean;
  /** The workspace the person belongs to. */
  teamId: string | null;
  /** Their Enterprise Grid org, when they are in one. */
  enterpriseId: string | null;
  /** On Enterprise Grid, the org's workspaces the person is in (users.info `enterprise_user.teams`). */
  teams?: readonly string[];
  /** The user's Slack time zone (users.info `tz`, `tz_label`), read in the same call. */
  timeZone: PersonTimeZone | null;
}

/** A person's Slack time zone: the IANA name (`Europe/Berlin`) and Slack's label for it. */
export interface PersonTimeZone {
  id: string;
  label: string;
}

/** Where the bot is installed. */
export interface Installation {
  teamId: string | null;
  enterpriseId: string | null;
  botUserId: string | null;
}

/** The same for "Slack knows no user with this email". */
interface UserIdEntry {
  userId: string | null;
}

interface Members {
  value: Map<string, Set<string>>;
  at: number;
}

export class Identity {
  readonly #o: IdentityOptions;
  readonly #ttlMs: number;
  readonly #now: () => number;
  /** Keyed `<installation>\n<user id>`. */
  readonly #profiles: LRUCache<string, Profile, WebClient>;
  /** Group members as read in each installation ('' outside any), and the reads in flight. */
  readonly #members = new LRUCache<string, Members>({ maxSize: 1_000, sizeCalculation: () => 1 });
  readonly #membersLoading = new Map<string, Promise<Members>>();
  readonly #userIds: LRUCache<string, UserIdEntry, WebClient>;
  // By token: a workflow step's client carries its own short-lived token, so the map is bounded.
  readonly #installations = new LRUCache<string, Promise<Installation | null>>({ max: 100 });

  constructor(options: IdentityOptions) {
    this.#o = options;
    this.#ttlMs = options.ttlMs ?? 10 * 60_000;
    this.#now = options.now ?? Date.now;
    // Bounded by count through maxSize, not `max`: lru-cache allocates `max` slots up front, which came to
    // 2 MB for each installation's caches (many workspaces: 2 GB at 1,000); these grow as they fill.
    const bound = { maxSize: options.maxUsers ?? 10_000, sizeCalculation: () => 1 };
    this.#profiles = new LRUCache<string, Profile, WebClient>({
      ...bound,
      ttl: this.#ttlMs,
      // Our clock, read on every check (no 1 ms caching), so tests and the TTL agree.
      perf: { now: this.#now },
      ttlResolution: 0,
      fetchMethod: (key, _stale, { context }) => this.#fetchProfile(context, key.slice(key.indexOf('\n') + 1)),
    });
    this.#userIds = new LRUCache<string, UserIdEntry, WebClient>({
      ...bound,
      ttl: this.#ttlMs,
      perf: { now: this.#now },
      ttlResolution: 0,
      // Keyed `<installation>\n<email>` in many-workspace mode: one email is a different person per workspace.
      fetchMethod: (key, _stale, { context }) => this.#fetchUserId(context, key.slice(key.indexOf('\n') + 1)),
    });
  }

  /** users_not_found (an API key's user, someone outside this workspace) is an answer: shown by email. */
  async #fetchUserId(client: WebClient, email: string): Promise<UserIdEntry | undefined> {
    try {
      const res = await client.users.lookupByEmail({ email });
      return { userId: res.user?.id ?? null };
    } catch (err) {
      const code = (err as { data?: { error?: unknown } }).data?.error;
      return code === 'users_not_found' ? { userId: null } : undefined;
    }
  }

  /** undefined (not cached, so the next click asks again) when Slack fails. */
  async #fetchProfile(client: WebClient, userId: string): Promise<Profile | undefined> {
    try {
      const res = await client.users.info({ user: userId });
      const user = res.user;
      const tz = user?.tz;
      return {
        email: user?.profile?.email ?? null,
        isBot: userId === 'USLACKBOT' || user?.is_bot === true || user?.is_app_user === true,
        teamId: user?.team_id ?? null,
        enterpriseId: user?.enterprise_user?.enterprise_id ?? null,
        teams: user?.enterprise_user?.teams ?? [],
        timeZone: tz ? { id: tz, label: user?.tz_label || tz } : null,
      };
    } catch (err) {
      this.#o.logger.warn({ err, userId }, 'users.info failed; running without the email');
      return undefined;
    }
  }

  /**
   * The workspace, Enterprise Grid org and bot user of the installation the client's token belongs to
   * (auth.test, asked once per token); null when Slack does not say (not cached, asked again next time).
   */
  async installationOf(client: WebClient): Promise<Installation | null> {
    // A client without a token of its own (many workspaces) speaks for the installation in scope.
    const scoped = currentInstallation();
    const key = client.token ?? (scoped ? `installation:${scoped}` : '');
    let known = this.#installations.get(key);
    if (!known) {
      known = client.auth.test().then(
        (res) => ({
          teamId: res.team_id ?? null,
          enterpriseId: res.enterprise_id ?? null,
          botUserId: res.user_id ?? null,
        }),
        (err: unknown) => {
          this.#o.logger.warn({ err }, 'auth.test failed; the installation is unknown');
          this.#installations.delete(key);
          return null;
        },
      );
      this.#installations.set(key, known);
    }
    return known;
  }

  /** The user's email (needs users:read.email); null when Slack does not say. Never throws. */
  async emailOf(client: WebClient, userId: string): Promise<string | null> {
    return (await this.profileOf(client, userId))?.email ?? null;
  }

  /** What Slack says about the person (cached like the email); null when Slack does not say. Never throws. */
  async profileOf(client: WebClient, userId: string): Promise<Profile | null> {
    try {
      return (await this.#profiles.fetch(`${currentInstallation() ?? ''}\n${userId}`, { context: client })) ?? null;
    } catch (err) {
      this.#o.logger.warn({ err, userId }, 'user lookup failed; running without the email');
      return null;
    }
  }

  /** The user's Slack time zone (cached with the email); null when Slack does not say. Never throws. */
  async timeZoneOf(client: WebClient, userId: string): Promise<PersonTimeZone | null> {
    return (await this.profileOf(client, userId))?.timeZone ?? null;
  }

  /** Slack user id for an email (needs users:read.email), so people are mentioned, not emailed; null when Slack does not know it. Never throws. */
  async userIdByEmail(client: WebClient, email: string): Promise<string | null> {
    const address = email.trim().toLowerCase();
    if (!address.includes('@')) return null;
    const key = `${currentInstallation() ?? ''}\n${address}`;
    try {
      return (await this.#userIds.fetch(key, { context: client }))?.userId ?? null;
    } catch {
      return null;
    }
  }

  /** email → Slack user id for the emails Slack knows (looked up at once, cached). */
  async peopleByEmail(client: WebClient, emails: readonly string[]): Promise<Map<string, string>> {
    const unique = [...new Set(emails.map((e) => e.trim().toLowerCase()).filter((e) => e.includes('@')))];
    const found = await Promise.all(unique.map(async (e) => [e, await this.userIdByEmail(client, e)] as const));
    return new Map(found.filter((f): f is readonly [string, string] => f[1] !== null));
  }

  /**
   * The policy's user groups this user belongs to (needs usergroups:read). Fails closed: when Slack
   * cannot say who is in a group and nothing is known from before, it throws rather than answer "no
   * groups", which would let a deny-by-group rule lapse. Failures are not cached. Concurrent callers
   * while the members are being read share that one read. `fresh` reads Slack now (a read already in
   * flight is fresh enough) and never falls back to what was known before: for decisions that must rest
   * on current membership (a quorum being decided).
   */
  async groupsOf(client: WebClient, userId: string, options: { fresh?: boolean } = {}): Promise<string[]> {
    if (this.#o.groups.length === 0) return [];
    const scope = currentInstallation() ?? '';
    let members = this.#members.get(scope);
    if (options.fresh || !members || this.#now() - members.at >= this.#ttlMs) {
      let loading = this.#membersLoading.get(scope);
      if (!loading) {
        loading = this.#loadMembers(client, scope, !options.fresh).finally(() => this.#membersLoading.delete(scope));
        this.#membersLoading.set(scope, loading);
      }
      members = await loading;
    }
    return [...members.value].filter(([, users]) => users.has(userId)).map(([group]) => group);
  }

  async #loadMembers(client: WebClient, scope: string, staleAllowed = true): Promise<Members> {
    const members = new Map<string, Set<string>>();
    const unknown: string[] = [];
    // Unknown which groups are this workspace's: each is read as unknown (stale members, else it fails closed).
    const here = this.#o.groupsHere ? await this.#o.groupsHere() : undefined;
    for (const group of this.#o.groups) {
      if (here && !here.has(group)) {
        members.set(group, new Set());
        continue;
      }
      try {
        if (here === null) throw new Error("the workspace's user groups could not be listed");
        const team = here?.get(group) ?? null;
        const res = await client.usergroups.users.list(
          team ? { usergroup: group, team_id: team } : { usergroup: group },
        );
        members.set(group, new Set(res.users ?? []));
      } catch (err) {
        this.#o.logger.warn({ err, group }, 'could not read user group members');
        const previous = staleAllowed ? this.#members.get(scope)?.value.get(group) : undefined;
        if (previous) members.set(group, previous);
        else unknown.push(group);
      }
    }
    if (unknown.length > 0) {
      throw new UserFacingError(
        'Slack could not tell which user groups you are in, so your access cannot be checked; try again in a minute.',
      );
    }
    const loaded = { value: members, at: this.#now() };
    this.#members.set(scope, loaded);
    return loaded;
  }
}

/**
 * The person's Slack time zone when a form has date-time pickers (they pick in it, the form names it, and
 * the value is written with its offset: the same on the run and the schedule form); null otherwise.
 */
export async function formTimeZone(
  identity: Pick<Identity, 'timeZoneOf'>,
  client: WebClient,
  userId: string,
  spec: FormSpec,
): Promise<PersonTimeZone | null> {
  const datetime = spec.kind === 'fields' && spec.fields.some((f) => f.kind === 'datetime');
  return datetime ? identity.timeZoneOf(client, userId) : null;
}
