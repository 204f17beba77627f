// How a person and a proxy are written on every surface, so the same person never appears as an
// @mention in one place and an email in another. A person Slack knows (a user id, found directly or
// by their email before the builder runs) is a mention; anyone else is their email; nobody known
// is said in words. Proxies show one display name (the directory's) with the id as the fallback.
import { escapeMrkdwn, truncate, userMention } from './mrkdwn.ts';

export interface PersonRef {
  /** Slack user id, when Slack knows the person. */
  userId?: string | null;
  /** Their email (the Runbook API's executor, or the Slack profile's). */
  email?: string | null;
}

const SLACK_USER_ID = /^[UW][A-Z0-9]+$/;

/** `<@U…>` for a Slack user, else the escaped email, else `unknown` (already mrkdwn). */
export function personText(person: PersonRef | null | undefined, unknown = 'someone outside Slack'): string {
  if (person?.userId && SLACK_USER_ID.test(person.userId)) return userMention(person.userId);
  const email = person?.email?.trim() || (person?.userId && !SLACK_USER_ID.test(person.userId) ? person.userId : '');
  return email ? escapeMrkdwn(truncate(email, 120)) : unknown;
}

/** Emails Slack knows, lowercased → user id (from Identity.peopleByEmail); builders take it to mention people. */
export type PeopleByEmail = ReadonlyMap<string, string>;

/** Someone the Runbook API knows by email (an executor): a mention when Slack knows the email. */
export function emailPerson(email: string | null | undefined, people?: PeopleByEmail): PersonRef {
  const userId = email ? people?.get(email.trim().toLowerCase()) : undefined;
  return { userId: userId ?? null, email: email ?? null };
}

/** Several people, "a, b and c"; `none` when the list is empty. */
export function peopleText(people: readonly PersonRef[], none = '—'): string {
  const parts = people.map((p) => personText(p));
  if (parts.length === 0) return none;
  if (parts.length === 1) return parts[0]!;
  return `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

export interface ProxyRef {
  id: string;
  /** Display name from the proxy directory, when known. */
  name?: string | null;
}

/** The proxy's one display name (escaped), falling back to its id; '—' when there is none. */
export function proxyText(proxy: ProxyRef | null | undefined): string {
  const name = proxy?.name?.trim() || proxy?.id?.trim() || '';
  return name ? escapeMrkdwn(truncate(name, 120)) : '—';
}
