// Scenario: many workspaces, each on its own request budget and its own Runbook API tenant. 1,000 small
// tenants (10 open watches each) beside one large tenant (10,000 open watches), every tenant on
// WATCH_REQUESTS_PER_SECOND = 20 of its own under a global ceiling. Once every watch is live, a part of
// each tenant's runs end at random moments within a window (the rest stay open and keep being swept).
// Measured: completion → message (the fake Slack's edit of the run's card) for the small tenants together
// with the large one, next to the same small tenants alone in the same run (ratio: target ≤ 1.2×, p99 ≤ 2 s),
// and the large tenant's together vs alone and against its own bound (one sweep of its watches over its
// budget); the bot's RSS, CPU and request rate, and beside them the watcher's alone under the same load.
//
// Three processes: the bot (the whole runtime in many-workspace mode, tenant-bot-process.ts: every
// workspace installed with its own sealed bot token and connected to its own Runbook API key), the
// emulator (one tenant per workspace, by key), and this one (fake Slack, measurements). One more phase
// runs the watcher alone in the bot's place (tenant-watcher-process.ts), for the runtime's share of the
// figures. BENCH_TENANTS_SCALE (default 1, the size) scales the counts.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { loadConfig } from '../../../src/config.ts';
import { type FakeSlack, startFakeSlack } from '../../../src/sandbox/fake-slack-api.ts';
import { openStore } from '../../../src/store/open-store.ts';
import { inInstallation } from '../../../src/tenants/tenant-scope.ts';
import { planChecks } from '../../../src/watch/check-plan.ts';
import type { ChildFigures } from '../child-figures.ts';
import { mb, ms, type ScenarioResult, times } from '../report.ts';
import { runConcurrent } from '../run-concurrent.ts';
import { ratio, summarize } from '../stats.ts';
import { installTenants, tenantBotEnv } from '../tenant-bot.ts';
import type { EmulatorCommand } from '../tenant-emulator-process.ts';
import { tenantBotToken } from '../tenant-keys.ts';
import { tenantWatcher } from '../tenant-watcher.ts';

const SCALE = Number(process.env.BENCH_TENANTS_SCALE ?? 1);
const SMALL_TENANTS = Math.max(2, Math.round(1_000 * SCALE));
const SMALL_WATCHES = 10;
const BIG_WATCHES = Math.max(20, Math.round(10_000 * SCALE));
const RATE = 20;
const GLOBAL_RATE = Math.max(100, SMALL_TENANTS * 2 + RATE * 2);
const LEAD_MS = 2_000;
const SETTLE_MAX_MS = 30_000;
const SPREAD_MS = Number(process.env.BENCH_TENANTS_SPREAD_MS ?? 20_000);
/** Part of each tenant's open runs that end within the spread (the rest stay open, still watched). */
const ENDING = Number(process.env.BENCH_TENANTS_ENDING ?? 0.1);
/**
 * The large tenant's bound (src/watch/README.md): its W watches are swept by a listing of its own
 * executions, L = W / 100 pages; one sweep costs S = min(W, L) requests, and the plan promises a sweep at
 * least every S / (0.75 × B) (check-plan.ts: the sweeps' share of its budget B). A run is told when the
 * page that shows it ended is read (the listing carries the output: no further request), so it waits at
 * most one sweep plus its delivery. Also shown: S / B, one sweep at the whole budget, the least any sweep
 * takes (while the budget is idle, sweeps run back to back at that pace).
 */
const BIG_PLAN = planChecks({ watches: BIG_WATCHES, requestsPerSecond: RATE, listingPages: null });
const BIG_BOUND_MS = BIG_PLAN.intervalMs;
const BIG_FLOOR_MS = BIG_PLAN.boundMs;

interface Tenant {
  id: string;
  watches: number;
}

/** What works on the watches: the whole bot (many-workspace runtime) or its watcher alone. */
type Kind = 'bot' | 'watcher';

interface Phase {
  /** tenant id → completion → message delays (ms) */
  delays: Map<string, number[]>;
  peakRss: number;
  /** The child's highest V8 heap total (live objects and garbage not yet collected). */
  peakHeap: number;
  requests: number;
  /** From the watcher's start until every watch had its first look. */
  settleMs: number;
  /** CPU time of the child process (user + system) from its start, and the wall time that took. */
  cpuMs: number;
  cpuWallMs: number;
  /** From the child's start (ready) until it gave its figures. */
  wallMs: number;
  /** Watches open when the runs began to end. */
  open: number;
  /** From the request counters' reset (just before the first end) to the last report. */
  measuredMs: number;
  /** Finished runs not reported by the deadline (their delay so far is in `delays`). */
  unreported: number;
}

export async function runPhase(tenants: Tenant[], kind: Kind = 'bot'): Promise<Phase> {
  // Each workspace's own tenant (its own key, catalog and executions), as the real service has, served by
  // an emulator in a process of its own.
  const emulator = await startEmulatorProcess(tenants.map((t) => t.id));
  // No bot token of its own: it takes every installation's (any xoxb- token).
  const fake: FakeSlack = await startFakeSlack({
    port: 0,
    channels: tenants.map((t) => ({ id: `C${t.id}`, name: `ops-${t.id.toLowerCase()}` })),
  });
  const dir = mkdtempSync(join(tmpdir(), 'runbook-bench-tenants-'));
  const botEnv = tenantBotEnv({
    apiUrl: emulator.url,
    slackUrl: fake.url,
    dataDir: dir,
    perTenant: RATE,
    global: GLOBAL_RATE,
  });
  const config = loadConfig(botEnv);
  if (config.store.kind !== 'sqlite') throw new Error('the tenants bench runs on SQLite');
  const storePath = config.store.path;
  const store = await openStore(config.store);
  // Stores the watches here (never started); what works on them runs in its own process. The bot's are
  // kept for their workspace's installation, as startRun keeps them (the watcher alone's, for no installation).
  const inScope = <T>(team: string, work: () => Promise<T>) => (kind === 'bot' ? inInstallation(team, work) : work());
  const { watcher, close } = tenantWatcher(
    store,
    { api: emulator.url, slack: fake.url },
    { perTenant: RATE, global: GLOBAL_RATE },
  );
  let child: ChildProcess | null = null;
  const agent = new Agent({ connections: 16 });
  const jobs = tenants.flatMap((t) => Array.from({ length: t.watches }, () => t));
  const byTs = new Map<string, { tenant: Tenant; id: string; endMs: number }>();
  try {
    // The bot's workspaces: each installed (its bot token sealed) and connected to its own tenant's key.
    if (kind === 'bot')
      await installTenants(
        config,
        store,
        tenants.map((t) => t.id),
      );
    // Every run keeps running until told when to end (below, once every watch is live).
    const runs = (await emulator.call({ cmd: 'run', tenants: jobs.map((t) => t.id) })) as Array<{
      id: string;
      runbookId: string;
      runbookName: string;
    }>;
    const stored = await runConcurrent(jobs.length, 16, async (i) => {
      const tenant = jobs[i]!;
      const record = runs[i]!;
      const channel = `C${tenant.id}`;
      const res = await request(`${fake.url}chat.postMessage`, {
        method: 'POST',
        dispatcher: agent,
        headers: { authorization: `Bearer ${tenantBotToken(tenant.id)}`, 'content-type': 'application/json' },
        body: JSON.stringify({ channel, text: `\`${record.id}\` is running` }),
      });
      const body = (await res.body.json()) as { ok: boolean; ts?: string };
      if (!body.ok || !body.ts) throw new Error('could not post the running message');
      byTs.set(body.ts, { tenant, id: record.id, endMs: Number.POSITIVE_INFINITY });
      const ts = body.ts;
      await inScope(tenant.id, async () => {
        await watcher.started({
          runbookId: record.runbookId,
          runbookName: record.runbookName,
          proxyId: 'proxy-dev',
          startedBy: null,
          teamId: tenant.id,
          inputs: {},
          executionIds: [record.id],
          channel,
        });
        await watcher.posted([record.id], channel, ts);
      });
    });
    if (stored.failed > 0 || stored.started < jobs.length)
      throw new Error(
        `${jobs.length - stored.started + stored.failed} watches not stored: ${stored.errors.join('; ')}`,
      );
    await close();
    await store.close();
    const started =
      kind === 'bot'
        ? startChild(BOT_CHILD, { BENCH_BOT_ENV: JSON.stringify(botEnv) })
        : startChild(WATCHER_CHILD, {
            BENCH_STORE: storePath,
            BENCH_API_URL: emulator.url,
            BENCH_SLACK_URL: fake.url,
            BENCH_RATE: String(RATE),
            BENCH_GLOBAL_RATE: String(GLOBAL_RATE),
          });
    child = started.child;
    await started.ready;
    // Every watch live and looked at once (its first look done) before any run ends; then every run
    // ends at a random moment within the spread.
    const settleFrom = Date.now();
    const reader = await openStore({ kind: 'sqlite', path: storePath });
    try {
      while (Date.now() - settleFrom < SETTLE_MAX_MS && (await reader.watches.countDue(Date.now())) > 0)
        await new Promise((r) => setTimeout(r, 250));
    } finally {
      await reader.close();
    }
    const settleMs = Date.now() - settleFrom;
    const t0 = Date.now() + LEAD_MS;
    // ENDING of each tenant's runs (at least one) end at random within the spread; the rest keep running.
    const byTenant = new Map<Tenant, Array<[string, { tenant: Tenant; id: string; endMs: number }]>>();
    for (const entry of byTs) byTenant.set(entry[1].tenant, [...(byTenant.get(entry[1].tenant) ?? []), entry]);
    const ending = new Map<string, { tenant: Tenant; id: string; endMs: number }>();
    const ends: Array<[string, string, number]> = [];
    for (const [tenant, open] of byTenant) {
      for (const [ts, run] of open.slice(0, Math.max(1, Math.round(open.length * ENDING)))) {
        run.endMs = Math.round(t0 + Math.random() * SPREAD_MS);
        ends.push([tenant.id, run.id, run.endMs]);
        ending.set(ts, run);
      }
    }
    await emulator.call({ cmd: 'retime', ends });
    const delays = new Map<string, number[]>();
    const told = new Set<string>();
    fake.on('call', (call: { method: string; args: Record<string, unknown>; ok: boolean }) => {
      if (!call.ok || call.method !== 'chat.update') return;
      const ts = String(call.args.ts);
      const run = ending.get(ts);
      if (!run || told.has(ts)) return;
      told.add(ts);
      const list = delays.get(run.tenant.id) ?? [];
      list.push(Date.now() - run.endMs);
      delays.set(run.tenant.id, list);
    });
    await emulator.call({ cmd: 'requests', reset: true });
    const measuredFrom = Date.now();
    const hasBig = tenants.some((t) => t.watches > SMALL_WATCHES);
    const deadline =
      t0 + SPREAD_MS + (hasBig ? BIG_BOUND_MS * 1.2 : 0) + Number(process.env.BENCH_TENANTS_GRACE_MS ?? 120_000);
    let endedBy = 0;
    while (Date.now() < deadline && told.size < ending.size) {
      await new Promise((r) => setTimeout(r, 1000));
      if (process.env.BENCH_TRACE) {
        const now = Date.now();
        endedBy = [...ending.values()].filter((r) => r.endMs <= now).length;
        const reqs = await emulator.call({ cmd: 'requests' });
        process.stderr.write(
          `t=${((now - t0) / 1000).toFixed(1)} ended=${endedBy} told=${told.size} req=${reqs} slack=${fake.state.calls.length}\n`,
        );
      }
    }
    const measuredMs = Date.now() - measuredFrom;
    const { peakRss, peakHeap, cpuMs, wallMs: cpuWallMs } = await started.stop();
    child = null;
    // Runs not reported by the deadline count with their delay so far (a lower bound), and are counted.
    let unreported = 0;
    for (const [ts, run] of ending) {
      if (told.has(ts)) continue;
      unreported++;
      const list = delays.get(run.tenant.id) ?? [];
      list.push(measuredFrom + measuredMs - run.endMs);
      delays.set(run.tenant.id, list);
    }
    const requests = (await emulator.call({ cmd: 'requests' })) as number;
    return {
      delays,
      peakRss,
      peakHeap,
      cpuMs,
      cpuWallMs,
      requests,
      settleMs,
      wallMs: Date.now() - settleFrom,
      open: byTs.size,
      measuredMs,
      unreported,
    };
  } finally {
    child?.kill('SIGKILL');
    await agent.close();
    await close().catch(() => {});
    await store.close().catch(() => {});
    await fake.close();
    await emulator.stop();
    if (!process.env.BENCH_KEEP) rmSync(dir, { recursive: true, force: true });
    else process.stderr.write(`kept ${dir}\n`);
  }
}

const BOT_CHILD = fileURLToPath(new URL('../tenant-bot-process.ts', import.meta.url));
const WATCHER_CHILD = fileURLToPath(new URL('../tenant-watcher-process.ts', import.meta.url));
const EMULATOR = fileURLToPath(new URL('../tenant-emulator-process.ts', import.meta.url));

type Command = DistributiveOmit<EmulatorCommand, 'seq'>;
type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;

/** The emulator in its own process (tenant-emulator-process.ts), driven over IPC. */
async function startEmulatorProcess(
  tenantIds: string[],
): Promise<{ url: string; call: (command: Command) => Promise<unknown>; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [EMULATOR], {
    env: { ...process.env, BENCH_TENANTS: tenantIds.join(',') },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = new Map<number, (value: unknown) => void>();
  let seq = 0;
  let exited = false;
  child.on('message', (message: { seq: number; value: unknown }) => {
    waiting.get(message.seq)?.(message.value);
    waiting.delete(message.seq);
  });
  const gone = new Promise<never>((_, reject) =>
    child.on('exit', (code) => {
      exited = true;
      reject(new Error(`the emulator process exited (${code})`));
    }),
  );
  gone.catch(() => {});
  const url = await Promise.race([new Promise<unknown>((resolve) => waiting.set(0, resolve)), gone]);
  const call = (command: Command) =>
    Promise.race([
      new Promise<unknown>((resolve) => {
        seq++;
        waiting.set(seq, resolve);
        child.send({ ...command, seq });
      }),
      gone,
    ]);
  return {
    url: String(url),
    call,
    stop: async () => {
      if (exited) return;
      await call({ cmd: 'stop' }).catch(() => {});
      if (!exited) child.kill('SIGKILL');
    },
  };
}

/** The bot (or the watcher alone) in its own process: `ready` once it started; `stop` gives its figures. */
function startChild(
  script: string,
  env: Record<string, string>,
): {
  child: ChildProcess;
  ready: Promise<void>;
  stop: () => Promise<ChildFigures>;
} {
  // BENCH_CHILD_NODE_ARGS: extra flags for the child's process (say, --cpu-prof to profile it).
  const flags = (process.env.BENCH_CHILD_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...flags, script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => {
    if (process.env.BENCH_TRACE) process.stderr.write(d);
    err += d;
  });
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d;
      if (out.includes('started')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`the bench's child process exited (${code}): ${err.slice(-300)}`)));
  });
  const stop = () =>
    new Promise<ChildFigures>((resolve, reject) => {
      child.on('exit', () => {
        const line = out.split('\n').find((l) => l.startsWith('{'));
        if (!line) reject(new Error(`the bench's child process gave no figures: ${err.slice(-300)}`));
        else resolve(JSON.parse(line) as ChildFigures);
      });
      child.kill('SIGTERM');
    });
  return { child, ready, stop };
}

/** The child's CPU time over the wall time it ran, in % of one core. */
const cpuShare = (phase: Phase) => Math.round((phase.cpuMs / phase.cpuWallMs) * 100);
/** API requests a second from the first run's end to the last report. */
const perSecond = (phase: Phase) => (phase.requests / Math.max(1, phase.measuredMs / 1000)).toFixed(0);

const smallOf = (phase: Phase) => [...phase.delays].filter(([id]) => id !== 'TBIG').flatMap(([, d]) => d);

export async function tenantsScenario(): Promise<ScenarioResult> {
  const small: Tenant[] = Array.from({ length: SMALL_TENANTS }, (_, i) => ({ id: `T${i}`, watches: SMALL_WATCHES }));
  const big: Tenant = { id: 'TBIG', watches: BIG_WATCHES };
  const smallAlone = await runPhase(small);
  const bigAlone = await runPhase([big]);
  const together = await runPhase([...small, big]);
  // The same load on the watcher alone: what the rest of the runtime adds to the bot's figures.
  const watcherOnly = await runPhase([...small, big], 'watcher');
  const sA = summarize(smallOf(smallAlone));
  const sT = summarize(smallOf(together));
  const bA = summarize(bigAlone.delays.get('TBIG') ?? []);
  const bT = summarize(together.delays.get('TBIG') ?? []);
  const sW = summarize(smallOf(watcherOnly));
  const tenants = SMALL_TENANTS + 1;
  const label = `${SMALL_TENANTS} tenants × ${SMALL_WATCHES} + 1 × ${BIG_WATCHES}`;
  const phases = { smallAlone, bigAlone, together, watcherOnly };
  const each = <T>(figure: (phase: Phase) => T) =>
    Object.fromEntries(Object.entries(phases).map(([name, phase]) => [name, figure(phase)]));
  return {
    id: 'tenants',
    rows: [
      {
        scenario: `${label}: small tenants' completion → message p99 (vs alone)`,
        ours: ms(sT.p99),
        baseline: ms(sA.p99),
        ratio: times(ratio(sT.p99, sA.p99)),
      },
      {
        scenario: `${label}: small tenants' p50 (vs alone)`,
        ours: ms(sT.p50),
        baseline: ms(sA.p50),
        ratio: times(ratio(sT.p50, sA.p50)),
      },
      {
        scenario: `${label}: large tenant's p99 (vs alone)`,
        ours: ms(bT.p99),
        baseline: ms(bA.p99),
        ratio: times(ratio(bT.p99, bA.p99)),
      },
      {
        scenario: `${label}: large tenant's p99 (vs its bound: one sweep of its watches over the sweeps' share of its budget)`,
        ours: ms(bT.p99),
        baseline: ms(BIG_BOUND_MS),
        ratio: times(ratio(bT.p99, BIG_BOUND_MS)),
      },
      {
        scenario: `${label}: large tenant's p99 (vs one sweep over its whole budget, the least a sweep takes)`,
        ours: ms(bT.p99),
        baseline: ms(BIG_FLOOR_MS),
        ratio: times(ratio(bT.p99, BIG_FLOOR_MS)),
      },
      {
        scenario: `${label}: CPU of the bot's process, share of one core (vs small tenants alone)`,
        ours: `${cpuShare(together)}%`,
        baseline: `${cpuShare(smallAlone)}%`,
        ratio: times(ratio(cpuShare(together), cpuShare(smallAlone))),
      },
      {
        scenario: `${label}: CPU of the bot's process (vs the watcher alone in a process of its own, same load)`,
        ours: `${cpuShare(together)}%`,
        baseline: `${cpuShare(watcherOnly)}%`,
        ratio: times(ratio(cpuShare(together), cpuShare(watcherOnly))),
      },
      {
        scenario: `${label}: API requests/s while all are watched (vs small tenants alone)`,
        ours: perSecond(together),
        baseline: perSecond(smallAlone),
        ratio: times(ratio(Number(perSecond(together)), Number(perSecond(smallAlone)))),
      },
      {
        scenario: `${label}: peak RSS of the bot alone, whole runtime, ${tenants} installations (vs small tenants alone)`,
        ours: mb(together.peakRss),
        baseline: mb(smallAlone.peakRss),
        ratio: times(ratio(together.peakRss, smallAlone.peakRss)),
      },
      {
        scenario: `${label}: peak RSS of the bot alone (vs the watcher alone in a process of its own, same load)`,
        ours: mb(together.peakRss),
        baseline: mb(watcherOnly.peakRss),
        ratio: times(ratio(together.peakRss, watcherOnly.peakRss)),
      },
      {
        scenario: `${label}: watcher alone's small tenants' completion → message p99 (vs the bot's)`,
        ours: ms(sW.p99),
        baseline: ms(sT.p99),
        ratio: times(ratio(sW.p99, sT.p99)),
      },
    ],
    data: {
      scale: SCALE,
      smallTenants: SMALL_TENANTS,
      bigWatches: BIG_WATCHES,
      rate: RATE,
      globalRate: GLOBAL_RATE,
      smallAlone: sA,
      smallTogether: sT,
      bigAlone: bA,
      bigTogether: bT,
      bigBoundMs: BIG_BOUND_MS,
      bigFloorMs: BIG_FLOOR_MS,
      watcherOnlySmall: sW,
      watcherOnlyBig: summarize(watcherOnly.delays.get('TBIG') ?? []),
      requests: each((p) => p.requests),
      rss: each((p) => p.peakRss),
      heap: each((p) => p.peakHeap),
      cpuMs: each((p) => p.cpuMs),
      cpuWallMs: each((p) => p.cpuWallMs),
      wallMs: each((p) => p.wallMs),
      settleMs: each((p) => p.settleMs),
      ending: ENDING,
      unreported: each((p) => p.unreported),
      spreadMs: SPREAD_MS,
      loadAverage: os.loadavg(),
    },
    notes: [
      `scale ${SCALE} of the issue's 1,000 × 10 + 1 × 10,000 (BENCH_TENANTS_SCALE); each tenant ${RATE} requests/s of its own, global ceiling ${GLOBAL_RATE}/s; with every watch live, ${ENDING * 100}% of each tenant's runs (BENCH_TENANTS_ENDING) end at random over ${SPREAD_MS / 1000} s, the rest stay open; the bot (the whole runtime in many-workspace mode, every workspace installed and connected with its own sealed token and key), the emulator (one tenant per workspace) and the bench (fake Slack, measurements) each run in their own process; a fourth phase runs the watcher alone in the bot's place under the together load; load average at the end ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' / ')}`,
    ],
  };
}
