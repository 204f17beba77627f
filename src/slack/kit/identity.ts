// Who is asking: the Slack user's email (sent as userEmail on runs) and the user groups the policy
// cares about. Both come from the Web API and are cached, so a busy channel does not turn into a
// users.info call per click. Emails sit in an LRU cache (lru-cache) with a TTL: the least recently
// used fall out one by one at the bound, and concurrent lookups of one user share one users.info call.
import type { WebClient } from '@slack/web-api';
import { LRUCache } from 'lru-cache';
import type { Logger } from '../../logger.ts';
import { UserFacingError } from './user-facing-error.ts';

export interface IdentityOptions {
  /** User groups named anywhere in the policy; only these are resolved. */
  groups: readonly string[];
  ttlMs?: number;
  /** Most emails kept (default 10,000); past it the least recently used is dropped. */
  maxUsers?: number;
  now?: () => number;
  logger: Logger;
}

/** lru-cache stores no null, so "Slack has no email for this user" is a value of its own. */
interface EmailEntry {
  email: string | null;
  /** The user's Slack time zone (users.info `tz`, `tz_label`), read in the same call. */
  timeZone: PersonTimeZone | null;
}

/** A person's Slack time zone: the IANA name (`Europe/Berlin`) and Slack's label for it. */
export interface PersonTimeZone {
  id: string;
  label: string;
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
  readonly #emails: LRUCache<string, EmailEntry, WebClient>;
  #members: Members | null = null;
  #membersLoading: Promise<Members> | null = null;
  readonly #userIds: LRUCache<string, UserIdEntry, WebClient>;

  constructor(options: IdentityOptions) {
    this.#o = options;
    this.#ttlMs = options.ttlMs ?? 10 * 60_000;
    this.#now = options.now ?? Date.now;
    this.#emails = new LRUCache<string, EmailEntry, WebClient>({
      max: options.maxUsers ?? 10_000,
      ttl: this.#ttlMs,
      // Our clock, read on every check (no 1 ms caching), so tests and the TTL agree.
      perf: { now: this.#now },
      ttlResolution: 0,
      fetchMethod: (userId, _stale, { context }) => this.#fetchEmail(context, userId),
    });
    this.#userIds = new LRUCache<string, UserIdEntry, WebClient>({
      max: options.maxUsers ?? 10_000,
      ttl: this.#ttlMs,
      perf: { now: this.#now },
      ttlResolution: 0,
      fetchMethod: (email, _stale, { context }) => this.#fetchUserId(context, email),
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
  async #fetchEmail(client: WebClient, userId: string): Promise<EmailEntry | undefined> {
    try {
      const res = await client.users.info({ user: userId });
      const tz = res.user?.tz;
      return {
        email: res.user?.profile?.email ?? null,
        timeZone: tz ? { id: tz, label: res.user?.tz_label || tz } : null,
      };
    } catch (err) {
      this.#o.logger.warn({ err, userId }, 'users.info failed; running without the email');
      return undefined;
    }
  }

  /** The user's email (needs users:read.email); null when Slack does not say. Never throws. */
  async emailOf(client: WebClient, userId: string): Promise<string | null> {
    try {
      return (await this.#emails.fetch(userId, { context: client }))?.email ?? null;
    } catch (err) {
      this.#o.logger.warn({ err, userId }, 'email lookup failed; running without the email');
      return null;
    }
  }

  /** The user's Slack time zone (cached with the email); null when Slack does not say. Never throws. */
  async timeZoneOf(client: WebClient, userId: string): Promise<PersonTimeZone | null> {
    try {
      return (await this.#emails.fetch(userId, { context: client }))?.timeZone ?? null;
    } catch (err) {
      this.#o.logger.warn({ err, userId }, 'time zone lookup failed; showing times in UTC');
      return null;
    }
  }

  /** Slack user id for an email (needs users:read.email), so people are mentioned, not emailed; null when Slack does not know it. Never throws. */
  async userIdByEmail(client: WebClient, email: string): Promise<string | null> {
    const key = email.trim().toLowerCase();
    if (!key.includes('@')) return null;
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
   * while the members are being read share that one read.
   */
  async groupsOf(client: WebClient, userId: string): Promise<string[]> {
    if (this.#o.groups.length === 0) return [];
    let members = this.#members;
    if (!members || this.#now() - members.at >= this.#ttlMs) {
      this.#membersLoading ??= this.#loadMembers(client).finally(() => {
        this.#membersLoading = null;
      });
      members = await this.#membersLoading;
    }
    return [...members.value].filter(([, users]) => users.has(userId)).map(([group]) => group);
  }

  async #loadMembers(client: WebClient): Promise<Members> {
    const members = new Map<string, Set<string>>();
    const unknown: string[] = [];
    for (const group of this.#o.groups) {
      try {
        const res = await client.usergroups.users.list({ usergroup: group });
        members.set(group, new Set(res.users ?? []));
      } catch (err) {
        this.#o.logger.warn({ err, group }, 'could not read user group members');
        const previous = this.#members?.value.get(group);
        if (previous) members.set(group, previous);
        else unknown.push(group);
      }
    }
    if (unknown.length > 0) {
      throw new UserFacingError(
        'Slack could not tell which user groups you are in, so your access cannot be checked; try again in a minute.',
      );
    }
    this.#members = { value: members, at: this.#now() };
    return this.#members;
  }
}
