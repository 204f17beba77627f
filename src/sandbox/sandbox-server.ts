// The browser sandbox: serves the static UI in ./ui and a small JSON API it calls. The UI never
// talks to the bot directly — every click, submission and command goes through SlackUser, so the
// bot receives exactly what Slack would send, signed with its signing secret. What Slack itself
// does with the bot's answers (response_action on view submissions, synchronous command replies)
// is applied here to the fake Slack's state, and every change is pushed to browsers over SSE.
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger.ts';
import type { FakeSlack } from './fake-slack-api.ts';
import { MAX_MESSAGE_TEXT } from './fake-slack-chat.ts';
import { servedFile } from './fake-slack-files.ts';
import { mintSlackId, mintViewHash } from './fake-slack-ids.ts';
import type { FakeEphemeral, FakeSlackState, FakeView } from './fake-slack-state.ts';
import {
  type BlockActionInput,
  type BotResponse,
  jsonRequest,
  sendToBot,
  type ViewStateValues,
} from './slack-requests.ts';
import { SlackUser, type Surface } from './slack-user.ts';
import { stepDefinition, stepInputs } from './workflow-steps.ts';

/** Text the sandbox composer treats as a mention of the bot (Slack turns it into `<@BOT>`). */
const MENTION = /^(?:@runbook-bot|@Runbook Bot|<@U0BOT>)\s*/i;
/** What Slack does to what a person types before any app sees it: &, < and > escaped (a typed &lt; stays &lt;). */
const slackEscaped = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export interface SandboxOptions {
  /** 0 picks a free port. */
  port: number;
  /** Interface to bind; loopback (127.0.0.1) unless said otherwise: the sandbox can run real runbooks. */
  host?: string;
  fake: FakeSlack;
  /** The bot's events endpoint, e.g. http://127.0.0.1:3001/slack/events */
  botUrl: string;
  signingSecret: string;
  logger: Logger;
  /** Many workspaces (SANDBOX_MANY_WORKSPACES): the bot's "Add to Slack" page, linked from the sidebar. */
  installUrl?: string;
}

export interface Sandbox {
  /** "http://127.0.0.1:PORT" (or the host it was bound to). */
  url: string;
  close(): Promise<void>;
}

/** Slack allows a modal stack of three views. */
const MAX_MODAL_STACK = 3;
const MAX_BODY_BYTES = 1024 * 1024;
const UI_FILES: Record<string, string> = {
  '/': 'index.html',
  '/index.html': 'index.html',
  '/app.js': 'app.js',
  '/blocks.js': 'blocks.js',
  '/mrkdwn.js': 'mrkdwn.js',
  '/style.css': 'style.css',
};
const CONTENT_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};
// Element fields a block_actions payload may carry, as the UI reports them.
const ACTION_FIELDS = [
  'value',
  'selected_option',
  'selected_options',
  'selected_date',
  'selected_time',
  'selected_date_time',
  'selected_conversation',
  'selected_channel',
  'selected_user',
] as const;

/** Host names the sandbox answers to: a DNS-rebinding page arrives with its own name in Host. */
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  const { fake, logger } = options;
  const uiDir = new URL('./ui/', import.meta.url);
  const streams = new Set<ServerResponse>();
  /** View id → field errors from the bot's last `response_action: 'errors'`. */
  const viewErrors = new Map<string, Record<string, string>>();
  const users = new Map<string, SlackUser>();

  let pending: NodeJS.Timeout | undefined;
  // Coalesce bursts (a submission is several Web API calls) into one refresh per browser.
  const notify = () => {
    if (pending) return;
    pending = setTimeout(() => {
      pending = undefined;
      for (const res of streams) res.write('event: changed\ndata: {}\n\n');
    }, 25);
  };
  fake.on('call', notify);
  fake.on('message', notify);
  fake.on('view', notify);

  const userFor = (id: unknown): SlackUser => {
    const person = typeof id === 'string' ? fake.state.users.find((u) => u.id === id && !u.is_bot) : undefined;
    if (!person) throw new HttpError(400, `unknown user ${String(id)}`);
    // A person of a Grid org speaks through the org-wide installation once there is one (as Slack sends it).
    const enterpriseId = person.enterprise_id ?? null;
    const orgWide = enterpriseId !== null && installedHere(fake, enterpriseId);
    const key = `${person.id}:${orgWide}`;
    let user = users.get(key);
    if (!user) {
      user = new SlackUser({
        fake,
        botUrl: options.botUrl,
        signingSecret: options.signingSecret,
        userId: person.id,
        ...(person.team_id ? { teamId: person.team_id } : {}),
        ...(enterpriseId ? { enterpriseId, isEnterpriseInstall: orgWide } : {}),
      });
      users.set(key, user);
    }
    return user;
  };

  // Many workspaces: the workspace this person is in, when the bot is not added there (nor to its org).
  // Slack sends such a workspace nothing of the app: no command, mention, Home or workflow step.
  const workspaceOf = (userId: string) => {
    const person = fake.state.users.find((u) => u.id === userId);
    const teamId = person?.team_id ?? fake.state.teamId;
    return fake.oauth.workspaces.find((w) => w.id === teamId);
  };
  const withoutBot = (userId: string): { id: string; name: string } | null => {
    if (!options.installUrl) return null;
    const space = workspaceOf(userId);
    if (!space) return null;
    const added =
      installedHere(fake, space.id) || (space.enterpriseId !== null && installedHere(fake, space.enterpriseId));
    return added ? null : { id: space.id, name: space.name };
  };
  const notAddedSentence = (space: { name: string }) =>
    `Runbook Bot is not in ${space.name} yet: click Add to Slack next to it under Workspaces, then try again.`;

  const routes: Record<string, (body: Record<string, unknown>) => Promise<unknown>> = {
    async command(body) {
      const user = userFor(body.user);
      const channel = requireString(body, 'channel');
      const text = requireText(body, 'text').trim();
      const match = text.match(/^(\/\S+)\s*([\s\S]*)$/);
      if (!match) throw new HttpError(400, 'a command starts with /');
      const missing = withoutBot(user.id);
      if (missing) {
        // What Slack says for a command no app of this workspace has, with the sandbox's way out.
        fake.state.ephemerals.push({
          channel,
          user: user.id,
          ts: `${(Date.now() / 1000).toFixed(6)}`,
          text: `${match[1]} is not a valid command in ${missing.name}. ${notAddedSentence(missing)}`,
          source: 'api',
          from: 'slackbot',
        });
        notify();
        return { status: 200 };
      }
      const res = await user.command(slackEscaped(match[2] ?? ''), channel, match[1]);
      applyCommandAnswer(fake.state, res, { user: user.id, channel, command: match[1]! });
      notify();
      return { status: res.status };
    },
    async message(body) {
      const user = userFor(body.user);
      const text = requireString(body, 'text');
      const thread = typeof body.thread_ts === 'string' ? body.thread_ts : undefined;
      if (MENTION.test(text) && !withoutBot(user.id)) {
        // A message that mentions the bot: Slack delivers it as an app_mention event.
        const res = await user.mention(slackEscaped(text.replace(MENTION, '')), requireString(body, 'channel'), thread);
        notify();
        return { ts: res.message.ts, status: res.status };
      }
      const message = fake.addUserMessage({
        channel: requireString(body, 'channel'),
        user: user.id,
        text: slackEscaped(requireText(body, 'text')),
        ...(typeof body.thread_ts === 'string' ? { thread_ts: body.thread_ts } : {}),
      });
      return { ts: message.ts };
    },
    async action(body) {
      const user = userFor(body.user);
      const surface = findSurface(fake.state, user.id, body.surface);
      if (surface.kind === 'view' && isValues(body.values)) surface.view.state.values = body.values;
      const actionId = requireString(body, 'actionId');
      const blockId = typeof body.blockId === 'string' ? body.blockId : undefined;
      const extra: Partial<BlockActionInput> = {};
      for (const field of ACTION_FIELDS) if (body[field] !== undefined) extra[field] = body[field] as never;
      if (typeof body.type === 'string') extra.type = body.type;
      const res = await user.act(
        surface,
        (el, block) => el.action_id === actionId && (!blockId || (block.block_id ?? '') === blockId),
        extra,
      );
      return { status: res.status };
    },
    async submit(body) {
      const user = userFor(body.user);
      const viewId = requireString(body, 'viewId');
      const view = openModal(fake.state, user.id, viewId);
      const values = isValues(body.values) ? body.values : view.state.values;
      view.state.values = values;
      viewErrors.delete(viewId);
      const res = await user.submit(viewId, values as ViewStateValues);
      const outcome = applySubmissionAnswer(fake, user.id, view, res, viewErrors);
      notify();
      return { status: res.status, outcome };
    },
    async close(body) {
      const user = userFor(body.user);
      const viewId = requireString(body, 'viewId');
      const view = openModal(fake.state, user.id, viewId);
      const stack = fake.state.modalStacks[user.id] ?? [];
      // Slack's Close on a pushed view goes back one view unless the view asks to clear the stack.
      if (stack.length > 1 && view.view.clear_on_close !== true) {
        popView(fake.state, user.id);
        notify();
        return { status: 200 };
      }
      // The view_closed the bot hears only when the view asked for it: SlackUser.close decides.
      const res = await user.close(viewId);
      notify();
      return { status: res.status };
    },
    async suggest(body) {
      const user = userFor(body.user);
      const res = await user.suggest(
        requireString(body, 'viewId'),
        requireString(body, 'actionId'),
        requireString(body, 'blockId'),
        typeof body.query === 'string' ? body.query : '',
      );
      const answer = (res.json ?? {}) as { options?: unknown[]; option_groups?: unknown[] };
      return { status: res.status, options: answer.options ?? [], option_groups: answer.option_groups ?? [] };
    },
    async shortcut(body) {
      // A message shortcut: the message's "…" menu.
      const user = userFor(body.user);
      const surface = findSurface(fake.state, user.id, body.surface);
      if (surface.kind !== 'message') throw new HttpError(400, 'message shortcuts work on messages');
      const res = await user.messageShortcut(requireString(body, 'callbackId'), surface.message);
      notify();
      return { status: res.status };
    },
    async workflow(body) {
      // A workflow the person started reaches the app's custom step (Workflows panel).
      const user = userFor(body.user);
      const missing = withoutBot(user.id);
      if (missing) throw new HttpError(409, notAddedSentence(missing));
      const callbackId = requireString(body, 'callbackId');
      const definition = stepDefinition(callbackId);
      const given = (body.inputs ?? {}) as Record<string, unknown>;
      // Slack fills the step's "Started by" with the person who started the workflow, or nobody (a schedule).
      const startedBy = body.startedBy === 'nobody' ? 'nobody' : 'person';
      const res = await user.runWorkflowStep(callbackId, definition, stepInputs(definition, given), { startedBy });
      notify();
      return { status: res.status, functionExecutionId: res.started.execution.id };
    },
    async uninstall(body) {
      // The workspace's admin removes the app (Slack's app settings): its tokens die at once and Slack
      // sends the bot app_uninstalled and tokens_revoked. The org's installation when it came from there.
      const user = userFor(body.user);
      const space = workspaceOf(user.id);
      if (!options.installUrl || !space) throw new HttpError(400, 'this sandbox has one workspace: nothing to remove');
      const target = installedHere(fake, space.id)
        ? space.id
        : space.enterpriseId !== null && installedHere(fake, space.enterpriseId)
          ? space.enterpriseId
          : null;
      if (!target) throw new HttpError(409, notAddedSentence(space));
      const events = fake.oauth.uninstall(target);
      for (const event of [events.appUninstalled, events.tokensRevoked]) {
        const res = await sendToBot(options.botUrl, options.signingSecret, jsonRequest(event));
        if (res.status !== 200) logger.warn({ status: res.status, target }, 'the bot refused an uninstall event');
      }
      notify();
      return { status: 200, removed: target };
    },
    async access(body) {
      // An org admin removes the org-wide app from the person's workspace, or adds it back: Slack sends the
      // bot team_access_revoked / team_access_granted; the org's tokens keep working for its other workspaces.
      const space = workspaceOf(userFor(body.user).id);
      const org = space?.enterpriseId ?? null;
      if (!space || org === null || !installedHere(fake, org))
        throw new HttpError(409, 'the app is not installed org-wide in this workspace’s org');
      const kind = body.grant === true ? 'team_access_granted' : 'team_access_revoked';
      const res = await sendToBot(
        options.botUrl,
        options.signingSecret,
        jsonRequest(fake.oauth.teamAccess(org, [space.id], kind)),
      );
      notify();
      return { status: res.status, kind, team: space.id };
    },
    async signin(body) {
      // "Add to Slack" clicked: the person now signed in to (fake) Slack, who approves on its consent page.
      fake.oauth.signIn(userFor(body.user).id);
      return { status: 200 };
    },
    async home(body) {
      const user = userFor(body.user);
      // No app, no Home tab: the page says how to add it (the snapshot's workspaces).
      if (withoutBot(user.id)) return { status: 200 };
      const res = await user.openHome();
      return { status: res.status };
    },
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const status = error instanceof HttpError ? error.status : 500;
      if (status === 500) logger.warn({ err: error, path: req.url }, 'sandbox request failed');
      if (!res.headersSent) sendJson(res, status, { error: error instanceof Error ? error.message : String(error) });
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const host = checkHost(req, allowedHosts());
    const url = new URL(req.url ?? '/', 'http://sandbox');
    if (req.method === 'GET' && UI_FILES[url.pathname]) {
      const file = UI_FILES[url.pathname]!;
      const body = await readFile(new URL(file, uiDir));
      res.writeHead(200, {
        'content-type': CONTENT_TYPES[file.split('.').pop()!] ?? 'application/octet-stream',
        'cache-control': 'no-store',
        // The UI renders bot-controlled text; a strict policy keeps any slip from running script.
        'content-security-policy': "default-src 'self'; img-src 'self' data: https:; style-src 'self'",
      });
      res.end(body);
      return;
    }
    const imageId = url.pathname.match(/^\/files\/(F[A-Z0-9]+)$/)?.[1];
    if (req.method === 'GET' && imageId !== undefined) {
      // An uploaded image, for image blocks that show it through `slack_file` (and images shared as files).
      const file = servedFile(fake.state, imageId);
      if (!file?.mimetype.startsWith('image/')) sendJson(res, 404, { error: 'not found' });
      else {
        res.writeHead(200, { 'content-type': file.mimetype, 'cache-control': 'private, max-age=3600' });
        res.end(file.bytes);
      }
      return;
    }
    if (req.method === 'GET' && url.pathname === '/api/state') {
      const install = options.installUrl ? { url: options.installUrl, fake } : undefined;
      sendJson(res, 200, snapshot(fake.state, String(userFor(url.searchParams.get('user')).id), viewErrors, install));
      return;
    }
    if (req.method === 'GET' && url.pathname === '/api/events') {
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
      });
      res.write('event: changed\ndata: {}\n\n');
      streams.add(res);
      req.on('close', () => streams.delete(res));
      return;
    }
    const route = url.pathname.match(/^\/api\/([a-z]+)$/)?.[1];
    if (req.method === 'POST' && route && routes[route]) {
      checkStateChange(req, host);
      const body = await readJson(req);
      sendJson(res, 200, await routes[route](body));
      return;
    }
    sendJson(res, 404, { error: 'not found' });
  }

  const keepAlive = setInterval(() => {
    for (const res of streams) res.write(': keep-alive\n\n');
  }, 15_000);
  keepAlive.unref();

  // host:port pairs this server answers to, known once it listens.
  const allowedHosts = (): Set<string> => {
    const { address, port } = server.address() as AddressInfo;
    const names = new Set(LOOPBACK_NAMES);
    if (options.host && options.host !== '0.0.0.0' && options.host !== '::') names.add(bracket(options.host));
    if (address !== '0.0.0.0' && address !== '::') names.add(bracket(address));
    return new Set([...names].map((n) => `${n}:${port}`));
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close() {
      clearInterval(keepAlive);
      if (pending) clearTimeout(pending);
      for (const res of streams) res.end();
      streams.clear();
      return new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}

/** Everything one user can see, JSON-ready for the UI. */
/** Whether the bot holds a live token for an installation (a workspace, or an org installed org-wide). */
function installedHere(fake: FakeSlack, installationId: string): boolean {
  for (const grant of fake.oauth.grants.values())
    if (grant.installationId === installationId && !grant.revoked) return true;
  return false;
}

/** The sandbox's workspaces for the sidebar: installed on their own or through their org. */
function workspacesOf(fake: FakeSlack) {
  return fake.oauth.workspaces.map((w) => {
    const own = installedHere(fake, w.id);
    const org = !own && w.enterpriseId !== null && installedHere(fake, w.enterpriseId);
    return {
      id: w.id,
      name: w.name,
      enterpriseId: w.enterpriseId,
      installed: own || org,
      // Added through its org's installation: removing it removes it from every workspace of the org.
      ...(org ? { orgName: fake.oauth.orgs.find((o) => o.id === w.enterpriseId)?.name ?? w.enterpriseId } : {}),
    };
  });
}

export function snapshot(
  state: FakeSlackState,
  userId: string,
  viewErrors: ReadonlyMap<string, Record<string, string>>,
  install?: { url: string; fake: FakeSlack },
) {
  const stack = (state.modalStacks[userId] ?? []).map((id) => state.views[id]).filter((v) => v && !v.closed);
  const homeId = state.homeViews[userId];
  const home = homeId ? state.views[homeId] : undefined;
  const messages: Record<string, unknown[]> = {};
  for (const [channel, list] of Object.entries(state.messages)) {
    // Earlier revisions are for tests; the UI shows what Slack shows now.
    messages[channel] = list.map(({ history: _history, ...m }) => m);
  }
  return {
    team: state.teamId,
    botUserId: state.botUserId,
    users: state.users.map((u) => ({
      id: u.id,
      name: u.name,
      real_name: u.real_name,
      title: u.title ?? '',
      tz: u.tz,
      is_bot: !!u.is_bot,
      team_id: u.team_id ?? state.teamId,
    })),
    // Many workspaces: each workspace, whether the bot is in it (its own install or its org's), and where to add it.
    ...(install ? { installUrl: install.url, workspaces: workspacesOf(install.fake) } : {}),
    // User groups by id → handle, so `<!subteam^S…>` reads as Slack shows it (@approvers).
    usergroups: Object.fromEntries(Object.entries(state.usergroups).map(([id, g]) => [id, g.handle])),
    channels: state.channels.map((c) => ({
      id: c.id,
      name: c.name,
      purpose: c.purpose ?? '',
      is_private: !!c.is_private,
    })),
    dm: state.ims[userId] ?? `D${userId.slice(1)}`,
    messages,
    ephemerals: state.ephemerals.filter((e) => e.user === userId && !e.deleted),
    modal: stack.map((v) => viewForUi(v!, viewErrors)),
    // Step runs are shown to everyone: the sandbox plays the workflow's own log.
    workflowRuns: Object.values(state.functionExecutions)
      .sort((a, b) => b.startedAt - a.startedAt)
      .slice(0, 20)
      .map(({ botAccessToken: _token, ...run }) => run),
    home: home ? viewForUi(home, viewErrors) : null,
  };
}

function viewForUi(v: FakeView, viewErrors: ReadonlyMap<string, Record<string, string>>) {
  return { id: v.id, hash: v.hash, view: v.view, values: v.state.values, errors: viewErrors.get(v.id) ?? {} };
}

function findSurface(state: FakeSlackState, userId: string, raw: unknown): Surface {
  const s = (raw ?? {}) as { kind?: unknown; channel?: unknown; ts?: unknown; viewId?: unknown; index?: unknown };
  if (s.kind === 'message') {
    const message = state.messages[String(s.channel)]?.find((m) => m.ts === s.ts);
    if (!message) throw new HttpError(404, 'message not found');
    return { kind: 'message', message };
  }
  if (s.kind === 'ephemeral') {
    const mine = state.ephemerals.filter((e) => e.user === userId && !e.deleted);
    const ephemeral = typeof s.ts === 'string' ? mine.find((e) => e.ts === s.ts) : mine[Number(s.index)];
    if (!ephemeral) throw new HttpError(404, 'ephemeral message not found');
    return { kind: 'ephemeral', ephemeral };
  }
  if (s.kind === 'view') {
    const view = state.views[String(s.viewId)];
    if (!view || view.closed || view.user_id !== userId) throw new HttpError(404, 'view not found');
    return { kind: 'view', view };
  }
  throw new HttpError(400, 'surface.kind must be message, ephemeral or view');
}

function openModal(state: FakeSlackState, userId: string, viewId: string): FakeView {
  const view = state.views[viewId];
  if (!view || view.closed || !(state.modalStacks[userId] ?? []).includes(viewId)) {
    throw new HttpError(404, 'that modal is not open');
  }
  return view;
}

function popView(state: FakeSlackState, userId: string): void {
  const stack = state.modalStacks[userId] ?? [];
  const top = stack.pop();
  if (top && state.views[top]) state.views[top].closed = true;
  if (stack.length === 0) delete state.modalStacks[userId];
}

export type SubmissionOutcome = 'errors' | 'updated' | 'pushed' | 'cleared' | 'closed' | 'failed';

/** Does what Slack does with the bot's answer to a view_submission. */
export function applySubmissionAnswer(
  fake: FakeSlack,
  userId: string,
  view: FakeView,
  res: BotResponse,
  viewErrors: Map<string, Record<string, string>>,
): SubmissionOutcome {
  // Slack keeps the modal open and shows a generic error when the app fails or is too slow.
  if (res.status !== 200) {
    viewErrors.set(view.id, { '': 'We had some trouble connecting. Try again?' });
    return 'failed';
  }
  const answer = (res.json ?? {}) as { response_action?: string; errors?: unknown; view?: unknown };
  const { state } = fake;
  switch (answer.response_action) {
    case 'errors': {
      const errors: Record<string, string> = {};
      for (const [k, v] of Object.entries((answer.errors ?? {}) as Record<string, unknown>)) errors[k] = String(v);
      viewErrors.set(view.id, errors);
      return 'errors';
    }
    case 'update': {
      if (!isRecord(answer.view)) return 'failed';
      const blocks = Array.isArray(answer.view.blocks) ? (answer.view.blocks as Array<{ block_id?: unknown }>) : [];
      const kept = new Set(blocks.map((b) => b.block_id));
      for (const blockId of Object.keys(view.state.values)) if (!kept.has(blockId)) delete view.state.values[blockId];
      view.view = answer.view;
      view.hash = mintViewHash(Date.now());
      return 'updated';
    }
    case 'push': {
      const stack = state.modalStacks[userId] ?? [];
      if (!isRecord(answer.view) || stack.length >= MAX_MODAL_STACK) return 'failed';
      const id = mintSlackId('V');
      state.views[id] = {
        id,
        type: 'modal',
        user_id: userId,
        view: answer.view,
        state: { values: {} },
        hash: mintViewHash(Date.now()),
        root_view_id: stack[0] ?? id,
        previous_view_id: stack[stack.length - 1] ?? null,
        external_id: typeof answer.view.external_id === 'string' ? answer.view.external_id : '',
        closed: false,
      };
      stack.push(id);
      state.modalStacks[userId] = stack;
      return 'pushed';
    }
    case 'clear':
      fake.closeModal(userId);
      return 'cleared';
    default: {
      // An empty ack closes the submitted view; with a stack, Slack goes back to the one below.
      const stack = state.modalStacks[userId] ?? [];
      if (stack.length > 1 && stack[stack.length - 1] === view.id) popView(state, userId);
      else fake.closeModal(userId);
      return 'closed';
    }
  }
}

/** Slack shows a synchronous command reply (or a failure) to the person as an ephemeral message. */
function applyCommandAnswer(
  state: FakeSlackState,
  res: BotResponse,
  p: { user: string; channel: string; command: string },
): void {
  const base = { channel: p.channel, user: p.user, ts: `${(Date.now() / 1000).toFixed(6)}`, source: 'api' as const };
  let ephemeral: FakeEphemeral | undefined;
  if (res.status !== 200) {
    ephemeral = { ...base, text: `${p.command} failed with the error "dispatch_failed"` };
  } else if (isRecord(res.json) && (typeof res.json.text === 'string' || Array.isArray(res.json.blocks))) {
    ephemeral = {
      ...base,
      text: typeof res.json.text === 'string' ? res.json.text : '',
      ...(Array.isArray(res.json.blocks) ? { blocks: res.json.blocks } : {}),
    };
  }
  if (ephemeral) state.ephemerals.push(ephemeral);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isValues(value: unknown): value is FakeView['state']['values'] {
  return isRecord(value) && Object.values(value).every(isRecord);
}

function bracket(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** Refuses a request whose Host is not this server's (DNS rebinding); returns the Host it came with. */
function checkHost(req: IncomingMessage, allowed: ReadonlySet<string>): string {
  const host = (req.headers.host ?? '').toLowerCase();
  if (!allowed.has(host)) throw new HttpError(421, 'this sandbox answers only to its own address');
  return host;
}

/**
 * A state-changing request must come from the sandbox's own page: same Origin, JSON body. A cross-site
 * "simple" POST (text/plain, form) from any web page would otherwise run commands and press buttons.
 */
function checkStateChange(req: IncomingMessage, host: string): void {
  if (req.headers.origin !== `http://${host}`) throw new HttpError(403, 'requests must come from the sandbox page');
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') throw new HttpError(415, 'the body must be application/json');
}

/** Text a person typed: Slack refuses messages over 40,000 characters, and so does the sandbox. */
function requireText(body: Record<string, unknown>, key: string): string {
  const value = requireString(body, key);
  if (value.length > MAX_MESSAGE_TEXT) throw new HttpError(413, `${key} is over ${MAX_MESSAGE_TEXT} characters`);
  return value;
}

function requireString(body: Record<string, unknown>, key: string): string {
  const value = body[key];
  if (typeof value !== 'string' || value === '') throw new HttpError(400, `${key} is required`);
  return value;
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, 'request too large');
    chunks.push(chunk as Buffer);
  }
  const raw = Buffer.concat(chunks).toString('utf8');
  if (raw === '') return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    if (isRecord(parsed)) return parsed;
  } catch {
    // answered below
  }
  throw new HttpError(400, 'body must be a JSON object');
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}
