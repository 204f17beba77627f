// Readiness in Socket Mode follows the WebSocket to Slack: ready while it is open, unready while it
// is down (no request can reach this replica then), ready again once the client has reconnected.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { type Emulator, ManualClock, startEmulator } from '../../src/emulator/server.ts';
import { createLogger } from '../../src/logger.ts';
import type { ReadinessReport } from '../../src/ops/readiness.ts';
import { type Runtime, startRuntime } from '../../src/runtime.ts';
import { type FakeSlack, startFakeSlack } from '../../src/sandbox/fake-slack-api.ts';
import { API_KEY, BOT_TOKEN, START } from '../support/bot-harness.ts';
import { type FakeSocketMode, startFakeSocketMode } from '../support/fake-socket-mode.ts';

let emulator: Emulator;
let fake: FakeSlack;
const sockets: FakeSocketMode[] = [];
let runtime: Runtime;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, apiKey: API_KEY, clock: new ManualClock(START) });
  fake = await startFakeSlack({ port: 0, botToken: BOT_TOKEN });
  const socket = await startFakeSocketMode();
  sockets.push(socket);
  fake.setSocketModeUrl(socket.url);
  const config = loadConfig({
    RUNBOOK_API_URL: emulator.url,
    RUNBOOK_API_KEY: API_KEY,
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_APP_TOKEN: 'xapp-1-A0SANDBOX-readiness',
    SLACK_API_URL: fake.url,
    PORT: '0',
    DATA_DIR: `/tmp/runbook-bot-socket-readiness-${process.pid}`,
  });
  const logger = createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, done) => done() }) });
  runtime = await startRuntime(config, { logger });
  await socket.connected();
}, 30_000);

afterAll(async () => {
  await runtime?.stop();
  for (const s of sockets) await s.close().catch(() => undefined);
  await fake?.close();
  await emulator?.close();
});

async function until(want: (r: ReadinessReport) => boolean, timeoutMs = 20_000): Promise<ReadinessReport> {
  const deadline = Date.now() + timeoutMs;
  let report = await runtime.readiness.check();
  while (!want(report) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    report = await runtime.readiness.check();
  }
  return report;
}

describe('readiness in Socket Mode', () => {
  it('follows the Slack connection', async () => {
    const up = await until((r) => r.ready);
    expect(up.checks.slack?.state).toBe('ok');

    await sockets[0]!.close();
    const down = await until((r) => !r.ready);
    expect(down.status).toBe('unready');
    expect(down.checks.slack).toMatchObject({ state: 'failing', detail: expect.stringMatching(/not open/) });

    // Slack hands out a new socket URL; the client reconnects to it.
    const next = await startFakeSocketMode();
    sockets.push(next);
    fake.setSocketModeUrl(next.url);
    const again = await until((r) => r.ready, 30_000);
    expect(again.checks.slack?.state).toBe('ok');
  }, 60_000);
});
