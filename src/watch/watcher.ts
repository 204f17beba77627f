// The execution watcher: every run started from Slack becomes a watch in the store; a loop claims
// due watches under a lease, checks their status within a shared request budget, and when a run
// ends edits its message into the result card and pings whoever started it, exactly once.
// Everything it needs to resume is in the store, so a restart (or another replica) carries on.
//
// Order on a terminal status, and why it gives exactly-once:
//   1. one full fetch (with output);
//   2. chat.update of the running message into the result card, skipped when resultPostedAt is
//      already set; editing twice (crash between edit and markResultPosted) is harmless;
//   3. the thread reply: `claimReply` BEFORE the post (inside the pacer, right before sending).
//      Only one caller across restarts and replicas wins the claim, so the reply can never be
//      doubled. A crash between claim and post loses that one reply rather than doubling it; the
//      result card (the important part) is already up. Rate limits are retried while the claim is
//      held; a 5xx/network error only after reading Slack back shows the reply did not arrive. A
//      reply the pacer gives up on keeps the watch active: the next attempt waits `replySettleMs`
//      after the claim, asks Slack, and sends only a missing reply (see README "Exactly once").
//   4. complete(finished): only now does the watch stop being due. A crash anywhere before this
//      leaves the watch active; its lease expires and the steps rerun, each one idempotent.

import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { WebClient } from '@slack/web-api';
import { NotFoundError, ResponseValidationError, RunbookApiError } from '../api/errors.ts';
import type { RunbookApi } from '../api/runbook-api.ts';
import { Execution, type ExecutionStatus } from '../api/schemas.ts';
import { toLabelledInputs } from '../forms/labelled-inputs.ts';
import { isLongerThanUsual } from '../health/runbook-health.ts';
import type { Logger } from '../logger.ts';
import { cachedHealth } from '../runs/health.ts';
import type { AdoptedRun, FinishHook, RunTracker, StartedRun } from '../runs/run-tracker.ts';
import { buildResultCard, buildRunningCard, type RunContext, type RunningEta } from '../slack/kit/execution-card.ts';
import {
  namesCard,
  namesFinished,
  namesResultCard,
  ownBotOf,
  postedBy,
  readBackMessages,
} from '../slack/kit/read-back.ts';
import { type Store, tenantOf, type Watch, type WatchEta } from '../store/store.ts';
import { installationKey } from '../tenants/tenant-scope.ts';
import { type BackoffSettings, DEFAULT_BACKOFF, nextCheckDelay } from './backoff.ts';
import {
  BULK_PAGE_SIZE,
  chooseBulkDiscovery,
  type DiscoveryResult,
  discoverFinished,
  isTerminal,
} from './bulk-discovery.ts';
import { type CheckPlan, DEFAULT_PLAN_SETTINGS, nextLookIn, type PlanSettings, planChecks } from './check-plan.ts';
import { executorPeople, type UserIdByEmail } from './executor-people.ts';
import { claimQuota, fairShares, wantedRate } from './fair-share.ts';
import { NO_METRICS, type WatchMetrics } from './metrics.ts';
import { uploadOutputOnce } from './output-upload.ts';
import { digestLine, replyText } from './result-notice.ts';
import { createApiBudget } from './shared-budget.ts';
import { type OutgoingMessage, type ReplyOutcome, SlackPacer } from './slack-pacer.ts';
import { type InTenant, slackPostTransport, TenantGoneError } from './subscriptions.ts';
import { type RequestSpender, TenantBudgets } from './tenant-budgets.ts';
import { type RequestBudget, realSleep } from './token-bucket.ts';

/** Most watches brought forward at once when the plan leaves list mode (single mode means few are open). */
const MAX_EXPEDITE = 5_000;

export interface WatcherSettings {
  /** The Runbook API budget; with tenants (`currentTenant`), each tenant's own. */
  requestsPerSecond: number;
  /** With tenants: the deployment's ceiling over all of them (WATCH_GLOBAL_REQUESTS_PER_SECOND). */
  globalRequestsPerSecond: number;
  concurrency: number;
  staleAfterMs: number;
  backoff: BackoffSettings;
  /** Loop period. */
  tickMs: number;
  /** Lease on claimed watches; renewed every third of it while work is in flight. */
  leaseMs: number;
  /** Watches handled at once (API calls are capped separately by `concurrency`). */
  maxInFlight: number;
  /** A running message not posted after this long is posted by the watcher (startRun crashed or failed). */
  unpostedGraceMs: number;
  /**
   * Someone claimed posting an execution's card (startRun, /runbook watch, a replica) but never
   * recorded it: after this long the watcher looks in Slack and posts it itself.
   */
  messageTakeoverMs: number;
  slackPostIntervalMs: number;
  slackUpdateIntervalMs: number;
  digestThreshold: number;
  /** Minimum gap between two bulk listings. */
  bulkIntervalMs: number;
  /** How the check interval follows from the budget (check-plan.ts). */
  plan: PlanSettings;
  /**
   * 'budget' (default): the plan above. 'backoff': the rule before it (2 s, ×1.5, capped at
   * backoff.maxMs, listing only for bursts of due watches); kept as the benchmarks' baseline.
   */
  schedule: 'budget' | 'backoff';
  /**
   * How long after a reply claim its sender may still be sending (the pacer's retry window after a
   * claim plus a Slack call's timeout). Someone taking a watch over waits this long after the claim
   * before asking Slack whether the reply arrived, so it never re-sends a reply still in flight.
   * Default: 4 × leaseMs (2 min for the default lease); the pacer stops retrying a claimed reply
   * after half of it (capped at 60 s), and a Slack call times out after 10 s (runtime.ts).
   */
  replySettleMs: number;
}

export const DEFAULT_WATCHER_SETTINGS: WatcherSettings = {
  requestsPerSecond: 20,
  globalRequestsPerSecond: 500,
  concurrency: 8,
  staleAfterMs: 24 * 60 * 60_000,
  backoff: DEFAULT_BACKOFF,
  tickMs: 250,
  leaseMs: 30_000,
  maxInFlight: 64,
  unpostedGraceMs: 15_000,
  messageTakeoverMs: 3 * 60_000,
  slackPostIntervalMs: 1_000,
  slackUpdateIntervalMs: 1_000,
  digestThreshold: 3,
  bulkIntervalMs: 2_000,
  plan: DEFAULT_PLAN_SETTINGS,
  schedule: 'budget',
  replySettleMs: 4 * 30_000,
};

/** Checks of a watch after which a reply Slack keeps refusing is given up. */
const MAX_REPLY_ATTEMPTS = 30;

/** The pacer gives up on a claimed reply this long after its claim; replySettleMs must exceed it. */
const CLAIMED_RETRY_WINDOW_MS = 60_000;

export interface WatcherOptions {
  store: Store;
  api: RunbookApi;
  /** A WebClient for the bot token; best created with rejectRateLimitedCalls so the pacer owns waits. */
  slack: WebClient;
  /** Unique per process (see newOwnerId); leases are held in this name. */
  owner: string;
  logger: Logger;
  settings?: Partial<WatcherSettings>;
  metrics?: WatchMetrics;
  /** Epoch ms for the store's clock; injectable for tests. */
  now?: () => number;
  onFinished?: FinishHook;
  /** Slack user id for an email: a run nobody in Slack started names its executor as a mention on the card. */
  userIdByEmail?: UserIdByEmail;
  /**
   * Runs the work on one watch in the scope of the workspace it belongs to (its team). Many-workspace mode
   * passes the installation's scope, so `slack` (then a client without a token of its own) sends that
   * installation's fresh token; default: runs it as is.
   */
  inTenant?: InTenant;
  /**
   * Many-workspace mode: runs the work on a watch kept for an installation in that installation's scope (its
   * token, its Runbook API), throwing TenantGoneError once it is uninstalled. Watches kept for '' (the single
   * workspace, or not yet assigned) go through `inTenant` by their team. Default: `inTenant`.
   */
  inInstallation?: <T>(installationId: string, work: () => Promise<T>) => Promise<T>;
  /**
   * Many-workspace mode: the tenant (installation) in scope inside `inTenant`. Turns on per-tenant
   * budgets and fair claims (fair-share.ts): each tenant spends its own `requestsPerSecond` under the
   * `globalRequestsPerSecond` ceiling, watches are planned and swept per tenant (`tenantOf`: an org-wide
   * install is one, whatever its workspaces), and claims go round-robin over tenants. Without it: one
   * budget for everything, as in one workspace.
   */
  currentTenant?: () => string | null | undefined;
}

/** hostname:pid:random — unique per process, readable in the store when debugging leases. */
export function newOwnerId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

/** Slack codes after which editing or posting to that place will never work. */
const GONE = new Set([
  'message_not_found',
  'cant_update_message',
  'channel_not_found',
  'is_archived',
  'not_in_channel',
]);

interface BulkSnapshot {
  at: number;
  statuses: Map<string, ExecutionStatus>;
  /** Finished executions as the listing returned them. */
  finished: Map<string, Execution>;
}

/** Deliveries waiting on Slack at once, at most (memory bound; each is a promise and a lease). */
const MAX_DELIVERING = 5_000;

/** Lease held by the one replica that runs the periodic listing sweep. */
export const SWEEP_LEASE = 'watch-sweep';

/** A listing's page count stops steering the plan after this long (the history moves on). */
const LISTING_COST_TTL_MS = 5 * 60_000;

/** Most watches one many-workspace sweep reads from the store (every tenant's together). */
const MAX_SWEPT = 1_000_000;

/**
 * One tenant's active watches, as one sweep pass read them: those kept for its installation (every
 * workspace of an org-wide install), or kept for '' by its team.
 */
interface TenantGroup {
  installationId: string;
  /** Its first watch's team: a group kept for '' is listed in the scope of that team's installation. */
  teamId: string | null;
  ids: Set<string>;
  oldest: number;
}

/** Many workspaces: one tenant's listing sweep (its own executions, in its scope, on its budget). */
interface TenantSweep {
  /** The installation whose API its listing reads (the tenant's watches are kept for it). */
  installationId: string;
  mode: 'single' | 'list';
  /** Pages its last listing needed (steers its plan while fresh), and when. */
  pages: number | null;
  pagesAt: number;
  lastAt: number;
  snapshot: BulkSnapshot | null;
  listing: Promise<void> | null;
  /** The watches the listing in progress looks for (a claimed watch outside it need not wait for it). */
  covering: ReadonlySet<string> | null;
}

/** Running cards remembered as already saying "longer than usual" (a restart repeats one identical edit). */
const MAX_LATE_SHOWN = 10_000;

/**
 * Dedupe key of the claim to post an execution's first card: per installation, since two tenants' APIs may
 * hand out the same execution id ('' = the single workspace, whose key is as it always was).
 */
function messageKey(executionId: string, installationId: string): string {
  return installationId ? `message:${installationId}:${executionId}` : `message:${executionId}`;
}

/** A watch's key in this process's maps: (installation, execution id), as in the store. */
function keyOf(w: { installationId: string; executionId: string }): string {
  return `${w.installationId}\n${w.executionId}`;
}

export class Watcher implements RunTracker {
  readonly owner: string;
  readonly settings: WatcherSettings;
  readonly #store: Store;
  readonly #api: RunbookApi;
  readonly #slack: WebClient;
  readonly #log: Logger;
  readonly #metrics: WatchMetrics;
  readonly #now: () => number;
  readonly #onFinished: FinishHook | null;
  readonly #userIdByEmail: UserIdByEmail | null;
  readonly #budget: RequestBudget;
  /** Many-workspace mode: each tenant's budget under the global ceiling; null with one workspace. */
  readonly #tenantBudgets: TenantBudgets | null;
  /** What every API call spends: the tenants' budgets, or the one budget. */
  readonly #spender: RequestSpender;
  /** Many-workspace mode: each tenant's plan (its open watches over its share of the budget). */
  #tenantPlans = new Map<string | null, CheckPlan>();
  #tenantRates = new Map<string | null, number>();
  /** The tenant of each watch in flight (fair claims skip a tenant at its cap). */
  readonly #inFlightTenant = new Map<string, string | null>();
  /** Many-workspace mode: each tenant's listing sweep, and the pass that starts them (one at a time). */
  readonly #tenantSweeps = new Map<string | null, TenantSweep>();
  #tenantPass: Promise<void> | null = null;
  #lastTenantPassAt = Number.NEGATIVE_INFINITY;
  /** The workspace of the watch being handled: an org-wide install's workspaces each get their edit lane. */
  readonly #workspace = new AsyncLocalStorage<string>();
  readonly #pacer: SlackPacer;
  /** Watches being handled, by keyOf. */
  readonly #inFlight = new Map<string, Promise<void>>();
  /** Which watch each #inFlight key is (its leases are renewed per installation). */
  readonly #inFlightWatch = new Map<string, { installationId: string; executionId: string }>();
  #running = false;
  #timer: NodeJS.Timeout | null = null;
  #renewTimer: NodeJS.Timeout | null = null;
  #roundRunning: Promise<void> | null = null;
  #lastHousekeeping = 0;
  #lastBulkPages: number | null = null;
  #lastBulkPagesAt = 0;
  #bulk: BulkSnapshot | null = null;
  /** Watches whose delivery stopped at the card (rescheduled until another poster's card is up). */
  readonly #cardDeferred = new Set<string>();
  /** In-flight watches that are only waiting on Slack's lanes: they do not hold a check slot. */
  readonly #delivering = new Set<string>();
  /** The listing in progress (one at a time per process; one sweeper across replicas). */
  #listing: Promise<void> | null = null;
  /** The watches it looks for (null until it has read them from the store). */
  #listingCovers: ReadonlySet<string> | null = null;
  #lastListingAt = Number.NEGATIVE_INFINITY;
  #activeCount = 0;
  #plan: CheckPlan;
  /** Set when the plan left list mode: deferred watches are brought forward in the next round. */
  #leftListMode = false;
  readonly #inTenant: InTenant;
  readonly #inInstallation: (<T>(installationId: string, work: () => Promise<T>) => Promise<T>) | null;
  /** When this replica last found the sweep lease held by another (that one lists for everyone). */
  #sweptElsewhereAt = Number.NEGATIVE_INFINITY;
  /** Running cards this process edited to "longer than usual" (so each is edited once). */
  readonly #lateShown = new Set<string>();
  /**
   * Whether a watch without a kept ETA may fall back to the health cache of `api`: not with tenants, whose
   * routed client is one cache for every workspace (a runbook name in one is not the other's runbook).
   */
  readonly #etaFromCache: boolean;

  constructor(options: WatcherOptions) {
    this.owner = options.owner;
    const leaseMs = options.settings?.leaseMs ?? DEFAULT_WATCHER_SETTINGS.leaseMs;
    this.settings = { ...DEFAULT_WATCHER_SETTINGS, replySettleMs: 4 * leaseMs, ...options.settings };
    this.#store = options.store;
    this.#api = options.api;
    this.#slack = options.slack;
    this.#log = options.logger.child({ component: 'watcher', owner: options.owner });
    this.#metrics = options.metrics ?? NO_METRICS;
    this.#now = options.now ?? Date.now;
    this.#onFinished = options.onFinished ?? null;
    this.#userIdByEmail = options.userIdByEmail ?? null;
    this.#inTenant = options.inTenant ?? ((_teamId, work) => work());
    this.#inInstallation = options.inInstallation ?? null;
    this.#etaFromCache = !options.currentTenant;
    this.#budget = createApiBudget({
      store: this.#store,
      ratePerSecond: this.settings.requestsPerSecond,
      concurrency: this.settings.concurrency,
    });
    this.#tenantBudgets = options.currentTenant
      ? new TenantBudgets({
          store: this.#store,
          ratePerSecond: this.settings.requestsPerSecond,
          concurrency: this.settings.concurrency,
          globalRatePerSecond: this.settings.globalRequestsPerSecond,
          globalConcurrency: this.settings.maxInFlight,
          currentTenant: options.currentTenant,
          // Contended ceiling: each tenant's share follows its plan (a tenant sweeping 100 pages gets more).
          weightOf: (tenant) => this.#tenantRates.get(tenant) ?? this.settings.requestsPerSecond,
        })
      : null;
    this.#spender = this.#tenantBudgets ?? this.#budget;
    this.#plan = this.#replan();
    this.#pacer = new SlackPacer({
      transport: slackPostTransport(this.#slack),
      claimedRetryWindowMs: Math.min(CLAIMED_RETRY_WINDOW_MS, this.settings.replySettleMs / 2),
      now: Date.now,
      sleep: realSleep,
      postIntervalMs: this.settings.slackPostIntervalMs,
      updateIntervalMs: this.settings.slackUpdateIntervalMs,
      digestThreshold: this.settings.digestThreshold,
      // Edits: one lane per workspace (Slack's limit), so one tenant's burst never holds another's.
      ...(options.currentTenant
        ? { laneScope: options.currentTenant, laneWorkspace: () => this.#workspace.getStore() }
        : {}),
      onError: (method, code) => {
        this.#metrics.slackError(method, code);
        this.#log.warn({ method, code }, 'Slack call failed');
      },
      onDropped: (installation, jobs) =>
        this.#log.warn(
          { installation, jobs },
          "Slack answered the installation's token as dead; its queued Slack work dropped",
        ),
    });
  }

  /**
   * The Runbook API request budget (shared by every replica on Postgres); subscriptions spend it too.
   * Many-workspace mode: the budget of the tenant in scope, under the global ceiling.
   */
  get budget(): RequestSpender {
    return this.#spender;
  }

  /** Many-workspace mode: the tenants' budgets; null with one workspace. */
  get tenantBudgets(): TenantBudgets | null {
    return this.#tenantBudgets;
  }

  /** The plan a watch follows: its tenant's (`tenantOf`) in many-workspace mode, else the one plan. */
  planFor(w: { installationId: string; teamId: string | null }): CheckPlan {
    if (!this.#tenantBudgets) return this.#plan;
    const tenant = tenantOf(w);
    return this.#tenantPlans.get(tenant) ?? this.#planTenant(tenant, 1, this.settings.requestsPerSecond);
  }

  /**
   * One tenant's plan over its rate: single gets, or (cheaper once it has a few watches) a listing of
   * its own executions, made in its scope, so it sees that tenant's runs only.
   */
  #planTenant(tenant: string | null, watches: number, rate: number): CheckPlan {
    const sweep = this.#tenantSweeps.get(tenant);
    const pages = sweep && this.#now() - sweep.pagesAt < LISTING_COST_TTL_MS ? sweep.pages : null;
    return planChecks({ watches, requestsPerSecond: rate, listingPages: pages }, this.settings.plan);
  }

  /** Many-workspace mode: each tenant's share of the ceiling, and its plan over that share. */
  async #replanTenants(): Promise<void> {
    const counts = await this.#store.watches.countActiveByTenant();
    const wants = new Map<string, number>();
    for (const { tenant, count } of counts) {
      // What one sweep of its watches costs (single gets, or its listing's pages, whichever is fewer).
      const cost = this.#planTenant(tenant, count, this.settings.requestsPerSecond).sweepCost;
      wants.set(tenant ?? '', wantedRate(cost, this.settings.plan.minIntervalMs, this.settings.plan.share));
    }
    const shares = fairShares(wants, this.settings.requestsPerSecond, this.settings.globalRequestsPerSecond);
    const plans = new Map<string | null, CheckPlan>();
    const rates = new Map<string | null, number>();
    for (const { tenant, count } of counts) {
      const rate = Math.max(1e-3, shares.get(tenant ?? '') ?? this.settings.requestsPerSecond);
      rates.set(tenant, rate);
      plans.set(tenant, this.#planTenant(tenant, count, rate));
    }
    this.#tenantPlans = plans;
    this.#tenantRates = rates;
  }

  /** The current check plan: interval, mode and the bound it was computed from (check-plan.ts). */
  get plan(): CheckPlan {
    return this.#plan;
  }

  #replan(): CheckPlan {
    const fresh = this.#now() - this.#lastBulkPagesAt < LISTING_COST_TTL_MS;
    const before = this.#plan as CheckPlan | undefined;
    this.#plan = planChecks(
      {
        watches: this.#activeCount,
        requestsPerSecond: this.settings.requestsPerSecond,
        // Many workspaces: no listing (it would see one tenant's executions), single gets only.
        listingPages: this.#tenantBudgets ? Number.POSITIVE_INFINITY : fresh ? this.#lastBulkPages : null,
      },
      this.settings.plan,
    );
    // Leaving list mode (say, the last runs of a batch): watches deferred to the listing's backstop
    // (a minute or more) would otherwise wait that long though nobody lists any more. They are
    // brought forward at the start of the next round.
    if (before?.mode === 'list' && this.#plan.mode === 'single') this.#leftListMode = true;
    return this.#plan;
  }

  /** Brings every open watch's next look forward to now (after leaving list mode). */
  async #expediteDeferred(now: number): Promise<void> {
    this.#leftListMode = false;
    try {
      const ids = await this.#store.watches.listActiveIds(MAX_EXPEDITE);
      if (ids.length > 0) await this.#store.watches.expedite(ids, now);
    } catch (err) {
      this.#leftListMode = true;
      this.#log.warn({ err }, 'could not bring deferred watches forward; will retry');
    }
  }

  // ---- RunTracker ----------------------------------------------------------------------------

  async started(run: StartedRun): Promise<void> {
    const now = this.#now();
    for (const executionId of run.executionIds) {
      await this.#store.watches.insert(
        {
          installationId: installationKey(),
          executionId,
          runbookId: run.runbookId,
          runbookName: run.runbookName,
          // '' = not known yet: the message goes to a DM, whose channel posted() records.
          channel: run.channel ?? '',
          startedBy: run.startedBy,
          teamId: run.teamId,
          proxyId: run.proxyId,
          inputsSummary: JSON.stringify(run.inputs),
          origin: 'slack',
          proxyName: run.proxyName ?? null,
          approvedBy: typeof run.approvedBy === 'string' ? [run.approvedBy] : [...(run.approvedBy ?? [])],
          nextCheckAt: now + nextCheckDelay(0, this.settings.backoff),
          threadTs: run.threadTs ?? null,
          sourceLink: run.sourceLink ?? null,
        },
        now,
      );
    }
  }

  /**
   * The right to post an execution's (first) card. startRun, /runbook watch and the watcher all take
   * it before posting, so two of them racing (a slow Slack post, a finished run) never make two cards.
   */
  claimMessage(executionId: string, installationId = installationKey()): Promise<boolean> {
    return this.#store.notifications.claim(messageKey(executionId, installationId), this.#now());
  }

  releaseMessage(executionId: string, installationId = installationKey()): Promise<void> {
    return this.#store.notifications.release(messageKey(executionId, installationId));
  }

  /**
   * An installation is gone (uninstalled, its token revoked), or with `teamId` one workspace removed from
   * it: its Slack work still queued here is dropped at once, unsent. Returns how many calls were dropped.
   */
  dropSlackWork(installationId: string, teamId?: string): number {
    return teamId ? this.#pacer.dropWorkspace(installationId, teamId) : this.#pacer.drop(installationId);
  }

  async adopt(run: AdoptedRun): Promise<boolean> {
    const now = this.#now();
    return this.#store.watches.insert(
      {
        installationId: installationKey(),
        executionId: run.executionId,
        runbookId: run.runbookId,
        runbookName: run.runbookName,
        channel: run.channel ?? '',
        startedBy: run.startedBy,
        teamId: run.teamId,
        proxyId: '',
        inputsSummary: JSON.stringify(run.inputs),
        origin: 'adopted',
        nextCheckAt: run.finished ? now : now + nextCheckDelay(0, this.settings.backoff),
        startedAt: run.startedAt,
        threadTs: run.threadTs ?? null,
      },
      now,
    );
  }

  async posted(executionIds: string[], channel: string, ts: string, eta: WatchEta | null = null): Promise<void> {
    const now = this.#now();
    const installationId = installationKey();
    for (const id of executionIds) await this.#store.watches.setMessage(id, channel, ts, now, eta, installationId);
  }

  // ---- lifecycle -----------------------------------------------------------------------------

  #lastTickAt: number | null = null;

  /** When the loop last started a round (epoch ms); null before the first. Readiness reads it. */
  get lastTickAt(): number | null {
    return this.#lastTickAt;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#schedule(0);
    const every = Math.max(100, Math.floor(this.settings.leaseMs / 3));
    this.#renewTimer = setInterval(() => void this.#renew(), every);
    this.#renewTimer.unref();
  }

  /** Stops claiming, lets in-flight work finish, then releases every lease this owner holds. */
  async stop(): Promise<void> {
    this.#running = false;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#roundRunning;
    await this.#listing;
    await this.#tenantListings();
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight.values()]);
    await this.#pacer.idle();
    if (this.#renewTimer) clearInterval(this.#renewTimer);
    this.#renewTimer = null;
    const released = await this.#store.watches.releaseAll(this.owner);
    await this.#store.coordination
      .releaseLease(SWEEP_LEASE, this.owner)
      .catch((err: unknown) => this.#log.warn({ err }, 'could not release the sweep lease'));
    this.#log.info({ released }, 'watcher stopped');
  }

  /** Runs one claim round now (tests; also used by the loop). */
  async runOnce(): Promise<void> {
    await this.#round();
  }

  /** Resolves when no watch is being handled and no Slack call is queued. */
  async idle(): Promise<void> {
    await this.#listing;
    await this.#tenantListings();
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight.values()]);
    await this.#pacer.idle();
  }

  #schedule(ms: number): void {
    if (!this.#running) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#tick(), ms);
    this.#timer.unref();
  }

  async #tick(): Promise<void> {
    if (!this.#running) return;
    this.#lastTickAt = this.#now();
    const round = this.#round().catch((err: unknown) => this.#log.warn({ err }, 'watch round failed'));
    this.#roundRunning = round;
    await round;
    this.#roundRunning = null;
    this.#schedule(this.settings.tickMs);
  }

  async #renew(): Promise<void> {
    if (this.#inFlight.size === 0) return;
    const byInstallation = new Map<string, string[]>();
    for (const w of this.#inFlightWatch.values()) {
      const ids = byInstallation.get(w.installationId);
      if (ids) ids.push(w.executionId);
      else byInstallation.set(w.installationId, [w.executionId]);
    }
    try {
      const until = this.#now() + this.settings.leaseMs;
      for (const [installationId, ids] of byInstallation) {
        await this.#store.watches.renewLeases(this.owner, ids, until, installationId);
      }
    } catch (err) {
      this.#log.warn({ err }, 'could not renew leases');
    }
  }

  // ---- one round -----------------------------------------------------------------------------

  async #round(): Promise<void> {
    const now = this.#now();
    if (now - this.#lastHousekeeping >= 1_000) {
      this.#lastHousekeeping = now;
      await this.#housekeeping(now);
    }
    if (this.#leftListMode) await this.#expediteDeferred(now);
    // A burst of finished runs waits on Slack's lanes (edits are ~1/s per workspace); those
    // deliveries do not hold check slots, or one busy channel would stall every other watch.
    const checking = this.#inFlight.size - this.#delivering.size;
    const capacity = Math.min(this.settings.maxInFlight - checking, MAX_DELIVERING - this.#inFlight.size);
    const claimed = capacity > 0 ? await this.#claimDue(now, capacity) : [];
    // What is due in all, not just what this round could claim, decides whether a burst listing
    // pays off. Claimed watches are in flight from here on, so #renew keeps their leases while a
    // long listing runs: an expired lease would let another replica take them over mid-delivery.
    const due =
      claimed.length === 0 ? 0 : claimed.length < capacity ? claimed.length : await this.#store.watches.countDue(now);
    if (await this.#listingWanted(due, now)) this.#startListing();
    if (this.#tenantBudgets) this.#sweepTenants(now);
    for (const watch of claimed) {
      const key = keyOf(watch);
      const work = this.#afterListing(watch)
        .then(() => this.#handle(watch))
        .finally(() => this.#settled(key));
      this.#track(key, watch, work);
      if (this.#tenantBudgets) this.#inFlightTenant.set(key, tenantOf(watch));
    }
  }

  #track(key: string, watch: Watch, work: Promise<void>): void {
    this.#inFlight.set(key, work);
    this.#inFlightWatch.set(key, { installationId: watch.installationId, executionId: watch.executionId });
  }

  #settled(key: string): void {
    this.#inFlight.delete(key);
    this.#inFlightWatch.delete(key);
    this.#inFlightTenant.delete(key);
  }

  /**
   * One workspace: the earliest due watches. Many: round-robin over tenants (each one's earliest
   * first, a few per tenant per round), skipping a tenant whose watches in flight already fill
   * its rate, so ten thousand due watches of one tenant never stand before another tenant's ten.
   */
  #claimDue(now: number, capacity: number): Promise<Watch[]> {
    if (!this.#tenantBudgets) return this.#store.watches.claimDue(this.owner, now, this.settings.leaseMs, capacity);
    const inFlight = new Map<string | null, number>();
    for (const tenant of this.#inFlightTenant.values()) inFlight.set(tenant, (inFlight.get(tenant) ?? 0) + 1);
    const full: string[] = [];
    let fullNull = false;
    for (const [tenant, n] of inFlight) {
      const rate = this.#tenantRates.get(tenant) ?? this.settings.requestsPerSecond;
      if (n < claimQuota(rate).cap) continue;
      if (tenant === null) fullNull = true;
      else full.push(tenant);
    }
    return this.#store.watches.claimDue(this.owner, now, this.settings.leaseMs, capacity, {
      perTenant: claimQuota(this.settings.requestsPerSecond).perRound,
      excludeTenants: full,
      excludeNoTenant: fullNull,
    });
  }

  async #housekeeping(now: number): Promise<void> {
    const counts = await this.#store.watches.countByState();
    this.#activeCount = counts.active;
    this.#replan();
    if (this.#tenantBudgets) await this.#replanTenants();
    this.#metrics.setPending(counts.active);
    // Messages startRun never got up (crash, Slack down): make them due so #handle posts them.
    const unposted = await this.#store.watches.listUnposted(100);
    const late = unposted.filter((w) => now - w.createdAt >= this.settings.unpostedGraceMs && w.leaseOwner === null);
    const byInstallation = new Map<string, string[]>();
    for (const w of late)
      byInstallation.set(w.installationId, [...(byInstallation.get(w.installationId) ?? []), w.executionId]);
    for (const [installationId, ids] of byInstallation) await this.#store.watches.expedite(ids, now, installationId);
  }

  /**
   * A newest-first listing runs (1) every plan interval while listing is the cheaper way to look
   * at every watch (list mode), and (2) when more watches are due at once than ~2 s of budget
   * covers and one listing costs fewer requests (a burst of first looks). Only the replica holding
   * the sweep lease lists, so replicas do not pay for the same listing twice; when it dies its
   * lease runs out after leaseMs and another replica takes the sweep over.
   */
  async #listingWanted(dueCount: number, now: number): Promise<boolean> {
    // Many workspaces: a listing sees one tenant's executions only; each tenant is swept on its own.
    if (this.#listing || this.#activeCount === 0 || this.#tenantBudgets) return false;
    const plan = this.#plan;
    const gap =
      plan.mode === 'list' && this.settings.schedule === 'budget' ? plan.sweepGapMs : this.settings.bulkIntervalMs;
    if (now - this.#lastListingAt < gap) return false;
    const periodic = plan.mode === 'list' && this.settings.schedule === 'budget';
    const burst =
      dueCount > 0 &&
      chooseBulkDiscovery({
        dueCount,
        watchedCount: this.#activeCount,
        requestsPerSecond: this.settings.requestsPerSecond,
        lastPages: this.#lastBulkPages,
      });
    if (!periodic && !burst) return false;
    try {
      const held = await this.#store.coordination.holdLease(SWEEP_LEASE, this.owner, now + this.settings.leaseMs, now);
      this.#sweptElsewhereAt = held ? Number.NEGATIVE_INFINITY : now;
      return held;
    } catch (err) {
      this.#log.warn({ err }, 'could not take the sweep lease');
      return false;
    }
  }

  #startListing(): void {
    this.#lastListingAt = this.#now();
    this.#listing = this.#discoverInBulk()
      .catch((err: unknown) => {
        this.#apiError(err);
        this.#log.warn({ err }, 'bulk discovery failed; checking one by one');
      })
      .finally(() => {
        this.#listing = null;
        this.#listingCovers = null;
      });
  }

  /**
   * Runs a listing saw finish, as each page is read: this replica takes them itself (the page already
   * answers them, often with the output, so no further request), as many as it has room for; the rest
   * are brought forward for whoever claims them next.
   */
  async #takeFinished(finished: Execution[], installationId = ''): Promise<void> {
    const room = Math.max(0, MAX_DELIVERING - this.#inFlight.size);
    const listed = new Map(finished.map((e) => [e.id, e]));
    // The listing is of one installation's API ('' = the single workspace's): only its watches are these runs.
    const mine = [...listed.keys()]
      .filter((id) => !this.#inFlight.has(keyOf({ installationId, executionId: id })))
      .slice(0, room);
    const claimed = this.#running
      ? await this.#store.watches.claimIds(this.owner, mine, this.#now(), this.settings.leaseMs, installationId)
      : [];
    for (const watch of claimed) {
      const key = keyOf(watch);
      this.#track(
        key,
        watch,
        this.#handle(watch, listed.get(watch.executionId)).finally(() => this.#settled(key)),
      );
      if (this.#tenantBudgets) this.#inFlightTenant.set(key, tenantOf(watch));
    }
    const taken = new Set(claimed.map((w) => w.executionId));
    const rest = [...listed.keys()].filter((id) => !taken.has(id));
    if (rest.length > 0) await this.#store.watches.expedite(rest, this.#now(), installationId);
  }

  /**
   * A claimed watch the last listing did not cover waits for the one in progress when that one looks for
   * it (it will answer it); one started since is not in it and is looked at on its own at once.
   */
  async #afterListing(watch: Watch): Promise<void> {
    if (this.#snapshotFor(watch)?.statuses.has(watch.executionId)) return;
    if (this.#tenantBudgets) {
      const sweep = this.#sweepOf(watch);
      if (sweep?.covering?.has(watch.executionId)) await sweep.listing;
    } else if (this.#listing && (this.#listingCovers?.has(watch.executionId) ?? true)) {
      // Until the listing has read what it looks for, it may cover this watch: wait.
      await this.#listing;
    }
  }

  /** The sweep of this watch's tenant, when it lists this watch's installation's API (many workspaces). */
  #sweepOf(w: Watch): TenantSweep | undefined {
    const sweep = this.#tenantSweeps.get(tenantOf(w));
    return sweep?.installationId === w.installationId ? sweep : undefined;
  }

  /**
   * The listing that stands in for a check of this watch: its tenant's own with tenants (a listing of its
   * installation's API: another installation's execution of the same id is not this one), else the one.
   */
  #snapshotFor(w: Watch): BulkSnapshot | null {
    if (!this.#tenantBudgets) return this.#snapshot(w);
    const sweep = this.#sweepOf(w);
    const fresh = Math.max(this.settings.bulkIntervalMs, this.planFor(w).intervalMs) * 2;
    return sweep?.snapshot && this.#now() - sweep.snapshot.at < fresh ? sweep.snapshot : null;
  }

  async #tenantListings(): Promise<void> {
    await this.#tenantPass;
    await Promise.allSettled([...this.#tenantSweeps.values()].map((sweep) => sweep.listing));
  }

  /**
   * Many workspaces: at most once per shortest interval, a pass over the tenants whose plan is list mode (a
   * listing of its executions costs fewer requests than a get per watch): the sweep-lease holder reads every
   * tenant's watches in one store read and starts each tenant's listing that is due, in its scope and on its
   * budget, one per tenant at a time: an org-wide install's listing covers all its workspaces' watches. No
   * timer per tenant.
   */
  #sweepTenants(now: number): void {
    if (this.#tenantPass || now - this.#lastTenantPassAt < this.settings.plan.minIntervalMs) return;
    const listing = [...this.#tenantPlans.values()].some((plan) => plan.mode === 'list');
    if (!listing && ![...this.#tenantSweeps.values()].some((sweep) => sweep.mode === 'list')) return;
    this.#lastTenantPassAt = now;
    this.#tenantPass = this.#passTenants(now)
      .catch((err: unknown) => this.#log.warn({ err }, 'tenant sweep failed; checking one by one'))
      .finally(() => {
        this.#tenantPass = null;
      });
  }

  async #passTenants(now: number): Promise<void> {
    const held = await this.#store.coordination.holdLease(SWEEP_LEASE, this.owner, now + this.settings.leaseMs, now);
    this.#sweptElsewhereAt = held ? Number.NEGATIVE_INFINITY : now;
    if (!held) return;
    // A tenant's watches are its installation's (the API a listing in its scope reads); any kept for another
    // under the same key (a team's left unassigned across an upgrade) are not in its listing and are checked
    // one by one.
    const groups = new Map<string | null, TenantGroup>();
    for (const key of await this.#store.watches.listActiveKeys(MAX_SWEPT)) {
      const tenant = tenantOf(key);
      const group = groups.get(tenant);
      if (!group) {
        groups.set(tenant, {
          installationId: key.installationId,
          teamId: key.teamId,
          ids: new Set([key.executionId]),
          oldest: key.createdAt,
        });
      } else if (group.installationId === key.installationId) {
        group.ids.add(key.executionId);
        group.oldest = Math.min(group.oldest, key.createdAt);
      }
    }
    for (const [tenant, sweep] of this.#tenantSweeps)
      if (!groups.has(tenant) && !sweep.listing) this.#tenantSweeps.delete(tenant);
    for (const [tenant, group] of groups) {
      const plan = this.planFor(group);
      let sweep = this.#tenantSweeps.get(tenant);
      if (plan.mode !== 'list') {
        // Leaving list mode: its watches deferred to the listing's backstop are looked at now.
        if (sweep?.mode === 'list') await this.#store.watches.expedite([...group.ids], now, group.installationId);
        if (sweep) sweep.mode = 'single';
        continue;
      }
      if (!sweep) {
        sweep = {
          installationId: group.installationId,
          mode: 'list',
          pages: null,
          pagesAt: 0,
          lastAt: Number.NEGATIVE_INFINITY,
          snapshot: null,
          listing: null,
          covering: null,
        };
        this.#tenantSweeps.set(tenant, sweep);
      }
      sweep.mode = 'list';
      if (sweep.installationId !== group.installationId && !sweep.listing) {
        sweep.installationId = group.installationId;
        sweep.snapshot = null;
      }
      if (sweep.listing || now - sweep.lastAt < plan.sweepGapMs) continue;
      sweep.lastAt = now;
      const current = sweep;
      current.covering = group.ids;
      current.listing = this.#listTenant(group, current).finally(() => {
        current.listing = null;
        current.covering = null;
        // A listing that took a whole sweep's time is due again at once: the next round's pass starts it
        // (back to back, paced by the budget) rather than up to a pass interval later.
        if (this.#now() - current.lastAt >= this.planFor(group).sweepGapMs)
          this.#lastTenantPassAt = Number.NEGATIVE_INFINITY;
      });
    }
  }

  /** One tenant's listing back to its oldest watch, in its scope; the runs it saw end are taken here. */
  async #listTenant(group: TenantGroup, sweep: TenantSweep): Promise<void> {
    try {
      const { result, cost } = await this.#listBack(group, (list) => this.#inScopeOf(group, list));
      sweep.pages = cost;
      sweep.pagesAt = this.#now();
      sweep.snapshot = { at: this.#now(), statuses: result.statuses, finished: result.finishedExecutions };
      // Runs it saw running that were never looked at need no claim to hear so: their first look is this
      // listing, and their next the backstop (the next listing is what notices their end).
      const running = [...result.statuses].filter(([, status]) => status === 'EXECUTION_STATUS_IN_PROGRESS');
      if (running.length > 0) {
        const now = this.#now();
        const backstop = this.planFor(group).backstopMs;
        await this.#store.watches.deferSeen(
          running.map(([id]) => id),
          now + backstop,
          now,
          group.installationId,
        );
      }
    } catch (err) {
      // An uninstalled installation: its watches are dropped when next claimed.
      if (err instanceof TenantGoneError) return;
      this.#apiError(err);
      this.#log.warn(
        { err, installation: group.installationId, teamId: group.teamId },
        'tenant listing failed; checking one by one',
      );
    }
  }

  /**
   * A listing of one installation's API back to the oldest of `group`'s watches, up to what a get per
   * watch would cost: runs that ended since the watches began stay in the listing, so the oldest may lie
   * well past watches / 100 pages. Watches it did not reach (cut at that cap, or gone from the API) are
   * looked at one by one, not left to the backstop. `cost` is the pages a plan counts it at: a listing
   * that found fewer than half of its watches (beyond its reach, or the API's clock disagrees with ours)
   * is no cheaper than a get each.
   */
  async #listBack(
    group: Pick<TenantGroup, 'installationId' | 'ids' | 'oldest'>,
    inScope: (list: () => Promise<DiscoveryResult>) => Promise<DiscoveryResult>,
  ): Promise<{ result: DiscoveryResult; cost: number }> {
    const watched = group.ids;
    const maxPages = Math.max(Math.ceil(watched.size / BULK_PAGE_SIZE) + 5, watched.size);
    const result = await inScope(() =>
      discoverFinished(this.#api, {
        watched,
        oldestWatchCreatedAt: group.oldest,
        maxPages,
        call: (fn) => this.#spender.run(fn),
        // Each page's finished runs are delivered as it is read: a run waits for its page, not the whole sweep.
        onFinished: (finished) => this.#takeFinished(finished, group.installationId),
      }),
    );
    for (let i = 0; i < result.pages; i++) this.#metrics.checked('bulk');
    if (result.statuses.size < watched.size) {
      const unseen = [...watched].filter((id) => !result.statuses.has(id));
      await this.#store.watches.expedite(unseen, this.#now(), group.installationId);
    }
    const cost = result.statuses.size * 2 < watched.size ? Math.max(result.pages, watched.size) : result.pages;
    return { result, cost };
  }

  /**
   * The last listing, while it is recent enough to stand in for a check. It is of the single workspace's
   * API (there is no listing with tenants), so it answers only for watches kept for ''.
   */
  #snapshot(w: Watch): BulkSnapshot | null {
    if (w.installationId) return null;
    const fresh = Math.max(this.settings.bulkIntervalMs, this.#plan.intervalMs) * 2;
    return this.#bulk && this.#now() - this.#bulk.at < fresh ? this.#bulk : null;
  }

  async #discoverInBulk(): Promise<void> {
    const oldest = await this.#store.watches.oldestActiveCreatedAt();
    if (oldest === null) return;
    const ids = new Set(await this.#store.watches.listActiveIds(1_000_000));
    this.#listingCovers = ids;
    const { result, cost } = await this.#listBack({ installationId: '', ids, oldest }, (list) => list());
    this.#lastBulkPages = cost;
    this.#lastBulkPagesAt = this.#now();
    this.#replan();
    this.#bulk = { at: this.#now(), statuses: result.statuses, finished: result.finishedExecutions };
    this.#log.debug(
      { pages: result.pages, seen: result.statuses.size, finished: result.finished.length },
      'bulk discovery',
    );
  }

  // ---- one watch -----------------------------------------------------------------------------

  /**
   * Work for a watch (or a tenant's listing) in its installation's scope; one kept for '' (the single
   * workspace, or not yet assigned) by its workspace.
   */
  #inScopeOf<T>(w: { installationId: string; teamId: string | null }, work: () => Promise<T>): Promise<T> {
    return w.installationId && this.#inInstallation
      ? this.#inInstallation(w.installationId, work)
      : this.#inTenant(w.teamId, work);
  }

  /** One watch, in its workspace's scope (many-workspace mode: the installation's token is used). */
  #handle(watch: Watch, listed?: Execution): Promise<void> {
    const work = () => this.#inScopeOf(watch, () => this.#handleWatch(watch, listed));
    return this.#workspace.run(watch.teamId ?? '', work).catch(async (err: unknown) => {
      if (!(err instanceof TenantGoneError)) throw err;
      // One wrong "no installation serves it" must not lose the card: the store decides, and a workspace
      // still served is looked at again later.
      if (await this.#store.installations.serves(watch.installationId, watch.teamId)) {
        this.#log.warn(
          { executionId: watch.executionId, installation: watch.installationId, teamId: watch.teamId },
          'workspace said gone but still installed; watch kept',
        );
        const now = this.#now();
        await this.#store.watches.reschedule(
          watch.executionId,
          this.owner,
          now + this.planFor(watch).intervalMs,
          watch.attempts,
          now,
          watch.installationId,
        );
        return;
      }
      // Uninstalled: nothing can be posted there any more, and its runs cost no more requests.
      this.#log.info(
        { executionId: watch.executionId, installation: watch.installationId, teamId: watch.teamId },
        'workspace uninstalled; watch dropped',
      );
      await this.#store.watches.complete(
        watch.executionId,
        this.owner,
        'stale',
        null,
        this.#now(),
        watch.installationId,
      );
    });
  }

  /** `listed`: the run as a listing page just showed it finished (it stands in for the status check). */
  async #handleWatch(watch: Watch, listed?: Execution): Promise<void> {
    const id = watch.executionId;
    // Kept up to date as messages are posted: a failure path must not act on the claim's old copy.
    let w = watch;
    try {
      const now = this.#now();
      if (w.messageTs === null && now - w.createdAt >= this.settings.unpostedGraceMs) {
        w = await this.#postRunningCard(w);
      }
      if (now - w.createdAt > this.settings.staleAfterMs) {
        await this.#reportStale(w);
        return;
      }
      const snapshot = this.#snapshotFor(w);
      const known = listed?.executionStatus ?? snapshot?.statuses.get(id);
      let terminal: boolean;
      if (known === 'EXECUTION_STATUS_IN_PROGRESS') {
        terminal = false;
      } else if (known === 'EXECUTION_STATUS_SUCCEEDED' || known === 'EXECUTION_STATUS_FAILED') {
        // The listing already saw it end: no status check (and no fetch at all if it carried the output).
        terminal = true;
      } else if (this.#leaveToSweeper(w)) {
        // Another replica's listing covers this watch and will bring it forward when it ends;
        // a single get here would only spend the shared budget that listing needs.
        await this.#store.watches.reschedule(
          id,
          this.owner,
          this.#now() + this.planFor(w).intervalMs,
          w.attempts,
          this.#now(),
          w.installationId,
        );
        return;
      } else {
        this.#metrics.checked('single');
        const summary = await this.#spender.run(() => this.#api.executions.get(id, { summary: true }));
        terminal = isTerminal(summary);
      }
      if (!terminal) {
        await this.#showIfLate(w);
        // Still running: next look per the plan. Only a watch the last listing actually saw waits
        // for the backstop (the periodic listing is what notices its end); one it did not see (new
        // since, or out of the listing's reach) is looked at again after the sweep interval.
        const attempts = w.attempts + 1;
        const covered = known !== undefined;
        const plan = this.planFor(w);
        const delay =
          this.settings.schedule === 'backoff'
            ? nextCheckDelay(attempts, this.settings.backoff)
            : covered
              ? nextLookIn(plan, attempts, this.settings.backoff.firstMs)
              : plan.intervalMs;
        await this.#store.watches.reschedule(
          id,
          this.owner,
          this.#now() + delay,
          attempts,
          this.#now(),
          w.installationId,
        );
        return;
      }
      if (w.messageTs === null && w.origin === 'slack') {
        // The claim's copy may be older than the running message: startRun can still be posting it
        // (Slack retries) when the run ends. Read again; while it is not up yet and the grace period
        // runs, wait for it instead of posting a second card and leaving the first at "running".
        const fresh = await this.#store.watches.get(id, w.installationId);
        if (fresh?.messageTs) {
          w = { ...w, channel: fresh.channel, messageTs: fresh.messageTs };
        } else {
          const wait = Math.max(250, Math.min(1_000, w.createdAt + this.settings.unpostedGraceMs - this.#now()));
          await this.#store.watches.reschedule(
            id,
            this.owner,
            this.#now() + wait,
            w.attempts,
            this.#now(),
            w.installationId,
          );
          return;
        }
      }
      // A listing that carried the output already is the full record: no second request for it.
      const seen = listed ?? snapshot?.finished.get(id);
      const full = seen?.output ? seen : await this.#readFinished(id);
      // Stopped while it was read (its workspace's Runbook API account changed: src/runs/api-connection.ts
      // finishes its card): what was read may be another account's, so nothing is told.
      if ((await this.#store.watches.get(id, w.installationId))?.state !== 'active') return;
      await this.#deliver(w, full, false);
    } catch (err) {
      if (err instanceof NotFoundError) {
        this.#apiError(err);
        this.#log.warn({ executionId: id }, 'execution not found; reporting it as stale');
        await this.#reportStale(w).catch((e: unknown) => this.#retryLater(w, e));
        return;
      }
      await this.#retryLater(w, err);
    }
  }

  /**
   * The finished execution with its output. An answer that cannot be read (garbage, or too large even
   * to cut) would be the same on every retry: the result goes out from the summary, saying so, instead of
   * a card that stays at "running" while the watcher asks again and again.
   */
  async #readFinished(id: string): Promise<Execution> {
    try {
      return await this.#spender.run(() => this.#api.executions.get(id));
    } catch (err) {
      if (!(err instanceof ResponseValidationError)) throw err;
      this.#apiError(err);
      this.#log.warn({ err, executionId: id }, 'the execution could not be read; reporting it without its output');
      const summary = await this.#spender.run(() => this.#api.executions.get(id, { summary: true }));
      return {
        ...summary,
        output: `(The Runbook API's answer for this execution could not be read (${err.issues}), so its output is not shown. Look it up in the Runbook API.)`,
      };
    }
  }

  /**
   * In list mode on a replica that is not the sweeper (it found the lease held within the lease
   * time), a watch past its first look is left to the sweeper's listing. First looks are still
   * taken here: a run started after the last listing is in no listing yet.
   */
  #leaveToSweeper(w: Watch): boolean {
    return (
      this.settings.schedule === 'budget' &&
      this.planFor(w).mode === 'list' &&
      w.attempts > 0 &&
      this.#now() - this.#sweptElsewhereAt < this.settings.leaseMs
    );
  }

  async #retryLater(watch: Watch, err: unknown): Promise<void> {
    this.#apiError(err);
    this.#log.warn({ err, executionId: watch.executionId }, 'watch check failed; will retry');
    const attempts = watch.attempts + 1;
    const now = this.#now();
    await this.#store.watches
      .reschedule(
        watch.executionId,
        this.owner,
        now + nextCheckDelay(attempts, this.settings.backoff),
        attempts,
        now,
        watch.installationId,
      )
      .catch((e: unknown) => this.#log.warn({ err: e }, 'could not reschedule a watch'));
  }

  #apiError(err: unknown): void {
    if (err instanceof RunbookApiError) this.#metrics.apiError(err.status === null ? err.name : String(err.status));
  }

  async #reportStale(w: Watch): Promise<void> {
    // Show what we know; the execution may be gone or the API down, so fall back to a bare card.
    let execution: Execution;
    try {
      execution = await this.#spender.run(() => this.#api.executions.get(w.executionId, { summary: true }));
    } catch {
      execution = Execution.parse({ id: w.executionId, workflowName: w.runbookName });
    }
    await this.#deliver(w, execution, true);
  }

  #runContext(w: Watch): RunContext {
    let inputs: RunContext['inputs'] = {};
    try {
      // An object of masked params, or (runs started since inputs carry titles) the labelled list.
      const parsed: unknown = JSON.parse(w.inputsSummary);
      if (parsed && typeof parsed === 'object') inputs = toLabelledInputs(parsed);
    } catch {
      // A damaged summary only costs the inputs section of the card.
    }
    return {
      runbookId: w.runbookId,
      runbookName: w.runbookName,
      proxyId: w.proxyId,
      proxyName: w.proxyName ?? null,
      startedBy: w.startedBy,
      inputs,
      ...(w.approvedBy?.length ? { approvedBy: w.approvedBy } : {}),
      ...(w.sourceLink ? { sourceLink: w.sourceLink } : {}),
    };
  }

  /** The thread a watch's card goes in when posted to `channel` (one in the watch's own channel only). */
  #threadOf(w: Watch, channel: string | null): string | null {
    return w.threadTs && w.channel && channel === w.channel ? w.threadTs : null;
  }

  /** Where a watch's messages go: its channel, or a DM with whoever started it. */
  async #destination(w: Watch): Promise<string | null> {
    if (w.channel) return w.channel;
    if (!w.startedBy) return null;
    const dm = await this.#slack.conversations.open({ users: w.startedBy });
    return dm.channel?.id ?? null;
  }

  /**
   * How long runs of this runbook usually take — what its card first said, kept with the watch (so any
   * replica, in any workspace, knows it), else (one workspace) this process's health cache; never a request — and whether
   * this run is past the p95, timed from its own start (an adopted run's by the API's timestamp).
   */
  #timing(w: Watch): RunningEta {
    const cached = this.#etaFromCache ? cachedHealth({ api: this.#api, now: this.#now }, w.runbookName) : null;
    const eta = w.eta ?? cached?.report.eta ?? null;
    return { eta, late: isLongerThanUsual(eta, this.#now() - (w.startedAt ?? w.createdAt)) };
  }

  #rememberLate(w: Watch): void {
    this.#lateShown.add(keyOf(w));
    if (this.#lateShown.size > MAX_LATE_SHOWN) this.#lateShown.delete(this.#lateShown.values().next().value!);
  }

  /**
   * A running card past its runbook's p95 says "running longer than usual", once. Awaited under the
   * watch's lease, so no replica can deliver the result card before this edit lands (it would undo it).
   */
  async #showIfLate(w: Watch): Promise<void> {
    if (!w.messageTs || !w.channel || this.#lateShown.has(keyOf(w))) return;
    const timing = this.#timing(w);
    if (!timing.late) return;
    const card = buildRunningCard(this.#runContext(w), [w.executionId], timing);
    const edited = await this.#pacer.update(w.channel, w.messageTs, card);
    if (edited.ok || (edited.code && GONE.has(edited.code))) this.#rememberLate(w);
  }

  async #postRunningCard(w: Watch): Promise<Watch> {
    const channel = await this.#destination(w);
    if (!channel) return w;
    const mine = await this.#mayPostCard(w, channel);
    if (mine !== true) return mine;
    const timing = this.#timing(w);
    const posted = await this.#pacer.post(channel, buildRunningCard(this.#runContext(w), [w.executionId], timing), {
      sentCheck: namesCard(w.executionId),
      threadTs: this.#threadOf(w, channel),
    });
    if (posted.ok && timing.late) this.#rememberLate(w);
    if (!posted.ok) {
      if (posted.code && GONE.has(posted.code)) return w;
      await this.#releaseUnsent(w, posted.notSent);
      throw posted.error;
    }
    await this.#store.watches.setMessage(
      w.executionId,
      posted.value.channel,
      posted.value.ts,
      this.#now(),
      timing.eta,
      w.installationId,
    );
    return { ...w, channel: posted.value.channel, messageTs: posted.value.ts, eta: timing.eta };
  }

  /**
   * true: we hold the card claim and may post. Otherwise the watch as it now stands: with the card
   * someone else recorded or that Slack shows, or unchanged while another poster is still at it.
   */
  async #mayPostCard(w: Watch, channel: string): Promise<true | Watch> {
    if (await this.claimMessage(w.executionId, w.installationId)) return true;
    const fresh = await this.#store.watches.get(w.executionId, w.installationId);
    if (fresh?.messageTs) return { ...w, channel: fresh.channel, messageTs: fresh.messageTs };
    if (this.#now() - w.createdAt < this.settings.messageTakeoverMs) return w;
    // The claimant has been silent far longer than any post takes: it died. Slack tells whether its
    // card made it; only a missing one is posted (we hold the watch's lease, so no one else does).
    const thread = this.#threadOf(w, channel);
    const seen = await readBackMessages(this.#slack, channel, thread, w.createdAt - 60_000).catch(() => null);
    if (seen === null) return w;
    const card = seen.find(namesCard(w.executionId));
    if (card) {
      await this.#store.watches.setMessage(w.executionId, channel, card.ts, this.#now(), null, w.installationId);
      return { ...w, channel, messageTs: card.ts };
    }
    return true;
  }

  /**
   * A card post of ours that surely did not arrive gives its claim back, so the next attempt (soon, by the
   * watch's backoff) posts it instead of waiting out `messageTakeoverMs`. One that may have arrived keeps it.
   */
  async #releaseUnsent(w: Watch, notSent: boolean): Promise<void> {
    if (!notSent) return;
    await this.releaseMessage(w.executionId, w.installationId).catch((err: unknown) =>
      this.#log.warn({ err, executionId: w.executionId }, 'could not give back a card claim'),
    );
  }

  /**
   * Whether a reply or digest line naming this execution is in the thread or the channel since the claim;
   * `card`: the card when it is itself in the thread (it names the execution too).
   */
  async #replySeen(channel: string, ts: string | null, w: Watch, card: string | null): Promise<boolean> {
    const marker = `\`${w.executionId}\``;
    try {
      // Many workspaces: only this installation's bot's (a shared channel shows the other's reply too).
      const bot = await ownBotOf(this.#slack);
      const mentions = (messages: Array<{ text?: string; user?: string; bot_id?: string }> | undefined) =>
        (messages ?? []).some(
          (m) =>
            typeof m.text === 'string' &&
            m.text.includes(marker) &&
            !m.text.includes(' is running') &&
            postedBy(bot, m),
        );
      const since = ((w.replyPostedAt ?? this.#now()) - 60_000) / 1000;
      if (ts) {
        const thread = await this.#slack.conversations.replies({ channel, ts, oldest: since.toFixed(6), limit: 200 });
        if (mentions((thread.messages ?? []).filter((m) => m.ts !== ts && m.ts !== card))) return true;
        // More of the thread than one page (a long thread a card is in): what was not read cannot be told.
        if (thread.response_metadata?.next_cursor || thread.has_more) return true;
      }
      let cursor: string | undefined;
      for (let page = 0; page < 5; page++) {
        const history = await this.#slack.conversations.history({
          channel,
          oldest: since.toFixed(6),
          limit: 200,
          ...(cursor ? { cursor } : {}),
        });
        if (mentions((history.messages ?? []).filter((m) => m.ts !== ts && !m.thread_ts))) return true;
        cursor = history.response_metadata?.next_cursor || undefined;
        if (!cursor) break;
      }
      return false;
    } catch (err) {
      // When Slack cannot tell, assume it was sent: a lost reply is better than a doubled one.
      this.#log.warn({ err, executionId: w.executionId }, 'could not check whether the reply was sent');
      return true;
    }
  }

  /**
   * A claimed reply the pacer gave up on (rate-limited past every retry, or an outcome Slack could
   * not confirm) keeps the watch active: the next attempt waits out replySettleMs, asks Slack, and
   * sends it only if it is not there. After MAX_REPLY_ATTEMPTS checks it is logged and let go.
   */
  #replyFailed(w: Watch, outcome: string): void {
    // Never sent (the installation's token was answered as dead): the watch stays until it is gone.
    if (outcome === 'dropped') throw new Error("the finished-run reply was dropped with its installation's work");
    if (outcome !== 'failed') return;
    if (w.attempts < MAX_REPLY_ATTEMPTS) throw new Error('the finished-run reply could not be sent; will retry');
    this.#log.warn({ executionId: w.executionId }, 'the finished-run reply could not be sent; giving up');
  }

  /** The thread reply (or a digest line holding it), claimed right before it is sent. */
  #tell(channel: string, ts: string | null, w: Watch, execution: Execution, stale: boolean): Promise<ReplyOutcome> {
    const id = w.executionId;
    const thread = this.#threadOf(w, channel);
    return this.#pacer.reply({
      channel,
      // A card inside a thread: the reply goes into that thread (a reply's ts is no thread parent).
      threadTs: thread ?? ts,
      cardTs: thread ? ts : null,
      message: { text: replyText(w, execution, stale) },
      digestLine: digestLine(w, execution, stale),
      claim: () => this.#store.watches.claimReply(id, this.#now(), w.installationId),
      sentCheck: namesFinished(id),
    });
  }

  /**
   * The result card: the running message edited, or a first card posted with the card claim.
   * When someone else's card has to come first, the watch is rescheduled and its id put in
   * #cardDeferred, so #deliver stops there.
   */
  async #deliverCard(
    w: Watch,
    execution: Execution,
    stale: boolean,
    card: OutgoingMessage,
    startChannel: string | null,
    startTs: string | null,
    moved: (channel: string, ts: string | null) => void,
  ): Promise<void> {
    const id = w.executionId;
    let channel = startChannel;
    let ts = startTs;
    if (channel && w.resultPostedAt === null) {
      let gone = false;
      let recorded = false;
      /** We took the card claim for this post (no card was up). */
      let claimed = false;
      if (ts) {
        // Recorded inside the edit lane, before the next edit goes out: a SIGKILL leaves at most one
        // edit done on Slack and not in the store, the only one a takeover repeats.
        const edited = await this.#pacer.update(channel, ts, card, {
          record: async () => {
            await this.#store.watches.markResultPosted(id, this.#now(), w.installationId);
            recorded = true;
          },
        });
        if (!edited.ok) {
          if (!(edited.code && GONE.has(edited.code))) throw edited.error;
          ts = null;
          gone = true;
          moved(channel, null);
        }
      }
      if (!ts && !gone) {
        // No card yet: post the result as the first card, but only with the card claim.
        const mine = await this.#mayPostCard(w, channel);
        claimed = mine === true;
        if (mine !== true) {
          if (mine.messageTs) {
            // Someone else's card is up now: edit that one next time round.
            await this.#store.watches.reschedule(
              id,
              this.owner,
              this.#now(),
              w.attempts,
              this.#now(),
              w.installationId,
            );
            this.#cardDeferred.add(keyOf(w));
            return;
          }
          await this.#store.watches.reschedule(
            id,
            this.owner,
            this.#now() + 1_000,
            w.attempts,
            this.#now(),
            w.installationId,
          );
          this.#cardDeferred.add(keyOf(w));
          return;
        }
      }
      if (!ts) {
        const sentCheck = namesResultCard(id);
        let posted = await this.#pacer.post(channel, card, { sentCheck, threadTs: this.#threadOf(w, channel) });
        if (!posted.ok && posted.code && GONE.has(posted.code) && w.startedBy && w.channel) {
          // The channel is out of reach: tell the person directly rather than lose the result.
          const dm = await this.#destination({ ...w, channel: '' });
          if (dm) posted = await this.#pacer.post(dm, card, { sentCheck });
        }
        if (!posted.ok) {
          if (!(posted.code && GONE.has(posted.code))) {
            if (claimed) await this.#releaseUnsent(w, posted.notSent);
            throw posted.error;
          }
        } else {
          channel = posted.value.channel;
          ts = posted.value.ts;
          moved(channel, ts);
          await this.#store.watches.setMessage(id, channel, ts, this.#now(), null, w.installationId);
        }
      }
      if (!recorded) await this.#store.watches.markResultPosted(id, this.#now(), w.installationId);
      const ended = execution.endTime ? Date.parse(execution.endTime) : Number.NaN;
      if (!stale && Number.isFinite(ended)) this.#metrics.reported((Date.now() - ended) / 1000);
      this.#metrics.result(stale ? 'stale' : execution.executionStatus);
    }
  }

  async #deliver(w: Watch, execution: Execution, stale: boolean): Promise<void> {
    const key = keyOf(w);
    this.#lateShown.delete(key);
    this.#delivering.add(key);
    try {
      await this.#deliverResult(w, execution, stale);
    } finally {
      this.#delivering.delete(key);
    }
  }

  /**
   * The finish path of a watch: result card, thread reply (both exactly once), then complete().
   * Every step is idempotent until complete(), so a crash anywhere reruns it safely.
   */
  async #deliverResult(w: Watch, execution: Execution, stale: boolean): Promise<void> {
    const id = w.executionId;
    // Only the card names the executor; the thread reply still goes only to whoever started it (w.startedBy).
    const people = w.startedBy ? undefined : await executorPeople(this.#userIdByEmail, execution.executor);
    const card: OutgoingMessage = buildResultCard(this.#runContext(w), execution, {
      stale,
      ...(people ? { people } : {}),
    });
    let channel = await this.#destination(w);
    let ts = w.messageTs;
    // With the running card up and no reply claimed yet, the reply is queued now, beside the edit:
    // edits share one lane for the workspace (Slack's chat.update tier), so in a burst an edit may
    // wait minutes while the channel's post lane (folding bursts into digests) tells people within
    // seconds. Each half keeps its own exactly-once rule (resultPostedAt; the reply claim): if the
    // edit fails, the next attempt redoes the edit and finds the reply claimed (the branch below).
    const early =
      channel && ts && w.resultPostedAt === null && w.replyPostedAt === null
        ? this.#tell(channel, ts, w, execution, stale)
        : null;
    try {
      await this.#deliverCard(w, execution, stale, card, channel, ts, (c, t) => {
        channel = c;
        ts = t;
      });
    } catch (err) {
      await early;
      throw err;
    }
    if (this.#cardDeferred.delete(keyOf(w))) return;
    if (channel && ts && !stale && execution.output) {
      // Longer output than the card shows goes into the thread as a file: once per execution, ever.
      await uploadOutputOnce(
        { store: this.#store, slack: this.#slack, logger: this.#log, now: this.#now },
        {
          executionId: id,
          runbookName: w.runbookName,
          channel,
          threadTs: this.#threadOf(w, channel) ?? ts,
          output: execution.output,
        },
      );
    }
    if (channel && w.replyPostedAt !== null) {
      // Claimed earlier but the watch never completed: that process died, lost its lease, or the
      // claim's answer was lost. Its sender may still be retrying for a while after the claim, so
      // wait that out first (asking Slack now could miss a reply still in flight and double it).
      const settleAt = w.replyPostedAt + this.settings.replySettleMs;
      if (this.#now() < settleAt) {
        await this.#store.watches.reschedule(id, this.owner, settleAt, w.attempts, this.#now(), w.installationId);
        return;
      }
      // Nobody is sending it any more; Slack itself tells whether the reply made it.
      const thread = this.#threadOf(w, channel);
      if (!(await this.#replySeen(channel, thread ?? ts, w, thread ? ts : null))) {
        const outcome = await this.#pacer.reply({
          channel,
          threadTs: thread ?? ts,
          cardTs: thread ? ts : null,
          message: { text: replyText(w, execution, stale) },
          digestLine: digestLine(w, execution, stale),
          claim: async () => true,
          sentCheck: namesFinished(id),
        });
        this.#replyFailed(w, outcome);
      }
    } else if (channel) {
      const outcome = await (early ?? this.#tell(channel, ts, w, execution, stale));
      // A claim that failed in the store (say, Postgres restarting) may still have committed: the
      // watch stays active, and the next attempt sees the claim and asks Slack.
      if (outcome === 'claim_error') throw new Error('could not claim the finished-run reply; will retry');
      this.#replyFailed(w, outcome);
    }
    if (this.#onFinished) await this.#onFinished({ watch: w, execution, stale, channel, messageTs: ts });
    const state = stale ? 'stale' : 'finished';
    const completed = await this.#store.watches.complete(
      id,
      this.owner,
      state,
      stale ? null : execution.executionStatus,
      this.#now(),
      w.installationId,
    );
    if (completed) this.#metrics.finished(state);
  }
}
