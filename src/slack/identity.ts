// Who is asking: the Slack user's email (sent as userEmail on runs) and the user groups the policy
// cares about. Both come from the Web API and are cached, so a busy channel does not turn into a
// users.info call per click.
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logger.ts';
import { UserFacingError } from './user-facing-error.ts';

interface Cached<T> {
  value: T;
  at: number;
}

export interface IdentityOptions {
  /** User groups named anywhere in the policy; only these are resolved. */
  groups: readonly string[];
  ttlMs?: number;
  now?: () => number;
  logger: Logger;
}

export class Identity {
  readonly #o: IdentityOptions;
  readonly #emails = new Map<string, Cached<string | null>>();
  readonly #userIds = new Map<string, Cached<string | null>>();
  #members: Cached<Map<string, Set<string>>> | null = null;

  constructor(options: IdentityOptions) {
    this.#o = options;
  }

  #fresh(at: number): boolean {
    return (this.#o.now ?? Date.now)() - at < (this.#o.ttlMs ?? 10 * 60_000);
  }

  /** The user's email (needs users:read.email); null when Slack does not say. Never throws. */
  async emailOf(client: WebClient, userId: string): Promise<string | null> {
    const hit = this.#emails.get(userId);
    if (hit && this.#fresh(hit.at)) return hit.value;
    let email: string | null = null;
    try {
      const res = await client.users.info({ user: userId });
      email = res.user?.profile?.email ?? null;
    } catch (err) {
      this.#o.logger.warn({ err, userId }, 'users.info failed; running without the email');
    }
    if (this.#emails.size > 10_000) this.#emails.clear();
    this.#emails.set(userId, { value: email, at: (this.#o.now ?? Date.now)() });
    return email;
  }

  /** Slack user id for an email (needs users:read.email), so people are mentioned, not emailed; null when Slack does not know it. Never throws. */
  async userIdByEmail(client: WebClient, email: string): Promise<string | null> {
    const key = email.trim().toLowerCase();
    if (!key.includes('@')) return null;
    const hit = this.#userIds.get(key);
    if (hit && this.#fresh(hit.at)) return hit.value;
    let userId: string | null = null;
    try {
      const res = await client.users.lookupByEmail({ email: key });
      userId = res.user?.id ?? null;
    } catch {
      // users_not_found (an API key's user, someone outside this workspace): shown by email.
    }
    if (this.#userIds.size > 10_000) this.#userIds.clear();
    this.#userIds.set(key, { value: userId, at: (this.#o.now ?? Date.now)() });
    return userId;
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
   * groups", which would let a deny-by-group rule lapse. Failures are not cached.
   */
  async groupsOf(client: WebClient, userId: string): Promise<string[]> {
    if (this.#o.groups.length === 0) return [];
    if (!this.#members || !this.#fresh(this.#members.at)) {
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
      this.#members = { value: members, at: (this.#o.now ?? Date.now)() };
    }
    return [...this.#members.value].filter(([, users]) => users.has(userId)).map(([group]) => group);
  }
}
