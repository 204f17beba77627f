// Who started a run outside Slack, as Slack knows them: the watcher and the subscription scanner ask
// before building a result card, so the card names the executor as a mention (builders stay pure).
import type { PeopleByEmail } from '../slack/kit/people.ts';

/** A Slack user id for an email, null when Slack does not know it (Identity.userIdByEmail in production). */
export type UserIdByEmail = (email: string) => Promise<string | null>;

/**
 * The executor's email → Slack user id, when the lookup knows it; undefined otherwise. A failing lookup
 * only costs the mention: the card shows the email.
 */
export async function executorPeople(
  lookup: UserIdByEmail | null | undefined,
  executor: string | null | undefined,
): Promise<PeopleByEmail | undefined> {
  const email = executor?.trim().toLowerCase() ?? '';
  if (!lookup || !email.includes('@')) return undefined;
  try {
    const userId = await lookup(email);
    return userId ? new Map([[email, userId]]) : undefined;
  } catch {
    return undefined;
  }
}
