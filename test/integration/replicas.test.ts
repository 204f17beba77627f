// Two replicas on one Postgres schema (DATABASE_URL + DATABASE_SCHEMA) share 200 watched runs; one
// is SIGKILLed while reporting. Its leases expire, the other takes the rest over, and every run
// ends with its result card and exactly one notice. Needs Postgres (TEST_DATABASE_URL: the one the
// test run settled on), like the store's Postgres tests.
import { randomBytes } from 'node:crypto';
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
  pgAdmin,
  seedWatchedRuns,
  spawnBot,
  waitUntil,
} from '../support/process-harness.ts';
import { TEST_DATABASE_URL } from '../support/test-database.ts';

const API_KEY = 'restart-test-key-0123456789';
const BOT_TOKEN = 'xoxb-replica-test';
const DATABASE_URL = TEST_DATABASE_URL;
const SCHEMA = `test_${randomBytes(6).toString('hex')}`;
const RUNS = 200;

let emulator: Emulator;
let fake: FakeSlack;
let api: RunbookApi;
let store: Store;
const bots: BotProcess[] = [];

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, apiKey: API_KEY, defaultDurationMs: 3_000 });
  fake = await startFakeSlack({ port: 0, botToken: BOT_TOKEN });
  api = createRunbookApi({ baseUrl: emulator.url, apiKey: API_KEY, timeoutMs: 5_000, maxRetries: 1 });
  await admin(`CREATE SCHEMA ${SCHEMA}`);
  store = await openStore({ kind: 'postgres', url: DATABASE_URL, schema: SCHEMA });
});

afterAll(async () => {
  for (const bot of bots) await bot.kill('SIGKILL');
  await store?.close();
  await api?.close();
  await fake?.close();
  await emulator?.close();
  await admin(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
});

const admin = (sql: string) => pgAdmin(DATABASE_URL, sql);

function botEnv(): Record<string, string> {
  return {
    RUNBOOK_API_URL: emulator.url,
    RUNBOOK_API_KEY: API_KEY,
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: 'replica-test-signing-secret',
    SLACK_API_URL: fake.url,
    RUNBOOK_PROXIES: 'proxy-dev',
    DATABASE_URL,
    DATABASE_SCHEMA: SCHEMA,
    LOG_LEVEL: 'warn',
    ...FAST_WATCH_ENV,
  };
}

it('two replicas report every run exactly once, also when one is SIGKILLed', { timeout: 45_000 }, async () => {
  const [a, b] = await Promise.all([spawnBot(botEnv()), spawnBot(botEnv())]);
  bots.push(a!, b!);
  const runs = await seedWatchedRuns({ api, store, fake, botToken: BOT_TOKEN }, RUNS, ['C01OPS', 'C02DEPLOYS']);

  await waitUntil(async () => (await store.watches.countByState()).finished >= 15, 'the first results', 20_000);
  await a!.kill('SIGKILL');
  expect((await store.watches.countByState()).finished).toBeLessThan(RUNS);

  try {
    await waitUntil(async () => (await store.watches.countByState()).active === 0, 'every watch to finish', 25_000);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${b!.output()}`);
  }
  await b!.kill('SIGTERM');

  const reports = countReports(fake, runs);
  const lostReplies = [...reports].filter(([, r]) => r.replies === 0).map(([id]) => id);
  const doubledReplies = [...reports].filter(([, r]) => r.replies > 1).map(([id]) => id);
  expect({ lostReplies, doubledReplies }).toEqual({ lostReplies: [], doubledReplies: [] });
  const edits = [...reports.values()].map((r) => r.resultEdits);
  expect(edits.every((n) => n >= 1)).toBe(true);
  // Each replica edits one message at a time: only the edit in flight in the killed one can repeat.
  expect(edits.filter((n) => n > 1).length).toBeLessThanOrEqual(1);
  expect(Math.max(...edits)).toBeLessThanOrEqual(2);
});
