// The bot in Socket Mode (bot token + app token): it asks the fake Web API for a socket URL
// (apps.connections.open goes to SLACK_API_URL like every other call), connects, and serves slash
// commands and interactions delivered as Socket Mode envelopes.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { type Emulator, ManualClock, startEmulator } from '../../src/emulator/server.ts';
import { createLogger } from '../../src/logger.ts';
import { type Runtime, startRuntime } from '../../src/runtime.ts';
import { type FakeSlack, startFakeSlack } from '../../src/sandbox/fake-slack-api.ts';
import { viewSubmissionPayload } from '../../src/sandbox/slack-requests.ts';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import { API_KEY, BOT_TOKEN, ephemeralContaining, START, waitFor } from '../support/bot-harness.ts';
import { type FakeSocketMode, startFakeSocketMode } from '../support/fake-socket-mode.ts';

const APP_TOKEN = 'xapp-1-A0SANDBOX-test-app-token';

let emulator: Emulator;
let fake: FakeSlack;
let socket: FakeSocketMode;
let runtime: Runtime;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, apiKey: API_KEY, clock: new ManualClock(START) });
  fake = await startFakeSlack({ port: 0, botToken: BOT_TOKEN });
  socket = await startFakeSocketMode();
  fake.setSocketModeUrl(socket.url);
  const config = loadConfig({
    RUNBOOK_API_URL: emulator.url,
    RUNBOOK_API_KEY: API_KEY,
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_APP_TOKEN: APP_TOKEN,
    SLACK_API_URL: fake.url,
    RUNBOOK_PROXIES: 'proxy-dev',
    PORT: '0',
    DATABASE_URL: '',
    DATA_DIR: `/tmp/runbook-bot-socket-${process.pid}`,
  });
  const logger = createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, done) => done() }) });
  expect(config.slack.mode).toBe('socket');
  runtime = await startRuntime(config, { logger });
  await socket.connected();
});

afterAll(async () => {
  await runtime?.stop();
  await socket?.close();
  await fake?.close();
  await emulator?.close();
});

function slashCommand(text: string) {
  return {
    token: 'fake',
    team_id: 'T0SANDBOX',
    team_domain: 't0sandbox',
    channel_id: 'C01OPS',
    channel_name: 'ops',
    user_id: 'U01ALICE',
    user_name: 'alice',
    command: '/runbook',
    text,
    api_app_id: 'A0SANDBOX',
    is_enterprise_install: 'false',
    response_url: fake.newResponseUrl({ channel: 'C01OPS', user: 'U01ALICE' }),
    trigger_id: fake.newTriggerId('U01ALICE'),
  };
}

describe('Socket Mode', () => {
  it('connects through apps.connections.open on SLACK_API_URL', () => {
    const open = fake.state.calls.find((c) => c.method === 'apps.connections.open');
    expect(open?.ok).toBe(true);
  });

  it('answers a slash command delivered over the socket', async () => {
    const ack = await socket.send('slash_commands', slashCommand('help'));
    expect(ack.envelope_id).toBeTruthy();
    await waitFor(() => ephemeralContaining(fake, '/runbook schedules'), 'help over the response_url');
  });

  it('opens the run form and answers its submission with field errors', async () => {
    await socket.send('slash_commands', slashCommand('run "Scale Kubernetes Deployment"'));
    const modal = await waitFor(() => {
      const stack = fake.state.modalStacks.U01ALICE ?? [];
      const top = stack.length ? fake.state.views[stack[stack.length - 1]!] : undefined;
      return top && JSON.stringify(top.view).includes('field_replicas') ? top : undefined;
    }, 'run modal');
    const ack = await socket.send(
      'interactive',
      viewSubmissionPayload({
        userId: 'U01ALICE',
        teamId: 'T0SANDBOX',
        triggerId: fake.newTriggerId('U01ALICE'),
        view: fake.viewOutput(modal.id) as { id: string },
        values: {
          [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
          field_namespace: { value: { type: 'plain_text_input', value: 'web' } },
          field_deployment: { value: { type: 'plain_text_input', value: 'api' } },
          field_replicas: { value: { type: 'number_input', value: '500' } },
        },
      }),
    );
    expect(ack.payload).toMatchObject({ response_action: 'errors', errors: { field_replicas: expect.any(String) } });
  });
});
