// Reading Slack back: what is already in a thread or a channel. The pacer uses it to learn whether a
// post whose outcome was unknown (5xx, network error) arrived before it sends that post again, and
// the watcher to learn whether a card or reply a dead process claimed made it. Only ever a read.
//
// Many workspaces: a channel can be shared (Slack Connect) by two installations of this app, whose tenants
// may hand out the same execution id, so a card naming the id can be the other installation's. A message
// read back counts only when this installation's own bot posted it (its bot user id or bot id, from the
// stored installation; auth.test for a client of one token). When that is unknown, the read-back fails:
// "cannot tell", which every caller treats as "do not post again".
import type { WebClient } from '@slack/web-api';
import type { OwnBot } from '../../tenants/tenant-scope.ts';
import { currentInstallation, RoutedWebClient } from '../../tenants/tenant-scope.ts';

/** A message as read back from Slack. */
export interface SeenMessage {
  ts: string;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: Block Kit blocks pass through untouched
  blocks?: any[];
}

/** auth.test answers, per client and token (a client with a token of its own: a request's, a step's). */
const botsByToken = new WeakMap<WebClient, Map<string, Promise<OwnBot>>>();

/**
 * The bot of the installation in scope, whose messages alone a read-back may count; null outside any
 * installation (single-workspace mode reads as before). Throws when it cannot be known.
 */
export async function ownBotOf(client: WebClient): Promise<OwnBot | null> {
  const installationId = currentInstallation();
  if (!installationId) return null;
  let bot: OwnBot | undefined;
  if (client instanceof RoutedWebClient) bot = await client.ownBot();
  if (!bot) {
    const known = botsByToken.get(client) ?? new Map<string, Promise<OwnBot>>();
    botsByToken.set(client, known);
    const key = client.token ?? `installation:${installationId}`;
    let asked = known.get(key);
    if (!asked) {
      asked = client.auth.test().then((res) => ({ userId: res.user_id ?? null, botId: res.bot_id ?? null }));
      asked.catch(() => known.delete(key));
      known.set(key, asked);
    }
    bot = await asked;
  }
  if (!bot.userId && !bot.botId) throw new Error('the bot of the installation in scope is unknown: cannot read back');
  return bot;
}

/** Whether `bot` (null: any sender, one workspace) posted the message. */
export function postedBy(bot: OwnBot | null, message: { user?: string; bot_id?: string }): boolean {
  if (!bot) return true;
  return (bot.botId !== null && message.bot_id === bot.botId) || (bot.userId !== null && message.user === bot.userId);
}

/** Whether a message read back from Slack is this job's message (or a digest holding it). */
export type SentCheck = (message: SeenMessage) => boolean;

const PAGES = 5;

/**
 * Replies in a thread (without the parent) or, with threadTs null, top-level messages since oldestMs; with an
 * installation in scope, only those its own bot posted. More than PAGES pages: throws (cannot tell).
 */
export async function readBackMessages(
  client: WebClient,
  channel: string,
  threadTs: string | null,
  oldestMs: number,
): Promise<SeenMessage[]> {
  const bot = await ownBotOf(client);
  const out: SeenMessage[] = [];
  const oldest = (Math.max(0, oldestMs) / 1000).toFixed(6);
  let cursor: string | undefined;
  for (let page = 0; page < PAGES; page++) {
    const res = threadTs
      ? await client.conversations.replies({ channel, ts: threadTs, oldest, limit: 200, ...(cursor ? { cursor } : {}) })
      : await client.conversations.history({ channel, oldest, limit: 200, ...(cursor ? { cursor } : {}) });
    for (const m of res.messages ?? []) {
      if (!m.ts || m.ts === threadTs) continue;
      // History lists top-level messages; a thread reply broadcast to the channel is not a top-level post.
      if (!threadTs && m.thread_ts && m.thread_ts !== m.ts) continue;
      // Another installation's bot (a shared channel) or a person: not ours, whatever it names.
      if (!postedBy(bot, m)) continue;
      out.push({ ts: m.ts, text: m.text ?? '', ...(m.blocks ? { blocks: m.blocks } : {}) });
    }
    cursor = res.response_metadata?.next_cursor || undefined;
    if (!cursor) return out;
  }
  // A long thread (a card inside a busy one) or channel: what was not read cannot be told apart from absent.
  throw new Error('more messages than a read-back reads: cannot tell');
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
