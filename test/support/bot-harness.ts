// The whole bot in-process for integration tests: the Runbook API emulator, the fake Slack Web
// API, and the real runtime (Bolt in HTTP mode) wired exactly as main.ts wires it. People are
// simulated with SlackUser, which sends signed requests shaped like Slack's.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config.ts';
import { type Emulator, type EmulatorOptions, ManualClock, startEmulator } from '../../src/emulator/server.ts';
import { createLogger } from '../../src/logger.ts';
import { type Runtime, type RuntimeOptions, startRuntime } from '../../src/runtime.ts';
import { type FakeSlack, type FakeSlackOptions, startFakeSlack } from '../../src/sandbox/fake-slack-api.ts';
import type { FakeEphemeral, FakeUser, FakeView } from '../../src/sandbox/fake-slack-state.ts';
import { SlackUser } from '../../src/sandbox/slack-user.ts';
import { isOurToken } from '../../src/slack/kit/mrkdwn.ts';

export const API_KEY = 'test-api-key-0123456789';
export const BOT_TOKEN = 'xoxb-test-token-abcdef';
export const SIGNING_SECRET = 'test-signing-secret-0123456789';
export const START = Date.parse('2026-11-21T08:00:00Z');

/** Watcher settings for in-process tests: checks every few ms, no Slack pacing. */
export const QUICK_WATCH_ENV: Record<string, string> = {
  WATCH_FIRST_CHECK_MS: '30',
  WATCH_MAX_CHECK_MS: '150',
  WATCH_TICK_MS: '20',
  WATCH_UNPOSTED_GRACE_MS: '300',
  WATCH_SLACK_POST_INTERVAL_MS: '0',
  WATCH_SLACK_UPDATE_INTERVAL_MS: '0',
};

export interface Harness {
  emulator: Emulator;
  clock: ManualClock;
  fake: FakeSlack;
  runtime: Runtime;
  botUrl: string;
  logs: string[];
  user(id?: string): SlackUser;
  /** Stops the bot and starts it again on the same config and data (a restart); Slack and the API stay up. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  env?: Record<string, string>;
  /** Point the bot at this API URL instead of the emulator. */
  apiUrl?: string;
  runtime?: Partial<RuntimeOptions>;
  /**
   * The bot reads the emulator's clock (`h.clock`) too: moving it moves what the bot calls now (freezes,
   * skips, forecasts); `h.runtime.tick()` then does the minute's work at once.
   */
  sharedClock?: boolean;
  /** Emulator options beyond the harness's own (e.g. `recentHistory`). */
  emulator?: Partial<Omit<EmulatorOptions, 'apiKey' | 'clock' | 'port'>>;
  /**
   * Where the emulator's clock starts (default START). Health counts the last 30 days by the bot's own
   * clock, so its tests start the emulator at the bot's now.
   */
  clockStart?: number;
  /** Fake Slack options beyond the harness's own (e.g. `historyLimit`). */
  fake?: Partial<Omit<FakeSlackOptions, 'port' | 'botToken'>>;
  /** Another harness's fake Slack (a second replica of one workspace); it stays up when this one stops. */
  fakeSlack?: FakeSlack;
}

/** A log destination that keeps every line, for tests that read what was logged. */
export function collectLogs(): { logs: string[]; destination: Writable } {
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      logs.push(String(chunk));
      done();
    },
  });
  return { logs, destination };
}

/** A policy file with this text in a fresh temp directory; its path (for POLICY_FILE). */
export function writePolicyFile(text: string): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'policy-')), 'policy.yaml');
  writeFileSync(file, text);
  return file;
}

/** A person of the fake Slack (London time), with anything else given. */
export function person(id: string, name: string, extra: Partial<FakeUser> = {}): FakeUser {
  return {
    id,
    name,
    real_name: name,
    email: `${name}@example.com`,
    tz: 'Europe/London',
    tz_label: 'Greenwich Mean Time',
    tz_offset: 0,
    ...extra,
  };
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const clock = new ManualClock(options.clockStart ?? START);
  const emulator = await startEmulator({ ...options.emulator, port: 0, apiKey: API_KEY, clock });
  const fake = options.fakeSlack ?? (await startFakeSlack({ ...options.fake, port: 0, botToken: BOT_TOKEN }));
  const { logs, destination } = collectLogs();
  const config = loadConfig({
    RUNBOOK_API_URL: options.apiUrl ?? emulator.url,
    RUNBOOK_API_KEY: API_KEY,
    RUNBOOK_API_MAX_RETRIES: '1',
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: fake.url,
    RUNBOOK_PROXIES: 'proxy-dev=Dev proxy,proxy-prod=Prod proxy',
    PORT: '0',
    // Each harness gets its own SQLite file, never ./data in the repo.
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'runbook-bot-test-')),
    LOG_LEVEL: 'debug',
    ...options.env,
  });
  const logger = createLogger({ level: 'debug', secrets: [API_KEY, BOT_TOKEN, SIGNING_SECRET], destination });
  const runtimeOptions: RuntimeOptions = {
    logger,
    ...(options.sharedClock ? { now: () => clock.now() } : {}),
    ...options.runtime,
  };
  const runtime = await startRuntime(config, runtimeOptions);
  const harness: Harness = {
    emulator,
    clock,
    fake,
    runtime,
    botUrl: `http://127.0.0.1:${runtime.slackPort}/slack/events`,
    logs,
    user: (id = 'U01ALICE') =>
      new SlackUser({ fake, botUrl: harness.botUrl, signingSecret: SIGNING_SECRET, userId: id }),
    async restart() {
      await harness.runtime.stop();
      harness.runtime = await startRuntime(config, runtimeOptions);
      harness.botUrl = `http://127.0.0.1:${harness.runtime.slackPort}/slack/events`;
    },
    async stop() {
      await harness.runtime.stop();
      if (!options.fakeSlack) await fake.close();
      await emulator.close();
      // Every suite on this harness checks what reached Slack: no <…> the bot's helpers did not make.
      const foreign = foreignTokens(fake);
      if (foreign.length > 0) throw new Error(`text reached Slack unescaped: ${foreign.slice(0, 5).join(' | ')}`);
    },
  };
  return harness;
}

/**
 * Every <!…>, <@…>, <#…> or <http…> in the text Slack would read as mrkdwn (top-level text, attachments,
 * mrkdwn objects, a file's initial_comment, a step's error and outputs) of every Web API call and response_url post, that the bot's helpers did not make.
 */
export function foreignTokens(fake: FakeSlack): string[] {
  const texts: string[] = [];
  // `top`: a payload or an attachment, whose `text` is mrkdwn unless it says otherwise.
  const collect = (node: unknown, top: boolean) => {
    if (Array.isArray(node)) {
      for (const n of node) collect(n, false);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const o = node as Record<string, unknown>;
    if (typeof o.text === 'string' && (o.type === 'mrkdwn' || (top && o.type !== 'plain_text'))) texts.push(o.text);
    for (const key of ['fallback', 'pretext']) if (top && typeof o[key] === 'string') texts.push(o[key] as string);
    // A file's comment, a workflow step's error and outputs (a later step may post them) are read as mrkdwn too.
    for (const key of ['initial_comment', 'error']) if (top && typeof o[key] === 'string') texts.push(o[key] as string);
    if (top && o.outputs && typeof o.outputs === 'object') {
      for (const v of Object.values(o.outputs)) if (typeof v === 'string') texts.push(v);
    }
    for (const [key, v] of Object.entries(o)) {
      if (key === 'attachments' && Array.isArray(v)) for (const a of v) collect(a, true);
      else if (typeof v === 'object') collect(v, false);
    }
  };
  for (const call of fake.state.calls) collect(call.args, true);
  for (const post of fake.state.responseUrlPosts) collect(post.body ?? post, true);
  const found = texts.flatMap((t) => t.match(/<(?:[!@#]|http)[^<>]*>/g) ?? []);
  return [...new Set(found.filter((token) => !isOurToken(token)))];
}

/** Polls until `probe` returns a value (not undefined/null/false), or fails after `timeoutMs`. */
export async function waitFor<T>(
  probe: () => T | undefined | null | false,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 15));
  }
}

/** The latest response_url answer or ephemeral to `user` whose text or blocks contain `needle`. */
export function ephemeralContaining(fake: FakeSlack, needle: string, user = 'U01ALICE'): FakeEphemeral | undefined {
  return [...fake.state.ephemerals]
    .reverse()
    .find((e) => e.user === user && !e.deleted && JSON.stringify([e.text, e.blocks]).includes(needle));
}

/** The modal a user currently sees, once its content includes `needle`. */
export function modalContaining(h: Harness, needle: string, user = 'U01ALICE'): FakeView | undefined {
  const top = h.user(user).topModal();
  return top && JSON.stringify(top.view).includes(needle) ? top : undefined;
}
