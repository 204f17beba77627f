// The actor of a Slack interaction, as the use cases take it: who (with the user groups the policy
// names, and the email when a run needs it), where they acted and where a result goes. Reading the
// groups fails closed (Identity throws the sentence), so every path that builds an actor tells the
// person instead of letting a deny-by-group rule lapse. A bot, the bot itself or Slackbot is refused.
import type { WebClient } from '@slack/web-api';
import type { Actor } from '../../runs/actor.ts';
import type { SlackDeps } from './deps.ts';
import { standingOf } from './standing.ts';
import { UserFacingError } from './user-facing-error.ts';

export interface Who {
  userId: string;
  teamId: string | null;
  channelId: string | null;
  /** Where a run's result goes; default the channel acted in. */
  destinationChannel?: string | null;
}

export async function actorFor(
  deps: SlackDeps,
  client: WebClient,
  who: Who,
  options: { email?: boolean } = {},
): Promise<Actor> {
  // Bots, the bot itself and Slackbot are never actors, whatever path named them.
  if ((await standingOf(deps, client, { userId: who.userId })).kind === 'bot') {
    throw new UserFacingError('Only people can act here: a bot or Slackbot cannot.');
  }
  const groups = await deps.access.identity.groupsOf(client, who.userId);
  const email = options.email ? await deps.access.identity.emailOf(client, who.userId) : null;
  return {
    userId: who.userId,
    teamId: who.teamId,
    email,
    groups,
    channelId: who.channelId,
    destinationChannel: who.destinationChannel === undefined ? who.channelId : who.destinationChannel,
  };
}
