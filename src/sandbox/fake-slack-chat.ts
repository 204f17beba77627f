// chat.* methods of the fake Web API, with Slack's answer shapes and error names.
import {
  bool,
  channelMembers,
  fail,
  invalidBlocks,
  isBotMember,
  jsonArg,
  type MethodArgs,
  type MethodContext,
  type MethodHandler,
  messagesOf,
  type ResolvedChannel,
  resolveChannel,
  type SlackBody,
  str,
  toApiMessage,
} from './fake-slack-context.ts';
import type { FakeEphemeral, FakeMessage } from './fake-slack-state.ts';

/** Slack rejects message text over 40,000 characters with msg_too_long. */
export const MAX_MESSAGE_TEXT = 40_000;

interface MessageContent {
  text: string | undefined;
  blocks: unknown[] | undefined;
  attachments: unknown[] | undefined;
  metadata: unknown;
}

/** Read and check text/blocks/attachments the way chat.postMessage/update/postEphemeral do. */
export function readMessageContent(ctx: MethodContext, args: MethodArgs): MessageContent | SlackBody {
  const text = str(args, 'text');
  const blocksArg = jsonArg(args, 'blocks');
  if (blocksArg && 'error' in blocksArg) return fail('invalid_blocks_format');
  const blocks = blocksArg?.value;
  if (blocks !== undefined && !Array.isArray(blocks)) return fail('invalid_blocks_format');
  const attachmentsArg = jsonArg(args, 'attachments');
  if (attachmentsArg && 'error' in attachmentsArg) return fail('invalid_attachments');
  const attachments = attachmentsArg?.value;
  if (attachments !== undefined && !Array.isArray(attachments)) return fail('invalid_attachments');
  const metadataArg = jsonArg(args, 'metadata');
  if (metadataArg && 'error' in metadataArg) return fail('invalid_metadata_format');
  if (text !== undefined && text.length > MAX_MESSAGE_TEXT) return fail('msg_too_long');
  if (blocks) {
    const errors = ctx.checkMessageBlocks(blocks);
    if (errors.length > 0) return invalidBlocks(errors);
  }
  return { text, blocks, attachments, metadata: metadataArg?.value };
}

function isBody(value: MessageContent | SlackBody): value is SlackBody {
  return 'ok' in value;
}

function hasContent(c: MessageContent): boolean {
  return (c.text !== undefined && c.text !== '') || (c.blocks?.length ?? 0) > 0 || (c.attachments?.length ?? 0) > 0;
}

function postable(ctx: MethodContext, channelRef: string | undefined): ResolvedChannel | SlackBody {
  const resolved = resolveChannel(ctx.state, channelRef);
  if (!resolved) return fail('channel_not_found');
  if (resolved.kind === 'channel' && resolved.channel.is_archived) return fail('is_archived');
  if (!isBotMember(resolved)) return fail('not_in_channel');
  return resolved;
}

/** A message the bot posts; also used by response_url "in_channel" answers. */
export function storeBotMessage(
  ctx: MethodContext,
  channelId: string,
  content: MessageContent,
  threadTs: string | undefined,
  replyBroadcast = false,
): FakeMessage {
  const { state } = ctx;
  const list = messagesOf(state, channelId);
  // A reply to a reply lands in the same thread, as in Slack.
  const parent = threadTs ? list.find((m) => m.ts === threadTs) : undefined;
  const message: FakeMessage = {
    type: 'message',
    channel: channelId,
    ts: ctx.nextTs(),
    user: ctx.bot?.userId ?? state.botUserId,
    bot_id: ctx.bot?.botId ?? state.botId,
    app_id: state.appId,
    team: state.teamId,
    text: content.text ?? '',
    history: [],
  };
  if (threadTs) message.thread_ts = parent?.thread_ts ?? threadTs;
  if (content.blocks) message.blocks = content.blocks;
  if (content.attachments) message.attachments = content.attachments;
  if (content.metadata !== undefined) message.metadata = content.metadata;
  if (replyBroadcast && threadTs) message.reply_broadcast = true;
  list.push(message);
  ctx.emit('message', { kind: 'posted', channel: channelId, ts: message.ts, message });
  return message;
}

/** Replace a message's content keeping its revisions; blocks absent means "keep", like Slack. */
export function reviseMessage(ctx: MethodContext, message: FakeMessage, content: MessageContent): void {
  message.history.push({ text: message.text, blocks: message.blocks, replaced_at: ctx.nextTs() });
  if (content.text !== undefined) message.text = content.text;
  if (content.blocks !== undefined) message.blocks = content.blocks;
  if (content.attachments !== undefined) message.attachments = content.attachments;
  message.edited = {
    user: ctx.bot?.userId ?? ctx.state.botUserId,
    ts: message.history[message.history.length - 1]!.replaced_at,
  };
  ctx.emit('message', { kind: 'updated', channel: message.channel, ts: message.ts, message });
}

export function removeMessage(ctx: MethodContext, message: FakeMessage): void {
  const list = messagesOf(ctx.state, message.channel);
  list.splice(list.indexOf(message), 1);
  ctx.emit('message', { kind: 'deleted', channel: message.channel, ts: message.ts, message });
}

export function storeEphemeral(ctx: MethodContext, e: Omit<FakeEphemeral, 'ts'>): FakeEphemeral {
  const ephemeral: FakeEphemeral = { ...e, ts: ctx.nextTs() };
  ctx.state.ephemerals.push(ephemeral);
  ctx.emit('message', { kind: 'ephemeral', channel: e.channel, ts: ephemeral.ts, message: ephemeral });
  return ephemeral;
}

const postMessage: MethodHandler = (ctx, args) => {
  const target = postable(ctx, str(args, 'channel'));
  if ('ok' in target) return target;
  const content = readMessageContent(ctx, args);
  if (isBody(content)) return content;
  if (!hasContent(content)) return fail('no_text');
  const message = storeBotMessage(ctx, target.id, content, str(args, 'thread_ts'), bool(args, 'reply_broadcast'));
  return { ok: true, channel: target.id, ts: message.ts, message: toApiMessage(ctx.state, message) };
};

function findMessage(ctx: MethodContext, args: MethodArgs, tsKey: string): FakeMessage | SlackBody {
  const resolved = resolveChannel(ctx.state, str(args, 'channel'));
  if (!resolved) return fail('channel_not_found');
  const ts = str(args, tsKey);
  const message = ctx.state.messages[resolved.id]?.find((m) => m.ts === ts);
  return message ?? fail('message_not_found');
}

const update: MethodHandler = (ctx, args) => {
  const message = findMessage(ctx, args, 'ts');
  if ('ok' in message) return message;
  if (message.bot_id !== (ctx.bot?.botId ?? ctx.state.botId)) return fail('cant_update_message');
  const content = readMessageContent(ctx, args);
  if (isBody(content)) return content;
  if (!hasContent(content) && content.text === undefined) return fail('no_text');
  reviseMessage(ctx, message, content);
  const out = toApiMessage(ctx.state, message);
  return { ok: true, channel: message.channel, ts: message.ts, text: message.text, message: out };
};

const postEphemeral: MethodHandler = (ctx, args) => {
  const target = postable(ctx, str(args, 'channel'));
  if ('ok' in target) return target;
  const user = str(args, 'user');
  if (!user || !ctx.state.users.some((u) => u.id === user)) return fail('user_not_found');
  if (!channelMembers(ctx.state, target).includes(user)) return fail('user_not_in_channel');
  const content = readMessageContent(ctx, args);
  if (isBody(content)) return content;
  if (!hasContent(content)) return fail('no_text');
  const ephemeral = storeEphemeral(ctx, {
    channel: target.id,
    user,
    text: content.text ?? '',
    ...(content.blocks ? { blocks: content.blocks } : {}),
    ...(str(args, 'thread_ts') ? { thread_ts: str(args, 'thread_ts') } : {}),
    source: 'api',
  });
  return { ok: true, message_ts: ephemeral.ts };
};

const deleteMessage: MethodHandler = (ctx, args) => {
  const message = findMessage(ctx, args, 'ts');
  if ('ok' in message) return message;
  if (message.bot_id !== (ctx.bot?.botId ?? ctx.state.botId)) return fail('cant_delete_message');
  removeMessage(ctx, message);
  return { ok: true, channel: message.channel, ts: message.ts };
};

const getPermalink: MethodHandler = (ctx, args) => {
  const message = findMessage(ctx, args, 'message_ts');
  if ('ok' in message) return message;
  const base = `https://${ctx.state.teamDomain}.slack.com/archives/${message.channel}/p${message.ts.replace('.', '')}`;
  const permalink =
    message.thread_ts && message.thread_ts !== message.ts
      ? `${base}?thread_ts=${message.thread_ts}&cid=${message.channel}`
      : base;
  return { ok: true, channel: message.channel, permalink };
};

export const chatMethods: Record<string, MethodHandler> = {
  'chat.postMessage': postMessage,
  'chat.update': update,
  'chat.postEphemeral': postEphemeral,
  'chat.delete': deleteMessage,
  'chat.getPermalink': getPermalink,
};
