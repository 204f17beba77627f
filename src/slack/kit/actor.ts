// The actor of a Slack interaction, as the use cases take it: who (with the user groups the policy
// names, and the email when a run needs it), where they acted and where a result goes. Reading the
// groups fails closed (Identity throws the sentence), so every path that builds an actor tells the
// person instead of letting a deny-by-group rule lapse. A bot, the bot itself or Slackbot is refused. A
// result sent anywhere but where the person acted carries what Slack says about that place (places.ts),
// for the gate's destination check.
import type { WebClient } from '@slack/web-api';
import type { Actor } from '../../runs/actor.ts';
import { SAVED_DEFAULTS, savedAlias } from '../../runs/destinations.ts';
import type { SlackDeps } from './deps.ts';
import { memberOfInstallation, standingOf } from './standing.ts';
import { UserFacingError } from './user-facing-error.ts';

export interface Who {
  userId: string;
  teamId: string | null;
  /** The request's Enterprise Grid org (for the policy's `teams:`); absent: none known. */
  enterpriseId?: string | null;
  channelId: string | null;
  /** Where a run's result goes; default the channel acted in. */
  destinationChannel?: string | null;
  /** The destination was saved by someone (channel defaults, an alias): judged against who saved it. */
  savedBy?: SavedBy | null;
}

/** Who saved a destination, and where: in alias `alias`, or (null) in the channel's run defaults. */
export interface SavedBy {
  userId: string;
  alias: string | null;
}

export async function actorFor(
  deps: SlackDeps,
  client: WebClient,
  who: Who,
  /** checkDestination: read the destination's facts even when it is the channel acted in (a workflow step). */
  options: { email?: boolean; checkDestination?: boolean } = {},
): Promise<Actor> {
  // Bots, the bot itself and Slackbot are never actors, whatever path named them.
  if ((await standingOf(deps, client, { userId: who.userId })).kind === 'bot') {
    throw new UserFacingError('Only people can act here: a bot or Slackbot cannot.');
  }
  const groups = await deps.access.identity.groupsOf(client, who.userId);
  const email = options.email ? await deps.access.identity.emailOf(client, who.userId) : null;
  // Times told to the person (a freeze's end) in their zone; the profile is cached with the email.
  const timeZone = (await deps.access.identity.timeZoneOf(client, who.userId))?.id ?? null;
  const destinationChannel = who.destinationChannel === undefined ? who.channelId : who.destinationChannel;
  const chosen =
    destinationChannel && (destinationChannel !== who.channelId || who.savedBy || options.checkDestination)
      ? await deps.access.places.destination(
          client,
          destinationChannel,
          who.savedBy?.userId ?? who.userId,
          who.savedBy ? (who.savedBy.alias ? savedAlias(who.savedBy.alias) : SAVED_DEFAULTS) : null,
        )
      : null;
  // Many workspaces: whether the person is of this installation (the profile is cached with the email).
  const member = deps.tenancy ? { installationMember: await memberOfInstallation(deps, client, who.userId) } : {};
  return {
    userId: who.userId,
    teamId: who.teamId,
    enterpriseId: who.enterpriseId ?? null,
    email,
    groups,
    timeZone,
    ...member,
    channelId: who.channelId,
    destinationChannel,
    ...(chosen ? { destination: chosen } : {}),
  };
}
