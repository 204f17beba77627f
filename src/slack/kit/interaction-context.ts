// The request context of an interaction payload (block action, shortcut, view, options), so the same
// handlers serve commands, buttons and modals; used by ../context.ts, and by `inChannel` when a view
// submission names its channel in its metadata.

import type { WebClient } from '@slack/web-api';
import { actorFor } from './actor.ts';
import type { SlackDeps } from './deps.ts';
import { type HandlerContext, respondWith } from './handler-context.ts';
import { postToConversation } from './post-to-conversation.ts';

interface InteractionBody {
  user?: { id?: string; team_id?: string };
  team?: { id?: string; enterprise_id?: string } | null;
  enterprise?: { id?: string } | null;
  channel?: { id?: string } | null;
  container?: { channel_id?: string } | null;
  trigger_id?: string;
  view?: { private_metadata?: string } | null;
}

type RespondFn = Parameters<typeof respondWith>[0];

export function interactionContext(
  deps: SlackDeps,
  client: WebClient,
  body: InteractionBody,
  respond: RespondFn | undefined,
  channelOverride?: string | null,
): HandlerContext {
  const userId = body.user?.id ?? '';
  const channelId = channelOverride ?? body.channel?.id ?? body.container?.channel_id ?? null;
  const teamId = body.team?.id ?? body.user?.team_id ?? null;
  return {
    deps,
    client,
    userId,
    teamId,
    actor: (options = {}) => actorFor(deps, client, { userId, teamId, channelId }, options),
    enterpriseId: body.enterprise?.id ?? body.team?.enterprise_id ?? null,
    channelId,
    triggerId: body.trigger_id ?? null,
    respond: respond
      ? respondWith(respond)
      : async (reply) => {
          // No response_url (modals, App Home): answer privately in the channel, else (or when Slack
          // refuses the ephemeral) by DM; never in the channel for everyone.
          await postToConversation(client, deps.logger, channelId, userId, {
            text: reply.text,
            blocks: reply.blocks,
            ephemeralTo: userId,
          });
        },
  };
}

/** The context of a view submission whose channel is in its metadata: private answers go there. */
export function inChannel(ctx: HandlerContext, channelId: string | null): HandlerContext {
  const rebuilt = interactionContext(ctx.deps, ctx.client, { user: { id: ctx.userId } }, undefined, channelId);
  return {
    ...ctx,
    channelId,
    respond: rebuilt.respond,
    actor: (options = {}) => actorFor(ctx.deps, ctx.client, { ...ctx, channelId }, options),
  };
}
