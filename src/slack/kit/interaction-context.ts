// Builds a HandlerContext from an interaction payload (block action, shortcut, view), so the same
// handlers serve commands, buttons and modals.

import type { WebClient } from '@slack/web-api';
import type { SlackDeps } from './deps.ts';
import { type HandlerContext, respondWith } from './handler-context.ts';
import { postOnce } from './post-once.ts';

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
          // No response_url (modals, App Home): answer privately in the channel, else by DM.
          if (channelId) {
            await client.chat.postEphemeral({
              channel: channelId,
              user: userId,
              text: reply.text,
              blocks: reply.blocks,
            });
            return;
          }
          const dm = await client.conversations.open({ users: userId });
          // Not re-sent blindly if its answer is lost (post-once.ts).
          if (dm.channel?.id) await postOnce(client, dm.channel.id, { text: reply.text, blocks: reply.blocks });
        },
  };
}
