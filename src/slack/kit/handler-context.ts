// What a subcommand handler gets: the dependencies, a Web API client, who asked and where, and a
// way to answer (the response_url of the command or action, ephemeral by default).

import type { WebClient } from '@slack/web-api';
import type { SlackMessage } from './common.ts';
import type { SlackDeps } from './deps.ts';
import { guardOutgoing } from './outgoing-guard.ts';

export interface Reply extends SlackMessage {
  /** Replace the message the action came from instead of adding one. */
  replaceOriginal?: boolean;
}

export interface HandlerContext {
  deps: SlackDeps;
  client: WebClient;
  userId: string;
  teamId: string | null;
  channelId: string | null;
  /** trigger_id for opening a modal (valid 3 s after the user's action). */
  triggerId: string | null;
  respond: (reply: Reply) => Promise<void>;
  /** The thread the person acted in (a mention in a thread): answers and live cards go there. */
  threadTs?: string | null;
}

/** Adapts Bolt's `respond` to our Reply. */
export function respondWith(
  respond: (message: {
    text: string;
    blocks: SlackMessage['blocks'];
    response_type?: 'ephemeral' | 'in_channel';
    replace_original?: boolean;
  }) => Promise<unknown>,
): HandlerContext['respond'] {
  return async (reply) => {
    // response_url bodies leave through the outgoing guard like every Web API call.
    await respond(
      guardOutgoing({
        text: reply.text,
        blocks: reply.blocks,
        response_type: 'ephemeral' as const,
        ...(reply.replaceOriginal ? { replace_original: true } : {}),
      }),
    );
  };
}
