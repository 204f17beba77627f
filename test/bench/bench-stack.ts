// The bot as it runs in production, in-process: the emulator on the system clock (so latency
// faults and run durations are real time), the fake Slack Web API, and the real runtime (Bolt in
// HTTP mode). Logging is silenced: a benchmark measures the app, not the terminal.
import { loadConfig } from '../../src/config.ts';
import { type Emulator, type Faults, startEmulator } from '../../src/emulator/server.ts';
import { createLogger } from '../../src/logger.ts';
import { type Runtime, type RuntimeOptions, startRuntime } from '../../src/runtime.ts';
import { type FakeSlack, startFakeSlack } from '../../src/sandbox/fake-slack-api.ts';

export const API_KEY = 'bench-api-key-0123456789';
export const BOT_TOKEN = 'xoxb-bench-token';
export const SIGNING_SECRET = 'bench-signing-secret-0123456789';
export const TEAM_ID = 'T0BENCH';

export interface BenchStack {
  emulator: Emulator;
  fake: FakeSlack;
  runtime: Runtime;
  botUrl: string;
  stop(): Promise<void>;
}

export interface BenchStackOptions {
  extraRunbooks?: number;
  faults?: Partial<Faults>;
  defaultDurationMs?: number;
  env?: Record<string, string>;
  runtime?: Partial<RuntimeOptions>;
}

export async function startBenchStack(options: BenchStackOptions = {}): Promise<BenchStack> {
  const emulator = await startEmulator({
    port: 0,
    apiKey: API_KEY,
    ...(options.extraRunbooks ? { extraRunbooks: options.extraRunbooks } : {}),
    ...(options.faults ? { faults: options.faults } : {}),
    ...(options.defaultDurationMs !== undefined ? { defaultDurationMs: options.defaultDurationMs } : {}),
  });
  const fake = await startFakeSlack({ port: 0, botToken: BOT_TOKEN });
  const config = loadConfig({
    RUNBOOK_API_URL: emulator.url,
    RUNBOOK_API_KEY: API_KEY,
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: fake.url,
    RUNBOOK_PROXIES: 'proxy-dev=Dev proxy,proxy-prod=Prod proxy',
    PORT: '0',
    LOG_LEVEL: 'silent',
    ...options.env,
  });
  const logger = createLogger({ level: 'silent', secrets: [API_KEY, BOT_TOKEN, SIGNING_SECRET] });
  const runtime = await startRuntime(config, { logger, ...options.runtime });
  return {
    emulator,
    fake,
    runtime,
    botUrl: `http://127.0.0.1:${runtime.slackPort}/slack/events`,
    async stop() {
      await runtime.stop();
      await fake.close();
      await emulator.close();
    },
  };
}
