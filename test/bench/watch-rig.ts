// A workload for the watcher benchmarks: executions that have been running for minutes (the
// emulator's clock is set back while they start, so their createTime really is minutes ago),
// each with a running message in the fake Slack and a watch in a store whose scheduler state is
// already settled (attempts made, next checks spread over the scheduler's own steady gap), and
// that end at random moments in a window. Records, per run, when an API answer first showed it
// finished (detection) and when Slack was first told (its message edited or a reply/digest naming
// it), and samples the emulator's request counter for rates.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebClient } from '@slack/web-api';
import { Agent, request } from 'undici';
import { createRunbookApi } from '../../src/api/client.ts';
import type { RunbookApi } from '../../src/api/runbook-api.ts';
import type { Execution } from '../../src/api/schemas.ts';
import { type Emulator, startEmulator } from '../../src/emulator/server.ts';
import { createLogger } from '../../src/logger.ts';
import { type ApiCall, type FakeSlack, startFakeSlack } from '../../src/sandbox/fake-slack-api.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';
import { isTerminal } from '../../src/watch/bulk-discovery.ts';
import { newOwnerId, Watcher, type WatcherSettings } from '../../src/watch/watcher.ts';
import { API_KEY, BOT_TOKEN } from './bench-stack.ts';
import { runConcurrent } from './run-concurrent.ts';

export const PG_URL = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

export interface RigOptions {
  runs: number;
  /** How long the runs have been running when the measurement starts. */
  ageMs: number;
  /** Runs end uniformly at random in [t0 + from, t0 + to]. */
  endFromMs: number;
  endToMs: number;
  channels: number;
  /** Seeded randomness for end moments and check spreads. */
  seed: number;
}

export interface RigRun {
  id: string;
  channel: string;
  ts: string;
  endMs: number;
}

export interface Rig {
  emulator: Emulator;
  fake: FakeSlack;
  runs: RigRun[];
  /** Measurement start (epoch ms). */
  t0: number;
  random: () => number;
  /** execution id → first moment an API answer showed it finished. */
  detected: Map<string, number>;
  /** execution id → first moment Slack was told (edit of its message, or a post naming it). */
  told: Map<string, number>;
  /** Posts naming a run, per run (exactly-once check: 1 each). */
  notices: Map<string, number>;
  /** chat.* answers `ratelimited` (what Slack pushed back; the pacer retries them). */
  ratelimited: number;
  /** Messages a person would see that mention a rate limit (must stay 0). */
  surfacedRateLimits: number;
  /** Successful chat.postMessage / chat.update calls: [epoch ms, method, channel]. */
  chatCalls: Array<[number, string, string]>;
  /** [epoch ms, emulator requests so far] every 100 ms. */
  samples: Array<[number, number]>;
  close(): Promise<void>;
}

/** mulberry32 */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export async function prepareRig(options: RigOptions): Promise<Rig> {
  const random = seeded(options.seed);
  const shift = { ms: options.ageMs };
  // The runs start "ageMs ago": the emulator's clock is set back while they are created.
  const emulator = await startEmulator({ port: 0, apiKey: API_KEY, clock: { now: () => Date.now() - shift.ms } });
  const fake = await startFakeSlack({
    port: 0,
    botToken: BOT_TOKEN,
    channels: Array.from({ length: options.channels }, (_, i) => ({ id: `CRIG${i}`, name: `rig-${i}` })),
  });
  const runbook = [...emulator.state.workflows.byId.values()].filter((r) => !r.workflow.isFolder)[0]!;
  // Measurement starts once set-up is done; leave it a generous lead.
  const t0 = Date.now() + 2_000 + options.runs * 10;
  const ends = Array.from(
    { length: options.runs },
    () => t0 + options.endFromMs + random() * (options.endToMs - options.endFromMs),
  );
  const created = ends.map((endMs) => {
    const startMs = Date.now() - shift.ms;
    const record = emulator.state.runWorkflow(runbook.workflow.id, {
      proxyId: 'proxy-dev',
      params: JSON.stringify({ simulate_duration_seconds: (endMs - startMs) / 1000 }),
    });
    // Emulator time runs `shift` behind while they start and equals real time afterwards.
    return { id: record.id, endMs: record.startMs + record.durationMs };
  });
  shift.ms = 0;
  const agent = new Agent({ connections: 16 });
  const runs: RigRun[] = [];
  await runConcurrent(created.length, 16, async (i) => {
    const { id, endMs } = created[i]!;
    const channel = `CRIG${i % options.channels}`;
    const res = await request(`${fake.url}chat.postMessage`, {
      method: 'POST',
      dispatcher: agent,
      headers: { authorization: `Bearer ${BOT_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channel, text: `\`${id}\` is running` }),
    });
    const body = (await res.body.json()) as { ok: boolean; ts?: string };
    if (!body.ok || !body.ts) throw new Error('could not post the running message');
    runs.push({ id, channel, ts: body.ts, endMs });
  });
  await agent.close();
  const byTs = new Map(runs.map((r) => [r.ts, r]));
  const detected = new Map<string, number>();
  const told = new Map<string, number>();
  const notices = new Map<string, number>();
  const ids = new Set(runs.map((r) => r.id));
  const rig: Rig = {
    emulator,
    fake,
    runs,
    t0,
    random,
    detected,
    told,
    notices,
    ratelimited: 0,
    surfacedRateLimits: 0,
    chatCalls: [],
    samples: [],
    async close() {
      clearInterval(sampler);
      await fake.close();
      await emulator.close();
    },
  };
  fake.on('call', (call: ApiCall) => {
    if (!call.method.startsWith('chat.')) return;
    if (call.status === 429) rig.ratelimited++;
    if (!call.ok) return;
    const now = Date.now();
    rig.chatCalls.push([now, call.method, String(call.args.channel ?? '')]);
    if (/rate.?limit/i.test(JSON.stringify(call.args))) rig.surfacedRateLimits++;
    if (call.method === 'chat.update') {
      const run = byTs.get(String(call.args.ts));
      if (run && !told.has(run.id)) told.set(run.id, now);
      return;
    }
    if (call.method !== 'chat.postMessage') return;
    const text = String(call.args.text ?? '');
    for (const match of text.matchAll(/`([^`]+)`/g)) {
      const id = match[1]!;
      if (!ids.has(id) || text.includes(' is running')) continue;
      notices.set(id, (notices.get(id) ?? 0) + 1);
      if (!told.has(id)) told.set(id, now);
    }
  });
  const sampler = setInterval(() => rig.samples.push([Date.now(), emulator.state.requests.total]), 100);
  sampler.unref();
  return rig;
}

/** The API client a watcher under test uses: records when an answer first shows a run finished. */
export function observedApi(rig: Rig): RunbookApi {
  const api = createRunbookApi({ baseUrl: rig.emulator.url, apiKey: API_KEY });
  const saw = (e: Pick<Execution, 'id' | 'executionStatus' | 'endTime'>) => {
    if (isTerminal(e) && !rig.detected.has(e.id)) rig.detected.set(e.id, Date.now());
  };
  const executions = api.executions;
  const wrapped: RunbookApi['executions'] = Object.create(executions);
  wrapped.get = (async (...args: Parameters<typeof executions.get>) => {
    const e = await executions.get(...args);
    saw(e);
    return e;
  }) as typeof executions.get;
  wrapped.list = async (...args: Parameters<typeof executions.list>) => {
    const page = await executions.list(...args);
    for (const e of page.items) saw(e);
    return page;
  };
  return { ...api, executions: wrapped, close: () => api.close() };
}

export interface RigStore {
  store: Store;
  /** Another connection to the same database (a second replica). */
  replica(): Promise<Store>;
  close(): Promise<void>;
}

export async function openRigStore(kind: 'sqlite' | 'postgres'): Promise<RigStore> {
  const opened: Store[] = [];
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'runbook-rig-'));
    const store = await openStore({ kind: 'sqlite', path: join(dir, 'rig.sqlite') });
    return {
      store,
      replica: () => Promise.reject(new Error('SQLite is one process')),
      async close() {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const pg = (await import('pg')).default;
  const schema = `bench_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE SCHEMA ${schema}`);
  const open = async () => {
    const s = await openStore({ kind: 'postgres', url: PG_URL, schema });
    opened.push(s);
    return s;
  };
  const store = await open();
  return {
    store,
    replica: open,
    async close() {
      for (const s of opened) await s.close();
      await admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    },
  };
}

/**
 * Stores a watch per run as startRun would have when it started (createdAt = its start), then
 * puts each in the state its scheduler would have after `ageMs`: 10 checks made, the next one
 * somewhere within `settledGapMs` from now.
 */
export async function seedWatches(rig: Rig, store: Store, ageMs: number, settledGapMs: number): Promise<void> {
  const startedAt = Math.round(Date.now() - ageMs);
  for (const run of rig.runs) {
    await store.watches.insert(
      {
        executionId: run.id,
        runbookId: 'bench',
        runbookName: 'Bench runbook',
        channel: run.channel,
        messageTs: run.ts,
        proxyId: 'proxy-dev',
        inputsSummary: '{}',
        origin: 'slack',
        nextCheckAt: startedAt,
      },
      startedAt,
    );
  }
  const owner = 'bench-setup';
  const now = Date.now();
  const claimed = await store.watches.claimDue(owner, now, 60_000, rig.runs.length);
  for (const w of claimed) {
    await store.watches.reschedule(w.executionId, owner, Math.round(now + rig.random() * settledGapMs), 10, now);
  }
}

export function newWatcher(rig: Rig, store: Store, settings: Partial<WatcherSettings>): Watcher {
  return new Watcher({
    store,
    api: observedApi(rig),
    slack: new WebClient(BOT_TOKEN, {
      slackApiUrl: rig.fake.url,
      rejectRateLimitedCalls: true,
      retryConfig: { retries: 0 },
      timeout: 10_000,
    }),
    owner: newOwnerId(),
    logger: createLogger({ level: 'silent' }),
    settings,
  });
}

/** Requests per second between two moments, from the samples. */
export function rateBetween(rig: Rig, fromMs: number, toMs: number): number {
  const at = (t: number) => {
    let last = rig.samples[0]?.[1] ?? 0;
    for (const [when, total] of rig.samples) {
      if (when > t) break;
      last = total;
    }
    return last;
  };
  const seconds = (toMs - fromMs) / 1000;
  return seconds > 0 ? (at(toMs) - at(fromMs)) / seconds : Number.NaN;
}

/** The highest request rate over any window of `windowMs` between two moments. */
export function peakRate(rig: Rig, fromMs: number, toMs: number, windowMs: number): number {
  let peak = 0;
  for (let t = fromMs; t + windowMs <= toMs; t += 100) peak = Math.max(peak, rateBetween(rig, t, t + windowMs));
  return peak;
}

/** Waits until every run was told or the deadline passed. */
export async function untilTold(rig: Rig, deadline: number): Promise<void> {
  while (Date.now() < deadline && rig.told.size < rig.runs.length) await new Promise((r) => setTimeout(r, 100));
}

export interface DelayFigures {
  detection: number[];
  told: number[];
  untold: number;
}

export function delays(rig: Rig): DelayFigures {
  const detection: number[] = [];
  const told: number[] = [];
  for (const run of rig.runs) {
    const d = rig.detected.get(run.id);
    if (d !== undefined) detection.push(Math.max(0, d - run.endMs));
    const t = rig.told.get(run.id);
    if (t !== undefined) told.push(Math.max(0, t - run.endMs));
  }
  return { detection, told, untold: rig.runs.length - told.length };
}
