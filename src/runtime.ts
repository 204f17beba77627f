// Wires the parts together from a parsed Config: emulator (when no API URL) → API client → store →
// watcher → catalog → Slack app. One stop() path closes everything in reverse order. main.ts runs it for a
// process; integration tests run it in-process with the same wiring.
import { randomBytes } from 'node:crypto';
import { WebClient } from '@slack/web-api';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { createRunbookApi } from './api/client.ts';
import type { RunbookApi } from './api/runbook-api.ts';
import { ProxyDirectory } from './catalog/proxy-directory.ts';
import { RunbookCatalog } from './catalog/runbook-catalog.ts';
import type { Config } from './config.ts';
import { type Emulator, startEmulator } from './emulator/server.ts';
import type { Logger } from './logger.ts';
import { AuditLog } from './policy/audit-log.ts';
import { loadPolicy, policyGroups } from './policy/load-policy.ts';
import type { Policy } from './policy/policy.ts';
import { RunRateLimit } from './policy/run-rate-limit.ts';
import { subscriberMayView } from './runs/subscriptions.ts';
import { runbookNamed } from './runs/visibility.ts';
import { createSlackApp, type SlackAppHandle } from './slack/app.ts';
import { expireApprovals } from './slack/commands/approvals.ts';
import type { RunTracker, SlackDeps } from './slack/deps.ts';
import { Identity } from './slack/identity.ts';
import { createMetadataSeal } from './slack/metadata-seal.ts';
import { RunDrafts } from './slack/run-drafts.ts';
import { openStore } from './store/open-store.ts';
import type { Store } from './store/store.ts';
import { createWatchMetrics } from './watch/metrics.ts';
import { catalogLookup, SubscriptionScanner, slackPostTransport } from './watch/subscriptions.ts';
import { newOwnerId, Watcher } from './watch/watcher.ts';

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
  /** Watcher side of runs; replaces the built-in watcher (which is then not started). */
  runs?: RunTracker;
  /** An already open store to use instead of opening config.store (tests); the caller closes it. */
  store?: Store;
  /** Where metrics are registered (default: a fresh registry with process metrics), served at /metrics. */
  metricsRegistry?: Registry;
  /** Policy to use when POLICY_FILE is unset (the sandbox's demo policy); default: the built-in default. */
  defaultPolicy?: Policy;
  /** Approvals channel to use when APPROVALS_CHANNEL is unset. */
  defaultApprovalsChannel?: string;
  /** Lease owner name of the watcher (default hostname:pid:random). */
  watcherOwner?: string;
}

export interface Runtime {
  api: RunbookApi;
  emulator: Emulator | null;
  slack: SlackAppHandle;
  slackPort: number;
  signingSecret: string | null;
  deps: SlackDeps;
  store: Store;
  /** null when options.runs replaced it. */
  watcher: Watcher | null;
  subscriptions: SubscriptionScanner;
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
    // The policy is read first: a bad file stops start-up before anything listens.
    const policy =
      !config.access.policyFile && options.defaultPolicy
        ? options.defaultPolicy
        : await loadPolicy(config.access.policyFile);
    let emulator: Emulator | null = null;
    let baseUrl = config.api.url;
    if (!baseUrl) {
      emulator = await startEmulator({ port: config.emulator?.port ?? 0, apiKey: config.api.apiKey });
      cleanups.push(() => emulator!.close());
      baseUrl = emulator.url;
      logger.info(
        { url: emulator.url },
        'built-in Runbook API emulator started (set RUNBOOK_API_URL to use a real service)',
      );
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

    let store = options.store;
    if (!store) {
      const opened = await openStore(config.store, logger);
      cleanups.push(() => opened.close());
      store = opened;
    }

    const sandbox = config.slack.mode === 'sandbox';
    const botToken = sandbox ? (options.sandboxBotToken ?? 'xoxb-sandbox') : config.slack.botToken!;
    const slackApiUrl = options.slackApiUrl ?? config.slack.apiUrl;
    const registry = options.metricsRegistry ?? new Registry();
    if (!options.metricsRegistry) collectDefaultMetrics({ register: registry });
    let watcher: Watcher | null = null;
    if (!options.runs) {
      const w = config.watch;
      watcher = new Watcher({
        store,
        api,
        // Its own client: rate-limited answers come back as errors so the pacer decides the wait,
        // and no silent retries of postMessage (a retried post could double a reply).
        slack: new WebClient(botToken, {
          slackApiUrl,
          rejectRateLimitedCalls: true,
          retryConfig: { retries: 0 },
          // A hung call would block a pacer lane (and stop()); an unknown outcome is handled there.
          timeout: 10_000,
        }),
        owner: options.watcherOwner ?? newOwnerId(),
        logger,
        metrics: createWatchMetrics(registry),
        settings: {
          requestsPerSecond: w.requestsPerSecond,
          concurrency: w.concurrency,
          staleAfterMs: w.staleAfterMs,
          backoff: { firstMs: w.firstCheckMs, factor: 1.5, maxMs: Math.max(w.firstCheckMs, w.maxCheckMs) },
          tickMs: w.tickMs,
          leaseMs: w.leaseMs,
          unpostedGraceMs: w.unpostedGraceMs,
          slackPostIntervalMs: w.slackPostIntervalMs,
          slackUpdateIntervalMs: w.slackUpdateIntervalMs,
          digestThreshold: w.digestThreshold,
        },
      });
      const started = watcher;
      started.start();
      // Stopped after the Slack app (cleanups run in reverse) and before the store closes.
      cleanups.push(() => started.stop());
    }

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
      runs: options.runs ?? watcher!,
      access: {
        policy,
        identity: new Identity({ groups: policyGroups(policy), logger: logger.child({ component: 'identity' }) }),
        audit: new AuditLog(store, logger),
        seal: createMetadataSeal(botToken),
        runLimit: new RunRateLimit(config.access.runsPerMinute),
        store,
        approvalsChannel: config.access.approvalsChannel ?? options.defaultApprovalsChannel ?? null,
        approvalTtlMs: config.access.approvalTtlMs,
      },
      logger: logger.child({ component: 'slack' }),
      now: Date.now,
      interactiveTimeoutMs: Math.min(config.api.timeoutMs, 10_000),
    };

    const groupsClient = new WebClient(botToken, { slackApiUrl });
    // Subscription discovery: after the watcher (cleanups run in reverse, so it stops first and
    // before the store closes). Its own client for the same reasons as the watcher's.
    const scanner = new SubscriptionScanner({
      store,
      api,
      transport: slackPostTransport(
        new WebClient(botToken, {
          slackApiUrl,
          rejectRateLimitedCalls: true,
          retryConfig: { retries: 0 },
          // A hung call would block a pacer lane (and stop()); an unknown outcome is handled there.
          timeout: 10_000,
        }),
      ),
      logger,
      runbooks: catalogLookup(deps.catalog),
      // A run is posted only where its subscriber may view its runbook (their groups read with the bot's client).
      mayNotify: subscriberMayView(
        deps,
        (userId) => deps.access.identity.groupsOf(groupsClient, userId),
        (execution) => runbookNamed(deps, execution.workflowName),
      ),
      settings: {
        intervalMs: config.watch.subscriptionsPollMs,
        requestsPerSecond: Math.max(0.1, config.watch.requestsPerSecond / 4),
        concurrency: Math.max(1, Math.floor(config.watch.concurrency / 4)),
        slackPostIntervalMs: config.watch.slackPostIntervalMs,
        digestThreshold: config.watch.digestThreshold,
      },
    });
    scanner.start();
    cleanups.push(() => scanner.stop());

    const signingSecret = sandbox
      ? (options.sandboxSigningSecret ?? randomBytes(16).toString('hex'))
      : config.slack.signingSecret;
    const slack = createSlackApp(deps, {
      mode: config.slack.mode === 'socket' ? 'socket' : 'http',
      botToken,
      appToken: config.slack.appToken,
      signingSecret,
      apiUrl: slackApiUrl,
      port: config.slack.port,
      routes: [
        {
          path: '/metrics',
          method: ['GET'],
          handler: (_req, res) => {
            registry
              .metrics()
              .then((text) => {
                res.writeHead(200, { 'content-type': registry.contentType });
                res.end(text);
              })
              .catch(() => {
                res.writeHead(500);
                res.end();
              });
          },
        },
      ],
    });
    const { port } = await slack.start();
    cleanups.push(() => slack.stop());
    // Approval requests past their time are marked expired and their messages updated.
    const sweeper = setInterval(() => {
      expireApprovals(deps, slack.app.client).catch((err: unknown) => logger.warn({ err }, 'approval expiry failed'));
    }, 30_000);
    sweeper.unref();
    cleanups.push(async () => clearInterval(sweeper));
    logger.info({ port, mode: config.slack.mode }, 'Slack app listening');
    return { api, emulator, slack, slackPort: port, signingSecret, deps, store, watcher, subscriptions: scanner, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
