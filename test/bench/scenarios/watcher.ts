// Scenario 5: 10,000 executions watched at once with a Runbook API budget of 20 requests/s, over a
// bounded window. Runs finish on the emulator's system clock with durations spread over the
// first part of the window. Measured: API requests per execution reported, completion-to-message
// delay (execution endTime → the fake Slack's chat.update of its message) and peak RSS; next to a
// naive poller (one GET per execution, round-robin, same 20/s budget, same chat.update) on a
// fresh emulator with the same workload.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebClient } from '@slack/web-api';
import { Agent, request } from 'undici';
import { createRunbookApi } from '../../../src/api/client.ts';
import type { RunbookApi } from '../../../src/api/runbook-api.ts';
import { type Emulator, startEmulator } from '../../../src/emulator/server.ts';
import { createLogger } from '../../../src/logger.ts';
import { type FakeSlack, startFakeSlack } from '../../../src/sandbox/fake-slack-api.ts';
import { API_KEY, BOT_TOKEN } from '../bench-stack.ts';
import { mb, ms, num, type ScenarioResult, times } from '../report.ts';
import { runConcurrent, sampleRss } from '../run-concurrent.ts';
import { ratio, summarize } from '../stats.ts';

const WATCHES = Number(process.env.BENCH_WATCHES ?? 10_000);
const WINDOW_MS = Number(process.env.BENCH_WATCH_WINDOW_S ?? 75) * 1000;
const REQUESTS_PER_SECOND = 20;
const CHANNELS = 20;
const RUNBOOK_ID_INDEX = 0;
// Runs start finishing this long after the workload is ready, so storing 10,000 watches (set-up,
// not measured) does not count against the watcher's completion delay.
const LEAD_MS = 15_000;

interface Workload {
  emulator: Emulator;
  fake: FakeSlack;
  /** message ts → execution id */
  byTs: Map<string, { executionId: string; channel: string; endMs: number }>;
  /** Polling stops here (epoch ms): LEAD_MS + WINDOW_MS after the workload was ready. */
  deadline: number;
  executions: Array<{ id: string; channel: string; ts: string }>;
}

export interface WatchFigures {
  reported: number;
  finishedByApi: number;
  requests: number;
  requestsPerReported: number;
  delay: ReturnType<typeof summarize>;
  peakRss: number;
  /** Our watcher's plan at the end: the bound (sweep cost / budget), its interval and sweep cost. */
  plan?: { boundMs: number; intervalMs: number; sweepCost: number; mode: string };
}

/** 10,000 runs started now, finishing spread over the first 60% of the window, each with a "running" message. */
async function prepare(): Promise<Workload> {
  const emulator = await startEmulator({ port: 0, apiKey: API_KEY });
  const fake = await startFakeSlack({
    port: 0,
    botToken: BOT_TOKEN,
    channels: Array.from({ length: CHANNELS }, (_, i) => ({ id: `CWATCH${i}`, name: `watch-${i}` })),
  });
  const runbook = [...emulator.state.workflows.byId.values()].filter((r) => !r.workflow.isFolder)[RUNBOOK_ID_INDEX]!;
  const spreadS = (WINDOW_MS * 0.6) / 1000;
  const preparedAt = Date.now();
  const agent = new Agent({ connections: 32 });
  const executions: Workload['executions'] = [];
  const byTs: Workload['byTs'] = new Map();
  await runConcurrent(WATCHES, 32, async (i) => {
    // Duration counts from this run's start; aim every end at preparedAt + LEAD + its share of the spread.
    const seconds = Math.max(0, (preparedAt - Date.now() + LEAD_MS) / 1000 + (spreadS * i) / WATCHES);
    const record = emulator.state.runWorkflow(runbook.workflow.id, {
      proxyId: 'proxy-dev',
      params: JSON.stringify({ simulate_duration_seconds: seconds }),
    });
    const channel = `CWATCH${i % CHANNELS}`;
    const res = await request(`${fake.url}chat.postMessage`, {
      method: 'POST',
      dispatcher: agent,
      headers: { authorization: `Bearer ${BOT_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channel, text: `running ${record.id}` }),
    });
    const body = (await res.body.json()) as { ok: boolean; ts?: string };
    if (!body.ok || !body.ts) throw new Error('could not post the running message');
    executions.push({ id: record.id, channel, ts: body.ts });
    byTs.set(body.ts, { executionId: record.id, channel, endMs: record.startMs + record.durationMs });
  });
  await agent.close();
  if (executions.length !== WATCHES) throw new Error(`prepared ${executions.length} of ${WATCHES}`);
  return { emulator, fake, byTs, executions, deadline: Date.now() + LEAD_MS + WINDOW_MS };
}

/**
 * Listens for chat.update of the prepared messages and for posts (thread replies, digest lines)
 * naming a run: the first of either is when the channel was told.
 */
function recordDelays(w: Workload): { delays: Map<string, number> } {
  const delays = new Map<string, number>();
  const byId = new Map([...w.byTs.values()].map((t) => [t.executionId, t]));
  w.fake.on('call', (call: { method: string; args: Record<string, unknown>; ok: boolean }) => {
    if (!call.ok) return;
    if (call.method === 'chat.update') {
      const target = w.byTs.get(String(call.args.ts));
      if (target && !delays.has(target.executionId)) delays.set(target.executionId, Date.now() - target.endMs);
    } else if (call.method === 'chat.postMessage') {
      for (const match of String(call.args.text ?? '').matchAll(/`([^`]+)`/g)) {
        const target = byId.get(match[1]!);
        if (target && !delays.has(target.executionId)) delays.set(target.executionId, Date.now() - target.endMs);
      }
    }
  });
  return { delays };
}

function finishedCount(emulator: Emulator): number {
  emulator.state.executions.settleDue(Date.now());
  const counts = emulator.state.executions.counts();
  return (counts.EXECUTION_STATUS_SUCCEEDED ?? 0) + (counts.EXECUTION_STATUS_FAILED ?? 0) - seededFinished(emulator);
}

// Seeded history executions are finished from the start; only ours count.
const seeded = new WeakMap<Emulator, number>();
function seededFinished(emulator: Emulator): number {
  return seeded.get(emulator) ?? 0;
}
function rememberSeeded(emulator: Emulator): void {
  const counts = emulator.state.executions.counts();
  seeded.set(emulator, (counts.EXECUTION_STATUS_SUCCEEDED ?? 0) + (counts.EXECUTION_STATUS_FAILED ?? 0));
}

function figures(w: Workload, delays: Map<string, number>, peakRss: number, requests: number): WatchFigures {
  const reported = delays.size;
  return {
    reported,
    finishedByApi: finishedCount(w.emulator),
    requests,
    requestsPerReported: reported > 0 ? requests / reported : Number.NaN,
    delay: summarize([...delays.values()]),
    peakRss,
  };
}

async function runWatcher(w: Workload): Promise<WatchFigures> {
  const { Watcher, newOwnerId } = await import('../../../src/watch/watcher.ts');
  const { openStore } = await import('../../../src/store/open-store.ts');
  const dir = mkdtempSync(join(tmpdir(), 'runbook-bench-'));
  const store = await openStore({ kind: 'sqlite', path: join(dir, 'bench.sqlite') });
  const api = createRunbookApi({ baseUrl: w.emulator.url, apiKey: API_KEY });
  const logger = createLogger({ level: 'silent' });
  const watcher = new Watcher({
    store,
    api,
    slack: new WebClient(BOT_TOKEN, { slackApiUrl: w.fake.url, rejectRateLimitedCalls: true }),
    owner: newOwnerId(),
    logger,
    settings: {
      requestsPerSecond: REQUESTS_PER_SECOND,
      // The fake Slack has no limits; pacing Slack edits at production speed (1/s) would measure
      // Slack pacing, not the watcher. Both sides of the comparison edit unpaced.
      slackUpdateIntervalMs: 0,
      slackPostIntervalMs: 0,
    },
  });
  try {
    for (const e of w.executions) {
      await watcher.started({
        runbookId: 'bench',
        runbookName: 'Bench runbook',
        proxyId: 'proxy-dev',
        startedBy: null,
        teamId: null,
        inputs: {},
        executionIds: [e.id],
        channel: e.channel,
      });
      await watcher.posted([e.id], e.channel, e.ts);
    }
    const { delays } = recordDelays(w);
    rememberSeededOnce(w.emulator);
    w.emulator.state.requests.reset();
    const rss = sampleRss();
    const setupMs = Date.now() - (w.deadline - LEAD_MS - WINDOW_MS);
    if (setupMs > LEAD_MS) throw new Error(`storing the watches took ${setupMs} ms, more than the ${LEAD_MS} ms lead`);
    watcher.start();
    // The plan while the work is largest (most watches open): the bound to compare with.
    let plan = watcher.plan;
    const planSampler = setInterval(() => {
      if (watcher.plan.sweepCost > plan.sweepCost) plan = watcher.plan;
    }, 250);
    await new Promise((r) => setTimeout(r, Math.max(0, w.deadline - Date.now())));
    clearInterval(planSampler);
    const requests = w.emulator.state.requests.total;
    const peak = rss.stop();
    const { boundMs, intervalMs, sweepCost, mode } = plan;
    return { ...figures(w, delays, peak, requests), plan: { boundMs, intervalMs, sweepCost, mode } };
  } finally {
    await watcher.stop().catch(() => {});
    await api.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function rememberSeededOnce(emulator: Emulator): void {
  if (!seeded.has(emulator)) rememberSeeded(emulator);
}

/** One GET per execution, round-robin over the unfinished ones, at most 20 per second. */
async function runNaive(w: Workload): Promise<WatchFigures> {
  const api: RunbookApi = createRunbookApi({ baseUrl: w.emulator.url, apiKey: API_KEY });
  const slack = new WebClient(BOT_TOKEN, { slackApiUrl: w.fake.url });
  const { delays } = recordDelays(w);
  rememberSeededOnce(w.emulator);
  w.emulator.state.requests.reset();
  const rss = sampleRss();
  const pending = [...w.executions];
  const deadline = performance.now() + Math.max(0, w.deadline - Date.now());
  const intervalMs = 1000 / REQUESTS_PER_SECOND;
  let nextSlot = performance.now();
  let cursor = 0;
  const worker = async () => {
    while (performance.now() < deadline && pending.length > 0) {
      const slot = nextSlot;
      nextSlot += intervalMs;
      const wait = slot - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (performance.now() >= deadline) break;
      cursor = cursor % Math.max(1, pending.length);
      const e = pending[cursor];
      if (!e) continue;
      cursor++;
      try {
        const execution = await api.executions.get(e.id);
        if (execution.executionStatus !== 'EXECUTION_STATUS_IN_PROGRESS') {
          const i = pending.indexOf(e);
          if (i >= 0) pending.splice(i, 1);
          await slack.chat.update({ channel: e.channel, ts: e.ts, text: `finished ${e.id}` });
        }
      } catch {
        // a naive poller just tries again next round
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: 8 }, worker));
    const requests = w.emulator.state.requests.total;
    return figures(w, delays, rss.stop(), requests);
  } finally {
    await api.close();
  }
}

export function watcherPresent(): boolean {
  return existsSync(fileURLToPath(new URL('../../../src/watch/watcher.ts', import.meta.url)));
}

export async function watcherScenario(): Promise<{
  result: ScenarioResult;
  watch10k: { peakRss: number; baselineRss: number } | null;
}> {
  const label = `5. watcher, ${WATCHES} executions, ${REQUESTS_PER_SECOND} req/s, ${WINDOW_MS / 1000} s window`;
  let ours: WatchFigures | null = null;
  let skipped: string | null = null;
  if (!watcherPresent()) skipped = 'skipped: src/watch not present';
  else {
    const w = await prepare();
    try {
      ours = await runWatcher(w);
    } catch (err) {
      skipped = `skipped: watcher failed (${err instanceof Error ? err.message : String(err)})`;
    } finally {
      await w.fake.close();
      await w.emulator.close();
    }
  }
  const nw = await prepare();
  let naive: WatchFigures;
  try {
    naive = await runNaive(nw);
  } finally {
    await nw.fake.close();
    await nw.emulator.close();
  }
  const o = ours;
  const rows = o
    ? [
        {
          scenario: `${label}: runs reported`,
          ours: String(o.reported),
          baseline: String(naive.reported),
          ratio: times(ratio(o.reported, naive.reported)),
        },
        {
          scenario: '5. runs finished by the API in the window',
          ours: String(o.finishedByApi),
          baseline: String(naive.finishedByApi),
          ratio: '—',
        },
        {
          scenario: '5. bound: one sweep (listing pages) / budget · our sweep interval',
          ours: o.plan ? `${o.plan.sweepCost} req → ${ms(o.plan.boundMs)} · ${ms(o.plan.intervalMs)}` : '—',
          baseline: `${WATCHES} req → ${ms((WATCHES / REQUESTS_PER_SECOND) * 1000)}`,
          ratio: o.plan ? times(ratio(o.plan.boundMs, (WATCHES / REQUESTS_PER_SECOND) * 1000)) : '—',
        },
        {
          scenario: '5. API requests per reported run',
          ours: num(o.requestsPerReported, 2),
          baseline: num(naive.requestsPerReported, 2),
          ratio: times(ratio(o.requestsPerReported, naive.requestsPerReported)),
        },
        {
          scenario: '5. completion → told (message edited or a reply naming it) p50',
          ours: ms(o.delay.p50),
          baseline: ms(naive.delay.p50),
          ratio: times(ratio(o.delay.p50, naive.delay.p50)),
        },
        {
          scenario: '5. completion → told p99 (target ≤ 15 s)',
          ours: ms(o.delay.p99),
          baseline: ms(naive.delay.p99),
          ratio: times(ratio(o.delay.p99, naive.delay.p99)),
        },
        {
          scenario: '5. peak RSS (bench process)',
          ours: mb(o.peakRss),
          baseline: mb(naive.peakRss),
          ratio: times(ratio(o.peakRss, naive.peakRss)),
        },
      ]
    : [
        { scenario: `${label}`, ours: skipped ?? 'skipped', baseline: `naive: ${naive.reported} reported`, ratio: '—' },
        {
          scenario: '5. naive: API requests per reported run',
          ours: '—',
          baseline: num(naive.requestsPerReported, 2),
          ratio: '—',
        },
        {
          scenario: '5. naive: completion → chat.update p50 / p99',
          ours: '—',
          baseline: `${ms(naive.delay.p50)} / ${ms(naive.delay.p99)}`,
          ratio: '—',
        },
      ];
  return {
    result: {
      id: 'watcher',
      rows,
      data: { watches: WATCHES, windowMs: WINDOW_MS, requestsPerSecond: REQUESTS_PER_SECOND, ours, naive, skipped },
      notes: [
        ...(skipped ? [skipped] : []),
        'completion delay counts only runs reported inside the window; runs not reported are in "runs finished" minus "runs reported"',
      ],
    },
    watch10k: o ? { peakRss: o.peakRss, baselineRss: naive.peakRss } : null,
  };
}
