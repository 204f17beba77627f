// Wires the parts together from a parsed Config: emulator (when no API URL) → API client → store →
// watcher → catalog → Slack app. One stop() path closes everything in reverse order. main.ts runs it for a
// process; integration tests run it in-process with the same wiring.
import { randomBytes } from 'node:crypto';
import { WebClient, type WebClientOptions } from '@slack/web-api';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { apiAgent, createRunbookApi } from './api/client.ts';
import type { RunbookApi } from './api/runbook-api.ts';
import { ProxyDirectory } from './catalog/proxy-directory.ts';
import { RunbookCatalog } from './catalog/runbook-catalog.ts';
import type { Config } from './config.ts';
import { type Emulator, type EmulatorOptions, startEmulator } from './emulator/server.ts';
import type { Logger } from './logger.ts';
import { createInteractiveMetrics } from './ops/interactive-metrics.ts';
import { type MetricsServer, opsRoutes, startMetricsServer } from './ops/ops-routes.ts';
import {
  apiAddressesCheck,
  createReadiness,
  type Readiness,
  type ReadinessCheck,
  runbookApiCheck,
  slackConnectionCheck,
  storeCheck,
  watcherCheck,
} from './ops/readiness.ts';
import { socketModeConnection } from './ops/slack-connection.ts';
import type { Tracing } from './ops/tracing.ts';
import { AuditLog } from './policy/audit-log.ts';
import { loadPolicy, policyApproverUsers, policyGroups } from './policy/load-policy.ts';
import type { Policy } from './policy/policy.ts';
import { RunRateLimit } from './policy/run-rate-limit.ts';
import { withMaskedExecutions } from './runs/execution-secrets.ts';
import { applyFreezes, type FreezeNotice } from './runs/freezes.ts';
import { reconcileIntents } from './runs/run-intents.ts';
import { reconcilePauses, resumeDueSkips } from './runs/schedule-pauses.ts';
import { subscriberMayView } from './runs/subscriptions.ts';
import { runbookNamed } from './runs/visibility.ts';
import { createSlackApp, type SlackAppHandle, type SlackAppSettings } from './slack/app.ts';
import { announceExpiredApprovals } from './slack/approvals/expiry.ts';
import { announceFreeze } from './slack/freezes/freeze-notice.ts';
import type { RunTracker, SlackDeps, StartedRun } from './slack/kit/deps.ts';
import { limitHistory } from './slack/kit/history-limit.ts';
import { Identity } from './slack/kit/identity.ts';
import { InstallationGroups } from './slack/kit/installation-groups.ts';
import { belongsTo } from './slack/kit/membership.ts';
import { createMetadataSeal } from './slack/kit/metadata-seal.ts';
import { guardClient } from './slack/kit/outgoing-guard.ts';
import { Places } from './slack/kit/places.ts';
import { RunDrafts } from './slack/kit/run-drafts.ts';
import { postRunningCard } from './slack/kit/run-start.ts';
import { createTenantDeps, RoutedRunbookCatalog, type TenantApi, type TenantDeps } from './slack/tenant-deps.ts';
import { finishWaitingSteps } from './slack/workflow-step/workflow-step-finish.ts';
import { openStore } from './store/open-store.ts';
import type { Store } from './store/store.ts';
import { ApiConnections } from './tenants/api-connections.ts';
import { createInstallationStore, type SealedInstallationStore } from './tenants/installation-store.ts';
import { createStoredStateStore } from './tenants/oauth-state-store.ts';
import {
  pruneClaims,
  pruneEndedWatches,
  pruneRunRecords,
  purgeOldAudit,
  purgeUninstalled,
} from './tenants/retention.ts';
import { revokeInstallation, type TokenState, tokenStateOf } from './tenants/revocation.ts';
import { NoApiInScopeError, routedRunbookApi } from './tenants/routed-api.ts';
import { createSecretBox } from './tenants/secret-box.ts';
import { changeTeamAccess } from './tenants/team-access.ts';
import { TenantClients, type TenantClientsOptions } from './tenants/tenant-clients.ts';
import { currentInstallation, inInstallation, installationKey, RoutedWebClient } from './tenants/tenant-scope.ts';
import { createWatchMetrics } from './watch/metrics.ts';
import {
  catalogLookup,
  type InTenant,
  noticeClaimsReach,
  SubscriptionScanner,
  slackPostTransport,
  TenantGoneError,
} from './watch/subscriptions.ts';
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
  /** SLACK_DISTRIBUTION=limited: one conversations.history / replies call per this long per workspace (default 60 s; tests). */
  historyIntervalMs?: number;
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
  /** More tenants of the built-in emulator, each chosen by its own key (the many-workspace sandbox's second). */
  emulatorTenants?: EmulatorOptions['tenants'];
  /** Lease owner name of the watcher (default hostname:pid:random). */
  watcherOwner?: string;
  /** How long a person's channel memberships are trusted for the destination check (default 30 s; tests: 0). */
  membershipTtlMs?: number;
  /** Started tracing (OTEL_EXPORTER_OTLP_ENDPOINT): adds Slack request spans and wraps the store. */
  tracing?: Tracing | null;
  /** The bot's clock (epoch ms) for the use cases and the minute's work (default Date.now; tests move it). */
  now?: () => number;
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
  /** What /readyz answers. */
  readiness: Readiness;
  /** Port of the separate /metrics server (METRICS_PORT), null when /metrics is on the Slack port. */
  metricsPort: number | null;
  /**
   * The minute's work, once, now: run intents and pauses a crash left in flight, skips that came due,
   * change freezes that started or ended; and the retention passes (hourly by themselves). Runs every minute
   * by itself; tests call it after moving the clock.
   */
  tick(): Promise<void>;
  /** Many-workspace mode: installations, their fresh clients, and what stops when one is uninstalled; else null. */
  tenants: Tenants | null;
  stop(): Promise<void>;
}

/**
 * Sockets per API address shared by every installation's client (a client of its own keeps 32): opened only
 * as needed, enough for about 2,500 requests a second at a tenth of a second each.
 */
const SHARED_API_CONNECTIONS = 256;
/** Most requests one installation's client has in flight on that pool, so a slow tenant cannot fill it. */
const INSTALLATION_IN_FLIGHT = 32;

/** The Runbook API client's settings from the configuration (every client: the one API, each installation's). */
function apiClientOptions(config: Config, logger: Logger) {
  return {
    timeoutMs: config.api.timeoutMs,
    maxRetries: config.api.maxRetries,
    outputEncoding: config.api.outputEncoding,
    sendInputsField: config.api.sendInputsField,
    maxBodyBytes: config.api.maxBodyBytes,
    logger: logger.child({ component: 'api' }),
  };
}

/**
 * Many workspaces: the deps of each installation, from its own Runbook API connection (sealed with
 * SECRETS_ENCRYPTION_KEY) at one of the addresses the operator allows (RUNBOOK_API_URLS, else the one API).
 */
function connectTenants(
  config: Config,
  base: SlackDeps,
  store: Store,
  apiUrl: string,
  logger: Logger,
  groups: InstallationGroups,
  routed: WebClient,
): TenantDeps {
  const box = createSecretBox(config.secrets!);
  const installations = createInstallationStore({ records: store.installations, box });
  // One connection pool per API address for every installation's client (and the Connect probe), not one
  // each: with 1,001 installations their own pools' sockets and buffers were a fifth of the watcher's peak
  // memory (README, Figures). Its cap is per address; the clients leave it open (closed with the rest below).
  const dispatcher = apiAgent({ timeoutMs: config.api.timeoutMs, connections: SHARED_API_CONNECTIONS });
  const clientOptions = { ...apiClientOptions(config, logger), dispatcher, maxInFlight: INSTALLATION_IN_FLIGHT };
  const configured = config.proxies.list.length ? config.proxies.list : config.api.url ? [] : EMULATOR_PROXIES;
  const defaultId = config.proxies.defaultId ?? (config.api.url ? null : EMULATOR_PROXIES[0]!.id);
  const tenantApi = (rawApi: RunbookApi): TenantApi => {
    const catalog = new RunbookCatalog({ api: rawApi });
    const api = withMaskedExecutions(rawApi, (name) => catalog.named(name));
    return { api, catalog, proxies: new ProxyDirectory({ api, configured, defaultId }), close: () => rawApi.close() };
  };
  const connections = new ApiConnections({
    records: store.apiConnections,
    box,
    baseUrls: config.api.allowedUrls.length ? config.api.allowedUrls : [apiUrl],
    // A rotated key must see a few of the runs and runbooks the current one does, by their ids and names.
    sees: async (baseUrl, apiKey, sample) => {
      const probe = createRunbookApi({ ...clientOptions, baseUrl, apiKey, maxRetries: 0 });
      const timeout = { timeoutMs: base.interactiveTimeoutMs };
      try {
        for (const e of sample.executions) {
          const found = await probe.executions.get(e.id, { summary: true }, timeout).catch(() => null);
          if (found?.workflowName !== e.runbookName) return false;
        }
        for (const id of sample.runbooks) {
          if (!(await probe.workflows.get(id, {}, timeout).catch(() => null))) return false;
        }
        return true;
      } finally {
        await probe.close();
      }
    },
    // One list call with the key, answered within the interactive budget.
    verify: async (baseUrl, apiKey) => {
      const probe = createRunbookApi({ ...clientOptions, baseUrl, apiKey, maxRetries: 0 });
      try {
        await probe.workflows.list({ pageSize: 1 }, { timeoutMs: base.interactiveTimeoutMs });
      } finally {
        await probe.close();
      }
    },
  });
  const tenantDeps = createTenantDeps({
    base,
    connections,
    connect: (opened) =>
      tenantApi(createRunbookApi({ ...clientOptions, baseUrl: opened.status.baseUrl, apiKey: opened.apiKey })),
    unconnected: tenantApi,
    // Only the groups of rules that may apply to the installation, and of those only its workspace's own
    // (listed with its token): another team's are not read with its token.
    newIdentity: (policy) =>
      new Identity({
        groups: policyGroups(policy),
        logger: logger.child({ component: 'identity' }),
        ...(policy.home ? { groupsHere: () => groups.of(policy.home!) } : {}),
      }),
    // Listed only where the policy names groups for it (else there is nothing to filter and no call).
    groupsHere: async ({ policy }) =>
      policy.home && policyGroups(policy).length > 0 ? ((await groups.of(policy.home)) ?? new Map()) : null,
    // Likewise its people among the policy's approver users: users.info with its token (cached; unknown: no).
    usersHere: async ({ policy, identity }, id) => {
      const named = policyApproverUsers(policy);
      if (named.length === 0) return null;
      const profiles = await inInstallation(id, () => Promise.all(named.map((u) => identity.profileOf(routed, u))));
      return new Set(named.filter((_, i) => belongsTo(profiles[i]!, id)));
    },
    newPlaces: () => new Places({ logger: logger.child({ component: 'places' }) }),
    installerOf: async (id) => (await installations.load(id))?.installation.user?.id ?? null,
    // Its address was removed by the operator: its followed runs stop (their checks would go nowhere).
    onWithdrawn: async (id) => {
      const stopped = await store.watches.stopInstallation(id, Date.now());
      if (stopped > 0) logger.info({ installation: id, stopped }, "a withdrawn connection's watches stopped");
    },
  });
  const closeTenants = tenantDeps.close;
  tenantDeps.close = async () => {
    await closeTenants();
    await dispatcher.close();
  };
  return tenantDeps;
}

export interface Tenants {
  installations: SealedInstallationStore;
  /** clientFor(installationId): the installation's current bot token, refreshed through Bolt's authorize. */
  clients: TenantClients;
  /** Registers work to stop when an installation's tokens are deleted (app_uninstalled / tokens_revoked). */
  onRevoked(stop: (installationId: string) => void | Promise<void>): void;
  /** Each installation's Runbook API connection (App Home's Connect). */
  connections: ApiConnections;
}

export async function startRuntime(config: Config, options: RuntimeOptions): Promise<Runtime> {
  const { logger } = options;
  const now = options.now ?? Date.now;
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
      emulator = await startEmulator({
        port: config.emulator?.port ?? 0,
        apiKey: config.api.apiKey,
        // The demo: a month of runs so health has something to say.
        recentHistory: true,
        ...(config.emulator ? { filterMode: config.emulator.filterMode } : {}),
        ...(options.emulatorTenants ? { tenants: options.emulatorTenants } : {}),
      });
      cleanups.push(() => emulator!.close());
      baseUrl = emulator.url;
      logger.info(
        { url: emulator.url },
        'built-in Runbook API emulator started (set RUNBOOK_API_URL to use a real service)',
      );
    }
    const registry = options.metricsRegistry ?? new Registry();
    if (!options.metricsRegistry) collectDefaultMetrics({ register: registry });
    let store = options.store;
    const interactive = createInteractiveMetrics(registry, {
      // Pending approvals all have an expiry; listing those expiring before the end of time lists them all.
      pendingApprovals: async () => (await store!.approvals.listExpired(Number.MAX_SAFE_INTEGER, 10_000)).length,
    });
    cleanups.push(async () => interactive.close());
    const rawApi = createRunbookApi({
      ...apiClientOptions(config, logger),
      onAttempt: interactive.apiAttempt,
      baseUrl,
      apiKey: config.api.apiKey,
    });
    cleanups.push(() => rawApi.close());
    const catalog = new RunbookCatalog({ api: rawApi });
    // Every execution anyone reads comes with the echoes of its secret inputs masked (card, file, Full
    // output, Find, status, the step's outputs, subscription notices, mentions): one place, no store.
    const api = withMaskedExecutions(rawApi, (name) => catalog.named(name));

    if (!store) {
      const opened = await openStore(config.store, logger);
      cleanups.push(() => opened.close());
      store = opened;
    }
    if (options.tracing) store = options.tracing.traceStore(store);

    const sandbox = config.slack.mode === 'sandbox';
    // Many workspaces: no token of our own; each installation's comes from the store (clientFor).
    const oauth = config.slack.oauth;
    const botToken = sandbox ? (options.sandboxBotToken ?? 'xoxb-sandbox') : (config.slack.botToken ?? undefined);
    const signingSecret = sandbox
      ? (options.sandboxSigningSecret ?? randomBytes(16).toString('hex'))
      : config.slack.signingSecret;
    const slackApiUrl = options.slackApiUrl ?? config.slack.apiUrl;
    // The clients of background work. One workspace: its bot token. Many: no token of their own; each
    // call sends the token of the installation in scope (inTenant), fresh from clientFor.
    // Bolt's installer authorize, once the app is built (before that, a token lookup fails and is retried).
    let installerAuthorize: TenantClientsOptions['authorize'] | null = null;
    const tenantClients = oauth
      ? new TenantClients({
          records: store.installations,
          authorize: (query) => {
            if (!installerAuthorize) throw new Error('the OAuth installer is not ready yet');
            return installerAuthorize(query);
          },
          makeClient: (token) =>
            guardClient(
              new WebClient(token, {
                slackApiUrl,
                rejectRateLimitedCalls: true,
                retryConfig: { retries: 0 },
                timeout: 10_000,
              }),
            ),
        })
      : null;
    // SLACK_DISTRIBUTION=limited: background clients read Slack back one call a minute per workspace and
    // method (a bucket in the store, every replica), 15 messages, one page (slack/kit/history-limit.ts).
    const historyIntervalMs = options.historyIntervalMs ?? 60_000;
    const underHistoryLimit = <C extends WebClient>(client: C): C =>
      config.slack.historyLimited
        ? limitHistory(client, {
            slots: {
              take: async (key) => {
                const { granted, waitMs } = await store.coordination.takeTokens(
                  `slack-history:${key}`,
                  { ratePerSecond: 1000 / historyIntervalMs, burst: 1 },
                  1,
                  Date.now(),
                  installationKey(),
                );
                return { granted: granted >= 1, waitMs };
              },
            },
            scope: () => currentInstallation() ?? '',
            maxWaitMs: historyIntervalMs + 5_000,
          })
        : client;
    const slackClient = (options: WebClientOptions): WebClient =>
      tenantClients
        ? new RoutedWebClient(
            (id) => tenantClients.tokenFor(id),
            options,
            // Revoked (uninstalled at another replica): that token is never sent again from this replica
            // (its queued work is dropped by the pacer that saw the answer); the next call reads the store.
            (id, token) => tenantClients.markDead(token, id),
            (id) => tenantClients.botFor(id),
          )
        : new WebClient(botToken, options);
    /** A client for a pacer (the watcher's, the scanner's): rate-limited answers come back as errors, no retries. */
    const pacedClient = (): WebClient =>
      underHistoryLimit(
        guardClient(
          slackClient({
            slackApiUrl,
            rejectRateLimitedCalls: true,
            retryConfig: { retries: 0 },
            // A hung call would block a pacer lane (and stop()); an unknown outcome is handled there.
            timeout: 10_000,
          }),
        ),
      );
    // A record's work runs in its workspace's installation; a workspace no installation serves any more
    // (uninstalled) gets none: its watches and notices stop.
    const inTenant: InTenant = tenantClients
      ? async (teamId, work) => {
          const installationId = await tenantClients.installationForTeam(teamId);
          if (!installationId) throw new TenantGoneError(teamId);
          return inInstallation(installationId, work);
        }
      : (_teamId, work) => work();
    /**
     * Work on a record kept for an installation (a watch, a run intent) runs in that installation's scope;
     * once it no longer holds tokens (uninstalled), its work stops (TenantGoneError).
     */
    const inInstallationOf = tenantClients
      ? async <T>(installationId: string, work: () => Promise<T>): Promise<T> => {
          if ((await tenantClients.installationForTeam(installationId)) !== installationId) {
            throw new TenantGoneError(installationId);
          }
          return inInstallation(installationId, work);
        }
      : null;
    /** The same for one-off notices (expiry, recovered runs, freezes): an uninstalled workspace is skipped. */
    const inTenantOrSkip: InTenant = (teamId, work) =>
      inTenant(teamId, work).catch((err: unknown) => {
        if (err instanceof TenantGoneError) return undefined as never;
        throw err;
      });
    const identity = new Identity({ groups: policyGroups(policy), logger: logger.child({ component: 'identity' }) });
    // Result cards of runs started outside Slack name the executor as a mention when Slack knows their
    // email (users.lookupByEmail, cached in Identity). A rate-limited or slow lookup fails fast: the card shows the email.
    const peopleClient = slackClient({
      slackApiUrl,
      rejectRateLimitedCalls: true,
      retryConfig: { retries: 0 },
      timeout: 5_000,
    });
    const userIdByEmail = (email: string) => identity.userIdByEmail(peopleClient, email);
    // Many workspaces: background work (the watcher, subscriptions, recovery) reaches the Runbook API of the
    // installation in scope, with that installation's own key (tenant-deps.ts, set once deps exist).
    let tenantDeps: TenantDeps | null = null;
    const scopedDeps = async (): Promise<SlackDeps> => {
      const installationId = currentInstallation();
      if (!installationId || !tenantDeps) throw new NoApiInScopeError();
      return tenantDeps.depsForId(installationId);
    };
    const backgroundApi = oauth ? routedRunbookApi(async () => (await scopedDeps()).api) : api;
    // Many workspaces: the single workspace's open watches and run intents go to its installation before the
    // watcher starts, so none is handled under one key and finished under the other.
    const assignOpenRecords = async () => {
      const moved = (await store.watches.assignInstallations()) + (await store.intents.assignInstallations());
      if (moved > 0)
        logger.info({ moved }, 'watches and run intents of the single workspace assigned to its installation');
    };
    // Entries a single-workspace run of the bot wrote belong to that workspace's installation.
    const assignKeptRecords = async () => {
      const adopted =
        (await store.audit.assignInstallations()) +
        (await store.approvals.assignInstallations()) +
        (await store.aliases.assignInstallations()) +
        (await store.channelDefaults.assignInstallations()) +
        (await store.scheduleOwners.assignInstallations()) +
        (await store.schedulePauses.assignInstallations()) +
        (await store.subscriptions.assignInstallations()) +
        (await store.outputUploads.assignInstallations()) +
        (await store.workflowSteps.assignInstallations()) +
        (await store.freezePasses.assignInstallations());
      if (adopted > 0) logger.info({ adopted }, 'records of the single workspace assigned to its installation');
    };
    if (oauth && config.secrets) await assignOpenRecords();
    let watcher: Watcher | null = null;
    if (!options.runs) {
      const w = config.watch;
      // Its own client: rate-limited answers come back as errors so the pacer decides the wait,
      // and no silent retries of postMessage (a retried post could double a reply).
      // Its own client: rate-limited answers come back as errors so the pacer decides the wait,
      // and no silent retries of postMessage (a retried post could double a reply).
      const watcherSlack = pacedClient();
      watcher = new Watcher({
        store,
        api: backgroundApi,
        slack: watcherSlack,
        // Workflow Builder steps waiting for a run end when its result is delivered.
        onFinished: finishWaitingSteps({ store, logger, now: Date.now }, watcherSlack),
        userIdByEmail,
        inTenant,
        // Many workspaces: a watch is kept for its installation, and its work runs in that installation's scope.
        ...(inInstallationOf ? { inInstallation: inInstallationOf } : {}),
        // Many workspaces: each installation spends its own budget, under the global ceiling.
        ...(oauth ? { currentTenant: () => currentInstallation() ?? null } : {}),
        owner: options.watcherOwner ?? newOwnerId(),
        logger,
        metrics: createWatchMetrics(registry),
        settings: {
          requestsPerSecond: w.requestsPerSecond,
          globalRequestsPerSecond: w.globalRequestsPerSecond,
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
      api: backgroundApi,
      // Many workspaces: background work reads the runbooks of the installation in scope, never one catalog for all.
      catalog: oauth ? new RoutedRunbookCatalog(async () => (await scopedDeps()).catalog) : catalog,
      proxies: new ProxyDirectory({
        api: backgroundApi,
        configured,
        defaultId: config.proxies.defaultId ?? (emulator ? EMULATOR_PROXIES[0]!.id : null),
        // Many workspaces: the proxies seen on one installation's schedules are never named in another's.
        scope: () => currentInstallation() ?? '',
      }),
      // Drafts expire by the bot's clock, like the claims of the buttons that use them.
      drafts: new RunDrafts({ store: store.runDrafts, now }),
      runs: options.runs ?? watcher!,
      access: {
        policy,
        identity,
        places: new Places({
          logger: logger.child({ component: 'places' }),
          ...(options.membershipTtlMs !== undefined ? { membershipTtlMs: options.membershipTtlMs } : {}),
        }),
        audit: new AuditLog(store, logger, now),
        // Keyed by the bot token, or (many workspaces, one key for all of them) by the signing secret, or in
        // Socket Mode, which has none, by the state secret: secret, and the same on every replica.
        seal: createMetadataSeal(botToken ?? signingSecret ?? oauth?.stateSecret ?? ''),
        runLimit: new RunRateLimit({ perMinute: config.access.runsPerMinute, store: store.runLimits }),
        store,
        approvalsChannel: config.access.approvalsChannel ?? options.defaultApprovalsChannel ?? null,
        approvalTtlMs: config.access.approvalTtlMs,
      },
      logger: logger.child({ component: 'slack' }),
      now,
      interactiveTimeoutMs: Math.min(config.api.timeoutMs, 10_000),
    };

    // Many workspaces: each installation connects its own Runbook API (tenant-deps.ts).
    if (oauth && config.secrets) {
      await assignKeptRecords();
      // Each installation's own user groups, listed with its token (a routed client: the one in scope).
      const routed = slackClient({
        slackApiUrl,
        rejectRateLimitedCalls: true,
        retryConfig: { retries: 0 },
        timeout: 5_000,
      });
      const groups = new InstallationGroups({ client: routed, logger: logger.child({ component: 'groups' }) });
      const built = connectTenants(config, deps, store, baseUrl, logger, groups, routed);
      tenantDeps = built;
      cleanups.push(() => built.close());
    }

    const groupsClient = slackClient({ slackApiUrl });
    // Many workspaces: a person's groups are read by the installation in scope's people cache, which asks its
    // Slack only for the groups of rules that may apply there (policy teams).
    const identityInScope = async () => (oauth ? (await scopedDeps()).access.identity : deps.access.identity);
    // Subscription discovery: after the watcher (cleanups run in reverse, so it stops first and
    // before the store closes). Its own client for the same reasons as the watcher's.
    const scanner = new SubscriptionScanner({
      store,
      api: backgroundApi,
      inTenant,
      // Many workspaces: each workspace's runs come from its own Runbook API, scanned in its scope.
      perWorkspace: Boolean(oauth),
      transport: slackPostTransport(pacedClient()),
      logger,
      runbooks: oauth
        ? catalogLookup({
            get: async (id) => (await scopedDeps()).catalog.get(id),
            resolve: async (text, visible) => (await scopedDeps()).catalog.resolve(text, visible),
          })
        : catalogLookup(deps.catalog),
      userIdByEmail,
      // A run is posted only where its subscriber may view its runbook (their groups read with the bot's client).
      mayNotify: subscriberMayView(
        deps,
        (userId) => identityInScope().then((identity) => identity.groupsOf(groupsClient, userId)),
        async (execution) => runbookNamed(oauth ? await scopedDeps() : deps, execution.workflowName),
        oauth ? scopedDeps : undefined,
      ),
      // On the watcher's budget and check interval (one budget for everything, one bound), and
      // scanned by one replica at a time (a lease in the store).
      ...(watcher
        ? {
            budget: watcher.budget,
            nextScanIn: () =>
              Math.min(config.watch.subscriptionsPollMs, watcher?.plan.intervalMs ?? Number.POSITIVE_INFINITY),
            owner: watcher.owner,
            leaseMs: config.watch.leaseMs,
          }
        : {}),
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

    let slackConnected = () => false;
    const checks: ReadinessCheck[] = [storeCheck(store)];
    if (config.slack.mode === 'socket') checks.push(slackConnectionCheck(() => slackConnected()));
    if (watcher) {
      const w = watcher;
      checks.push(watcherCheck(() => w.lastTickAt, Math.max(60_000, config.watch.tickMs * 20)));
    }
    // Many workspaces: no key of the deployment's own; the allowed addresses are checked without one.
    checks.push(
      config.api.keyless
        ? apiAddressesCheck(config.api.allowedUrls.length ? config.api.allowedUrls : [baseUrl])
        : runbookApiCheck(api),
    );
    const readiness = createReadiness(checks);
    let metricsServer: MetricsServer | null = null;
    if (config.observe.metricsPort !== null) {
      const started = await startMetricsServer(config.observe.metricsPort, registry);
      metricsServer = started;
      cleanups.push(() => started.close());
      logger.info({ port: started.port }, 'metrics served on their own port');
    }
    let installations: SealedInstallationStore | null = null;
    // Uninstalled: that installation's watches end at once (no more checks or posts); others' are untouched.
    const revokedListeners: Array<(installationId: string) => void | Promise<void>> = [
      async (id) => {
        // Its Slack calls still queued here go nowhere: dropped before the store is even written.
        watcher?.dropSlackWork(id);
        const stopped = await store.watches.stopInstallation(id, now());
        if (stopped > 0) logger.info({ installation: id, stopped }, "an uninstalled installation's watches stopped");
      },
    ];
    let install: SlackAppSettings['install'] = null;
    if (oauth) {
      const records = store.installations;
      const sealed = createInstallationStore({
        records,
        box: createSecretBox(config.secrets!),
        // The first start in many-workspace mode may find no installation yet: the single workspace's
        // records are assigned when one is stored too (before the install is answered), so a `/runbook watch`
        // of an open watch's run finds that watch instead of starting a second one. A failure is logged; the
        // next start assigns them.
        onSaved: async (id) => {
          tenantClients?.forget(id);
          await assignOpenRecords()
            .then(assignKeptRecords)
            .catch((err: unknown) =>
              logger.warn({ err, installation: id }, 'could not assign the single workspace’s records'),
            );
        },
      });
      installations = sealed;
      const tenantLog = logger.child({ component: 'tenants' });
      // A key that opens none of the stored installations is almost always the wrong key: say so at once
      // rather than let every workspace's requests fail one by one.
      const [sample] = await records.listActive('', 1);
      const opens = sample ? await sealed.load(sample.id).then(Boolean, () => false) : true;
      if (!opens) {
        tenantLog.error(
          { installation: sample?.id },
          'SECRETS_ENCRYPTION_KEY does not open the stored installations: set it back, or put the key they were sealed with in SECRETS_ENCRYPTION_KEY_PREVIOUS; until then their requests are refused',
        );
      }
      // app_uninstalled and tokens_revoked arrive together: they share one auth.test, and a token already
      // answered as dead here is not sent again to ask.
      const asking = new Map<string, Promise<TokenState>>();
      const tokenState = (token: string): Promise<TokenState> => {
        if (tenantClients?.isDead(token)) return Promise.resolve('revoked');
        let answer = asking.get(token);
        if (!answer) {
          answer = new WebClient(token, { slackApiUrl, retryConfig: { retries: 1 }, timeout: 5_000 }).auth
            .test()
            .then(
              () => tokenStateOf({ ok: true }),
              (error: unknown) => tokenStateOf({ error }),
            )
            .then((state) => {
              if (state === 'revoked') tenantClients?.markDead(token);
              return state;
            })
            .finally(() => asking.delete(token));
          asking.set(token, answer);
        }
        return answer;
      };
      install = {
        ...oauth,
        installationStore: sealed,
        stateStore: createStoredStateStore({ states: store.oauthStates, secret: oauth.stateSecret }),
        onInstalled: (installation, installer) => {
          tenantLog.info(
            { installation: installation.id, isEnterpriseInstall: installation.isEnterpriseInstall, installer },
            'app installed',
          );
          void deps.access.audit.record({
            userId: installer,
            teamId: installation.teamId ?? installation.enterpriseId,
            channel: null,
            action: 'app.install',
            target: installation.id,
            outcome: 'ok',
            detail: installation.isEnterpriseInstall ? 'org-wide' : null,
            tid: null,
            installationId: installation.id,
          });
        },
        // A workspace of an org-wide install is remembered, so its records' background work finds the org.
        onInstallation: (installation) =>
          tenantClients
            ?.seen(installation)
            .catch((err: unknown) => tenantLog.warn({ err }, 'could not remember a workspace')) ?? Promise.resolve(),
        revoke: async (installation, event) => {
          const outcome = await revokeInstallation(
            {
              installations: sealed,
              records,
              tokenState,
              onRevoked: async (id) => {
                tenantClients?.forget(id);
                for (const stop of revokedListeners) {
                  await Promise.resolve(stop(id)).catch((err: unknown) =>
                    tenantLog.warn({ err, installation: id }, 'stopping an uninstalled installation failed'),
                  );
                }
              },
            },
            installation.id,
            event,
          );
          tenantLog.info({ installation: installation.id, event: event.kind, outcome }, 'installation tokens revoked');
          if (outcome === 'revoked' || outcome === 'user-token-removed') {
            await deps.access.audit.record({
              userId: null,
              teamId: installation.teamId ?? installation.enterpriseId,
              channel: null,
              action: outcome === 'revoked' ? 'app.uninstall' : 'app.user_token_revoked',
              target: installation.id,
              outcome: 'ok',
              detail: event.kind,
              tid: null,
              installationId: installation.id,
            });
          }
        },
        // A workspace removed from the org-wide install (or added back): its work stops (or goes on).
        teamAccess: async (installationId, event) => {
          const changed = await changeTeamAccess(
            {
              records,
              onRemoved: async (id, teamId) => {
                tenantClients?.forget(id);
                // Its Slack calls still queued here go nowhere (the org's token would still send them).
                const dropped = watcher?.dropSlackWork(id, teamId) ?? 0;
                const stopped = await store.watches.stopTeam(id, teamId, now());
                tenantLog.info(
                  { installation: id, teamId, stopped, dropped },
                  "a workspace removed from the org's install",
                );
              },
              onGranted: (id) => tenantClients?.forget(id),
            },
            installationId,
            event,
          );
          tenantLog.info({ installation: installationId, event: event.kind, changed }, 'workspace access changed');
          for (const teamId of changed ?? []) {
            await deps.access.audit.record({
              userId: null,
              teamId,
              channel: null,
              action: event.kind === 'team_access_revoked' ? 'app.team_removed' : 'app.team_added',
              target: teamId,
              outcome: 'ok',
              detail: event.kind,
              tid: null,
              installationId,
            });
          }
        },
      };
    }
    const slack = createSlackApp(deps, {
      mode: config.slack.mode === 'socket' ? 'socket' : 'http',
      install,
      botToken: botToken ?? null,
      appToken: config.slack.appToken,
      signingSecret,
      apiUrl: slackApiUrl,
      port: config.slack.port,
      // The sandbox's bot answers only this machine (like the sandbox UI): /metrics stays local.
      ...(sandbox ? { host: '127.0.0.1' } : {}),
      routes: opsRoutes({ readiness, registry, metricsOnPublicPort: config.observe.metricsPort === null }),
      ...(tenantDeps ? { depsFor: (tenantDeps as TenantDeps).depsFor } : {}),
    });
    // Global middleware runs before every listener: one span and one count per request from Slack.
    if (options.tracing) slack.app.use(options.tracing.middleware);
    slack.app.use(interactive.middleware);
    if (config.slack.mode === 'socket') slackConnected = socketModeConnection(slack.app);
    let tenants: Tenants | null = null;
    if (installations && tenantClients && slack.installer) {
      // Background work's tokens come through Bolt's authorize (fresh, rotated tokens refreshed and saved).
      installerAuthorize = slack.installer.authorize;
      tenants = {
        installations,
        clients: tenantClients,
        onRevoked: (stop) => revokedListeners.push(stop),
        connections: tenantDeps!.connections,
      };
    }
    const { port } = await slack.start();
    cleanups.push(() => slack.stop());
    // Background work outside the watcher (expiry, recovered runs): Bolt's client, or in many-workspace mode
    // one that sends the token of the installation in scope.
    const backgroundClient = underHistoryLimit(oauth ? guardClient(slackClient({ slackApiUrl })) : slack.app.client);
    // Approval requests past their time are marked expired and their messages updated.
    const sweeper = setInterval(() => {
      announceExpiredApprovals(deps, backgroundClient, inTenant).catch((err: unknown) =>
        logger.warn({ err }, 'approval expiry failed'),
      );
    }, 30_000);
    sweeper.unref();
    cleanups.push(async () => clearInterval(sweeper));
    // Runs whose call was not answered before a crash: at start and every minute, on any replica.
    // An intent younger than a run call can take may still be in flight somewhere: left alone.
    const intentGraceMs = config.api.timeoutMs * 2 + 5_000;
    const skipOwner = newOwnerId();
    const groupsOf = (userId: string) => identityInScope().then((identity) => identity.groupsOf(groupsClient, userId));
    const reconcileOptions = {
      graceMs: intentGraceMs,
      ...(watcher ? { budget: watcher.budget } : {}),
      announce: async (run: StartedRun) => {
        // Many workspaces: called in the intent's installation's scope; the card's ETA is read (and cached) with
        // the workspace's own client, not the routed one.
        await postRunningCard(oauth ? await scopedDeps() : deps, backgroundClient, run);
      },
    };
    // Many workspaces: each workspace's records are handled in its scope, against its own Runbook API.
    const eachWorkspace = async (
      teams: Iterable<string | null>,
      what: string,
      work: (scoped: SlackDeps, teamId: string | null) => Promise<unknown>,
    ) => {
      for (const teamId of new Set(teams)) {
        await inTenantOrSkip(teamId, async () => work(await scopedDeps(), teamId)).catch((err: unknown) =>
          logger.warn({ err, teamId }, `${what} failed`),
        );
      }
    };
    /** Every installation that holds tokens (many workspaces), paged through. */
    const activeInstallations = async (): Promise<string[]> => {
      const ids: string[] = [];
      for (let after = ''; ; ) {
        const page = await store.installations.listActive(after, 500);
        ids.push(...page.map((record) => record.id));
        if (page.length < 500) return ids;
        after = page[page.length - 1]!.id;
      }
    };
    const pauses = store.schedulePauses;
    const reconcile = () =>
      (oauth
        ? // Each installation's intents in its scope, against its own Runbook API (only it can say what became
          // of them); intents kept for no installation belong to no API here and wait for an assignment.
          store.intents.listOpen(now() - intentGraceMs, 500).then(async (open) => {
            for (const id of new Set(open.map((intent) => intent.installationId).filter(Boolean))) {
              await inInstallationOf!(id, async () => reconcileIntents(await scopedDeps(), reconcileOptions)).catch(
                (err: unknown) => {
                  if (!(err instanceof TenantGoneError))
                    logger.warn({ err, installation: id }, 'run intent reconciliation failed');
                },
              );
            }
          })
        : reconcileIntents(deps, reconcileOptions)
      )
        .catch((err: unknown) => logger.warn({ err }, 'run intent reconciliation failed'))
        // Schedules a crash left between pausing (or resuming) and the API's answer are finished the same way.
        .then(async () =>
          oauth
            ? eachWorkspace(
                (await pauses.listUnsettled(now() - intentGraceMs, 50)).map((row) => row.teamId),
                'schedule pause reconciliation',
                (scoped, teamId) => reconcilePauses(scoped, { graceMs: intentGraceMs, teamId }),
              )
            : reconcilePauses(deps, { graceMs: intentGraceMs }),
        )
        .catch((err: unknown) => logger.warn({ err }, 'schedule pause reconciliation failed'))
        // Skips whose run has passed resume, on one replica at a time (a lease shorter than the period).
        .then(async () =>
          oauth
            ? eachWorkspace(
                (await pauses.listDue(now(), 50)).map((row) => row.teamId),
                'resuming skipped schedules',
                (scoped, teamId) => resumeDueSkips(scoped, { owner: skipOwner, leaseMs: 50_000, groupsOf, teamId }),
              )
            : resumeDueSkips(deps, { owner: skipOwner, leaseMs: 50_000, groupsOf }),
        )
        .catch((err: unknown) => logger.warn({ err }, 'resuming skipped schedules failed'))
        // Change freezes: covered schedules paused at a window's start and resumed at its end, said where made.
        // Many workspaces: a pass per installation, in its scope, against its own Runbook API.
        .then(async () => {
          const freezeOptions = {
            owner: skipOwner,
            leaseMs: 50_000,
            groupsOf,
            announce: (notice: FreezeNotice) =>
              inTenant(notice.teamId ?? null, () => announceFreeze(deps, backgroundClient, notice)),
          };
          if (!oauth || !tenantClients) return applyFreezes(deps, freezeOptions);
          const clients = tenantClients;
          const ofInstallation = (id: string) => async (teamId: string | null) =>
            (await clients.installationForTeam(teamId)) === id;
          return eachWorkspace(await activeInstallations(), 'applying change freezes', (scoped, id) =>
            applyFreezes(scoped, {
              ...freezeOptions,
              installation: { id: id ?? '', ofInstallation: ofInstallation(id ?? '') },
            }),
          );
        })
        .catch((err: unknown) => logger.warn({ err }, 'applying change freezes failed'));
    const reconcileFirst = setTimeout(() => void reconcile(), intentGraceMs);
    reconcileFirst.unref();
    const reconciler = setInterval(() => void reconcile(), 60_000);
    reconciler.unref();
    cleanups.push(async () => {
      clearTimeout(reconcileFirst);
      clearInterval(reconciler);
    });
    // Many workspaces: an uninstalled installation's rows are purged DATA_RETENTION_DAYS after, hourly, by
    // one replica at a time (a lease shorter than the period, so another takes over when this one is gone).
    const passOptions = { store, owner: newOwnerId(), leaseMs: 30 * 60_000, now, logger };
    const failed = (what: string) => (err: unknown) => {
      logger.warn({ err }, `${what} failed`);
      return null;
    };
    const retain = oauth
      ? () =>
          purgeUninstalled({ ...passOptions, retentionDays: oauth.dataRetentionDays }).catch(
            failed('purging uninstalled installations'),
          )
      : null;
    // Every mode: audit entries older than AUDIT_RETENTION_DAYS (unset: none), the same way on its own lease.
    const auditRetentionDays = config.audit.retentionDays;
    const pruneAudit =
      auditRetentionDays === null
        ? null
        : () =>
            purgeOldAudit({ ...passOptions, retentionDays: auditRetentionDays }).catch(
              failed('deleting audit entries past AUDIT_RETENTION_DAYS'),
            );
    // Every mode: dedupe claims past their kind's horizon, then ended watches past theirs, then per-run records
    // (intents, uploads of runs no longer watched, workflow steps, approvals) past theirs (tenants/retention.ts),
    // each on its own lease.
    const pruneOldRecords = async () => {
      await pruneClaims({ ...passOptions, noticeReach: () => noticeClaimsReach(store) }).catch(
        failed('pruning dedupe claims'),
      );
      await pruneEndedWatches({ ...passOptions, scanReach: () => noticeClaimsReach(store) }).catch(
        failed('pruning ended watches'),
      );
      await pruneRunRecords(passOptions).catch(failed('pruning run records'));
    };
    for (const pass of [retain, pruneAudit, pruneOldRecords]) {
      if (!pass) continue;
      const first = setTimeout(() => void pass(), 60_000);
      const hourly = setInterval(() => void pass(), 60 * 60_000);
      first.unref();
      hourly.unref();
      cleanups.push(async () => {
        clearTimeout(first);
        clearInterval(hourly);
      });
    }
    logger.info({ port, mode: config.slack.mode }, 'Slack app listening');
    return {
      api,
      emulator,
      slack,
      slackPort: port,
      signingSecret,
      deps,
      store,
      watcher,
      subscriptions: scanner,
      readiness,
      metricsPort: metricsServer?.port ?? null,
      tick: async () => {
        await reconcile();
        await retain?.();
        await pruneAudit?.();
        await pruneOldRecords();
      },
      tenants,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
