// Who may be an actor, from what Slack itself says about the person: never a bot, the bot itself or
// Slackbot, and a person of another organisation (Slack Connect) only where the policy allows external
// users. "Another organisation": neither their workspace nor their Enterprise Grid org is the
// installation's, so people of a sibling workspace of the same org are members, not external.
import type { WebClient } from '@slack/web-api';
import { currentInstallation } from '../../tenants/tenant-scope.ts';
import type { SlackDeps } from './deps.ts';
import { belongsTo } from './membership.ts';

export type Standing =
  /** A person of this workspace or org (or Slack could not tell otherwise). */
  | { kind: 'member' }
  /** A bot user, our own bot user, or Slackbot: never an actor. */
  | { kind: 'bot' }
  /** A person of another organisation (Slack Connect). */
  | { kind: 'external'; teamId: string | null };

export const SLACKBOT = 'USLACKBOT';

export interface Claimant {
  userId: string;
  /** The person's workspace as the payload says it (`user_team`, `user.team_id`, `team_id`), if it does. */
  teamHint?: string | null;
  /** The payload says a bot sent it (`bot_id`, `bot_message`). */
  botHint?: boolean;
}

/**
 * What the person is, from the installation (auth.test) and their profile (users.info), both cached.
 * When Slack cannot say, the payload's workspace decides: another workspace counts as external (fails
 * closed), none as a member.
 */
export async function standingOf(deps: Pick<SlackDeps, 'access'>, client: WebClient, who: Claimant): Promise<Standing> {
  if (who.botHint || who.userId === SLACKBOT) return { kind: 'bot' };
  const { identity } = deps.access;
  const installation = await identity.installationOf(client);
  if (installation?.botUserId === who.userId) return { kind: 'bot' };
  const profile = await identity.profileOf(client, who.userId);
  if (profile?.isBot) return { kind: 'bot' };
  const teamId = profile?.teamId ?? who.teamHint ?? null;
  if (!installation?.teamId || !teamId || teamId === installation.teamId) return { kind: 'member' };
  if (installation.enterpriseId && profile?.enterpriseId === installation.enterpriseId) return { kind: 'member' };
  return { kind: 'external', teamId };
}

/**
 * Whether the person belongs to the installation this request or background work is for (users.info,
 * cached); true where there is none (one workspace: not judged). Never throws: unknown is "no".
 */
export async function memberOfInstallation(
  deps: Pick<SlackDeps, 'access' | 'tenancy'>,
  client: WebClient,
  userId: string,
): Promise<boolean> {
  const installationId = deps.tenancy?.installationId ?? currentInstallation();
  if (!installationId) return true;
  return belongsTo(await deps.access.identity.profileOf(client, userId), installationId);
}
