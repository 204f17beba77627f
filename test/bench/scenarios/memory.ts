// Scenario 6: resident memory of the bot at rest, in its own process, next to a bare Bolt app in
// its own process. The 10,000-watch figure comes from the watcher scenario when it runs.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '../../../src/emulator/server.ts';
import { startFakeSlack } from '../../../src/sandbox/fake-slack-api.ts';
import { API_KEY, BOT_TOKEN, SIGNING_SECRET } from '../bench-stack.ts';
import { mb, type ScenarioResult, times } from '../report.ts';
import { ratio } from '../stats.ts';

const CHILD = fileURLToPath(new URL('../idle-process.ts', import.meta.url));
const CHILD_TIMEOUT_MS = 90_000;
const WATCHES = 10_000;

interface Usage {
  rss: number;
  heapUsed: number;
  /** Highest RSS sampled while the watcher worked (bot-watches), else rss. */
  peak: number;
}

/** A heap cap for the bot process (NODE_OPTIONS in a deployment): V8 then collects before it grows. */
const HEAP_CAP_FLAG = '--max-old-space-size=96';

function measureChild(
  mode: 'bot' | 'bot-watches' | 'bare',
  env: Record<string, string>,
  flags: string[] = [],
): Promise<Usage> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', ...flags, CHILD, mode], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${mode} child timed out`));
    }, CHILD_TIMEOUT_MS);
    child.stdout.on('data', (d: Buffer) => {
      out += d;
    });
    child.stderr.on('data', (d: Buffer) => {
      err += d;
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      const line = out.trim().split('\n').at(-1);
      if (code !== 0 || !line) reject(new Error(`${mode} child exited ${code}: ${err.slice(0, 500)}`));
      else resolve(JSON.parse(line) as Usage);
    });
  });
}

export async function memory(watch10k: { peakRss: number; baselineRss: number } | null): Promise<ScenarioResult> {
  const emulator = await startEmulator({ port: 0, apiKey: API_KEY });
  const fake = await startFakeSlack({ port: 0, botToken: BOT_TOKEN });
  try {
    const env = {
      BENCH_API_URL: emulator.url,
      BENCH_API_KEY: API_KEY,
      BENCH_BOT_TOKEN: BOT_TOKEN,
      BENCH_SIGNING_SECRET: SIGNING_SECRET,
      BENCH_SLACK_URL: fake.url,
    };
    const bot = await measureChild('bot', env);
    const bare = await measureChild('bare', env);
    // 10,000 executions running on the emulator (here, in this process) for the whole measurement,
    // watched by the bot in its own process: the figure is the bot's alone.
    const runbook = [...emulator.state.workflows.byId.values()].filter((r) => !r.workflow.isFolder)[0]!;
    const runs = Array.from({ length: WATCHES }, (_, i) => {
      const record = emulator.state.runWorkflow(runbook.workflow.id, {
        proxyId: 'proxy-dev',
        params: JSON.stringify({ simulate_duration_seconds: 600 }),
      });
      return { id: record.id, channel: `CMEM${i % 20}` };
    });
    const dir = mkdtempSync(join(tmpdir(), 'runbook-mem-'));
    const file = join(dir, 'watches.json');
    writeFileSync(file, JSON.stringify(runs));
    emulator.state.requests.reset();
    let watching: Usage;
    let capped: Usage;
    try {
      watching = await measureChild('bot-watches', { ...env, BENCH_WATCH_FILE: file });
      capped = await measureChild('bot-watches', { ...env, BENCH_WATCH_FILE: file }, [HEAP_CAP_FLAG]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const requests = emulator.state.requests.total;
    return {
      id: 'memory',
      rows: [
        {
          scenario: '6. RSS idle (own process, after GC; target ≤ 120 MB)',
          ours: mb(bot.rss),
          baseline: mb(bare.rss),
          ratio: times(ratio(bot.rss, bare.rss)),
        },
        {
          scenario: `6. RSS peak, own process, ${WATCHES.toLocaleString('en')} open watches (target ≤ 200 MB; baseline: the same bot idle)`,
          ours: mb(watching.peak),
          baseline: mb(bot.rss),
          ratio: times(ratio(watching.peak, bot.rss)),
        },
        {
          scenario: `6. same with ${HEAP_CAP_FLAG} (live heap after GC: ${mb(capped.heapUsed)})`,
          ours: mb(capped.peak),
          baseline: mb(bot.rss),
          ratio: times(ratio(capped.peak, bot.rss)),
        },
        watch10k
          ? {
              scenario: '6. RSS peak with 10,000 watches (bench process, emulator and fake Slack included)',
              ours: mb(watch10k.peakRss),
              baseline: mb(watch10k.baselineRss),
              ratio: times(ratio(watch10k.peakRss, watch10k.baselineRss)),
            }
          : { scenario: '6. RSS with 10,000 watches', ours: 'not measured', baseline: 'not measured', ratio: '—' },
      ],
      data: {
        idle: { bot, bareBolt: bare },
        watching: { ...watching, watches: WATCHES, apiRequests: requests },
        capped,
        watch10k,
      },
      notes: watch10k ? [] : ['RSS with 10,000 watches not measured: the watcher scenario was skipped'],
    };
  } finally {
    await fake.close();
    await emulator.close();
  }
}
