// A fake Slack Web API over node:http. The bot's real WebClient talks to it through `slackApiUrl`;
// tests and the browser sandbox share this one implementation. It answers like Slack: HTTP 200
// with `{ ok, ... }` bodies, 429 + Retry-After when rate limited, and keeps everything it was asked
// to do in `state` so tests can assert on it and the sandbox UI can render it.
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  chatMethods,
  readMessageContent,
  removeMessage,
  reviseMessage,
  storeBotMessage,
  storeEphemeral,
} from './fake-slack-chat.ts';
import {
  fail,
  type MethodArgs,
  type MethodContext,
  type MethodHandler,
  messagesOf,
  resolveChannel,
  type SlackBody,
  type TriggerGrant,
} from './fake-slack-context.ts';
import { directoryMethods } from './fake-slack-directory.ts';
import { fileMethods, receiveUpload, servedFile, slackFileErrors, UPLOAD_PATH } from './fake-slack-files.ts';
import {
  type FunctionDefinition,
  functionMethods,
  isFunctionToken,
  type StartedFunction,
  startFunctionExecution,
} from './fake-slack-functions.ts';
import { createTsClock, mintSlackId, mintTriggerId, randomDigits } from './fake-slack-ids.ts';
import { messageBlockErrors, viewErrors } from './fake-slack-limits.ts';
import {
  createFakeOAuth,
  type FakeGrant,
  type FakeOAuth,
  type FakeOrg,
  type FakeWorkspace,
  SANDBOX_ORGS,
  SANDBOX_WORKSPACES,
} from './fake-slack-oauth.ts';
import {
  createState,
  DEFAULT_CHANNELS,
  DEFAULT_TEAM_ID,
  DEFAULT_USERS,
  type FakeChannel,
  type FakeMessage,
  type FakeSlackState,
  type FakeUser,
  type ResponseUrlPost,
} from './fake-slack-state.ts';
import { closeModalStack, toViewOutput, viewMethods } from './fake-slack-views.ts';

export type {
  ApiCall,
  FakeChannel,
  FakeEphemeral,
  FakeMessage,
  FakeSlackState,
  FakeUser,
  FakeView,
  ResponseUrlPost,
} from './fake-slack-state.ts';

/** Slack: trigger ids expire 3 seconds after they are issued. */
export const TRIGGER_TTL_MS = 3_000;
/** Slack: a response_url works for 30 minutes, at most 5 times. */
export const RESPONSE_URL_TTL_MS = 30 * 60_000;
export const RESPONSE_URL_MAX_USES = 5;
const MAX_BODY_BYTES = 5 * 1024 * 1024;
// Arguments the WebClient sends as JSON strings inside form bodies.
const JSON_ARGS = ['blocks', 'view', 'attachments', 'metadata', 'outputs'];

export interface FakeSlackOptions {
  port?: number;
  host?: string;
  /** The only token accepted; default: any token starting with "xoxb-". */
  botToken?: string;
  now?: () => number;
  /** Source of randomness for probabilistic faults (0 ≤ x < 1); inject for deterministic tests. */
  random?: () => number;
  users?: FakeUser[];
  channels?: FakeChannel[];
  teamId?: string;
  /** Workspaces and Grid orgs the app can be installed into with OAuth (default: the sandbox's). */
  workspaces?: FakeWorkspace[];
  orgs?: FakeOrg[];
  /** How long after files.completeUploadExternal an image can be shown through `slack_file`; default 0. */
  fileProcessingMs?: number;
  /**
   * Slack's limit for commercially distributed non-Marketplace apps: each of conversations.history and
   * conversations.replies once per `windowMs` (default a minute) per installation (or token), answered
   * 429 `ratelimited` with Retry-After otherwise, and at most `maxMessages` (15) per call.
   */
  historyLimit?: { maxMessages: number; windowMs?: number };
}

export interface FakeSlackFaults {
  /** Probability (0..1) that a call is answered 429 `ratelimited`. */
  ratelimitedRate?: number;
  /** Answer exactly the next N (matching) calls 429 `ratelimited`. */
  ratelimitedNext?: number;
  /** Retry-After header of rate-limited answers; default 1. */
  retryAfterSeconds?: number;
  /** Probability (0..1) that a call is answered with an HTTP 5xx. */
  serverErrorRate?: number;
  /** Answer exactly the next N (matching) calls with an HTTP 5xx. */
  serverErrorNext?: number;
  /** Status of server errors; default 503. */
  serverErrorStatus?: number;
  /**
   * Carry out exactly the next N (matching) calls, then drop the connection without answering: the
   * message is posted but the caller never hears so (a lost answer).
   */
  lostAnswerNext?: number;
  /** Probability (0..1) that a call is carried out and its answer lost. */
  lostAnswerRate?: number;
  /** Only calls of these methods are affected; default all. */
  methods?: string[];
}

export type FakeSlackEvent = 'call' | 'message' | 'view';

export interface FakeSlack {
  /** Web API base for `new WebClient(token, { slackApiUrl })`, e.g. "http://127.0.0.1:PORT/api/". */
  url: string;
  /** "http://127.0.0.1:PORT" */
  origin: string;
  state: FakeSlackState;
  /** "Add to Slack": the consent page, oauth.v2.access, the tokens it issued, uninstalling. */
  oauth: FakeOAuth;
  /** Mint a trigger_id valid for 3 s (by `now`), optionally tied to the user whose modal stack it opens. */
  newTriggerId(userId?: string): string;
  /** Mint a response_url for a slash command or interaction in `channel` by `user`. */
  newResponseUrl(ctx: { channel: string; user: string; messageTs?: string }): string;
  /** Where apps.connections.open sends a Socket Mode client (a WebSocket URL), or null: not enabled. */
  setSocketModeUrl(url: string | null): void;
  /** Replace the fault plan; `setFaults({})` turns faults off. */
  setFaults(faults: FakeSlackFaults): void;
  // biome-ignore lint/suspicious/noExplicitAny: listeners receive event-specific payloads
  on(event: FakeSlackEvent, listener: (...args: any[]) => void): void;
  /** A message written by a person (not the bot), e.g. typed into the sandbox. */
  addUserMessage(p: { channel: string; user: string; text: string; thread_ts?: string }): FakeMessage;
  /** A stored view as Slack shows it in interaction payloads (for view_submission builders). */
  viewOutput(viewId: string): Record<string, unknown> | undefined;
  /** Close a user's modal stack (the user pressed Close, or a submission was acked without errors). */
  closeModal(userId: string): void;
  /**
   * A workflow reaches the app's custom step: records the run and returns the function_executed
   * event to deliver (its bot_access_token is accepted until the step completes).
   */
  startFunction(p: {
    callbackId: string;
    definition: FunctionDefinition;
    inputs: Record<string, unknown>;
    /** The person who started the workflow (Slack fills the step's interactivity inputs); absent: nobody. */
    interactor?: string | null;
    /** The workspace (and Grid org) the workflow runs in: its installation's token is the step's. */
    teamId?: string;
    enterpriseId?: string;
  }): StartedFunction;
  /** Forget all messages, views, calls, triggers, response URLs and faults; membership back to configured. */
  reset(): void;
  close(): Promise<void>;
}

interface Trigger {
  createdAt: number;
  used: boolean;
  user: string | undefined;
}

interface ResponseUrlGrant {
  channel: string;
  user: string;
  messageTs?: string;
  createdAt: number;
  uses: number;
}

const METHODS: Record<string, MethodHandler> = {
  ...directoryMethods,
  ...chatMethods,
  ...viewMethods,
  ...functionMethods,
};

export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  const now = options.now ?? Date.now;
  let socketModeUrl: string | null = null;
  const random = options.random ?? Math.random;
  const seed = {
    teamId: options.teamId ?? DEFAULT_TEAM_ID,
    users: options.users ?? DEFAULT_USERS,
    channels: options.channels ?? DEFAULT_CHANNELS,
  };
  const state = createState(seed);
  const emitter = new EventEmitter();
  const triggers = new Map<string, Trigger>();
  const responseUrls = new Map<string, ResponseUrlGrant>();
  let faults: FakeSlackFaults = {};
  let origin = '';
  const files = fileMethods(() => origin, options.fileProcessingMs);
  const oauth = createFakeOAuth({
    now,
    workspaces: options.workspaces ?? SANDBOX_WORKSPACES.map((w, i) => (i === 0 ? { ...w, id: seed.teamId } : w)),
    orgs: options.orgs ?? SANDBOX_ORGS,
    installerUserId: seed.users[0]?.id ?? 'U01ALICE',
    people: () =>
      state.users
        .filter((u) => !u.is_bot)
        .map((u) => ({ id: u.id, teamId: u.team_id ?? state.teamId, enterpriseId: u.enterprise_id ?? null })),
  });

  const ctx: MethodContext = {
    state,
    now,
    nextTs: createTsClock(now),
    emit: (event, payload) => {
      emitter.emit(event, payload);
    },
    checkMessageBlocks: (blocks) => [...messageBlockErrors(blocks), ...slackFileErrors(state, blocks, now())],
    checkViewBlocks: (view) => [
      ...viewErrors(view),
      ...(Array.isArray(view.blocks) ? slackFileErrors(state, view.blocks, now(), '/view') : []),
    ],
    consumeTrigger: (id) => consumeTrigger(triggers, id, now()),
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { ok: false, error: 'fatal_error', detail: String(error) });
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake.slack');
    const bytes = await readBody(req);
    if (bytes === undefined) {
      sendJson(res, 413, { ok: false, error: 'request_too_large' });
      return;
    }
    if (req.method === 'GET' && oauth.handleAuthorize(url, res)) return;
    const raw = bytes.toString('utf8');
    if (url.pathname.startsWith('/api/')) {
      answerApiCall(url.pathname.slice('/api/'.length), url, req, raw, res);
      return;
    }
    if (url.pathname.startsWith(UPLOAD_PATH) && req.method === 'POST') {
      const answer = receiveUpload(ctx, url.pathname.slice(UPLOAD_PATH.length), bytes);
      res.writeHead(answer.status, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(answer.text);
      return;
    }
    const fileId = url.pathname.match(/^\/files\/(F[A-Z0-9]+)$/)?.[1];
    if (fileId !== undefined && req.method === 'GET') {
      const file = servedFile(state, fileId);
      if (!file) sendJson(res, 404, { ok: false, error: 'file_not_found' });
      else {
        const text = file.mimetype.startsWith('text/');
        res.writeHead(200, { 'content-type': text ? `${file.mimetype}; charset=utf-8` : file.mimetype });
        res.end(file.bytes);
      }
      return;
    }
    const responseUrlId = url.pathname.match(/^\/(?:commands|actions)\/(.+)$/)?.[1];
    if (responseUrlId !== undefined && req.method === 'POST') {
      answerResponseUrl(`${origin}${url.pathname}`, responseUrlId, raw, res);
      return;
    }
    sendJson(res, 404, { ok: false, error: 'not_found' });
  }

  /** options.historyLimit: seconds until the next allowed call (null: allowed). */
  const lastHistoryCall = new Map<string, number>();
  function historyLimited(method: string, caller: string): number | null {
    const limit = options.historyLimit;
    if (!limit || (method !== 'conversations.history' && method !== 'conversations.replies')) return null;
    const windowMs = limit.windowMs ?? 60_000;
    const key = `${caller}:${method}`;
    const last = lastHistoryCall.get(key);
    if (last !== undefined && now() - last < windowMs) return Math.max(1, Math.ceil((last + windowMs - now()) / 1000));
    lastHistoryCall.set(key, now());
    return null;
  }

  /** options.historyLimit: a history/replies call gets at most maxMessages (the call is recorded as asked). */
  function cappedHistory(method: string, args: Record<string, unknown>): Record<string, unknown> {
    const limit = options.historyLimit;
    if (!limit || (method !== 'conversations.history' && method !== 'conversations.replies')) return args;
    return { ...args, limit: String(Math.min(Number(args.limit) || limit.maxMessages, limit.maxMessages)) };
  }

  /** A view opened with an installation's token remembers that installation's workspace, as Slack's does. */
  function stampInstalledTeam(body: SlackBody, grant: FakeGrant): void {
    const id = (body.view as { id?: unknown } | undefined)?.id;
    const view = body.ok && typeof id === 'string' ? state.views[id] : undefined;
    if (view) view.installedTeamId = grant.isEnterpriseInstall ? null : grant.teamId;
  }

  /**
   * users.lookupByEmail finds only the people of the token's workspace (or, for a Grid org's tokens, of its
   * org), as Slack's does: someone of another workspace is users_not_found there.
   */
  function foundBy(grant: FakeGrant, body: SlackBody): SlackBody {
    if (!body.ok) return body;
    const user = body.user as { team_id?: string; enterprise_user?: { enterprise_id?: string } };
    const org = user.enterprise_user?.enterprise_id;
    const member = user.team_id === grant.teamId || (grant.enterpriseId !== null && org === grant.enterpriseId);
    return member ? body : fail('users_not_found');
  }

  /** The live "Add to Slack" installation serving a workspace: its org's org-wide install, else its own. */
  function installationServing(teamId?: string, enterpriseId?: string): string | undefined {
    const live = [...oauth.grants.values()].filter((g) => !g.revoked);
    if (enterpriseId && live.some((g) => g.installationId === enterpriseId)) return enterpriseId;
    return teamId && live.some((g) => g.installationId === teamId) ? teamId : undefined;
  }

  /** The workspace(s) a grant's token acts in: its own, or (org-wide) its org's. */
  function callerOf(grant: FakeGrant): NonNullable<MethodContext['caller']> {
    if (!grant.isEnterpriseInstall) return { team: grant.teamId ?? state.teamId, orgTeams: [] };
    return {
      team: null,
      orgTeams: oauth.workspaces.filter((w) => w.enterpriseId === grant.enterpriseId).map((w) => w.id),
    };
  }

  /** A running workflow step's token speaks for its installation: that installation's live grant. */
  function functionGrantOf(token: string): FakeGrant | undefined {
    const execution = Object.values(state.functionExecutions).find(
      (e) => e.botAccessToken === token && e.state === 'running' && e.installation,
    );
    if (!execution) return undefined;
    return [...oauth.grants.values()].reverse().find((g) => g.installationId === execution.installation && !g.revoked);
  }

  function answerApiCall(method: string, url: URL, req: IncomingMessage, raw: string, res: ServerResponse): void {
    const args = parseArgs(req.headers['content-type'], raw, url.searchParams);
    const token = bearerToken(req.headers.authorization) ?? (typeof args.token === 'string' ? args.token : undefined);
    delete args.token;
    // OAuth: client credentials are never recorded either.
    delete args.client_secret;
    const grant = token ? (oauth.grantOf(token) ?? functionGrantOf(token)) : undefined;
    const record = (status: number, body: SlackBody) => {
      const call = {
        method,
        args,
        ok: body.ok,
        status,
        at: now(),
        ...(typeof body.error === 'string' ? { error: body.error } : {}),
        ...(grant ? { installation: grant.installationId } : {}),
      };
      state.calls.push(call);
      emitter.emit('call', call);
    };

    const historyWait = historyLimited(method, grant?.installationId ?? token ?? '');
    const fault = historyWait !== null ? 'ratelimited' : pickFault(faults, method, random);
    if (fault === 'ratelimited') {
      const body = { ok: false, error: 'ratelimited' };
      record(429, body);
      res.writeHead(429, {
        'content-type': 'application/json; charset=utf-8',
        'retry-after': String(historyWait ?? faults.retryAfterSeconds ?? 1),
      });
      res.end(JSON.stringify(body));
      return;
    }
    if (fault === 'server_error') {
      const status = faults.serverErrorStatus ?? 503;
      record(status, { ok: false, error: `http_${status}` });
      // Slack's edge answers 5xx with an HTML page, not JSON.
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<html><body><h1>${status} Service Unavailable</h1></body></html>`);
      return;
    }

    let body: SlackBody;
    if (method === 'oauth.v2.access') {
      body = oauth.access({ ...args, ...clientSecretOf(req, raw) }, basicAuth(req.headers.authorization));
    } else if (grant) {
      // A token issued through "Add to Slack": dead once revoked (uninstall) or expired (rotation).
      if (grant.revoked) body = fail('token_revoked');
      else if (grant.expiresAt !== null && now() >= grant.expiresAt) body = fail('token_expired');
      else if (method === 'auth.test') body = oauth.authTest(grant);
      else if (method === 'users.lookupByEmail') body = foundBy(grant, METHODS[method]!(ctx, args));
      else {
        const handler = METHODS[method] ?? files[method];
        const bot = oauth.botOf(grant);
        const caller = callerOf(grant);
        body = handler
          ? handler(bot ? { ...ctx, bot, caller } : { ...ctx, caller }, cappedHistory(method, args))
          : fail('unknown_method', { req_method: method });
        stampInstalledTeam(body, grant);
      }
    } else if (method === 'apps.connections.open') {
      // Socket Mode: an app-level token asks where to open the WebSocket.
      if (!token) body = fail('not_authed');
      else if (!token.startsWith('xapp-')) body = fail('not_allowed_token_type');
      else body = socketModeUrl ? { ok: true, url: socketModeUrl } : fail('socket_mode_not_enabled');
    } else if (!token) body = fail('not_authed');
    else if (!tokenAccepted(token, options.botToken) && !isFunctionToken(state, token)) body = fail('invalid_auth');
    else {
      const handler = METHODS[method] ?? files[method];
      body = handler ? handler(ctx, cappedHistory(method, args)) : fail('unknown_method', { req_method: method });
    }
    record(200, body);
    if (fault === 'lost_answer') {
      // Done, but the answer never arrives: the socket closes before a byte of it is sent.
      req.socket.destroy();
      return;
    }
    sendJson(res, 200, body);
  }

  function answerResponseUrl(fullUrl: string, id: string, raw: string, res: ServerResponse): void {
    const grant = responseUrls.get(id);
    let parsed: Record<string, unknown> = {};
    try {
      const value: unknown = JSON.parse(raw);
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        parsed = value as Record<string, unknown>;
      }
    } catch {
      // fall through with an empty body: answered as invalid_payload below
    }
    const body = pickResponseBody(parsed);
    const post: ResponseUrlPost = {
      url: fullUrl,
      channel: grant?.channel ?? '',
      user: grant?.user ?? '',
      ...(grant?.messageTs ? { message_ts: grant.messageTs } : {}),
      body,
      ok: false,
      at: now(),
    };
    const answer = (status: number, error?: string) => {
      post.ok = error === undefined;
      if (error) post.error = error;
      state.responseUrlPosts.push(post);
      emitter.emit('call', { method: 'response_url', args: body, ok: post.ok, error, status, at: post.at });
      sendJson(res, status, error ? { ok: false, error } : { ok: true });
    };
    if (!grant) {
      answer(404, 'invalid_url');
      return;
    }
    if (now() - grant.createdAt > RESPONSE_URL_TTL_MS) {
      answer(404, 'expired_url');
      return;
    }
    if (grant.uses >= RESPONSE_URL_MAX_USES) {
      answer(404, 'used_url');
      return;
    }
    if (Object.keys(parsed).length === 0) {
      answer(400, 'invalid_payload');
      return;
    }
    grant.uses += 1;
    const error = applyResponse(ctx, grant, parsed);
    answer(error ? 400 : 200, error);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  origin = `http://${host}:${address.port}`;

  return {
    url: `${origin}/api/`,
    origin,
    state,
    oauth,
    newTriggerId(userId) {
      const id = mintTriggerId(now());
      triggers.set(id, { createdAt: now(), used: false, user: userId });
      return id;
    },
    newResponseUrl(p) {
      const kind = p.messageTs ? 'actions' : 'commands';
      const id = `${state.teamId}/${randomDigits(13)}/${mintSlackId('', 24)}`;
      responseUrls.set(id, { ...p, createdAt: now(), uses: 0 });
      return `${origin}/${kind}/${id}`;
    },
    setSocketModeUrl(url) {
      socketModeUrl = url;
    },
    setFaults(f) {
      faults = { ...f };
    },
    on(event, listener) {
      emitter.on(event, listener);
    },
    addUserMessage(p) {
      const resolved = resolveChannel(state, p.channel);
      if (!resolved) throw new Error(`fake Slack: no channel ${p.channel}`);
      const message: FakeMessage = {
        type: 'message',
        channel: resolved.id,
        ts: ctx.nextTs(),
        user: p.user,
        team: state.teamId,
        text: p.text,
        history: [],
        ...(p.thread_ts ? { thread_ts: p.thread_ts } : {}),
      };
      messagesOf(state, resolved.id).push(message);
      emitter.emit('message', { kind: 'posted', channel: resolved.id, ts: message.ts, message });
      return message;
    },
    viewOutput(viewId) {
      const view = state.views[viewId];
      return view ? toViewOutput(state, view) : undefined;
    },
    closeModal(userId) {
      closeModalStack(state, userId);
    },
    startFunction(p) {
      const started = startFunctionExecution(state, { ...p, nowMs: now() });
      const installation = installationServing(p.teamId, p.enterpriseId);
      if (installation) started.execution.installation = installation;
      return started;
    },
    reset() {
      Object.assign(state, createState(seed));
      triggers.clear();
      responseUrls.clear();
      faults = {};
    },
    close() {
      return new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive sockets from WebClient's fetch would otherwise hold close() open.
        server.closeAllConnections();
      });
    },
  };
}

function consumeTrigger(triggers: Map<string, Trigger>, id: string, nowMs: number): TriggerGrant | { error: string } {
  const trigger = triggers.get(id);
  if (!trigger) return { error: 'invalid_trigger_id' };
  if (trigger.used) return { error: 'exchanged_trigger_id' };
  if (nowMs - trigger.createdAt > TRIGGER_TTL_MS) return { error: 'expired_trigger_id' };
  trigger.used = true;
  return { user: trigger.user };
}

function pickFault(
  faults: FakeSlackFaults,
  method: string,
  random: () => number,
): 'ratelimited' | 'server_error' | 'lost_answer' | undefined {
  if (faults.methods && !faults.methods.includes(method)) return undefined;
  if ((faults.ratelimitedNext ?? 0) > 0) {
    faults.ratelimitedNext = (faults.ratelimitedNext ?? 0) - 1;
    return 'ratelimited';
  }
  if ((faults.serverErrorNext ?? 0) > 0) {
    faults.serverErrorNext = (faults.serverErrorNext ?? 0) - 1;
    return 'server_error';
  }
  if ((faults.lostAnswerNext ?? 0) > 0) {
    faults.lostAnswerNext = (faults.lostAnswerNext ?? 0) - 1;
    return 'lost_answer';
  }
  if ((faults.ratelimitedRate ?? 0) > 0 && random() < (faults.ratelimitedRate ?? 0)) return 'ratelimited';
  if ((faults.serverErrorRate ?? 0) > 0 && random() < (faults.serverErrorRate ?? 0)) return 'server_error';
  if ((faults.lostAnswerRate ?? 0) > 0 && random() < (faults.lostAnswerRate ?? 0)) return 'lost_answer';
  return undefined;
}

function tokenAccepted(token: string, botToken: string | undefined): boolean {
  return botToken ? token === botToken : token.startsWith('xoxb-');
}

function basicAuth(header: string | undefined): string | undefined {
  return header?.match(/^Basic\s+(\S+)$/i)?.[1];
}

/** The client secret as sent (args drop it before recording). */
function clientSecretOf(req: IncomingMessage, raw: string): { client_secret?: string } {
  const parsed = parseArgs(req.headers['content-type'], raw, new URLSearchParams());
  return typeof parsed.client_secret === 'string' ? { client_secret: parsed.client_secret } : {};
}

function bearerToken(header: string | undefined): string | undefined {
  const match = header?.match(/^Bearer\s+(\S+)$/i);
  return match?.[1];
}

function parseArgs(contentType: string | undefined, raw: string, query: URLSearchParams): MethodArgs {
  const args: MethodArgs = Object.fromEntries(query);
  if (raw.length > 0) {
    if (contentType?.includes('application/json')) {
      try {
        const parsed: unknown = JSON.parse(raw);
        if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) Object.assign(args, parsed);
      } catch {
        // Slack answers a malformed JSON body as if no arguments were given.
      }
    } else {
      Object.assign(args, Object.fromEntries(new URLSearchParams(raw)));
    }
  }
  // Decode JSON-in-form fields so methods and recorded calls see objects; bad JSON stays a string.
  for (const key of JSON_ARGS) {
    const value = args[key];
    if (typeof value === 'string' && value !== '') {
      try {
        args[key] = JSON.parse(value);
      } catch {
        // left as a string: the method answers invalid_* for it
      }
    }
  }
  return args;
}

function pickResponseBody(p: Record<string, unknown>): ResponseUrlPost['body'] {
  const body: ResponseUrlPost['body'] = {};
  if (p.response_type === 'in_channel' || p.response_type === 'ephemeral') body.response_type = p.response_type;
  if (typeof p.replace_original === 'boolean') body.replace_original = p.replace_original;
  else if (p.replace_original === 'true') body.replace_original = true;
  if (typeof p.delete_original === 'boolean') body.delete_original = p.delete_original;
  else if (p.delete_original === 'true') body.delete_original = true;
  if (typeof p.text === 'string') body.text = p.text;
  if (Array.isArray(p.blocks)) body.blocks = p.blocks;
  if (typeof p.thread_ts === 'string') body.thread_ts = p.thread_ts;
  return body;
}

/** Turn a response_url post into what Slack would show; returns Slack's error name on failure. */
function applyResponse(
  ctx: MethodContext,
  grant: ResponseUrlGrant,
  parsed: Record<string, unknown>,
): string | undefined {
  const { state } = ctx;
  const body = pickResponseBody(parsed);
  const original = grant.messageTs ? findOriginal(state, grant) : undefined;

  if (body.delete_original) {
    if (!original) return 'message_not_found';
    if (original.kind === 'ephemeral') {
      original.ephemeral.deleted = true;
      ctx.emit('message', {
        kind: 'deleted',
        channel: grant.channel,
        ts: original.ephemeral.ts,
        message: original.ephemeral,
      });
    } else removeMessage(ctx, original.message);
    return undefined;
  }

  const content = readMessageContent(ctx, { text: body.text, blocks: body.blocks });
  if ('ok' in content) return typeof content.error === 'string' ? content.error : 'invalid_payload';
  if (!content.text && !(content.blocks && content.blocks.length > 0)) return 'no_text';

  if (body.replace_original && original) {
    if (original.kind === 'ephemeral') {
      const e = original.ephemeral;
      e.text = content.text ?? e.text;
      if (content.blocks) e.blocks = content.blocks;
      e.replaced = true;
      ctx.emit('message', { kind: 'updated', channel: grant.channel, ts: e.ts, message: e });
    } else reviseMessage(ctx, original.message, content);
    return undefined;
  }
  if (body.response_type === 'in_channel') {
    storeBotMessage(ctx, grant.channel, content, body.thread_ts);
    return undefined;
  }
  storeEphemeral(ctx, {
    channel: grant.channel,
    user: grant.user,
    text: content.text ?? '',
    ...(content.blocks ? { blocks: content.blocks } : {}),
    ...(body.thread_ts ? { thread_ts: body.thread_ts } : {}),
    source: 'response_url',
  });
  return undefined;
}

type Original =
  | { kind: 'ephemeral'; ephemeral: FakeSlackState['ephemerals'][number] }
  | { kind: 'message'; message: FakeMessage };

function findOriginal(state: FakeSlackState, grant: ResponseUrlGrant): Original | undefined {
  // An ephemeral is one person's: a response_url given for someone else's click never reaches it.
  const ephemeral = state.ephemerals.find(
    (e) =>
      e.ts === grant.messageTs && e.channel === grant.channel && !e.deleted && (!grant.user || e.user === grant.user),
  );
  if (ephemeral) return { kind: 'ephemeral', ephemeral };
  const message = state.messages[grant.channel]?.find((m) => m.ts === grant.messageTs);
  return message ? { kind: 'message', message } : undefined;
}

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}
