// Reading Slack back: what is already in a thread or a channel. The pacer uses it to learn whether a
// post whose outcome was unknown (5xx, network error) arrived before it sends that post again, and
// the watcher to learn whether a card or reply a dead process claimed made it. Only ever a read.
import type { WebClient } from '@slack/web-api';

/** A message as read back from Slack. */
export interface SeenMessage {
  ts: string;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: Block Kit blocks pass through untouched
  blocks?: any[];
}

/** Whether a message read back from Slack is this job's message (or a digest holding it). */
export type SentCheck = (message: SeenMessage) => boolean;

const PAGES = 5;

/** Replies in a thread (without the parent) or, with threadTs null, top-level messages since oldestMs. */
export async function readBackMessages(
  client: WebClient,
  channel: string,
  threadTs: string | null,
  oldestMs: number,
): Promise<SeenMessage[]> {
  const out: SeenMessage[] = [];
  const oldest = (Math.max(0, oldestMs) / 1000).toFixed(6);
  let cursor: string | undefined;
  for (let page = 0; page < PAGES; page++) {
    const res = threadTs
      ? await client.conversations.replies({ channel, ts: threadTs, limit: 200, ...(cursor ? { cursor } : {}) })
      : await client.conversations.history({ channel, oldest, limit: 200, ...(cursor ? { cursor } : {}) });
    for (const m of res.messages ?? []) {
      if (!m.ts || m.ts === threadTs) continue;
      // History lists top-level messages; a thread reply broadcast to the channel is not a top-level post.
      if (!threadTs && m.thread_ts && m.thread_ts !== m.ts) continue;
      out.push({ ts: m.ts, text: m.text ?? '', ...(m.blocks ? { blocks: m.blocks } : {}) });
    }
    cursor = res.response_metadata?.next_cursor || undefined;
    if (!cursor) break;
  }
  return out;
}

/** `\`id\``, as every card, reply and digest line shows the execution. */
function marker(executionId: string): string {
  return `\`${executionId}\``;
}

function body(m: SeenMessage): string {
  return m.blocks ? `${m.text}\n${JSON.stringify(m.blocks)}` : m.text;
}

/** A reply, digest line or result card naming the execution (not its running card). */
export function namesFinished(executionId: string): SentCheck {
  const mark = marker(executionId);
  return (m) => body(m).includes(mark) && !m.text.endsWith(' is running');
}

/** Any card naming the execution, running or finished (a card someone posted but did not record). */
export function namesCard(executionId: string): SentCheck {
  const mark = marker(executionId);
  return (m) => Array.isArray(m.blocks) && JSON.stringify(m.blocks).includes(mark);
}

/** A finished (or stale) result card of the execution, not its running card. */
export function namesResultCard(executionId: string): SentCheck {
  const card = namesCard(executionId);
  return (m) => card(m) && !m.text.endsWith(' is running');
}
