// Wires the parts together from a parsed Config: emulator (when no API URL) → API client →
// catalog → Slack app. One stop() path closes everything in reverse order. main.ts runs it for a
// process; integration tests run it in-process with the same wiring.
import { randomBytes } from 'node:crypto';
import { createRunbookApi } from './api/client.ts';
import type { RunbookApi } from './api/runbook-api.ts';
import { ProxyDirectory } from './catalog/proxy-directory.ts';
import { RunbookCatalog } from './catalog/runbook-catalog.ts';
import type { Config } from './config.ts';
import { type Emulator, startEmulator } from './emulator/server.ts';
import type { Logger } from './logger.ts';
import { createSlackApp, type SlackAppHandle } from './slack/app.ts';
import type { RunTracker, SlackDeps } from './slack/deps.ts';
import { RunDrafts } from './slack/run-drafts.ts';

/** Proxies the embedded emulator knows, offered when nothing is configured. */
const EMULATOR_PROXIES = [
  { id: 'proxy-dev', name: 'Dev proxy' },
  { id: 'proxy-prod', name: 'Prod proxy' },
];

export interface RuntimeOptions {
  logger: Logger;
  /** Where the bot's Slack Web API calls go; overrides config (sandbox and tests). */
  slackApiUrl?: string;
  /** Signing secret to use in sandbox mode (generated when absent). */
  sandboxSigningSecret?: string;
  /** Bot token to use in sandbox mode. */
  sandboxBotToken?: string;
  /** Watcher side of runs; a no-op tracker when the app runs without a watcher. */
  runs?: RunTracker;
}

export interface Runtime {
  api: RunbookApi;
  emulator: Emulator | null;
  slack: SlackAppHandle;
  slackPort: number;
  signingSecret: string | null;
  deps: SlackDeps;
  stop(): Promise<void>;
}

export async function startRuntime(config: Config, options: RuntimeOptions): Promise<Runtime> {
  const { logger } = options;
  const cleanups: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) {
      await cleanup().catch((err: unknown) => logger.warn({ err }, 'error while stopping'));
    }
  };
  try {
    let emulator: Emulator | null = null;
    let baseUrl = config.api.url;
    if (!baseUrl) {
      emulator = await startEmulator({ port: config.emulator?.port ?? 0, apiKey: config.api.apiKey });
      cleanups.push(() => emulator!.close());
      baseUrl = emulator.url;
      logger.info({ url: emulator.url }, 'built-in Runbook API emulator started (set RUNBOOK_API_URL to use a real service)');
    }
    const api = createRunbookApi({
      baseUrl,
      apiKey: config.api.apiKey,
      timeoutMs: config.api.timeoutMs,
      maxRetries: config.api.maxRetries,
      outputEncoding: config.api.outputEncoding,
      sendInputsField: config.api.sendInputsField,
      logger: logger.child({ component: 'api' }),
    });
    cleanups.push(() => api.close());

    const configured = config.proxies.list.length ? config.proxies.list : emulator ? EMULATOR_PROXIES : [];
    const deps: SlackDeps = {
      api,
      catalog: new RunbookCatalog({ api }),
      proxies: new ProxyDirectory({
        api,
        configured,
        defaultId: config.proxies.defaultId ?? (emulator ? EMULATOR_PROXIES[0]!.id : null),
      }),
      drafts: new RunDrafts(),
      runs: options.runs ?? { started: async () => {}, posted: async () => {} },
      logger: logger.child({ component: 'slack' }),
      now: Date.now,
      interactiveTimeoutMs: Math.min(config.api.timeoutMs, 10_000),
    };

    const sandbox = config.slack.mode === 'sandbox';
    const signingSecret = sandbox
      ? (options.sandboxSigningSecret ?? randomBytes(16).toString('hex'))
      : config.slack.signingSecret;
    const slack = createSlackApp(deps, {
      mode: config.slack.mode === 'socket' ? 'socket' : 'http',
      botToken: sandbox ? (options.sandboxBotToken ?? 'xoxb-sandbox') : config.slack.botToken!,
      appToken: config.slack.appToken,
      signingSecret,
      apiUrl: options.slackApiUrl ?? config.slack.apiUrl,
      port: config.slack.port,
    });
    const { port } = await slack.start();
    cleanups.push(() => slack.stop());
    logger.info({ port, mode: config.slack.mode }, 'Slack app listening');
    return { api, emulator, slack, slackPort: port, signingSecret, deps, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
