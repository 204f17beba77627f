// Process-level chaos: two bot replicas (real processes) share one fresh Postgres schema and a set of
// watched runs, while the Runbook API emulator (system clock, 2–18 s runs) answers 30% 5xx, some 429
// with Retry-After, slow answers and dropped connections, and the fake Slack answers `ratelimited`
// and 5xx to edits and posts. During the run a random replica is SIGKILLed at a random moment and
// started again, twice; the Postgres cluster is restarted once; and twice every replica is killed
// exactly as a notice reaches Slack, once as it lands and once as it is refused 429, the two sides
// of the claim-before-post window (order and moments random; the seed is printed with every
// failure and can be replayed with TEST_FAULTS_SEED).
// Every run must end with its result card (the right word) and exactly one notice naming it; the bot
// never starts a run; replicas survive the Postgres restart (a crash is recorded, the replica is
// restarted so the rest can be measured, and the test fails).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createRunbookApi } from '../../src/api/client.ts';
import type { RunbookApi } from '../../src/api/runbook-api.ts';
import { type Emulator, startEmulator } from '../../src/emulator/server.ts';
import { type ApiCall, type FakeSlack, startFakeSlack } from '../../src/sandbox/fake-slack-api.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';
import {
  type BotProcess,
  countReports,
  FAST_WATCH_ENV,
  pgAdmin,
  type SeededRun,
  seedWatchedRuns,
  spawnBot,
} from '../support/process-harness.ts';
import { TEST_DATABASE_URL } from '../support/test-database.ts';
import { restartPostgres } from './restart-postgres.ts';

const SCALE = Math.max(0.1, Number(process.env.TEST_FAULTS_SCALE ?? 1));
const RUNS = Math.max(10, Math.round(100 * SCALE));
const SEED = Number(process.env.TEST_FAULTS_SEED) || randomBytes(4).readUInt32LE(0);
const API_KEY = 'chaos-test-key-0123456789';
const BOT_TOKEN = 'xoxb-chaos-test';
const DATABASE_URL = TEST_DATABASE_URL;
const SCHEMA = `test_chaos_${randomBytes(6).toString('hex')}`;
const CHANNELS = ['C01OPS', 'C02DEPLOYS'];

/** mulberry32: a small seeded generator, so a failing order of events can be replayed. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = seeded(SEED);
const between = (lo: number, hi: number) => Math.round(lo + random() * (hi - lo));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Replica {
  name: string;
  bot: BotProcess;
  /** Set before the test kills it, so its exit is not counted as a crash. */
  killedByTest: boolean;
  /** It exited on its own. */
  crashed: boolean;
}

interface Crash {
  replica: string;
  code: number | null;
  during: string;
  output: string;
}

/**
 * A one-shot trap on the fake Slack: when a notice (thread reply or digest) lands (`landed`) or is
 * answered 429 (`refused`), every replica is SIGKILLed on the spot, before the sender hears back. Set
 * inside the claim → post → complete window on purpose: a random kill almost never hits it.
 */
interface Trap {
  when: 'landed' | 'refused';
  fired: (what: string) => void;
}
let trap: Trap | null = null;

let emulator: Emulator;
let fake: FakeSlack;
let api: RunbookApi;
let store: Store;
const replicas: Replica[] = [];
const everyBot: BotProcess[] = [];
const crashes: Crash[] = [];
/** What the test is doing right now, for crash reports. */
let phase = 'start';

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, apiKey: API_KEY });
  fake = await startFakeSlack({ port: 0, botToken: BOT_TOKEN });
  fake.on('call', (call: ApiCall) => {
    if (!trap || call.method !== 'chat.postMessage' || !isNotice(call.args)) return;
    if (trap.when === 'landed' ? call.status !== 200 || !call.ok : call.status !== 429) return;
    const sprung = trap;
    trap = null;
    // Synchronously, before the fake Slack answers: the sender never learns how its post went.
    for (const r of replicas) {
      r.killedByTest = true;
      process.kill(r.bot.pid, 'SIGKILL');
    }
    sprung.fired(`${call.status} ${String(call.args.text).slice(0, 80)}`);
  });
  api = createRunbookApi({ baseUrl: emulator.url, apiKey: API_KEY, timeoutMs: 5_000, maxRetries: 1 });
  await admin(`CREATE SCHEMA ${SCHEMA}`);
  store = await openStore({ kind: 'postgres', url: DATABASE_URL, schema: SCHEMA });
});

afterAll(async () => {
  for (const bot of everyBot) await bot.kill('SIGKILL');
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
    SLACK_SIGNING_SECRET: 'chaos-test-signing-secret',
    SLACK_API_URL: fake.url,
    RUNBOOK_PROXIES: 'proxy-dev',
    DATABASE_URL,
    DATABASE_SCHEMA: SCHEMA,
    LOG_LEVEL: 'warn',
    ...FAST_WATCH_ENV,
    WATCH_SLACK_POST_INTERVAL_MS: '20',
    WATCH_SLACK_UPDATE_INTERVAL_MS: '20',
  };
}

async function startReplica(name: string): Promise<Replica> {
  const bot = await spawnBot(botEnv(), { timeoutMs: 20_000 });
  everyBot.push(bot);
  const replica: Replica = { name, bot, killedByTest: false, crashed: false };
  void bot.exited.then((code) => {
    if (replica.killedByTest) return;
    replica.crashed = true;
    crashes.push({ replica: name, code, during: phase, output: bot.output().slice(-4_000) });
  });
  return replica;
}

/** Replaces every replica that died on its own (already recorded in `crashes`). */
async function reviveCrashed(): Promise<void> {
  for (let i = 0; i < replicas.length; i++) {
    if (replicas[i]!.crashed) replicas[i] = await startReplica(`${replicas[i]!.name}'`);
  }
}

async function killAndRestartRandomReplica(log: string[]): Promise<void> {
  const i = Math.floor(random() * replicas.length);
  const victim = replicas[i]!;
  const active = await countActive();
  victim.killedByTest = true;
  await victim.bot.kill('SIGKILL');
  log.push(`SIGKILL ${victim.name} (pid ${victim.bot.pid}) with ${active} watches active`);
  replicas[i] = await startReplica(`${victim.name}'`);
}

function isNotice(args: Record<string, unknown>): boolean {
  return typeof args.thread_ts === 'string' || /^\d+ runs finished:/.test(String(args.text ?? ''));
}

async function killEveryReplicaAtNotice(when: Trap['when'], log: string[]): Promise<void> {
  const fired = new Promise<string>((resolve) => {
    trap = { when, fired: resolve };
  });
  const what = await Promise.race([fired, sleep(8_000).then(() => null)]);
  if (what === null) {
    trap = null;
    log.push(`no notice ${when} within 8 s: trap not sprung`);
    return;
  }
  for (let i = 0; i < replicas.length; i++) {
    await replicas[i]!.bot.kill('SIGKILL');
    replicas[i] = await startReplica(`${replicas[i]!.name}'`);
  }
  log.push(`SIGKILL of every replica as a notice was ${when} (${what})`);
}

async function countActive(): Promise<number | string> {
  try {
    return (await store.watches.countByState()).active;
  } catch (err) {
    return `unknown (${(err as Error).message})`;
  }
}

async function waitUntilSettled(timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await store.watches.countByState()).active === 0) return;
    } catch {
      // The test's own pool reconnects after the Postgres restart like the bot's does.
    }
    if (Date.now() > deadline) throw new Error(`watches still active after ${timeoutMs} ms: ${await countActive()}`);
    await reviveCrashed();
    await sleep(50);
  }
}

async function healthy(bot: BotProcess): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${bot.port}/healthz`)).ok;
  } catch {
    return false;
  }
}

/** Non-scheduled executions: the only ones anybody could have started (schedules fire on their own). */
function startedExecutions(): number {
  let n = 0;
  for (const e of emulator.state.executions.byId.values()) if (!e.scheduleId) n++;
  return n;
}

function topLevelCardsNaming(executionId: string): number {
  return Object.values(fake.state.messages)
    .flat()
    .filter((m) => !(m.thread_ts && m.thread_ts !== m.ts) && JSON.stringify(m.blocks ?? []).includes(executionId))
    .length;
}

it(`reports ${RUNS} runs exactly once through SIGKILLs, a Postgres restart and API/Slack faults`, {
  timeout: 90_000,
}, async () => {
  const begun = Date.now();
  const log: string[] = [`seed ${SEED}, ${RUNS} runs`];
  const fail = (message: string) => `${message}\n${log.join('\n')}`;

  replicas.push(...(await Promise.all([startReplica('A'), startReplica('B')])));

  // Seeding is the "startRun" of this scenario; it runs before the storms so every run exists.
  phase = 'seeding';
  const runs: SeededRun[] = await seedWatchedRuns({ api, store, fake, botToken: BOT_TOKEN }, RUNS, CHANNELS, {
    params: (i) => ({
      n: i,
      simulate_duration_seconds: between(2, 18),
      simulate_outcome: i % 4 === 3 ? 'failed' : 'succeeded',
    }),
  });
  const executionsAfterSeeding = startedExecutions();
  log.push(`seeded in ${Date.now() - begun} ms`);

  emulator.setFaults({
    errorRate: 0.3,
    rateLimitRate: 0.1,
    retryAfterSeconds: 1,
    latencyMs: 10,
    latencyJitterMs: 150,
    dropRate: 0.05,
  });
  fake.setFaults({
    ratelimitedRate: 0.08,
    serverErrorRate: 0.08,
    retryAfterSeconds: 1,
    methods: ['chat.update', 'chat.postMessage'],
  });
  const callsBefore = fake.state.calls.length;

  // The chaos: two kills and one Postgres restart, in random order at random moments.
  const events: Array<'kill' | 'postgres' | Trap['when']> = ['kill', 'kill', 'postgres', 'landed', 'refused'];
  for (let i = events.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [events[i], events[j]] = [events[j]!, events[i]!];
  }
  for (const event of events) {
    await sleep(between(500, 2_500));
    if (event === 'kill') {
      phase = 'SIGKILL and restart of a replica';
      await killAndRestartRandomReplica(log);
    } else if (event === 'landed' || event === 'refused') {
      phase = `SIGKILL of every replica as a notice was ${event}`;
      await killEveryReplicaAtNotice(event, log);
    } else {
      phase = 'Postgres restart';
      const active = await countActive();
      const gone = await restartPostgres();
      log.push(`Postgres restarted with ${active} watches active; back after ${gone} ms`);
      // Give the replicas a moment to hit the dead connections before looking for crashes.
      await sleep(1_000);
    }
    await reviveCrashed();
  }

  phase = 'reporting';
  try {
    await waitUntilSettled(45_000);
  } catch (err) {
    throw new Error(fail(`${(err as Error).message}\n${replicas.map((r) => r.bot.output().slice(-2_000)).join('\n')}`));
  }
  const settled = Date.now();
  log.push(`all ${RUNS} runs reported ${settled - begun} ms after the start`);

  // Both replicas are up (the ones the test restarted included) and answer their health check.
  const health = await Promise.all(replicas.map(async (r) => `${r.name}: ${(await healthy(r.bot)) ? 'ok' : 'DOWN'}`));
  phase = 'shutdown';
  for (const r of replicas) {
    r.killedByTest = true;
    await r.bot.kill('SIGTERM');
  }

  const slackCalls = fake.state.calls.slice(callsBefore);
  const faulted = slackCalls.filter((c) => c.status === 429 || c.status >= 500).length;
  const apiStats = emulator.state.requests.snapshot();
  log.push(`Slack calls while reporting: ${slackCalls.length} (${faulted} faulted); API requests: ${apiStats.total}`);

  const reports = countReports(fake, runs);
  const lost: string[] = [];
  const doubled: string[] = [];
  const wrongCards: string[] = [];
  const secondCards: string[] = [];
  for (const run of runs) {
    const report = reports.get(run.executionId)!;
    if (report.replies === 0) lost.push(run.executionId);
    if (report.replies > 1) doubled.push(`${run.executionId} ×${report.replies}`);
    const execution = emulator.state.executions.byId.get(run.executionId)!;
    const word = execution.status === 'EXECUTION_STATUS_FAILED' ? 'failed' : 'succeeded';
    const card = fake.state.messages[run.channel]?.find((m) => m.ts === run.ts);
    if (!card?.text.endsWith(` ${word}`) || report.resultEdits < 1) {
      wrongCards.push(`${run.executionId}: "${card?.text}" (${report.resultEdits} result edits), expected ${word}`);
    }
    if (topLevelCardsNaming(run.executionId) !== 1) secondCards.push(run.executionId);
  }
  // For every lost or doubled notice: what Slack was asked, what the store says, what the bots logged.
  for (const id of [...lost, ...doubled.map((d) => d.split(' ')[0]!)]) {
    const asked = fake.state.calls
      .filter((c) => c.method === 'chat.postMessage' && String(c.args.text ?? '').includes(id))
      .map((c) => `${c.status}${c.args.thread_ts ? ' reply' : ' top-level'}`);
    const watch = await store.watches.get(id).catch(() => null);
    const said = everyBot.flatMap((b) => b.output().split('\n')).filter((l) => l.includes(id));
    log.push(`${id}: posts [${asked.join(', ')}]; watch ${JSON.stringify(watch)}; logs:\n${said.join('\n')}`);
  }
  const repeatedEdits = [...reports.values()].filter((r) => r.resultEdits > 1).length;
  log.push(`result edits repeated for ${repeatedEdits} runs (harmless: same content)`);
  console.info(`chaos-processes: ${log.join('; ')}`);

  expect(
    crashes.map((c) => `${c.replica} exited ${c.code} during ${c.during}:\n${c.output}`),
    fail('crashes'),
  ).toEqual([]);
  expect(health, fail('health at the end')).toEqual(replicas.map((r) => `${r.name}: ok`));
  expect({ lost, doubled }, fail('notices')).toEqual({ lost: [], doubled: [] });
  expect(wrongCards, fail('result cards')).toEqual([]);
  expect(secondCards, fail('runs with more than one top-level card')).toEqual([]);
  // The bot only watches: it never started (or re-started) a run.
  expect(startedExecutions(), fail('executions started by the bot')).toBe(executionsAfterSeeding);
  // The faults really hit the reporting.
  expect(faulted, fail('Slack faults')).toBeGreaterThan(0);
});
