// Slack allows a commercially distributed app that is not on the Marketplace one conversations.history
// and one conversations.replies call a minute per workspace, with at most 15 messages each (internal
// and Marketplace apps are exempt). Reading Slack back (read-back.ts) is how a post whose outcome was
// lost is told apart from one that never arrived, so under that limit the read-back must stay correct:
//
// - every history/replies call waits for the workspace's slot (a bucket in the store: one call a minute
//   per method and workspace, shared by every replica), at most `maxWaitMs`; past that it fails;
// - it asks for at most 15 messages, and never for a second page: when the newest 15 do not reach back
//   far enough the read-back fails instead of answering "not there".
//
// A read-back that fails is "cannot tell", which every caller already treats as "do not post again"
// (lost beats doubled): the pacer tries later (each try waits for the next allowed call), the watcher
// keeps the watch and asks again on its next look. So a duplicate is never posted; a post can be late,
// and in a channel so busy that 15 messages never reach back to it, not re-sent at all.
import type { WebClient } from '@slack/web-api';

/** Messages a limited app may read per call. */
export const LIMITED_HISTORY_MESSAGES = 15;

/** The methods the limit covers. */
export const LIMITED_HISTORY_METHODS = ['conversations.history', 'conversations.replies'] as const;

/** Where the calls' slots come from (the store's bucket, so every replica shares them). */
export interface HistorySlots {
  /** Takes the slot `key` if free; otherwise how long until it is. */
  take(key: string): Promise<{ granted: boolean; waitMs: number }>;
}

/** A read-back the limit does not allow now (no slot in time, or a second page). */
export class HistoryLimitedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HistoryLimitedError';
  }
}

type MakeRequest = (url: string, body: Record<string, unknown>, headers?: Record<string, string>) => Promise<unknown>;
const LIMITED = Symbol('historyLimited');

/**
 * Puts a client's conversations.history / conversations.replies calls under the limit: one page of at
 * most 15 messages, after the workspace's slot (`scope()` names the workspace; '' with one workspace).
 */
export function limitHistory<C extends WebClient>(
  client: C,
  options: {
    slots: HistorySlots;
    scope: () => string;
    maxWaitMs: number;
    sleep?: (ms: number) => Promise<void>;
  },
): C {
  const marked = client as unknown as { [LIMITED]?: boolean; makeRequest?: MakeRequest };
  if (marked[LIMITED]) return client;
  const original = marked.makeRequest;
  if (typeof original !== 'function') throw new Error('the Slack Web API client has no makeRequest to limit');
  marked[LIMITED] = true;
  const send = original.bind(client);
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  marked.makeRequest = async (url, body, headers) => {
    // The client asks for `<slackApiUrl><method>`.
    const method = LIMITED_HISTORY_METHODS.find((m) => url === m || url.endsWith(`/${m}`));
    if (!method) return send(url, body, headers);
    if (body.cursor) {
      throw new HistoryLimitedError(`${method}: one page of ${LIMITED_HISTORY_MESSAGES} messages only (distribution)`);
    }
    const limit = Math.min(Number(body.limit) || LIMITED_HISTORY_MESSAGES, LIMITED_HISTORY_MESSAGES);
    const key = `${options.scope()}:${method}`;
    let waited = 0;
    for (;;) {
      const slot = await options.slots.take(key);
      if (slot.granted) break;
      const wait = Math.max(10, slot.waitMs);
      if (waited + wait > options.maxWaitMs) {
        throw new HistoryLimitedError(`${method}: the next allowed call is ${Math.ceil(wait / 1000)} s away`);
      }
      await sleep(wait);
      waited += wait;
    }
    return send(url, { ...body, limit }, headers);
  };
  return client;
}
