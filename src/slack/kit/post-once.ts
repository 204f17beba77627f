// A chat.postMessage that is never sent twice by accident. The Web API client's own retries re-send a
// post whose answer was lost (a reset, a 5xx): Slack stored the first, so the channel gets two. Here
// the post goes through a client that does not retry, and an unknown outcome is resolved by reading
// the channel back (as the watcher does for replies): a message that arrived is found and used; only
// one that did not arrive is sent again. Without a way to recognise the message, an unknown outcome
// is final: lost beats doubled. A rate-limited answer means Slack refused it, so it is sent again
// after Retry-After. When every attempt is spent but each failure is settled (rate-limited, or read
// back and not there), the outcome is `not-sent`: nothing arrived, so a later sender may try again.
import type { KnownBlock } from '@slack/types';
import { ErrorCode, WebClient } from '@slack/web-api';
import { RoutedWebClient } from '../../tenants/tenant-scope.ts';
import { guardClient } from './outgoing-guard.ts';
import { readBackMessages, type SentCheck } from './read-back.ts';

export interface OnceMessage {
  text: string;
  blocks: KnownBlock[];
  threadTs?: string;
}

export interface PostOnceOptions {
  /** Recognises this message when read back; without it an unknown outcome is not retried. */
  sentCheck?: SentCheck;
  /** Read back messages since this time (ms); default a minute before the first attempt. */
  sinceMs?: number;
  /** Attempts in all (default 3). */
  attempts?: number;
  /** Longest wait for a rate limit before giving up (default 10 s). */
  maxWaitMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export type PostOnceOutcome =
  | { kind: 'posted'; channel: string; ts: string; readBack: boolean }
  /** Slack answered with an error: nothing was posted. */
  | { kind: 'refused'; code: string; error: unknown }
  /** It may or may not be there; nothing more was tried. */
  | { kind: 'unknown'; error: unknown }
  /**
   * Every attempt failed (rate-limited, or a 5xx after which reading back found it absent): it is not
   * there, and sending it again later cannot double it.
   */
  | { kind: 'not-sent'; error: unknown };

const once = new WeakMap<WebClient, WebClient>();

/** The same token and API URL, without automatic retries and with rate limits handed back to us. */
export function noRetryClient(client: WebClient): WebClient {
  let c = once.get(client);
  if (!c) {
    const options = { slackApiUrl: client.slackApiUrl, retryConfig: { retries: 0 }, rejectRateLimitedCalls: true };
    // A client without a token of its own (many workspaces) keeps sending the scoped installation's.
    c = guardClient(client instanceof RoutedWebClient ? client.derive(options) : new WebClient(client.token, options));
    once.set(client, c);
  }
  return c;
}

function platformCode(err: unknown): string | null {
  const e = err as { code?: unknown; data?: { error?: unknown } } | null;
  return e?.code === ErrorCode.PlatformError && typeof e.data?.error === 'string' ? e.data.error : null;
}

function rateLimitedMs(err: unknown): number | null {
  const e = err as { code?: unknown; retryAfter?: unknown } | null;
  return e?.code === ErrorCode.RateLimitedError ? Math.max(1, Number(e.retryAfter) || 1) * 1000 : null;
}

export async function postOnce(
  client: WebClient,
  channel: string,
  message: OnceMessage,
  options: PostOnceOptions = {},
): Promise<PostOnceOutcome> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const since = options.sinceMs ?? Date.now() - 60_000;
  const attempts = options.attempts ?? 3;
  let lastError: unknown = null;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      const res = await noRetryClient(client).chat.postMessage({
        channel,
        text: message.text,
        blocks: message.blocks,
        ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
      });
      if (res.ts && res.channel) return { kind: 'posted', channel: res.channel, ts: res.ts, readBack: false };
      return { kind: 'unknown', error: new Error('chat.postMessage answered without a ts') };
    } catch (err) {
      lastError = err;
      const code = platformCode(err);
      if (code) return { kind: 'refused', code, error: err };
      const wait = rateLimitedMs(err);
      if (wait !== null) {
        if (wait > (options.maxWaitMs ?? 10_000)) return { kind: 'refused', code: 'ratelimited', error: err };
        if (attempt < attempts) await sleep(wait);
        continue;
      }
      // A reset, a timeout, a 5xx: Slack may have stored it. Look before sending it again.
      if (!options.sentCheck) return { kind: 'unknown', error: err };
      let seen: Awaited<ReturnType<typeof readBackMessages>>;
      try {
        seen = await readBackMessages(client, channel, message.threadTs ?? null, since);
      } catch {
        return { kind: 'unknown', error: err };
      }
      const found = seen.find(options.sentCheck);
      if (found) return { kind: 'posted', channel, ts: found.ts, readBack: true };
    }
  }
  // Each failure above was settled (refused by a rate limit, or read back and absent): nothing is there.
  return { kind: 'not-sent', error: lastError };
}
