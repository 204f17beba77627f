// Builds a HandlerContext from an interaction payload (block action, shortcut, view), so the same
// handlers serve commands, buttons and modals.

import type { WebClient } from '@slack/web-api';
import type { SlackDeps } from './deps.ts';
import { type HandlerContext, respondWith } from './handler-context.ts';
import { postToConversation } from './post-to-conversation.ts';

interface InteractionBody {
  user?: { id?: string; team_id?: string };
  team?: { id?: string } | null;
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
  return {
    deps,
    client,
    userId,
    teamId: body.team?.id ?? body.user?.team_id ?? null,
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
