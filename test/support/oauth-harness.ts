// The bot in many-workspace mode, in-process: the emulator, the fake Slack (with "Add to Slack"), and the
// real runtime with Bolt's OAuth installer. `install(target)` walks the browser's way through it —
// /slack/install (state cookie), Slack's consent page, the redirect back — and returns the final page.
// `socketMode: true`: the bot over Socket Mode (SLACK_APP_TOKEN, no signing secret), people's requests and
// delivered events arriving as envelopes on the fake Socket Mode connection.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { KnownBlock } from '@slack/types';
import { loadConfig } from '../../src/config.ts';
import { type Emulator, type EmulatorOptions, ManualClock, startEmulator } from '../../src/emulator/server.ts';
import { createLogger } from '../../src/logger.ts';
import { type Runtime, startRuntime } from '../../src/runtime.ts';
import { type FakeSlack, startFakeSlack } from '../../src/sandbox/fake-slack-api.ts';
import type { FakeMessage } from '../../src/sandbox/fake-slack-state.ts';
import { installThroughSlack } from '../../src/sandbox/install-flow.ts';
import { addWorkspacePeople } from '../../src/sandbox/sandbox-workspaces.ts';
import { jsonRequest, sendToBot } from '../../src/sandbox/slack-requests.ts';
import { SlackUser } from '../../src/sandbox/slack-user.ts';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import { SUBSCRIPTIONS_CURSOR } from '../../src/watch/subscriptions.ts';
import { submit as submittedState } from '../unit/forms/slack-state.ts';
import { collectLogs, QUICK_WATCH_ENV, START } from './bot-harness.ts';
import { deliverOverSocket, type FakeSocketMode, startFakeSocketMode } from './fake-socket-mode.ts';

export const CLIENT_ID = '1111.2222';
export const CLIENT_SECRET = 'client-secret-0123456789abcdef';
export const STATE_SECRET = 'state-secret-0123456789abcdef';
export const SIGNING_SECRET = 'test-signing-secret-0123456789';
export const API_KEY = 'test-api-key-0123456789';
/** Two runbooks of the emulator's catalog: one that runs at once, one that needs approval. */
export const SCALE = 'Scale Kubernetes Deployment';
export const DRAIN = 'Drain Kubernetes Node';
/** Socket Mode's app-level token (one for every installation). */
export const APP_TOKEN = 'xapp-1-A0SANDBOX-1234-org-app-level-token';

export interface OAuthHarness {
  emulator: Emulator;
  /** The emulator's clock: runs end when it is advanced. */
  clock: ManualClock;
  fake: FakeSlack;
  /** Slack's side of the bot's WebSocket (`socketMode: true`), else null. */
  socket: FakeSocketMode | null;
  runtime: Runtime;
  /** http://127.0.0.1:PORT */
  origin: string;
  dataDir: string;
  logs: string[];
  /**
   * Installs into a workspace or (an enterprise id) a whole Grid org; the page the person ends on. The
   * installation is then connected to the emulator's key, as its admin would in App Home (`connect: false`
   * leaves it unconnected).
   */
  install(target: string, options?: { deny?: boolean; connect?: boolean }): Promise<{ status: number; html: string }>;
  /** A person in a workspace (of an org, installed org-wide or not). */
  user(userId: string, teamId: string, grid?: { enterpriseId: string; isEnterpriseInstall: boolean }): SlackUser;
  /**
   * `/runbook run "Scale Kubernetes Deployment" … --now` and Run, as `userId` of `team`: the execution (in
   * the emulator's tenant of `tenantKey`, default its first).
   */
  runNow(userId: string, team: string, deployment: string, tenantKey?: string): Promise<{ id: string }>;
  /** Delivers an Events API body as Slack does: signed to /slack/events, or on the socket. */
  deliver(body: Record<string, unknown>): Promise<number>;
  /** Another replica on the same config and store (Postgres with DATABASE_URL), stopped with the harness. */
  replica(): Promise<{ runtime: Runtime; origin: string }>;
  stop(): Promise<void>;
}

/** Polls an async probe until it gives a value (store reads, work Bolt does after its answer). */
export async function until<T>(probe: () => Promise<T | null | undefined | false>, what: string): Promise<T> {
  for (let i = 0; i < 1_000; i++) {
    const value = await probe();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * The subscription scan's position of `installation` once stored: after its first scan (a baseline: what
 * ended before it is history), or `forgotten` (`''`: uninstalled, or its API unreadable; the next scan
 * starts from "now").
 */
export function scanPosition(h: OAuthHarness, installation: string, forgotten = false): Promise<true> {
  return until(
    async () => {
      const position = await h.runtime.store.cursors.get(SUBSCRIPTIONS_CURSOR, installation);
      return (forgotten ? position === '' : Boolean(position)) || null;
    },
    forgotten ? `the scan position of ${installation} forgotten` : `the first scan of ${installation}`,
  );
}

/** The chat.update that turned execution `id`'s card into its result (with the installation it was sent for). */
export function resultCardOf(h: OAuthHarness, id: string) {
  return until(
    async () =>
      h.fake.state.calls.find(
        (c) =>
          c.method === 'chat.update' &&
          c.ok &&
          JSON.stringify(c.args).includes(id) &&
          /Succeeded|Failed/i.test(JSON.stringify(c.args)),
      ),
    `the result card of ${id}`,
  );
}

export async function startOAuthHarness(
  options: {
    env?: Record<string, string>;
    tokenRotation?: boolean;
    tenants?: EmulatorOptions['tenants'];
    socketMode?: boolean;
  } = {},
): Promise<OAuthHarness> {
  const clock = new ManualClock(START);
  const emulator = await startEmulator({
    port: 0,
    apiKey: API_KEY,
    clock,
    ...(options.tenants ? { tenants: options.tenants } : {}),
  });
  const fake = await startFakeSlack({ port: 0 });
  addWorkspacePeople(fake);
  const socket = options.socketMode ? await startFakeSocketMode() : null;
  if (socket) fake.setSocketModeUrl(socket.url);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'runbook-bot-oauth-'));
  const { logs, destination } = collectLogs();
  const config = loadConfig({
    RUNBOOK_API_URL: emulator.url,
    RUNBOOK_API_KEY: API_KEY,
    SLACK_CLIENT_ID: CLIENT_ID,
    SLACK_CLIENT_SECRET: CLIENT_SECRET,
    SLACK_STATE_SECRET: STATE_SECRET,
    // Socket Mode needs no signing secret: nothing but the install pages and the probes come over HTTP.
    ...(socket ? { SLACK_APP_TOKEN: APP_TOKEN } : { SLACK_SIGNING_SECRET: SIGNING_SECRET }),
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    SLACK_API_URL: fake.url,
    SLACK_AUTHORIZATION_URL: `${fake.origin}/oauth/v2/authorize`,
    PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'debug',
    ...QUICK_WATCH_ENV,
    ...options.env,
  });
  const logger = createLogger({
    level: 'debug',
    secrets: [API_KEY, CLIENT_SECRET, SIGNING_SECRET, STATE_SECRET, APP_TOKEN],
    destination,
  });
  const runtime = await startRuntime(config, { logger });
  await socket?.connected();
  const origin = `http://127.0.0.1:${runtime.slackPort}`;
  fake.oauth.configureApp({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUrl: `${origin}/slack/oauth_redirect`,
    ...(options.tokenRotation ? { tokenRotation: true } : {}),
  });
  const replicas: Runtime[] = [];
  const harness: OAuthHarness = {
    emulator,
    clock,
    fake,
    socket,
    runtime,
    origin,
    dataDir,
    logs,
    async install(target, how = {}) {
      const page = await installThroughSlack(origin, target, how);
      if (!how.deny && how.connect !== false && page.status === 200) {
        const connected = await runtime.tenants!.connections.connect(target, { apiKey: API_KEY }, 'U0HARNESS');
        if (!connected.ok) throw new Error(`could not connect ${target}: ${connected.sentence}`);
      }
      return page;
    },
    user(userId, teamId, grid) {
      return new SlackUser({
        fake,
        ...(socket
          ? { deliver: deliverOverSocket(socket) }
          : { botUrl: `${origin}/slack/events`, signingSecret: SIGNING_SECRET }),
        userId,
        teamId,
        ...(grid ? { enterpriseId: grid.enterpriseId, isEnterpriseInstall: grid.isEnterpriseInstall } : {}),
      });
    },
    async runNow(userId, team, deployment, tenantKey) {
      const user = harness.user(userId, team);
      // This command's confirmation, not an earlier run's (a slow answer would leave only that one to find).
      const seen = fake.state.ephemerals.length;
      await user.command(
        `run "Scale Kubernetes Deployment" namespace=prod deployment=${deployment} replicas=2 --now`,
        'C01OPS',
      );
      const confirm = await until(
        async () =>
          fake.state.ephemerals
            .slice(seen)
            .reverse()
            .find((e) => e.user === userId && JSON.stringify(e.blocks ?? []).includes(ACTIONS.confirmRun)),
        'the confirmation',
      );
      await user.act({ kind: 'ephemeral', ephemeral: confirm }, ACTIONS.confirmRun);
      const tenant = tenantKey ? emulator.tenant(tenantKey)! : emulator.state;
      return until(
        async () =>
          [...tenant.executions.byId.values()].find((e) => String(e.received.params ?? '').includes(deployment)),
        'the run',
      );
    },
    async deliver(body) {
      if (socket) return (await deliverOverSocket(socket)(jsonRequest(body))).status;
      const res = await sendToBot(`${origin}/slack/events`, SIGNING_SECRET, jsonRequest(body));
      return res.status;
    },
    async replica() {
      const other = await startRuntime(config, { logger });
      replicas.push(other);
      return { runtime: other, origin: `http://127.0.0.1:${other.slackPort}` };
    },
    async stop() {
      for (const other of replicas) await other.stop();
      await runtime.stop();
      await socket?.close();
      await fake.close();
      await emulator.close();
    },
  };
  return harness;
}

/** Opens App Home as `user` and returns what the bot published there (with the installation it used). */
export async function publishedHomeOf(
  h: OAuthHarness,
  user: SlackUser,
): Promise<{ text: string; installation?: string }> {
  const before = h.fake.state.calls.length;
  await user.openHome();
  const call = await until(
    async () =>
      h.fake.state.calls.slice(before).find((c) => c.method === 'views.publish' && c.ok && c.args.user_id === user.id),
    `${user.id}'s home`,
  );
  return { text: JSON.stringify(call.args), ...(call.installation ? { installation: call.installation } : {}) };
}

/** Opens App Home as `user`, clicks Connect (or Replace key) and waits for the form with the key field. */
export async function openConnectForm(h: OAuthHarness, user: SlackUser) {
  await user.openHome();
  const home = await until(async () => {
    const view = h.fake.state.views[h.fake.state.homeViews[user.id] ?? ''];
    return view && JSON.stringify(view.view).includes(ACTIONS.connectOpen) ? view : undefined;
  }, `${user.id}'s Connect button`);
  await user.act({ kind: 'view', view: home }, ACTIONS.connectOpen);
  return until(async () => {
    const top = user.topModal();
    return top && JSON.stringify(top.view).includes(BLOCKS.connectKey) ? top : undefined;
  }, `${user.id}'s connect form`);
}

/** Connect / Replace key from App Home as `user` (an admin, owner or the installer), with `apiKey`. */
export async function connectFromHome(h: OAuthHarness, user: SlackUser, apiKey: string): Promise<void> {
  const form = await openConnectForm(h, user);
  await user.submit(form.id, {
    [BLOCKS.connectKey]: { [ACTIONS.connectKey]: { type: 'plain_text_input', value: apiKey } },
  });
  await until(async () => JSON.stringify(user.topModal()?.view ?? {}).includes('Connected to'), 'connected');
}

/**
 * `/runbook run "Drain Kubernetes Node"` (a runbook that needs approval) as `user`, the form filled with
 * `node` and sent to C01OPS: the approvers' message (a DM or a channel post) and the request's id.
 */
export async function requestDrainApproval(
  h: OAuthHarness,
  user: SlackUser,
  node: string,
): Promise<{ message: FakeMessage; approvalId: string; form: string }> {
  await user.command(`run "${DRAIN}"`, 'C01OPS');
  const modal = await until(async () => {
    const top = user.topModal();
    return top && JSON.stringify(top.view).includes('field_node_name') ? top : null;
  }, 'the drain form');
  await user.submit(modal.id, {
    ...(submittedState(modal.view.blocks as KnownBlock[]) as Record<string, Record<string, Record<string, unknown>>>),
    [BLOCKS.channel]: { [ACTIONS.channelSelect]: { type: 'conversations_select', selected_conversation: 'C01OPS' } },
    field_node_name: { value: { type: 'plain_text_input', value: node } },
  });
  const message = await until(
    async () =>
      Object.values(h.fake.state.messages)
        .flat()
        .find(
          (m) =>
            JSON.stringify(m.blocks ?? []).includes(node) && JSON.stringify(m.blocks).includes(ACTIONS.approvalApprove),
        ),
    `the approval request for ${node}`,
  );
  const approvalId = JSON.stringify(message.blocks).match(/"action_id":"approval_approve","value":"([^"]+)"/)![1]!;
  return { message, approvalId, form: JSON.stringify(modal.view.blocks) };
}

/** Zed, a second person of the second workspace (T0SECOND), in every public channel. */
export function addZed(h: OAuthHarness): void {
  h.fake.state.users.push({
    id: 'U12ZED',
    name: 'zed',
    real_name: 'Zed Second',
    email: 'zed@example.com',
    tz: 'Europe/London',
    tz_label: 'Greenwich Mean Time',
    tz_offset: 0,
    team_id: 'T0SECOND',
  });
  for (const channel of h.fake.state.channels) if (!channel.is_private) channel.members?.push('U12ZED');
}

/**
 * `/runbook schedule "<runbook>"` as `user`, the form filled with a custom `cron` and `fields` (block id →
 * its element's state, as `field_<name>: { value: … }`), and saved.
 */
export async function scheduleThroughForm(
  user: SlackUser,
  runbook: string,
  cron: string,
  fields: Record<string, Record<string, Record<string, unknown>>>,
): Promise<void> {
  await user.command(`schedule "${runbook}"`, 'C01OPS');
  const form = await until(async () => {
    const top = user.topModal();
    return top && JSON.stringify(top.view).includes(BLOCKS.cron) ? top : null;
  }, `${user.id}'s schedule form`);
  await user.submit(form.id, {
    ...submittedState(form.view.blocks as KnownBlock[], { [BLOCKS.preset]: { selected_option: { value: 'custom' } } }),
    [BLOCKS.cron]: { [ACTIONS.cronInput]: { type: 'plain_text_input', value: cron } },
    ...fields,
  } as Record<string, Record<string, Record<string, unknown>>>);
}
