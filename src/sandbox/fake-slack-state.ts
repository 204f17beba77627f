// What the fake Slack remembers, in plain JSON-friendly objects so the sandbox UI can render and
// stream it as-is, plus the default workspace everyone (tests, sandbox) starts from.

export interface FakeUser {
  id: string;
  name: string;
  real_name: string;
  email: string;
  tz: string;
  tz_label: string;
  tz_offset: number;
  title?: string;
  is_admin?: boolean;
  /** A workspace owner (users.info is_owner). */
  is_owner?: boolean;
  is_bot?: boolean;
  deleted?: boolean;
  /** The person's own workspace when it is not the fake's (Slack Connect, or a sibling Grid workspace). */
  team_id?: string;
  /** The person's Enterprise Grid org, when they are in one (default: the fake's own org, if any). */
  enterprise_id?: string;
}

export interface FakeChannel {
  id: string;
  name: string;
  is_private?: boolean;
  is_archived?: boolean;
  /** Whether the bot is in the channel; posting elsewhere answers not_in_channel. Default true. */
  is_member?: boolean;
  /** Human members; default every non-bot user of the workspace. */
  members?: string[];
  topic?: string;
  purpose?: string;
}

export interface FakeMessageRevision {
  text: string;
  blocks?: unknown[];
  /** ts of the edit that replaced this revision. */
  replaced_at: string;
}

/** A file uploaded with files.getUploadURLExternal (+ POST + files.completeUploadExternal). */
export interface FakeFile {
  id: string;
  name: string;
  title: string;
  size: number;
  mimetype: string;
  filetype: string;
  created: number;
  user: string;
  /** The uploaded text; null until the bytes were POSTed to the upload URL, and for an image. */
  content: string | null;
  /** The bytes were POSTed to the upload URL (they are kept in `state.fileBytes`). */
  uploaded: boolean;
  /** Set by files.completeUploadExternal. */
  shared: boolean;
  /** When an image may be shown through `slack_file` (Slack processes an upload after completing it). */
  ready_at?: number;
  url_private: string;
}

export interface FakeMessage {
  type: 'message';
  channel: string;
  ts: string;
  thread_ts?: string;
  user?: string;
  bot_id?: string;
  app_id?: string;
  team: string;
  text: string;
  blocks?: unknown[];
  attachments?: unknown[];
  metadata?: unknown;
  reply_broadcast?: boolean;
  /** Files shared with this message (files.completeUploadExternal). */
  files?: FakeFile[];
  edited?: { user: string; ts: string };
  /** Earlier revisions, oldest first (chat.update / response_url replace_original). */
  history: FakeMessageRevision[];
}

export interface FakeEphemeral {
  channel: string;
  user: string;
  ts: string;
  thread_ts?: string;
  text: string;
  blocks?: unknown[];
  source: 'api' | 'response_url';
  /** Slack itself said it (a command no app of the workspace has), not the bot. */
  from?: 'slackbot';
  /** Set when a response_url later replaced or deleted it. */
  replaced?: boolean;
  deleted?: boolean;
}

export interface FakeView {
  id: string;
  type: 'modal' | 'home';
  user_id: string | undefined;
  /** The view definition as the bot last sent it (title, blocks, callback_id, …). */
  view: Record<string, unknown>;
  /** What the user has entered; the sandbox UI writes here before it submits. */
  state: { values: Record<string, Record<string, unknown>> };
  hash: string;
  root_view_id: string | null;
  previous_view_id: string | null;
  external_id: string;
  closed: boolean;
  /**
   * The workspace of the installation whose token opened it (views.* through "Add to Slack"), sent back
   * as `app_installed_team_id`; null for an org-wide installation, unset for the fake's one bot token.
   */
  installedTeamId?: string | null;
}

export interface ResponseUrlPost {
  url: string;
  channel: string;
  user: string;
  message_ts?: string;
  body: {
    response_type?: 'ephemeral' | 'in_channel';
    replace_original?: boolean;
    delete_original?: boolean;
    text?: string;
    blocks?: unknown[];
    thread_ts?: string;
  };
  ok: boolean;
  error?: string;
  at: number;
}

export interface ApiCall {
  method: string;
  /** Arguments as parsed (JSON fields decoded), token removed. */
  args: Record<string, unknown>;
  ok: boolean;
  error?: string;
  status: number;
  at: number;
  /** The installation whose token made the call, when the token was issued through "Add to Slack". */
  installation?: string;
}

export interface FakeSlackState {
  teamId: string;
  /** The Enterprise Grid org the fake workspace is part of (auth.test's enterprise_id); null: none. */
  enterpriseId: string | null;
  teamDomain: string;
  botUserId: string;
  botId: string;
  appId: string;
  users: FakeUser[];
  channels: FakeChannel[];
  /** Direct-message channel per user (conversations.open, posting to a user id). */
  ims: Record<string, string>;
  /** Channel id → messages oldest first, thread replies included (they carry thread_ts). */
  messages: Record<string, FakeMessage[]>;
  ephemerals: FakeEphemeral[];
  views: Record<string, FakeView>;
  /** User id → id of their published Home tab view. */
  homeViews: Record<string, string>;
  /** User id → open modal stack, bottom (root) first. */
  modalStacks: Record<string, string[]>;
  responseUrlPosts: ResponseUrlPost[];
  calls: ApiCall[];
  /**
   * User groups: id → handle, members and the workspace it belongs to (absent: the fake's own, `teamId`).
   * As Slack's, a token reads only its own workspace's groups (an org-wide one's: with `team_id`).
   */
  usergroups: Record<string, FakeUserGroup>;
  /** Files by id, from files.getUploadURLExternal on. */
  files: Record<string, FakeFile>;
  /** The uploaded bytes by file id (apart from `files`, so no snapshot or answer carries them). */
  fileBytes: Record<string, Buffer>;
  /** Workflow Builder custom-step runs (function_executed sent, completeSuccess/completeError). */
  functionExecutions: Record<string, FakeFunctionExecution>;
}

export interface FakeUserGroup {
  handle: string;
  users: string[];
  /** The workspace the group is of; absent: the fake's own (`FakeSlackState.teamId`). */
  teamId?: string;
}

export interface FakeFunctionExecution {
  /** function_execution_id, `Fx…`. */
  id: string;
  workflowExecutionId: string;
  callbackId: string;
  inputs: Record<string, unknown>;
  /** The short-lived token sent as bot_access_token (`xwfp-…`); accepted like the bot token. */
  botAccessToken: string;
  /**
   * The installation the workflow runs in ("Add to Slack" installs): its token speaks for that installation,
   * as Slack's workflow tokens do (auth.test names its team, calls are recorded under it). Unset: the fake's one bot.
   */
  installation?: string;
  state: 'running' | 'completed' | 'failed';
  outputs?: Record<string, unknown>;
  error?: string;
  /** Output names the step's definition requires (completeSuccess checks them). */
  requiredOutputs: string[];
  startedAt: number;
  endedAt?: number;
}

export const DEFAULT_TEAM_ID = 'T0SANDBOX';
export const BOT_USER_ID = 'U0BOT';
export const BOT_ID = 'B0BOT';
export const APP_ID = 'A0SANDBOX';

// Offsets and labels are the standard-time ones; the fake does not follow daylight saving.
export const DEFAULT_USERS: readonly FakeUser[] = [
  {
    id: 'U01ALICE',
    name: 'alice',
    real_name: 'Alice Adams',
    email: 'alice@example.com',
    tz: 'Europe/Berlin',
    tz_label: 'Central European Time',
    tz_offset: 3600,
    title: 'SRE',
  },
  {
    id: 'U02BOB',
    name: 'bob',
    real_name: 'Bob Brown',
    email: 'bob@example.com',
    tz: 'America/New_York',
    tz_label: 'Eastern Standard Time',
    tz_offset: -18000,
    title: 'Approver',
    is_admin: true,
  },
  {
    id: 'U03CAROL',
    name: 'carol',
    real_name: 'Carol Chen',
    email: 'carol@example.com',
    tz: 'Asia/Tokyo',
    tz_label: 'Japan Standard Time',
    tz_offset: 32400,
    title: 'Platform engineer',
  },
];

export const DEFAULT_CHANNELS: readonly FakeChannel[] = [
  { id: 'C01OPS', name: 'ops', purpose: 'Operations' },
  { id: 'C02DEPLOYS', name: 'deploys', purpose: 'Deployments' },
  { id: 'C03APPROVALS', name: 'approvals', purpose: 'Runbook approvals' },
];

/** One user group, the approvers: Bob. */
export const DEFAULT_USERGROUPS: Readonly<Record<string, { handle: string; users: string[] }>> = {
  S0APPROVERS: { handle: 'approvers', users: ['U02BOB'] },
};

export function botUser(): FakeUser {
  return {
    id: BOT_USER_ID,
    name: 'runbook-bot',
    real_name: 'Runbook Bot',
    email: '',
    tz: 'America/Los_Angeles',
    tz_label: 'Pacific Standard Time',
    tz_offset: -28800,
    is_bot: true,
  };
}

export function createState(options: {
  teamId: string;
  users: readonly FakeUser[];
  channels: readonly FakeChannel[];
}): FakeSlackState {
  const humans = options.users.filter((u) => !u.is_bot).map((u) => u.id);
  return {
    teamId: options.teamId,
    enterpriseId: null,
    teamDomain: options.teamId.toLowerCase(),
    botUserId: BOT_USER_ID,
    botId: BOT_ID,
    appId: APP_ID,
    users: [...options.users.map((u) => ({ ...u })), botUser()],
    channels: options.channels.map((c) => ({ is_member: true, ...c, members: [...(c.members ?? humans)] })),
    ims: {},
    messages: {},
    ephemerals: [],
    views: {},
    homeViews: {},
    modalStacks: {},
    responseUrlPosts: [],
    calls: [],
    files: {},
    fileBytes: {},
    usergroups: Object.fromEntries(
      Object.entries(DEFAULT_USERGROUPS).map(([id, g]) => [id, { handle: g.handle, users: [...g.users] }]),
    ),
    functionExecutions: {},
  };
}
