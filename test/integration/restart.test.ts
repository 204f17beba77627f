// Crash safety: the bot runs as a real process against an emulator (system clock, 3 s runs) and a
// fake Slack owned by this test, with a SQLite file in a temp dir. 200 watched runs; the bot is
// SIGKILLed while reporting them and started again. Every run must end with its result card and
// exactly one notice (thread reply or digest line): none lost, none doubled.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createRunbookApi } from '../../src/api/client.ts';
import type { RunbookApi } from '../../src/api/runbook-api.ts';
import { type Emulator, startEmulator } from '../../src/emulator/server.ts';
import { type FakeSlack, startFakeSlack } from '../../src/sandbox/fake-slack-api.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';
import {
  type BotProcess,
  countReports,
  FAST_WATCH_ENV,
  seedWatchedRuns,
  spawnBot,
  waitUntil,
} from '../support/process-harness.ts';

const API_KEY = 'restart-test-key-0123456789';
const BOT_TOKEN = 'xoxb-restart-test';
const RUNS = 200;

let emulator: Emulator;
let fake: FakeSlack;
let api: RunbookApi;
let store: Store;
let dataDir: string;
const bots: BotProcess[] = [];

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, apiKey: API_KEY, defaultDurationMs: 3_000 });
  fake = await startFakeSlack({ port: 0, botToken: BOT_TOKEN });
  api = createRunbookApi({ baseUrl: emulator.url, apiKey: API_KEY, timeoutMs: 5_000, maxRetries: 1 });
  dataDir = mkdtempSync(path.join(tmpdir(), 'restart-test-'));
  store = await openStore({ kind: 'sqlite', path: path.join(dataDir, 'runbook-bot.sqlite') });
});

afterAll(async () => {
  for (const bot of bots) await bot.kill('SIGKILL');
  await store?.close();
  await api?.close();
  await fake?.close();
  await emulator?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function botEnv(): Record<string, string> {
  return {
    RUNBOOK_API_URL: emulator.url,
    RUNBOOK_API_KEY: API_KEY,
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: 'restart-test-signing-secret',
    SLACK_API_URL: fake.url,
    RUNBOOK_PROXIES: 'proxy-dev',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    ...FAST_WATCH_ENV,
  };
}

it('reports every run exactly once across a SIGKILL and a restart', { timeout: 45_000 }, async () => {
  const first = await spawnBot(botEnv());
  bots.push(first);
  const runs = await seedWatchedRuns({ api, store, fake, botToken: BOT_TOKEN }, RUNS, ['C01OPS', 'C02DEPLOYS']);

  // Kill it while it is in the middle of reporting.
  await waitUntil(async () => (await store.watches.countByState()).finished >= 15, 'the first results', 20_000);
  await first.kill('SIGKILL');
  const atKill = await store.watches.countByState();
  expect(atKill.finished).toBeLessThan(RUNS);

  const second = await spawnBot(botEnv());
  bots.push(second);
  try {
    await waitUntil(async () => (await store.watches.countByState()).active === 0, 'every watch to finish', 25_000);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${second.output()}`);
  }
  await second.kill('SIGTERM');

  const reports = countReports(fake, runs);
  const lostReplies = [...reports].filter(([, r]) => r.replies === 0).map(([id]) => id);
  const doubledReplies = [...reports].filter(([, r]) => r.replies > 1).map(([id]) => id);
  expect({ lostReplies, doubledReplies }).toEqual({ lostReplies: [], doubledReplies: [] });
  const edits = [...reports.values()].map((r) => r.resultEdits);
  expect(edits.every((n) => n >= 1)).toBe(true);
  // Edits go out one at a time, so at most the one in flight at the kill can be repeated (harmless:
  // same content); every other run's message was edited exactly once.
  expect(edits.filter((n) => n > 1).length).toBeLessThanOrEqual(1);
  expect(Math.max(...edits)).toBeLessThanOrEqual(2);
});
