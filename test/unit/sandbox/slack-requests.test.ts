import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { App, HTTPReceiver, LogLevel, verifySlackRequest } from '@slack/bolt';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../../../src/sandbox/fake-slack-api.ts';
import {
  appHomeOpenedEvent,
  blockActionsPayload,
  blockSuggestionPayload,
  eventCallbackBody,
  formRequest,
  interactivityBody,
  jsonRequest,
  sendToBot,
  shortcutPayload,
  signSlackRequest,
  slashCommandBody,
  viewClosedPayload,
  viewSubmissionPayload,
} from '../../../src/sandbox/slack-requests.ts';

const SECRET = 'sandbox-signing-secret';
const TEAM = 'T0SANDBOX';

describe('signSlackRequest', () => {
  it('computes v0=hex(hmac_sha256(secret, "v0:ts:body"))', () => {
    const body = 'token=xyz&team_id=T1DC2JH3J&command=%2Fweather&text=94070';
    const expected = createHmac('sha256', '8f742231b10e8888abcd99yyyzzz85a5')
      .update(`v0:1531420618:${body}`)
      .digest('hex');
    expect(signSlackRequest('8f742231b10e8888abcd99yyyzzz85a5', body, 1531420618)).toEqual({
      'x-slack-signature': `v0=${expected}`,
      'x-slack-request-timestamp': '1531420618',
    });
  });

  it("passes Bolt's own verifier and fails it for another body", () => {
    const headers = signSlackRequest(SECRET, 'a=1', 1_700_000_000);
    const verify = (body: string) =>
      verifySlackRequest({
        signingSecret: SECRET,
        body,
        headers: {
          'x-slack-signature': headers['x-slack-signature'],
          'x-slack-request-timestamp': Number(headers['x-slack-request-timestamp']),
        },
        nowMilliseconds: 1_700_000_010_000,
      });
    expect(() => verify('a=1')).not.toThrow();
    expect(() => verify('a=2')).toThrow(/signature mismatch/);
  });
});

describe('payload builders', () => {
  it('encodes a slash command the way Slack does', () => {
    const raw = slashCommandBody({
      command: '/runbook',
      text: 'run restart-nginx region=eu',
      userId: 'U01ALICE',
      userName: 'alice',
      channelId: 'C01OPS',
      channelName: 'ops',
      teamId: TEAM,
      triggerId: '1.2.abc',
      responseUrl: 'http://127.0.0.1:1/commands/T0SANDBOX/1/x',
    });
    expect(raw.startsWith('token=')).toBe(true);
    expect(raw).toContain('command=%2Frunbook&text=run+restart-nginx+region%3Deu');
    const parsed = Object.fromEntries(new URLSearchParams(raw));
    expect(Object.keys(parsed)).toEqual([
      'token',
      'team_id',
      'team_domain',
      'channel_id',
      'channel_name',
      'user_id',
      'user_name',
      'command',
      'text',
      'api_app_id',
      'is_enterprise_install',
      'response_url',
      'trigger_id',
    ]);
    expect(parsed).toMatchObject({ team_id: TEAM, channel_id: 'C01OPS', user_id: 'U01ALICE', trigger_id: '1.2.abc' });
  });

  it('leaves the message out of block_actions from an ephemeral message, like Slack', () => {
    const payload = blockActionsPayload({
      userId: 'U01ALICE',
      teamId: TEAM,
      triggerId: 't',
      channel: { id: 'C01OPS', name: 'ops' },
      message: { ts: '1.000100' },
      isEphemeral: true,
      responseUrl: 'http://x/actions/1',
      actions: [{ action_id: 'a', block_id: 'b', type: 'button', value: 'v', action_ts: '2.000000' }],
    });
    expect(payload).not.toHaveProperty('message');
    expect(payload).toMatchObject({
      type: 'block_actions',
      container: { type: 'message', message_ts: '1.000100', channel_id: 'C01OPS', is_ephemeral: true },
      user: { id: 'U01ALICE', username: 'u01alice', name: 'u01alice', team_id: TEAM },
      team: { id: TEAM, domain: 'sandbox' },
      actions: [{ action_id: 'a', block_id: 'b', type: 'button', value: 'v', action_ts: '2.000000' }],
    });
  });

  it('wraps interaction payloads as payload=<url-encoded JSON>', () => {
    const body = interactivityBody({ type: 'shortcut', text: 'a b&c' });
    expect(body).toBe(`payload=${encodeURIComponent('{"type":"shortcut","text":"a b&c"}')}`);
    expect(JSON.parse(new URLSearchParams(body).get('payload') ?? '')).toEqual({ type: 'shortcut', text: 'a b&c' });
  });
});

describe('a real Bolt app accepts what the builders send', () => {
  let fake: FakeSlack;
  let app: App;
  let botUrl: string;
  const seen: Record<string, Record<string, unknown>> = {};

  const runModal = {
    type: 'modal' as const,
    callback_id: 'run_modal',
    notify_on_close: true,
    private_metadata: 'runbook=r1',
    title: { type: 'plain_text' as const, text: 'Run' },
    submit: { type: 'plain_text' as const, text: 'Run' },
    blocks: [
      {
        type: 'input' as const,
        block_id: 'region',
        label: { type: 'plain_text' as const, text: 'Region' },
        element: { type: 'plain_text_input' as const, action_id: 'value' },
      },
    ],
  };

  beforeAll(async () => {
    fake = await startFakeSlack();
    const receiver = new HTTPReceiver({ signingSecret: SECRET, processBeforeResponse: true, logLevel: LogLevel.ERROR });
    app = new App({
      token: 'xoxb-sandbox',
      receiver,
      logLevel: LogLevel.ERROR,
      clientOptions: { slackApiUrl: fake.url, retryConfig: { retries: 0 } },
    });
    app.command('/runbook', async ({ command, ack, client, respond }) => {
      await ack();
      seen.command = { ...command };
      await client.views.open({ trigger_id: command.trigger_id, view: runModal });
      await respond({ text: 'Opening the run form…' });
    });
    app.action('approve', async ({ ack, body, action, respond }) => {
      await ack();
      seen.action = { body, action };
      await respond({ replace_original: true, text: 'Approved' });
    });
    app.action('refresh', async ({ ack, body }) => {
      await ack();
      seen.viewAction = { body };
    });
    app.view('run_modal', async ({ ack, view, body }) => {
      seen.submission = { view, body };
      await ack({ response_action: 'errors', errors: { region: 'Unknown region' } });
    });
    app.view({ callback_id: 'run_modal', type: 'view_closed' }, async ({ ack, body }) => {
      await ack();
      seen.closed = { body };
    });
    app.options('runbook_picker', async ({ ack, options }) => {
      seen.options = { options };
      await ack({ options: [{ text: { type: 'plain_text', text: `match ${options.value}` }, value: 'r1' }] });
    });
    app.shortcut('open_runbooks', async ({ ack, shortcut }) => {
      await ack();
      seen.shortcut = { shortcut };
    });
    app.event('app_home_opened', async ({ event, client }) => {
      seen.home = { event };
      await client.views.publish({ user_id: event.user, view: { type: 'home', blocks: [] } });
    });
    const server = await app.start(0);
    botUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
  });

  afterAll(async () => {
    await app.stop();
    await fake.close();
  });

  beforeEach(() => {
    for (const key of Object.keys(seen)) delete seen[key];
  });

  const actor = { userId: 'U01ALICE', userName: 'alice', teamId: TEAM };

  async function openRunModal(): Promise<string> {
    const raw = slashCommandBody({
      command: '/runbook',
      text: 'run r1',
      userId: 'U01ALICE',
      channelId: 'C01OPS',
      teamId: TEAM,
      triggerId: fake.newTriggerId('U01ALICE'),
      responseUrl: fake.newResponseUrl({ channel: 'C01OPS', user: 'U01ALICE' }),
    });
    const res = await sendToBot(botUrl, SECRET, formRequest(raw));
    expect(res.status).toBe(200);
    const stack = fake.state.modalStacks.U01ALICE ?? [];
    return stack[stack.length - 1]!;
  }

  it('slash command: the handler sees the fields, opens a modal and answers via response_url', async () => {
    const viewId = await openRunModal();
    expect(seen.command).toMatchObject({
      command: '/runbook',
      text: 'run r1',
      user_id: 'U01ALICE',
      channel_id: 'C01OPS',
    });
    expect(fake.state.views[viewId]).toMatchObject({ type: 'modal', user_id: 'U01ALICE' });
    expect(fake.state.ephemerals.at(-1)).toMatchObject({ user: 'U01ALICE', text: 'Opening the run form…' });
  });

  it('block_actions on a message: ids, container and message reach the handler; respond replaces it', async () => {
    const posted = await app.client.chat.postMessage({ channel: 'C03APPROVALS', text: 'Approve run?' });
    const message = fake.state.messages.C03APPROVALS?.find((m) => m.ts === posted.ts);
    const payload = blockActionsPayload({
      ...actor,
      triggerId: fake.newTriggerId('U02BOB'),
      channel: { id: 'C03APPROVALS', name: 'approvals' },
      message: { type: 'message', ts: posted.ts!, text: message?.text, user: 'U0BOT', bot_id: 'B0BOT' },
      responseUrl: fake.newResponseUrl({ channel: 'C03APPROVALS', user: 'U02BOB', messageTs: posted.ts! }),
      actions: [{ action_id: 'approve', block_id: 'approval', type: 'button', value: 'exec-1' }],
    });
    const res = await sendToBot(botUrl, SECRET, formRequest(interactivityBody(payload)));
    expect(res.status).toBe(200);
    const { body, action } = seen.action as { body: Record<string, unknown>; action: Record<string, unknown> };
    expect(action).toMatchObject({ action_id: 'approve', block_id: 'approval', value: 'exec-1' });
    expect(body.container).toEqual({
      type: 'message',
      message_ts: posted.ts,
      channel_id: 'C03APPROVALS',
      is_ephemeral: false,
    });
    expect(fake.state.messages.C03APPROVALS?.find((m) => m.ts === posted.ts)?.text).toBe('Approved');
  });

  it('block_actions in a view: the container names the view', async () => {
    const viewId = await openRunModal();
    const payload = blockActionsPayload({
      ...actor,
      triggerId: fake.newTriggerId('U01ALICE'),
      view: fake.viewOutput(viewId) as { id: string },
      actions: [{ action_id: 'refresh', block_id: 'region', type: 'button' }],
    });
    await sendToBot(botUrl, SECRET, formRequest(interactivityBody(payload)));
    const body = (seen.viewAction as { body: Record<string, unknown> }).body;
    expect(body.container).toEqual({ type: 'view', view_id: viewId });
    expect(body.view).toMatchObject({ id: viewId, callback_id: 'run_modal' });
  });

  it('view_submission: values and metadata reach the handler, and its ack comes back as the response', async () => {
    const viewId = await openRunModal();
    const values = { region: { value: { type: 'plain_text_input', value: 'mars-1' } } };
    const payload = viewSubmissionPayload({
      ...actor,
      triggerId: fake.newTriggerId('U01ALICE'),
      view: fake.viewOutput(viewId) as { id: string },
      values,
    });
    const res = await sendToBot(botUrl, SECRET, formRequest(interactivityBody(payload)));
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ response_action: 'errors', errors: { region: 'Unknown region' } });
    const { view } = seen.submission as { view: Record<string, unknown> };
    expect(view).toMatchObject({ id: viewId, private_metadata: 'runbook=r1', state: { values } });
  });

  it('view_closed reaches the closed-view handler', async () => {
    const viewId = await openRunModal();
    const payload = viewClosedPayload({ ...actor, view: fake.viewOutput(viewId) as { id: string }, isCleared: true });
    await sendToBot(botUrl, SECRET, formRequest(interactivityBody(payload)));
    expect((seen.closed as { body: Record<string, unknown> }).body).toMatchObject({
      type: 'view_closed',
      is_cleared: true,
    });
  });

  it('block_suggestion: the typed text reaches the options handler and the options come back', async () => {
    const viewId = await openRunModal();
    const payload = blockSuggestionPayload({
      ...actor,
      actionId: 'runbook_picker',
      blockId: 'runbook',
      value: 'ngin',
      view: fake.viewOutput(viewId) as { id: string },
    });
    const res = await sendToBot(botUrl, SECRET, formRequest(interactivityBody(payload)));
    expect(res.json).toEqual({ options: [{ text: { type: 'plain_text', text: 'match ngin' }, value: 'r1' }] });
    expect((seen.options as { options: Record<string, unknown> }).options).toMatchObject({
      type: 'block_suggestion',
      container: { type: 'view', view_id: viewId },
    });
  });

  it('global shortcut: callback_id and trigger_id reach the handler', async () => {
    const triggerId = fake.newTriggerId('U01ALICE');
    const payload = shortcutPayload({ ...actor, callbackId: 'open_runbooks', triggerId });
    await sendToBot(botUrl, SECRET, formRequest(interactivityBody(payload)));
    expect((seen.shortcut as { shortcut: Record<string, unknown> }).shortcut).toMatchObject({
      type: 'shortcut',
      callback_id: 'open_runbooks',
      trigger_id: triggerId,
      user: { id: 'U01ALICE' },
    });
  });

  it('app_home_opened event: the handler runs and publishes a Home tab in the fake', async () => {
    const body = eventCallbackBody({
      teamId: TEAM,
      event: appHomeOpenedEvent({ userId: 'U02BOB', channelId: 'D02BOB' }),
    });
    const res = await sendToBot(botUrl, SECRET, jsonRequest(body));
    expect(res.status).toBe(200);
    expect((seen.home as { event: Record<string, unknown> }).event).toMatchObject({
      type: 'app_home_opened',
      user: 'U02BOB',
      tab: 'home',
    });
    expect(fake.state.homeViews.U02BOB).toMatch(/^V/);
  });

  it('rejects a tampered body with 401 and runs no handler', async () => {
    const payload = shortcutPayload({ ...actor, callbackId: 'open_runbooks', triggerId: 't' });
    const form = await sendToBot(botUrl, SECRET, formRequest(interactivityBody(payload)), { tamper: true });
    expect(form.status).toBe(401);
    const json = await sendToBot(botUrl, SECRET, jsonRequest(eventCallbackBody({ teamId: TEAM, event: {} })), {
      tamper: true,
    });
    expect(json.status).toBe(401);
    expect(seen.shortcut).toBeUndefined();
  });

  it('rejects a 6-minute-old request with 401 and a wrong secret with 401', async () => {
    const payload = shortcutPayload({ ...actor, callbackId: 'open_runbooks', triggerId: 't' });
    const body = formRequest(interactivityBody(payload));
    const stale = await sendToBot(botUrl, SECRET, body, { timestampSeconds: Math.floor(Date.now() / 1000) - 6 * 60 });
    expect(stale.status).toBe(401);
    const wrong = await sendToBot(botUrl, 'not-the-secret', body);
    expect(wrong.status).toBe(401);
    expect(seen.shortcut).toBeUndefined();
  });
});
