// Posting where the person asked, with the fallbacks a real workspace needs: join a public channel
// the bot is not in yet, and when the channel is out of reach, send it to the person directly so
// the message is never silently lost. A private answer (ephemeral) that Slack refuses goes to the
// person's DM, never into the channel or thread: private stays private. Every post goes through
// postOnce: never re-sent blindly, and a post whose outcome is unknown is not "rescued" by a DM copy
// either (that would be a second one).
import type { KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../logger.ts';
import { channelMention } from './mrkdwn.ts';
import { type PostOnceOutcome, postOnce } from './post-once.ts';
import type { SentCheck } from './read-back.ts';

export interface Postable {
  text: string;
  blocks: KnownBlock[];
  /** Post as an ephemeral message to this user instead of a normal message. */
  ephemeralTo?: string;
  threadTs?: string;
  /** Recognises this message when Slack is read back after a lost answer (see post-once.ts). */
  sentCheck?: SentCheck;
}

function landed(outcome: PostOnceOutcome): { channel: string; ts: string } | null {
  return outcome.kind === 'posted' ? { channel: outcome.channel, ts: outcome.ts } : null;
}

/** The permalink of a posted message; null when there is none or Slack does not give it. */
export async function permalinkOf(
  client: WebClient,
  at: { channel: string | null; ts: string | null } | null,
): Promise<string | null> {
  if (!at?.channel || !at.ts) return null;
  const res = await client.chat.getPermalink({ channel: at.channel, message_ts: at.ts }).catch(() => null);
  return res?.permalink ?? null;
}

export function slackErrorCode(err: unknown): string | null {
  const data = (err as { data?: { error?: unknown } } | null)?.data;
  return typeof data?.error === 'string' ? data.error : null;
}

/** The person's DM with the bot (conversations.open). */
export async function openDm(client: WebClient, userId: string): Promise<string | null> {
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
  return (await sendToConversation(client, logger, channel, userId, message)).at;
}

/** Where a post landed; `notSent`: the channel kept refusing or failing it and it is not there. */
export interface ConversationPost {
  at: { channel: string; ts: string } | null;
  /** Nothing arrived (no DM copy either): someone else (the watcher) may send it later without doubling it. */
  notSent: boolean;
}

/** postToConversation, also saying whether a message that did not land may be sent again later. */
export async function sendToConversation(
  client: WebClient,
  logger: Logger,
  channel: string | null,
  userId: string,
  message: Postable,
): Promise<ConversationPost> {
  const { text, blocks } = message;
  if (message.ephemeralTo && channel) {
    try {
      await client.chat.postEphemeral({
        channel,
        user: message.ephemeralTo,
        text,
        blocks,
        ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
      });
      return { at: null, notSent: false };
    } catch (err) {
      // Meant for one person: never posted where others read it, only sent to them directly.
      logger.warn({ err: slackErrorCode(err) ?? err }, 'ephemeral post failed; sending a DM instead');
    }
  }
  const once = { ...(message.sentCheck ? { sentCheck: message.sentCheck } : {}) };
  if (channel && !message.ephemeralTo) {
    let outcome = await postOnce(
      client,
      channel,
      { text, blocks, ...(message.threadTs ? { threadTs: message.threadTs } : {}) },
      once,
    );
    if (outcome.kind === 'refused' && outcome.code === 'not_in_channel') {
      try {
        await client.conversations.join({ channel });
        outcome = await postOnce(
          client,
          channel,
          { text, blocks, ...(message.threadTs ? { threadTs: message.threadTs } : {}) },
          once,
        );
      } catch (joinErr) {
        logger.warn({ err: slackErrorCode(joinErr) ?? joinErr, channel }, 'could not join the channel');
      }
    }
    if (outcome.kind === 'posted') return { at: landed(outcome), notSent: false };
    if (outcome.kind === 'unknown') {
      // It may be in the channel already: a DM copy could be a second one. Lost beats doubled.
      logger.warn({ err: outcome.error, channel }, 'the post may not have arrived; not sending it again');
      return { at: null, notSent: false };
    }
    if (outcome.kind === 'not-sent') {
      // The channel is busy or failing, not out of reach: no DM copy; the caller may hand it on.
      logger.warn({ err: outcome.error, channel }, 'Slack kept refusing the post; it did not arrive');
      return { at: null, notSent: true };
    }
    logger.warn({ err: outcome.code, channel }, 'could not post to the channel; sending a DM instead');
  }
  try {
    const dm = await openDm(client, message.ephemeralTo ?? userId);
    if (!dm) return { at: null, notSent: false };
    const why = !channel
      ? null
      : message.ephemeralTo
        ? `I could not answer you privately in ${channelMention(channel)}, so here it is.`
        : `I could not post in ${channelMention(channel)}, so here it is. Invite me there with \`/invite\`.`;
    const note: KnownBlock[] = why ? [{ type: 'context', elements: [{ type: 'mrkdwn', text: why }] }] : [];
    const outcome = await postOnce(client, dm, { text, blocks: [...blocks, ...note].slice(0, 50) }, once);
    if (outcome.kind !== 'posted') logger.warn({ err: outcome.error, userId }, 'the DM may not have arrived');
    return { at: landed(outcome), notSent: false };
  } catch (err) {
    logger.error({ err: slackErrorCode(err) ?? err, userId }, 'could not reach the user at all');
    return { at: null, notSent: false };
  }
}
