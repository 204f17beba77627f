// auth.test, users.*, usergroups.* and conversations.* methods of the fake Web API: who is who, which
// channels and user groups exist, who is in them, and what was said there.
import {
  bool,
  channelMembers,
  fail,
  int,
  isBotMember,
  type MethodArgs,
  type MethodContext,
  type MethodHandler,
  openIm,
  type ResolvedChannel,
  resolveChannel,
  str,
  toApiMessage,
} from './fake-slack-context.ts';
import { compareTs } from './fake-slack-ids.ts';
import type { FakeChannel, FakeSlackState, FakeUser } from './fake-slack-state.ts';

// A fixed creation time keeps answers stable between runs (2024-11-21T09:06:40Z).
const CREATED = 1732180000;

function toApiUser(state: FakeSlackState, u: FakeUser): Record<string, unknown> {
  const [first = '', ...rest] = u.real_name.split(' ');
  const image = `https://secure.gravatar.com/avatar/${u.id.toLowerCase()}.jpg`;
  return {
    id: u.id,
    team_id: u.team_id ?? state.teamId,
    ...((u.enterprise_id ?? state.enterpriseId)
      ? {
          enterprise_user: {
            id: u.id,
            enterprise_id: u.enterprise_id ?? state.enterpriseId,
            teams: [u.team_id ?? state.teamId],
          },
        }
      : {}),
    name: u.name,
    deleted: u.deleted ?? false,
    color: '9f69e7',
    real_name: u.real_name,
    tz: u.tz,
    tz_label: u.tz_label,
    tz_offset: u.tz_offset,
    profile: {
      title: u.title ?? '',
      phone: '',
      skype: '',
      real_name: u.real_name,
      real_name_normalized: u.real_name,
      display_name: u.name,
      display_name_normalized: u.name,
      fields: null,
      status_text: '',
      status_emoji: '',
      status_expiration: 0,
      avatar_hash: 'g0000000000',
      ...(u.is_bot ? { bot_id: state.botId, api_app_id: state.appId, always_active: true } : { email: u.email }),
      first_name: first,
      last_name: rest.join(' '),
      image_24: image,
      image_48: image,
      image_72: image,
      team: state.teamId,
    },
    is_admin: u.is_admin ?? false,
    is_owner: u.is_owner ?? false,
    is_primary_owner: false,
    is_restricted: false,
    is_ultra_restricted: false,
    is_bot: u.is_bot ?? false,
    is_app_user: false,
    updated: CREATED,
    is_email_confirmed: !u.is_bot,
    who_can_share_contact_card: 'EVERYONE',
  };
}

function toApiChannel(state: FakeSlackState, resolved: ResolvedChannel): Record<string, unknown> {
  if (resolved.kind === 'im') {
    return {
      id: resolved.id,
      created: CREATED,
      is_archived: false,
      is_im: true,
      is_org_shared: false,
      context_team_id: state.teamId,
      updated: CREATED * 1000,
      user: resolved.user,
      is_user_deleted: false,
      priority: 0,
    };
  }
  const c: FakeChannel = resolved.channel;
  const isPrivate = c.is_private ?? false;
  return {
    id: c.id,
    name: c.name,
    is_channel: !isPrivate,
    is_group: false,
    is_im: false,
    is_mpim: false,
    is_private: isPrivate,
    created: CREATED,
    is_archived: c.is_archived ?? false,
    is_general: false,
    unlinked: 0,
    name_normalized: c.name,
    is_shared: false,
    is_org_shared: false,
    is_pending_ext_shared: false,
    pending_shared: [],
    context_team_id: state.teamId,
    updated: CREATED * 1000,
    parent_conversation: null,
    creator: state.users[0]?.id ?? '',
    is_ext_shared: false,
    shared_team_ids: [state.teamId],
    pending_connected_team_ids: [],
    is_member: c.is_member !== false,
    topic: { value: c.topic ?? '', creator: '', last_set: 0 },
    purpose: { value: c.purpose ?? '', creator: '', last_set: 0 },
    previous_names: [],
    num_members: channelMembers(state, resolved).length,
  };
}

// Cursors are opaque to callers; base64 of the next offset, in the spirit of Slack's.
function page<T>(items: T[], cursor: string | undefined, limit: number): { items: T[]; next: string } {
  const decoded = cursor ? Buffer.from(cursor, 'base64').toString('utf8') : '';
  const offset = decoded.startsWith('offset:') ? Number(decoded.slice(7)) || 0 : 0;
  const slice = items.slice(offset, offset + limit);
  const more = offset + limit < items.length;
  return { items: slice, next: more ? Buffer.from(`offset:${offset + limit}`).toString('base64') : '' };
}

/** A private channel the bot is not in does not exist as far as the bot can tell. */
function visibleChannel(state: FakeSlackState, ref: string | undefined): ResolvedChannel | undefined {
  const resolved = resolveChannel(state, ref);
  if (!resolved) return undefined;
  if (resolved.kind === 'channel' && resolved.channel.is_private && !isBotMember(resolved)) return undefined;
  return resolved;
}

const authTest: MethodHandler = (ctx) => ({
  ok: true,
  url: `https://${ctx.state.teamDomain}.slack.com/`,
  team: 'Sandbox',
  user: 'runbook-bot',
  team_id: ctx.state.teamId,
  user_id: ctx.state.botUserId,
  bot_id: ctx.state.botId,
  ...(ctx.state.enterpriseId ? { enterprise_id: ctx.state.enterpriseId } : {}),
  is_enterprise_install: false,
});

const usersInfo: MethodHandler = (ctx, args) => {
  const user = ctx.state.users.find((u) => u.id === str(args, 'user'));
  return user ? { ok: true, user: toApiUser(ctx.state, user) } : fail('user_not_found');
};

/**
 * The workspace a user group call reads, as Slack decides it: the token's own workspace; an org-wide token
 * must name one of its org's workspaces with `team_id`. An error name when it cannot.
 */
function groupsTeam(ctx: MethodContext, args: MethodArgs): { team: string } | { error: string } {
  const caller = ctx.caller ?? { team: ctx.state.teamId, orgTeams: [] };
  const asked = str(args, 'team_id');
  if (caller.team !== null)
    return asked && asked !== caller.team ? { error: 'team_access_not_granted' } : { team: caller.team };
  if (!asked) return { error: 'missing_argument' };
  return caller.orgTeams.includes(asked) ? { team: asked } : { error: 'team_access_not_granted' };
}

const groupsOfTeam = (ctx: MethodContext, team: string) =>
  Object.entries(ctx.state.usergroups).filter(([, g]) => (g.teamId ?? ctx.state.teamId) === team);

const usergroupsList: MethodHandler = (ctx, args) => {
  const where = groupsTeam(ctx, args);
  if ('error' in where) return fail(where.error);
  const withUsers = bool(args, 'include_users');
  return {
    ok: true,
    usergroups: groupsOfTeam(ctx, where.team).map(([id, g]) => ({
      id,
      team_id: where.team,
      handle: g.handle,
      name: g.handle,
      user_count: g.users.length,
      ...(withUsers ? { users: [...g.users] } : {}),
    })),
  };
};

/** Another workspace's group is no_such_subteam, as in Slack. */
const usergroupsUsersList: MethodHandler = (ctx, args) => {
  const where = groupsTeam(ctx, args);
  if ('error' in where) return fail(where.error);
  const id = str(args, 'usergroup') ?? '';
  const group = groupsOfTeam(ctx, where.team).find(([g]) => g === id)?.[1];
  return group ? { ok: true, users: [...group.users] } : fail('no_such_subteam');
};

/** The workspaces the token may act in: an org-wide token's org's, else its own. */
const authTeamsList: MethodHandler = (ctx) => {
  const caller = ctx.caller ?? { team: ctx.state.teamId, orgTeams: [] };
  const teams = caller.team !== null ? [caller.team] : caller.orgTeams;
  return { ok: true, teams: teams.map((id) => ({ id, name: id })), response_metadata: { next_cursor: '' } };
};

const usersLookupByEmail: MethodHandler = (ctx, args) => {
  const email = str(args, 'email')?.toLowerCase();
  const user = ctx.state.users.find((u) => !u.is_bot && u.email.toLowerCase() === email);
  return user ? { ok: true, user: toApiUser(ctx.state, user) } : fail('users_not_found');
};

const conversationsInfo: MethodHandler = (ctx, args) => {
  const resolved = visibleChannel(ctx.state, str(args, 'channel'));
  return resolved ? { ok: true, channel: toApiChannel(ctx.state, resolved) } : fail('channel_not_found');
};

const conversationsList: MethodHandler = (ctx, args) => {
  const types = new Set((str(args, 'types') ?? 'public_channel').split(',').map((t) => t.trim()));
  const excludeArchived = bool(args, 'exclude_archived');
  const all: ResolvedChannel[] = [];
  for (const channel of ctx.state.channels) {
    const resolved: ResolvedChannel = { kind: 'channel', id: channel.id, channel };
    const type = channel.is_private ? 'private_channel' : 'public_channel';
    if (!types.has(type)) continue;
    if (channel.is_private && !isBotMember(resolved)) continue;
    if (excludeArchived && channel.is_archived) continue;
    all.push(resolved);
  }
  if (types.has('im')) {
    for (const [user, id] of Object.entries(ctx.state.ims)) all.push({ kind: 'im', id, user });
  }
  const { items, next } = page(all, str(args, 'cursor'), int(args, 'limit', 100));
  return {
    ok: true,
    channels: items.map((r) => toApiChannel(ctx.state, r)),
    response_metadata: { next_cursor: next },
  };
};

const conversationsMembers: MethodHandler = (ctx, args) => {
  const resolved = visibleChannel(ctx.state, str(args, 'channel'));
  if (!resolved) return fail('channel_not_found');
  const { items, next } = page(channelMembers(ctx.state, resolved), str(args, 'cursor'), int(args, 'limit', 100));
  return { ok: true, members: items, response_metadata: { next_cursor: next } };
};

const CONVERSATION_TYPES = new Set(['public_channel', 'private_channel', 'mpim', 'im']);

/**
 * The conversations `user` (default: the bot) is in. Private ones are listed only where the bot is a member
 * too, as Slack does for a bot token; is_member and num_members are left out (Slack omits them here).
 */
const usersConversations: MethodHandler = (ctx, args) => {
  const userId = str(args, 'user') ?? ctx.state.botUserId;
  if (!ctx.state.users.some((u) => u.id === userId)) return fail('user_not_found');
  const types = new Set((str(args, 'types') ?? 'public_channel').split(',').map((t) => t.trim()));
  if ([...types].some((t) => !CONVERSATION_TYPES.has(t))) return fail('invalid_types');
  const limit = args.limit === undefined ? 100 : Number(args.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 999) return fail('invalid_limit');
  const cursor = str(args, 'cursor');
  if (cursor && !Buffer.from(cursor, 'base64').toString('utf8').startsWith('offset:')) return fail('invalid_cursor');
  const excludeArchived = bool(args, 'exclude_archived');
  const all: ResolvedChannel[] = [];
  for (const channel of ctx.state.channels) {
    const resolved: ResolvedChannel = { kind: 'channel', id: channel.id, channel };
    if (!types.has(channel.is_private ? 'private_channel' : 'public_channel')) continue;
    if (excludeArchived && channel.is_archived) continue;
    if (!channelMembers(ctx.state, resolved).includes(userId)) continue;
    if (channel.is_private && !isBotMember(resolved)) continue;
    all.push(resolved);
  }
  if (types.has('im')) {
    for (const [user, id] of Object.entries(ctx.state.ims)) {
      if (userId === ctx.state.botUserId || user === userId) all.push({ kind: 'im', id, user });
    }
  }
  const { items, next } = page(all, cursor, limit);
  return {
    ok: true,
    channels: items.map((r) => {
      const { is_member: _member, num_members: _count, ...limited } = toApiChannel(ctx.state, r);
      return limited;
    }),
    response_metadata: { next_cursor: next },
  };
};

const conversationsJoin: MethodHandler = (ctx, args) => {
  const resolved = visibleChannel(ctx.state, str(args, 'channel'));
  if (!resolved) return fail('channel_not_found');
  if (resolved.kind === 'im' || resolved.channel.is_private) return fail('method_not_supported_for_channel_type');
  if (resolved.channel.is_archived) return fail('is_archived');
  if (resolved.channel.is_member !== false) {
    return {
      ok: true,
      channel: toApiChannel(ctx.state, resolved),
      warning: 'already_in_channel',
      response_metadata: { warnings: ['already_in_channel'] },
    };
  }
  resolved.channel.is_member = true;
  return { ok: true, channel: toApiChannel(ctx.state, resolved) };
};

const conversationsOpen: MethodHandler = (ctx, args) => {
  const channelArg = str(args, 'channel');
  const users = (str(args, 'users') ?? '').split(',').filter((u) => u !== '');
  let userId: string | undefined;
  if (channelArg) {
    userId = Object.entries(ctx.state.ims).find(([, id]) => id === channelArg)?.[0];
    if (!userId) return fail('channel_not_found');
  } else {
    if (users.length === 0) return fail('users_list_not_supplied');
    // Group DMs (mpim) are not modelled: the bot only ever opens one-to-one DMs.
    if (users.length > 1) return fail('fake_slack_unsupported_mpim');
    userId = users[0];
  }
  if (!userId || !ctx.state.users.some((u) => u.id === userId && !u.is_bot)) return fail('user_not_found');
  const existed = ctx.state.ims[userId] !== undefined;
  const id = openIm(ctx.state, userId);
  const resolved: ResolvedChannel = { kind: 'im', id, user: userId };
  const channel = bool(args, 'return_im') ? toApiChannel(ctx.state, resolved) : { id };
  return existed ? { ok: true, no_op: true, already_open: true, channel } : { ok: true, channel };
};

const conversationsHistory: MethodHandler = (ctx, args) => {
  const resolved = visibleChannel(ctx.state, str(args, 'channel'));
  if (!resolved) return fail('channel_not_found');
  if (!isBotMember(resolved)) return fail('not_in_channel');
  const latest = str(args, 'latest');
  const oldest = str(args, 'oldest');
  const inclusive = bool(args, 'inclusive');
  const inRange = (ts: string): boolean => {
    if (latest) {
      const c = compareTs(ts, latest);
      if (c > 0 || (c === 0 && !inclusive)) return false;
    }
    if (oldest) {
      const c = compareTs(ts, oldest);
      if (c < 0 || (c === 0 && !inclusive)) return false;
    }
    return true;
  };
  // History shows top-level messages (and replies broadcast to the channel), newest first.
  const top = (ctx.state.messages[resolved.id] ?? [])
    .filter((m) => !m.thread_ts || m.thread_ts === m.ts || m.reply_broadcast)
    .filter((m) => inRange(m.ts))
    .sort((a, b) => compareTs(b.ts, a.ts));
  const { items, next } = page(top, str(args, 'cursor'), int(args, 'limit', 100));
  return {
    ok: true,
    messages: items.map((m) => toApiMessage(ctx.state, m)),
    has_more: next !== '',
    pin_count: 0,
    channel_actions_ts: null,
    channel_actions_count: 0,
    response_metadata: { next_cursor: next },
  };
};

const conversationsReplies: MethodHandler = (ctx, args) => {
  const resolved = visibleChannel(ctx.state, str(args, 'channel'));
  if (!resolved) return fail('channel_not_found');
  if (!isBotMember(resolved)) return fail('not_in_channel');
  const list = ctx.state.messages[resolved.id] ?? [];
  const ts = str(args, 'ts');
  const target = list.find((m) => m.ts === ts);
  if (!target) return fail('thread_not_found');
  const threadTs = target.thread_ts ?? target.ts;
  const thread = list
    .filter((m) => m.ts === threadTs || m.thread_ts === threadTs)
    .sort((a, b) => compareTs(a.ts, b.ts));
  const { items, next } = page(thread, str(args, 'cursor'), int(args, 'limit', 1000));
  return {
    ok: true,
    messages: items.map((m) => toApiMessage(ctx.state, m)),
    has_more: next !== '',
    response_metadata: { next_cursor: next },
  };
};

export const directoryMethods: Record<string, MethodHandler> = {
  'auth.test': authTest,
  'users.info': usersInfo,
  'users.lookupByEmail': usersLookupByEmail,
  'users.conversations': usersConversations,
  'usergroups.list': usergroupsList,
  'usergroups.users.list': usergroupsUsersList,
  'auth.teams.list': authTeamsList,
  'conversations.info': conversationsInfo,
  'conversations.list': conversationsList,
  'conversations.members': conversationsMembers,
  'conversations.join': conversationsJoin,
  'conversations.open': conversationsOpen,
  'conversations.history': conversationsHistory,
  'conversations.replies': conversationsReplies,
};
