// Child process for the memory scenario: starts either the real bot (against an API and fake
// Slack that live in the parent) or a bare Bolt app, lets it settle, collects garbage, and prints
// its RSS as one JSON line. A separate process, so the figure is the app's alone.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startRuntime } from '../../src/runtime.ts';
import { startBareBolt } from './bare-bolt.ts';

const SETTLE_MS = 2_000;
/** With watches: how long the watcher works on them while RSS is sampled. */
const WATCHING_MS = Number(process.env.BENCH_WATCHING_MS ?? 20_000);

async function main(): Promise<void> {
  const mode = process.argv[2];
  const env = process.env;
  let stop: () => Promise<void>;
  let peak = 0;
  let heapPeak = 0;
  let afterInsert = 0;
  let externalPeak = 0;
  if (mode === 'bot' || mode === 'bot-watches') {
    const dataDir = mkdtempSync(join(tmpdir(), 'runbook-idle-'));
    const config = loadConfig({
      RUNBOOK_API_URL: env.BENCH_API_URL,
      RUNBOOK_API_KEY: env.BENCH_API_KEY,
      SLACK_BOT_TOKEN: env.BENCH_BOT_TOKEN,
      SLACK_SIGNING_SECRET: env.BENCH_SIGNING_SECRET,
      SLACK_API_URL: env.BENCH_SLACK_URL,
      RUNBOOK_PROXIES: 'proxy-dev=Dev proxy',
      PORT: '0',
      LOG_LEVEL: 'silent',
      DATA_DIR: dataDir,
    });
    const runtime = await startRuntime(config, { logger: createLogger({ level: 'silent' }) });
    stop = async () => {
      await runtime.stop();
      rmSync(dataDir, { recursive: true, force: true });
    };
    if (mode === 'bot-watches') {
      // Executions the parent started on its emulator (still running), watched as startRun would.
      const runs = JSON.parse(readFileSync(env.BENCH_WATCH_FILE ?? '', 'utf8')) as Array<{
        id: string;
        channel: string;
      }>;
      const now = Date.now();
      for (const [i, run] of runs.entries()) {
        await runtime.store.watches.insert(
          {
            executionId: run.id,
            runbookId: 'bench',
            runbookName: 'Bench runbook',
            channel: run.channel,
            messageTs: `1700000000.${String(i).padStart(6, '0')}`,
            proxyId: 'proxy-dev',
            inputsSummary: '{"region":"us-west-2"}',
            origin: 'slack',
            nextCheckAt: now + 2_000,
          },
          now,
        );
      }
      afterInsert = process.memoryUsage().rss;
      const until = Date.now() + WATCHING_MS;
      while (Date.now() < until) {
        const m = process.memoryUsage();
        peak = Math.max(peak, m.rss);
        heapPeak = Math.max(heapPeak, m.heapTotal);
        externalPeak = Math.max(externalPeak, m.external + m.arrayBuffers);
        await sleep(100);
      }
    }
  } else if (mode === 'bare') {
    const bare = await startBareBolt(
      env.BENCH_SIGNING_SECRET ?? 'x',
      (app) => {
        app.command('/runbook', async ({ ack }) => {
          await ack();
        });
      },
      { botToken: env.BENCH_BOT_TOKEN ?? 'xoxb-bare', slackApiUrl: env.BENCH_SLACK_URL ?? '' },
    );
    stop = bare.stop;
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
  await sleep(SETTLE_MS);
  (globalThis as { gc?: () => void }).gc?.();
  await sleep(100);
  const usage = process.memoryUsage();
  process.stdout.write(
    `${JSON.stringify({ rss: usage.rss, heapUsed: usage.heapUsed, peak: Math.max(peak, usage.rss), afterInsert, heapPeak, externalPeak })}\n`,
  );
  await stop();
  process.exit(0);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
