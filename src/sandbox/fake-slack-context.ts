// What every fake Web API method gets: the state, the clock, event emission and the Block Kit
// checks; plus the small argument readers shared by all methods. A method returns the JSON body
// Slack would answer with — `{ ok: true, ... }` or `{ ok: false, error }` — always with HTTP 200.
import type { FakeChannel, FakeMessage, FakeSlackState } from './fake-slack-state.ts';

export type SlackBody = { ok: boolean; [key: string]: unknown };
export type MethodArgs = Record<string, unknown>;

export interface TriggerGrant {
  user: string | undefined;
}

export interface MethodContext {
  state: FakeSlackState;
  now: () => number;
  nextTs: () => string;
  emit: (event: 'message' | 'view', payload: unknown) => void;
  /** Block Kit problems of a message's blocks, as Slack words them; empty when fine. */
  checkMessageBlocks: (blocks: unknown[]) => string[];
  /** Block Kit problems of a view; empty when fine. */
  checkViewBlocks: (view: Record<string, unknown>) => string[];
  /** The bot the calling token posts as, when its installation has one of its own (else the state's). */
  bot?: { userId: string; botId: string };
  /**
   * The workspace(s) of the calling token ("Add to Slack" tokens): its workspace, or for an org-wide
   * install none (`team: null`) and the org's workspaces, one of which a call names with `team_id`.
   * Absent: the fake's one bot token, of the fake's own workspace.
   */
  caller?: { team: string | null; orgTeams: readonly string[] };
  /** Spend a trigger_id: returns the user it was minted for, or Slack's error name. */
  consumeTrigger: (triggerId: string) => TriggerGrant | { error: string };
}

export type MethodHandler = (ctx: MethodContext, args: MethodArgs) => SlackBody;

export function fail(error: string, extra: Record<string, unknown> = {}): SlackBody {
  return { ok: false, error, ...extra };
}

/** Slack's wording for invalid_blocks: the errors, repeated as "[ERROR] …" response messages. */
export function invalidBlocks(errors: string[], error = 'invalid_blocks'): SlackBody {
  return fail(error, { errors, response_metadata: { messages: errors.map((e) => `[ERROR] ${e}`) } });
}

export function str(args: MethodArgs, key: string): string | undefined {
  const value = args[key];
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

export function bool(args: MethodArgs, key: string): boolean {
  const value = args[key];
  return value === true || value === 'true' || value === '1' || value === 1;
}

export function int(args: MethodArgs, key: string, fallback: number): number {
  const n = Number(args[key]);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : fallback;
}

/** Form-encoded calls carry blocks/view/attachments as JSON strings; JSON calls carry objects. */
export function jsonArg(args: MethodArgs, key: string): { value: unknown } | { error: string } | undefined {
  const raw = args[key];
  if (raw === undefined || raw === null || raw === '') return undefined;
  if (typeof raw !== 'string') return { value: raw };
  try {
    return { value: JSON.parse(raw) };
  } catch {
    return { error: `invalid_${key}` };
  }
}

export type ResolvedChannel =
  | { kind: 'channel'; id: string; channel: FakeChannel }
  | { kind: 'im'; id: string; user: string };

/** A channel argument may be an id, "#name", a bare name, a DM id or a user id (→ their DM). */
export function resolveChannel(state: FakeSlackState, ref: string | undefined): ResolvedChannel | undefined {
  if (!ref) return undefined;
  const byId = state.channels.find((c) => c.id === ref);
  if (byId) return { kind: 'channel', id: byId.id, channel: byId };
  const name = ref.startsWith('#') ? ref.slice(1) : ref;
  const byName = state.channels.find((c) => c.name === name);
  if (byName) return { kind: 'channel', id: byName.id, channel: byName };
  const imUser = Object.entries(state.ims).find(([, id]) => id === ref)?.[0];
  if (imUser) return { kind: 'im', id: ref, user: imUser };
  if (state.users.some((u) => u.id === ref && !u.is_bot)) return { kind: 'im', id: openIm(state, ref), user: ref };
  return undefined;
}

/** DM channel ids are derived from the user id (U01ALICE → D01ALICE) so tests can predict them. */
export function openIm(state: FakeSlackState, userId: string): string {
  const existing = state.ims[userId];
  if (existing) return existing;
  const id = `D${userId.slice(1)}`;
  state.ims[userId] = id;
  return id;
}

export function isBotMember(resolved: ResolvedChannel): boolean {
  return resolved.kind === 'im' || resolved.channel.is_member !== false;
}

export function channelMembers(state: FakeSlackState, resolved: ResolvedChannel): string[] {
  if (resolved.kind === 'im') return [resolved.user, state.botUserId];
  const humans = resolved.channel.members ?? [];
  return resolved.channel.is_member === false ? [...humans] : [...humans, state.botUserId];
}

export function messagesOf(state: FakeSlackState, channelId: string): FakeMessage[] {
  let list = state.messages[channelId];
  if (!list) {
    list = [];
    state.messages[channelId] = list;
  }
  return list;
}

/** A stored message as the Web API shows it (history, replies, postMessage/update answers). */
export function toApiMessage(state: FakeSlackState, m: FakeMessage): Record<string, unknown> {
  const out: Record<string, unknown> = { type: 'message' };
  if (m.user) out.user = m.user;
  if (m.bot_id) {
    out.bot_id = m.bot_id;
    out.app_id = m.app_id;
  }
  out.text = m.text;
  if (m.blocks) out.blocks = m.blocks;
  if (m.attachments) out.attachments = m.attachments;
  if (m.metadata) out.metadata = m.metadata;
  if (m.files) {
    out.files = m.files.map(
      ({ content: _content, shared: _shared, uploaded: _uploaded, ready_at: _ready, ...file }) => file,
    );
  }
  out.ts = m.ts;
  out.team = m.team;
  if (m.edited) out.edited = m.edited;
  if (m.bot_id) {
    out.bot_profile = {
      id: m.bot_id,
      app_id: m.app_id,
      name: 'Runbook Bot',
      deleted: false,
      team_id: state.teamId,
      icons: {},
    };
  }
  if (m.thread_ts) {
    out.thread_ts = m.thread_ts;
    if (m.thread_ts !== m.ts) out.parent_user_id = parentOf(state, m)?.user;
  }
  const replies = (state.messages[m.channel] ?? []).filter((r) => r.thread_ts === m.ts && r.ts !== m.ts);
  if (replies.length > 0) {
    out.thread_ts = m.ts;
    out.reply_count = replies.length;
    out.reply_users_count = new Set(replies.map((r) => r.user)).size;
    out.latest_reply = replies[replies.length - 1]!.ts;
    out.reply_users = [...new Set(replies.map((r) => r.user))];
  }
  return out;
}

function parentOf(state: FakeSlackState, m: FakeMessage): FakeMessage | undefined {
  return (state.messages[m.channel] ?? []).find((p) => p.ts === m.thread_ts);
}
