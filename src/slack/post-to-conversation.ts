// Posting where the person asked, with the fallbacks a real workspace needs: join a public channel
// the bot is not in yet, and when the channel is out of reach, send it to the person directly so
// the message is never silently lost.
import type { KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logger.ts';
import { channelMention } from './blocks/mrkdwn.ts';

export interface Postable {
  text: string;
  blocks: KnownBlock[];
  /** Post as an ephemeral message to this user instead of a normal message. */
  ephemeralTo?: string;
  threadTs?: string;
}

export function slackErrorCode(err: unknown): string | null {
  const data = (err as { data?: { error?: unknown } } | null)?.data;
  return typeof data?.error === 'string' ? data.error : null;
}

async function openDm(client: WebClient, userId: string): Promise<string | null> {
  const dm = await client.conversations.open({ users: userId });
  return dm.channel?.id ?? null;
}

/** Posts; returns where the message landed (ephemeral posts return null: they cannot be edited). */
export async function postToConversation(
  client: WebClient,
  logger: Logger,
  channel: string | null,
  userId: string,
  message: Postable,
): Promise<{ channel: string; ts: string } | null> {
  const { text, blocks } = message;
  if (message.ephemeralTo && channel) {
    try {
      await client.chat.postEphemeral({ channel, user: message.ephemeralTo, text, blocks });
      return null;
    } catch (err) {
      logger.warn({ err: slackErrorCode(err) ?? err }, 'ephemeral post failed; sending a DM instead');
    }
  }
  if (channel && !message.ephemeralTo) {
    try {
      const res = await client.chat.postMessage({
        channel,
        text,
        blocks,
        ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
      });
      if (res.ts && res.channel) return { channel: res.channel, ts: res.ts };
    } catch (err) {
      const code = slackErrorCode(err);
      if (code === 'not_in_channel') {
        try {
          await client.conversations.join({ channel });
          const res = await client.chat.postMessage({ channel, text, blocks });
          if (res.ts && res.channel) return { channel: res.channel, ts: res.ts };
        } catch (joinErr) {
          logger.warn({ err: slackErrorCode(joinErr) ?? joinErr, channel }, 'could not join the channel');
        }
      } else {
        logger.warn({ err: code ?? err, channel }, 'could not post to the channel; sending a DM instead');
      }
    }
  }
  try {
    const dm = await openDm(client, userId);
    if (!dm) return null;
    const note: KnownBlock[] =
      channel && !message.ephemeralTo
        ? [
            {
              type: 'context',
              elements: [
                {
                  type: 'mrkdwn',
                  text: `I could not post in ${channelMention(channel)}, so here it is. Invite me there with \`/invite\`.`,
                },
              ],
            },
          ]
        : [];
    const res = await client.chat.postMessage({ channel: dm, text, blocks: [...blocks, ...note].slice(0, 50) });
    return res.ts && res.channel ? { channel: res.channel, ts: res.ts } : null;
  } catch (err) {
    logger.error({ err: slackErrorCode(err) ?? err, userId }, 'could not reach the user at all');
    return null;
  }
}
