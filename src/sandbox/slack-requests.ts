// Inbound requests shaped and signed exactly like Slack's, so the bot cannot tell a test or the
// sandbox from a real workspace. Shapes follow Slack's payload reference (slash commands,
// block_actions, view_submission/view_closed, block_suggestion, shortcut, event_callback) and the
// types Bolt itself declares for them; signing follows "Verifying requests from Slack".
import { createHmac, randomBytes } from 'node:crypto';

const DEFAULT_APP_ID = 'A0SANDBOX';
const DEFAULT_TEAM_DOMAIN = 'sandbox';
// The legacy verification token is still sent by Slack (deprecated, never checked by Bolt).
const DEFAULT_VERIFICATION_TOKEN = 'sandboxVerificationToken';
const DEFAULT_BOT_USER_ID = 'U0BOT';

export interface SlackSignatureHeaders {
  'x-slack-signature': string;
  'x-slack-request-timestamp': string;
}

/** v0=hex(hmac_sha256(secret, `v0:${ts}:${body}`)) — Slack's signing scheme, version 0. */
export function signSlackRequest(
  signingSecret: string,
  rawBody: string,
  timestampSeconds: number,
): SlackSignatureHeaders {
  const ts = String(Math.floor(timestampSeconds));
  const hex = createHmac('sha256', signingSecret).update(`v0:${ts}:${rawBody}`).digest('hex');
  return { 'x-slack-signature': `v0=${hex}`, 'x-slack-request-timestamp': ts };
}

/** Seconds with six decimals, like every `action_ts`/`event_ts` Slack sends. */
function slackTimestamp(nowMs: number = Date.now()): string {
  return (nowMs / 1000).toFixed(6);
}

function randomDigits(count: number): string {
  let out = '';
  for (const byte of randomBytes(count)) out += String(byte % 10);
  return out;
}

export interface SlashCommandInput {
  command: string;
  text: string;
  userId: string;
  userName?: string;
  channelId: string;
  channelName?: string;
  teamId: string;
  teamDomain?: string;
  triggerId: string;
  responseUrl: string;
  apiAppId?: string;
  token?: string;
  /** Enterprise Grid: the org, and whether the app is installed org-wide. */
  enterpriseId?: string;
  isEnterpriseInstall?: boolean;
}

/** application/x-www-form-urlencoded, fields in the order Slack sends them. */
export function slashCommandBody(p: SlashCommandInput): string {
  const params = new URLSearchParams();
  params.set('token', p.token ?? DEFAULT_VERIFICATION_TOKEN);
  params.set('team_id', p.teamId);
  params.set('team_domain', p.teamDomain ?? DEFAULT_TEAM_DOMAIN);
  if (p.enterpriseId) params.set('enterprise_id', p.enterpriseId);
  params.set('channel_id', p.channelId);
  params.set('channel_name', p.channelName ?? channelNameFor(p.channelId));
  params.set('user_id', p.userId);
  params.set('user_name', p.userName ?? p.userId.toLowerCase());
  params.set('command', p.command);
  params.set('text', p.text);
  params.set('api_app_id', p.apiAppId ?? DEFAULT_APP_ID);
  params.set('is_enterprise_install', p.isEnterpriseInstall ? 'true' : 'false');
  params.set('response_url', p.responseUrl);
  params.set('trigger_id', p.triggerId);
  return params.toString();
}

// Slack sends "directmessage" as the channel name of a DM and "privategroup" for private ones.
function channelNameFor(channelId: string): string {
  return channelId.startsWith('D') ? 'directmessage' : channelId.toLowerCase();
}

/** Fields shared by every interaction payload: who, where, which app. */
export interface InteractionActor {
  userId: string;
  userName?: string;
  teamId: string;
  teamDomain?: string;
  apiAppId?: string;
  token?: string;
  /** The person's Enterprise Grid org, and whether the app is installed org-wide there. */
  enterpriseId?: string;
  isEnterpriseInstall?: boolean;
}

function gridOf(p: InteractionActor): { enterprise: { id: string } | null; is_enterprise_install: boolean } {
  return {
    enterprise: p.enterpriseId ? { id: p.enterpriseId } : null,
    is_enterprise_install: p.isEnterpriseInstall === true,
  };
}

function teamOf(p: InteractionActor): { id: string; domain: string } {
  return { id: p.teamId, domain: p.teamDomain ?? DEFAULT_TEAM_DOMAIN };
}

function userOf(p: InteractionActor): { id: string; username: string; name: string; team_id: string } {
  const name = p.userName ?? p.userId.toLowerCase();
  return { id: p.userId, username: name, name, team_id: p.teamId };
}

/** One element of `actions` — whatever the element type sends, plus ids and action_ts. */
export interface BlockActionInput {
  action_id: string;
  block_id: string;
  type: string;
  value?: string;
  text?: { type: 'plain_text'; text: string; emoji?: boolean };
  selected_option?: { text: { type: 'plain_text' | 'mrkdwn'; text: string }; value: string } | null;
  selected_options?: Array<{ text: { type: 'plain_text' | 'mrkdwn'; text: string }; value: string }>;
  selected_date?: string | null;
  selected_time?: string | null;
  selected_user?: string | null;
  selected_users?: string[];
  selected_channel?: string | null;
  selected_conversation?: string | null;
  action_ts?: string;
  [key: string]: unknown;
}

export type ViewStateValues = Record<string, Record<string, Record<string, unknown>>>;

export interface BlockActionsInput extends InteractionActor {
  triggerId: string;
  actions: BlockActionInput[];
  /** Message surface: the channel and the full message the button sits in. */
  channel?: { id: string; name?: string };
  /** The message as Slack stores it (needs `ts`); omitted from the payload when ephemeral, like Slack. */
  message?: { ts: string; [key: string]: unknown };
  isEphemeral?: boolean;
  responseUrl?: string;
  /** View surface (modal or home): the view as Slack returns it (needs `id`). */
  view?: { id: string; [key: string]: unknown };
  /** Values of input blocks on a message surface. */
  stateValues?: ViewStateValues;
  nowMs?: number;
}

export function blockActionsPayload(p: BlockActionsInput): Record<string, unknown> {
  const actionTs = slackTimestamp(p.nowMs);
  const actions = p.actions.map((a) => ({ ...a, action_ts: a.action_ts ?? actionTs }));
  const base: Record<string, unknown> = {
    type: 'block_actions',
    user: userOf(p),
    api_app_id: p.apiAppId ?? DEFAULT_APP_ID,
    token: p.token ?? DEFAULT_VERIFICATION_TOKEN,
  };
  if (p.view) {
    return {
      ...base,
      container: { type: 'view', view_id: p.view.id },
      trigger_id: p.triggerId,
      team: teamOf(p),
      ...gridOf(p),
      view: p.view,
      actions,
    };
  }
  if (!p.channel || !p.message) {
    throw new Error('blockActionsPayload needs either a view or a channel and message');
  }
  const ephemeral = p.isEphemeral === true;
  return {
    ...base,
    container: { type: 'message', message_ts: p.message.ts, channel_id: p.channel.id, is_ephemeral: ephemeral },
    trigger_id: p.triggerId,
    team: teamOf(p),
    ...gridOf(p),
    channel: { id: p.channel.id, name: p.channel.name ?? channelNameFor(p.channel.id) },
    ...(ephemeral ? {} : { message: p.message }),
    state: { values: p.stateValues ?? {} },
    ...(p.responseUrl ? { response_url: p.responseUrl } : {}),
    actions,
  };
}

export interface ViewPayloadInput extends InteractionActor {
  /** The view as Slack returns it from views.open/push/update (id, callback_id, hash, …). */
  view: { id: string; [key: string]: unknown };
  /** What the user entered: block_id → action_id → value object. */
  values?: ViewStateValues;
}

function viewWithValues(view: ViewPayloadInput['view'], values: ViewStateValues | undefined): Record<string, unknown> {
  const current = (view.state as { values?: ViewStateValues } | undefined)?.values ?? {};
  return { ...view, state: { values: values ?? current } };
}

export interface ViewSubmissionInput extends ViewPayloadInput {
  triggerId: string;
  responseUrls?: Array<{ block_id: string; action_id: string; channel_id: string; response_url: string }>;
}

export function viewSubmissionPayload(p: ViewSubmissionInput): Record<string, unknown> {
  return {
    type: 'view_submission',
    team: teamOf(p),
    user: userOf(p),
    api_app_id: p.apiAppId ?? DEFAULT_APP_ID,
    token: p.token ?? DEFAULT_VERIFICATION_TOKEN,
    trigger_id: p.triggerId,
    view: viewWithValues(p.view, p.values),
    response_urls: p.responseUrls ?? [],
    ...gridOf(p),
  };
}

export interface ViewClosedInput extends ViewPayloadInput {
  /** True when the whole stack was closed at once (clear_on_close). */
  isCleared?: boolean;
}

export function viewClosedPayload(p: ViewClosedInput): Record<string, unknown> {
  return {
    type: 'view_closed',
    team: teamOf(p),
    user: userOf(p),
    api_app_id: p.apiAppId ?? DEFAULT_APP_ID,
    token: p.token ?? DEFAULT_VERIFICATION_TOKEN,
    view: viewWithValues(p.view, p.values),
    is_cleared: p.isCleared ?? false,
    ...gridOf(p),
  };
}

export interface BlockSuggestionInput extends InteractionActor {
  actionId: string;
  blockId: string;
  /** What the user has typed so far. */
  value: string;
  view?: { id: string; [key: string]: unknown };
  channel?: { id: string; name?: string };
  message?: { ts: string; [key: string]: unknown };
  isEphemeral?: boolean;
}

export function blockSuggestionPayload(p: BlockSuggestionInput): Record<string, unknown> {
  const base: Record<string, unknown> = {
    type: 'block_suggestion',
    user: userOf(p),
    api_app_id: p.apiAppId ?? DEFAULT_APP_ID,
    token: p.token ?? DEFAULT_VERIFICATION_TOKEN,
  };
  const tail = {
    action_id: p.actionId,
    block_id: p.blockId,
    value: p.value,
    team: teamOf(p),
    ...gridOf(p),
  };
  if (p.view) {
    return { ...base, container: { type: 'view', view_id: p.view.id }, ...tail, view: p.view };
  }
  if (!p.channel || !p.message) {
    throw new Error('blockSuggestionPayload needs either a view or a channel and message');
  }
  const ephemeral = p.isEphemeral === true;
  return {
    ...base,
    container: { type: 'message', message_ts: p.message.ts, channel_id: p.channel.id, is_ephemeral: ephemeral },
    ...tail,
    channel: { id: p.channel.id, name: p.channel.name ?? channelNameFor(p.channel.id) },
    ...(ephemeral ? {} : { message: p.message }),
  };
}

export interface ShortcutInput extends InteractionActor {
  callbackId: string;
  triggerId: string;
  nowMs?: number;
}

/** A global shortcut (from the shortcuts menu / search), not a message shortcut. */
export function shortcutPayload(p: ShortcutInput): Record<string, unknown> {
  const user = userOf(p);
  return {
    type: 'shortcut',
    token: p.token ?? DEFAULT_VERIFICATION_TOKEN,
    action_ts: slackTimestamp(p.nowMs),
    team: teamOf(p),
    user: { id: user.id, username: user.username, team_id: user.team_id },
    ...gridOf(p),
    callback_id: p.callbackId,
    trigger_id: p.triggerId,
  };
}

export interface EventCallbackInput {
  event: object;
  teamId: string;
  apiAppId?: string;
  /** The bot user the event is delivered to (authorizations[0].user_id). */
  botUserId?: string;
  eventId?: string;
  eventTimeSeconds?: number;
  token?: string;
  /** The Grid org the event comes from, and whether the app is installed org-wide there. */
  enterpriseId?: string;
  isEnterpriseInstall?: boolean;
}

export function eventCallbackBody(p: EventCallbackInput): Record<string, unknown> {
  return {
    token: p.token ?? DEFAULT_VERIFICATION_TOKEN,
    team_id: p.teamId,
    context_team_id: p.teamId,
    ...(p.enterpriseId ? { enterprise_id: p.enterpriseId } : {}),
    context_enterprise_id: p.enterpriseId ?? null,
    api_app_id: p.apiAppId ?? DEFAULT_APP_ID,
    event: p.event,
    type: 'event_callback',
    event_id: p.eventId ?? `Ev${randomDigits(2)}${randomBytes(4).toString('hex').toUpperCase()}`,
    event_time: p.eventTimeSeconds ?? Math.floor(Date.now() / 1000),
    authorizations: [
      {
        enterprise_id: p.enterpriseId ?? null,
        team_id: p.isEnterpriseInstall ? null : p.teamId,
        user_id: p.botUserId ?? DEFAULT_BOT_USER_ID,
        is_bot: true,
        is_enterprise_install: p.isEnterpriseInstall === true,
      },
    ],
    is_ext_shared_channel: false,
    event_context: `4-${randomBytes(12).toString('base64url')}`,
  };
}

/** The inner event Slack sends when a user opens the app's Home tab (or Messages tab). */
export function appHomeOpenedEvent(p: {
  userId: string;
  channelId: string;
  tab?: 'home' | 'messages';
  view?: object;
  nowMs?: number;
}): Record<string, unknown> {
  return {
    type: 'app_home_opened',
    user: p.userId,
    channel: p.channelId,
    tab: p.tab ?? 'home',
    ...(p.view ? { view: p.view } : {}),
    event_ts: slackTimestamp(p.nowMs),
  };
}

/** Interaction payloads travel form-encoded as a single `payload` field holding JSON. */
export function interactivityBody(payload: object): string {
  return 'payload=' + encodeURIComponent(JSON.stringify(payload));
}

export interface SlackRequestBody {
  kind: 'form' | 'json';
  raw: string;
}

export function formRequest(raw: string): SlackRequestBody {
  return { kind: 'form', raw };
}

export function jsonRequest(body: object): SlackRequestBody {
  return { kind: 'json', raw: JSON.stringify(body) };
}

export interface BotResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  json: unknown;
}

/** POST a signed request to the bot's /slack/events endpoint, the way Slack delivers it. */
export async function sendToBot(
  botUrl: string,
  signingSecret: string,
  body: SlackRequestBody,
  opts: { timestampSeconds?: number; tamper?: boolean; headers?: Record<string, string> } = {},
): Promise<BotResponse> {
  const timestamp = opts.timestampSeconds ?? Math.floor(Date.now() / 1000);
  const headers = signSlackRequest(signingSecret, body.raw, timestamp);
  // A tampered request keeps the signature of the original body but carries a changed one.
  const sent = opts.tamper ? tamperWith(body) : body.raw;
  const response = await fetch(botUrl, {
    method: 'POST',
    headers: {
      'content-type': body.kind === 'form' ? 'application/x-www-form-urlencoded' : 'application/json',
      'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
      ...opts.headers,
      ...headers,
    },
    body: sent,
  });
  const text = await response.text();
  return { status: response.status, headers: Object.fromEntries(response.headers), body: text, json: parseJson(text) };
}

function tamperWith(body: SlackRequestBody): string {
  return body.kind === 'form' ? `${body.raw}&tampered=1` : `${body.raw} `;
}

function parseJson(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
