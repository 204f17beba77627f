// The bot as a real process (`node src/main.ts` on the Node running the tests, which is the pinned
// Node 24 under npm): spawn with an env, wait for GET /healthz on its PORT, kill it (SIGKILL for
// crash tests) and restart it with the same env. Output is kept so a failure can show it.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { WebClient } from '@slack/web-api';
import pg from 'pg';
import type { RunbookApi } from '../../src/api/runbook-api.ts';
import type { FakeSlack } from '../../src/sandbox/fake-slack-api.ts';
import { buildRunningCard } from '../../src/slack/kit/execution-card.ts';
import type { Store } from '../../src/store/store.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface BotProcess {
  port: number;
  readonly pid: number;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Sends a signal and waits until the process has exited. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  readonly exited: Promise<number | null>;
}

/** A port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

export async function spawnBot(env: Record<string, string>, options: { timeoutMs?: number } = {}): Promise<BotProcess> {
  const port = Number(env.PORT) || (await freePort());
  const child: ChildProcess = spawn(process.execPath, ['src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += String(chunk);
  });
  child.stderr?.on('data', (chunk) => {
    output += String(chunk);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const bot: BotProcess = {
    port,
    pid: child.pid ?? -1,
    output: () => output,
    exited,
    async kill(signal = 'SIGTERM') {
      if (!gone) child.kill(signal);
      await exited;
    },
  };
  // A start on a loaded machine is slow, not stuck: the limit counts while the process does no work (it
  // waits on something that does not come), or the work it did (it spins), not the time it waited for a core.
  const limitMs = options.timeoutMs ?? 15_000;
  let cpu = cpuMsOf(bot.pid);
  let idleSince = Date.now();
  for (;;) {
    if (gone) throw new Error(`bot exited before it was healthy:\n${output}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.ok) return bot;
    } catch {
      // not listening yet
    }
    const now = cpuMsOf(bot.pid);
    if (now !== null && now !== cpu) idleSince = Date.now();
    cpu = now;
    if (Date.now() - idleSince > limitMs || (cpu ?? 0) > limitMs) {
      await bot.kill('SIGKILL');
      throw new Error(`bot not healthy: ${limitMs} ms without doing any work, or that much CPU spent:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** CPU time a process has used (Linux /proc; null elsewhere, where the limit is plain time). */
function cpuMsOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, in clock ticks (100 a second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

// ---- shared scenario for the restart and replica tests ---------------------------------------

export interface SeededRun {
  executionId: string;
  channel: string;
  ts: string;
}

/**
 * Starts `count` runs through the API, posts their running messages to the fake Slack (spread over
 * `channels`) and records a watch for each in `store`, as startRun would.
 */
export interface SeedOptions {
  /**
   * Inputs of run `i` (default `{ n: i }`); the emulator reads `simulate_duration_seconds` and
   * `simulate_outcome` from them, so a test can spread when runs end and how.
   */
  params?: (i: number) => Record<string, unknown>;
}

export async function seedWatchedRuns(
  deps: { api: RunbookApi; store: Store; fake: FakeSlack; botToken: string },
  count: number,
  channels: string[],
  options: SeedOptions = {},
): Promise<SeededRun[]> {
  const client = new WebClient(deps.botToken, { slackApiUrl: deps.fake.url });
  const runbook = (await deps.api.workflows.list({ isService: true })).items[0]!;
  const runs: SeededRun[] = [];
  const one = async (i: number) => {
    const channel = channels[i % channels.length]!;
    const params = options.params?.(i) ?? { n: i };
    const { executionIds } = await deps.api.workflows.run(runbook.id, { proxyId: 'proxy-dev', params });
    const executionId = executionIds[0]!;
    const context = {
      runbookId: runbook.id,
      runbookName: runbook.name,
      proxyId: 'proxy-dev',
      startedBy: 'U01ALICE',
      inputs: params,
    };
    const now = Date.now();
    await deps.store.watches.insert(
      {
        ...context,
        executionId,
        channel,
        teamId: 'T0SANDBOX',
        inputsSummary: JSON.stringify(params),
        origin: 'slack',
        nextCheckAt: now,
      },
      now,
    );
    const posted = await client.chat.postMessage({ channel, ...buildRunningCard(context, [executionId]) });
    await deps.store.watches.setMessage(executionId, channel, posted.ts!, Date.now());
    runs.push({ executionId, channel, ts: posted.ts! });
  };
  for (let i = 0; i < count; i += 20) {
    await Promise.all(Array.from({ length: Math.min(20, count - i) }, (_, k) => one(i + k)));
  }
  return runs;
}

export interface Reports {
  /** Revisions of the run's message that show a result (normally 1). */
  resultEdits: number;
  /** Thread replies and digest lines naming the run. */
  replies: number;
}

/** What the fake Slack shows for each run. */
export function countReports(fake: FakeSlack, runs: SeededRun[]): Map<string, Reports> {
  const out = new Map<string, Reports>();
  const notices = Object.values(fake.state.messages)
    .flat()
    .filter((m) => (m.thread_ts && m.thread_ts !== m.ts) || /^\d+ runs finished:/.test(m.text));
  for (const run of runs) {
    const card = (fake.state.messages[run.channel] ?? []).find((m) => m.ts === run.ts);
    const revisions = card ? [...card.history.map((r) => r.text), card.text] : [];
    const marker = `\`${run.executionId}\``;
    out.set(run.executionId, {
      resultEdits: revisions.filter((t) => / (succeeded|failed)$/.test(t)).length,
      replies: notices.reduce((n, m) => n + m.text.split(marker).length - 1, 0),
    });
  }
  return out;
}

/**
 * The running message the bot posted for each execution (found on the fake Slack by the id its
 * card names, not by what the bot recorded), shaped like a seeded run for countReports. Ids whose
 * running message is not up are left out.
 */
export function findRunMessages(fake: FakeSlack, executionIds: string[]): SeededRun[] {
  const cards = Object.values(fake.state.messages)
    .flat()
    .filter((m) => !(m.thread_ts && m.thread_ts !== m.ts))
    .map((m) => {
      const first = m.history[0] ?? m;
      return { message: m, running: first.text.endsWith(' is running'), blocks: JSON.stringify(first.blocks ?? []) };
    })
    .filter((c) => c.running);
  const runs: SeededRun[] = [];
  for (const executionId of executionIds) {
    const marker = JSON.stringify(`\`${executionId}\``).slice(1, -1);
    const card = cards.find((c) => c.blocks.includes(marker));
    if (card) runs.push({ executionId, channel: card.message.channel, ts: card.message.ts });
  }
  return runs;
}

/** Watcher settings that make a bot process report within seconds (process tests only). */
export const FAST_WATCH_ENV: Record<string, string> = {
  WATCH_REQUESTS_PER_SECOND: '300',
  WATCH_CONCURRENCY: '16',
  WATCH_FIRST_CHECK_MS: '200',
  WATCH_MAX_CHECK_MS: '500',
  WATCH_TICK_MS: '50',
  WATCH_LEASE_MS: '1500',
  WATCH_UNPOSTED_GRACE_MS: '60000',
  WATCH_SLACK_POST_INTERVAL_MS: '50',
  WATCH_SLACK_UPDATE_INTERVAL_MS: '15',
};

/** Polls an async probe until it holds, or fails after `timeoutMs`. */
export async function waitUntil(probe: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Reads `read` until `done` holds; gives up (returning the last reading) only once the reading has not
 * changed for `stallMs`. A deadline that moves while work gets done: on a loaded machine the wait is
 * longer, and something stuck is still caught.
 */
export async function whileProgressing<T>(
  read: () => T | Promise<T>,
  done: (value: T) => boolean,
  stallMs: number,
): Promise<{ value: T; stalled: boolean }> {
  let value = await read();
  let seen = JSON.stringify(value);
  let movedAt = Date.now();
  while (!done(value)) {
    if (Date.now() - movedAt > stallMs) return { value, stalled: true };
    await new Promise((r) => setTimeout(r, 50));
    value = await read();
    const now = JSON.stringify(value);
    if (now !== seen) {
      seen = now;
      movedAt = Date.now();
    }
  }
  return { value, stalled: false };
}

/** One statement on its own connection (creating and dropping a test's Postgres schema). */
export async function pgAdmin(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
