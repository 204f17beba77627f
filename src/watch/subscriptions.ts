// Subscription discovery: channels subscribed to a runbook (or to all) hear about every finished
// execution of it, including scheduled runs and runs started outside Slack, which no watch covers.
// A periodic scan lists executions newest-first back to the stored cursor (subscription-cursor.ts)
// and sends each subscribed channel ONE result card per execution, through a SlackPacer (pacing,
// Retry-After, digests) and with every API call inside a RequestBudget.
//
// Exactly once per (channel, execution), across restarts and replicas: the notification key
// `sub:<channel>:<executionId>` is claimed in the store BEFORE the post (inside the pacer, right
// before sending). Only one claimer ever wins, so two replicas scanning the same window, or a rescan
// of an overlap, never double a message. A crash between claim and post loses that one message
// rather than doubling it. When Slack definitely refused the post (it answered with an error, or
// rate-limited us past every retry), nothing was posted, so the claim is released and the execution
// goes back to `pending` for the next scan to try again, unless the channel is gone for good. When
// the outcome is unknown (network error, 5xx), the pacer reads the channel back and re-posts only a
// notice that is not there; if that cannot be settled the claim is kept: lost beats doubled.
// The cursor is written only after the scan's notices are settled, so a crash mid-scan rereads the
// same window and the claims skip what was already sent.
import type { WebClient } from '@slack/web-api';
import type { ExecutionPage, RunbookApi } from '../api/runbook-api.ts';
import type { Execution, Workflow } from '../api/schemas.ts';
import type { RunbookCatalog } from '../catalog/runbook-catalog.ts';
import type { Logger } from '../logger.ts';
import { labelExecutionInputs } from '../runs/execution-secrets.ts';
import { parseExecutionInputs } from '../slack/kit/execution-status.ts';
import { namesFinished, readBackMessages } from '../slack/kit/read-back.ts';
import { ApiUnavailableError } from '../slack/kit/user-facing-error.ts';
import type { Store, Subscription } from '../store/store.ts';
import { installationKey } from '../tenants/tenant-scope.ts';
import { BULK_PAGE_SIZE } from './bulk-discovery.ts';
import { executorPeople, type UserIdByEmail } from './executor-people.ts';
import { type OutgoingMessage, type PacerTransport, SlackPacer, slackCallCode } from './slack-pacer.ts';
import {
  type CursorSettings,
  DEFAULT_CURSOR_SETTINGS,
  decodeCursor,
  encodeCursor,
  reachOf,
  ScanWindow,
} from './subscription-cursor.ts';
import {
  ALL_RUNBOOKS,
  buildSubscriptionNotice,
  byCompletion,
  channelsFor,
  sameRunbookName,
  subscriptionDigestLine,
  subscriptionNoticeKey,
} from './subscription-notice.ts';
import type { RequestSpender } from './tenant-budgets.ts';
import { RequestBudget, realSleep, type Sleep } from './token-bucket.ts';

/** Name of the scan position in the store's cursors. */
export const SUBSCRIPTIONS_CURSOR = 'subscriptions';

/** How far the Runbook API's clock (createTime) and the bot's (a claim's time) may disagree, with room to spare. */
const CLOCK_MARGIN_MS = 24 * 60 * 60_000;

/**
 * Notice claims taken before this (the bot's clock) are never looked at again: every scan, of every
 * installation (one also looks at claims kept before they were per installation), reads nothing created
 * before its cursor's reach. null: no cursor limits it (none, or each unreadable: the next scan is a
 * baseline, which reports nothing already finished). The claims pass (tenants/retention.ts) prunes below it.
 */
export async function noticeClaimsReach(store: Pick<Store, 'cursors'>): Promise<number | null> {
  let reach: number | null = null;
  for (const { value } of await store.cursors.list(SUBSCRIPTIONS_CURSOR)) {
    const state = decodeCursor(value);
    if (state) reach = Math.min(reach ?? Number.POSITIVE_INFINITY, reachOf(state) - CLOCK_MARGIN_MS);
  }
  return reach;
}

export interface SubscriptionSettings {
  /** Time between scans. */
  intervalMs: number;
  /** Pages read per scan at most; a busier history is read over several scans. */
  maxPages: number;
  requestsPerSecond: number;
  concurrency: number;
  slackPostIntervalMs: number;
  digestThreshold: number;
  cursor: CursorSettings;
}

export const DEFAULT_SUBSCRIPTION_SETTINGS: SubscriptionSettings = {
  intervalMs: 15_000,
  maxPages: 20,
  requestsPerSecond: 5,
  concurrency: 2,
  slackPostIntervalMs: 1_000,
  digestThreshold: 3,
  cursor: DEFAULT_CURSOR_SETTINGS,
};

/** How the scanner finds a runbook for names and input masking; the catalog in production. */
export interface RunbookLookup {
  get(id: string): Promise<Workflow | null>;
  /** The runbook with exactly this name (case-insensitive), or null. */
  named(name: string): Promise<Workflow | null>;
}

export function catalogLookup(catalog: Pick<RunbookCatalog, 'get' | 'resolve'>): RunbookLookup {
  return {
    get: (id) => catalog.get(id),
    async named(name) {
      if (!name) return null;
      const r = await catalog.resolve(name);
      if (r.kind === 'match') return sameRunbookName(r.runbook.name, name) ? r.runbook : null;
      if (r.kind === 'several') return r.candidates.find((c) => sameRunbookName(c.name, name)) ?? null;
      return null;
    },
  };
}

/** Posting through a WebClient (best made with rejectRateLimitedCalls, so the pacer owns the waits). */
/**
 * Runs `work` for the workspace `teamId`: many-workspace mode enters that installation's scope, so a
 * client without a token of its own sends the installation's (the watcher's and the scanner's).
 */
export type InTenant = <T>(teamId: string | null, work: () => Promise<T>) => Promise<T>;

/** Thrown by an InTenant whose workspace has no installation any more (uninstalled): its work stops. */
export class TenantGoneError extends Error {
  constructor(teamId: string | null) {
    super(`The app is no longer installed for workspace ${teamId ?? '(none)'}: its work stops.`);
    this.name = 'TenantGoneError';
  }
}

export function slackPostTransport(client: WebClient): PacerTransport {
  return {
    post: async (channel, message, threadTs) => {
      const res = await client.chat.postMessage({
        channel,
        text: message.text,
        ...(message.blocks ? { blocks: message.blocks } : {}),
        ...(threadTs ? { thread_ts: threadTs } : {}),
      });
      return { channel: res.channel ?? channel, ts: res.ts ?? '' };
    },
    update: async (channel, ts, message) => {
      await client.chat.update({
        channel,
        ts,
        text: message.text,
        ...(message.blocks ? { blocks: message.blocks } : {}),
      });
    },
    recent: (channel, threadTs, oldestMs) => readBackMessages(client, channel, threadTs, oldestMs),
  };
}

export interface SubscriptionScannerOptions {
  store: Store;
  api: Pick<RunbookApi, 'executions'>;
  /** Slack posting (chat.postMessage); best backed by a WebClient with rejectRateLimitedCalls. */
  transport: PacerTransport;
  logger: Logger;
  runbooks?: RunbookLookup;
  /**
   * Whether this subscription may be told about this execution (the subscriber's `view` of its runbook in
   * the channel: src/runs/subscriptions.ts subscriberMayView). Absent: every matching subscription is.
   */
  mayNotify?: (subscription: Subscription, execution: Execution) => Promise<boolean>;
  /** Runs work for one subscription's workspace in its scope (many-workspace mode); default: as is. */
  inTenant?: InTenant;
  /**
   * Many workspaces: one scan per workspace with subscriptions, in its scope (so its own Runbook API is
   * listed) and with its own cursor; a workspace's runs are offered to its own subscriptions only.
   */
  perWorkspace?: boolean;
  settings?: Partial<SubscriptionSettings>;
  /** Epoch ms for the store's timestamps. */
  now?: () => number;
  sleep?: Sleep;
  /**
   * The watcher's request budget: subscription scans then spend the same budget (shared by every
   * replica on Postgres) instead of a quarter of their own.
   */
  budget?: RequestSpender;
  /**
   * Time until the next scan, asked after each scan: the watcher's check interval, so a subscribed
   * channel hears of a finished run within the same bound as a watched one. Default: intervalMs.
   */
  nextScanIn?: () => number;
  /**
   * With an owner, a scan runs only while this owner holds the store lease SUBSCRIPTIONS_LEASE
   * (renewed by every scan, for `leaseMs`): one replica scans, and when it dies another takes over
   * once the lease has run out. Without one every scanner scans (claims still keep notices single).
   */
  owner?: string;
  leaseMs?: number;
  /** Slack user id for an email: the card names an executor Slack knows as a mention. */
  userIdByEmail?: UserIdByEmail;
}

/** Lease of the replica that scans for subscriptions. */
export const SUBSCRIPTIONS_LEASE = 'subscription-scan';

export interface ScanResult {
  /** False when there were no subscriptions (nothing was listed). */
  scanned: boolean;
  baseline: boolean;
  pages: number;
  /** Messages sent (a digest counts each execution it holds). */
  sent: number;
  /** Notices already sent by someone else (claim lost). */
  skipped: number;
  /** Notices Slack refused or that could not be sent. */
  failed: number;
}

type NoticeOutcome = 'sent' | 'skipped' | 'failed' | 'refused' | 'gone' | 'claim_error' | 'dropped';

/** Slack answers after which posting to that channel will never work. */
const GONE = new Set(['channel_not_found', 'is_archived', 'not_in_channel', 'account_inactive', 'team_not_found']);

interface Failure {
  /** Slack answered, so nothing was posted. */
  definite: boolean;
  gone: boolean;
}

function classify(err: unknown): Failure {
  const code = (err as { code?: unknown } | null)?.code;
  const definite = code === 'slack_webapi_platform_error' || code === 'slack_webapi_rate_limited_error';
  return { definite, gone: definite && GONE.has(slackCallCode(err) ?? '') };
}

export class SubscriptionScanner {
  readonly settings: SubscriptionSettings;
  readonly #store: Store;
  readonly #api: Pick<RunbookApi, 'executions'>;
  readonly #log: Logger;
  readonly #runbooks: RunbookLookup | null;
  readonly #mayNotify: SubscriptionScannerOptions['mayNotify'] | null;
  readonly #inTenant: InTenant;
  readonly #perWorkspace: boolean;
  readonly #now: () => number;
  readonly #budget: RequestSpender;
  readonly #pacer: SlackPacer;
  readonly #nextScanIn: (() => number) | null;
  readonly #owner: string | null;
  readonly #leaseMs: number;
  readonly #userIdByEmail: UserIdByEmail | null;
  /**
   * The last post failure per channel. A channel's posts leave one at a time (the pacer's lane), and
   * a reply's 'failed' outcome is read right after that post failed, so this names its cause.
   */
  readonly #lastFailure = new Map<string, Failure>();
  #running = false;
  #timer: NodeJS.Timeout | null = null;
  #scan: Promise<ScanResult> | null = null;

  constructor(options: SubscriptionScannerOptions) {
    this.settings = {
      ...DEFAULT_SUBSCRIPTION_SETTINGS,
      ...options.settings,
      cursor: { ...DEFAULT_CURSOR_SETTINGS, ...options.settings?.cursor },
    };
    this.#store = options.store;
    this.#api = options.api;
    this.#log = options.logger.child({ component: 'subscriptions' });
    this.#runbooks = options.runbooks ?? null;
    this.#mayNotify = options.mayNotify ?? null;
    this.#inTenant = options.inTenant ?? ((_teamId, work) => work());
    this.#perWorkspace = options.perWorkspace ?? false;
    this.#now = options.now ?? Date.now;
    const sleep = options.sleep ?? realSleep;
    this.#budget =
      options.budget ??
      new RequestBudget({
        ratePerSecond: this.settings.requestsPerSecond,
        concurrency: this.settings.concurrency,
        now: Date.now,
        sleep,
      });
    this.#nextScanIn = options.nextScanIn ?? null;
    this.#owner = options.owner ?? null;
    this.#leaseMs = options.leaseMs ?? 30_000;
    this.#userIdByEmail = options.userIdByEmail ?? null;
    const inner = options.transport;
    const transport: PacerTransport = {
      post: async (channel, message, threadTs) => {
        try {
          const posted = await inner.post(channel, message, threadTs);
          this.#lastFailure.delete(channel);
          return posted;
        } catch (err) {
          this.#lastFailure.set(channel, classify(err));
          throw err;
        }
      },
      update: (channel, ts, message) => inner.update(channel, ts, message),
      ...(inner.recent ? { recent: inner.recent.bind(inner) } : {}),
    };
    this.#pacer = new SlackPacer({
      transport,
      now: Date.now,
      sleep,
      postIntervalMs: this.settings.slackPostIntervalMs,
      digestThreshold: this.settings.digestThreshold,
      // Many workspaces: lanes per installation, so a token answered as dead drops only its own notices.
      ...(options.perWorkspace ? { laneScope: () => installationKey() || null } : {}),
      onError: (method, code) => this.#log.warn({ method, code }, 'Slack call failed'),
    });
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#schedule(0);
  }

  /** Stops scanning; waits for a scan in progress and for its messages to leave. */
  async stop(): Promise<void> {
    this.#running = false;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#scan?.catch(() => undefined);
    await this.#pacer.idle();
    if (this.#owner !== null) {
      await this.#store.coordination.releaseLease(SUBSCRIPTIONS_LEASE, this.#owner).catch(() => undefined);
    }
  }

  /** One scan now (the loop uses it; tests call it). Concurrent calls in one process share a scan. */
  scanOnce(): Promise<ScanResult> {
    if (!this.#scan) {
      const scan = this.#perWorkspace ? this.#runWorkspaceScans() : this.#runScan('', null);
      this.#scan = scan.finally(() => {
        this.#scan = null;
      });
    }
    return this.#scan;
  }

  #schedule(ms: number): void {
    if (!this.#running) return;
    this.#timer = setTimeout(() => void this.#tick(), ms);
    this.#timer.unref();
  }

  async #tick(): Promise<void> {
    try {
      if (await this.#mayScan()) await this.scanOnce();
    } catch (err) {
      this.#log.warn({ err }, 'subscription scan failed; will retry');
    }
    this.#schedule(this.#nextScanIn?.() ?? this.settings.intervalMs);
  }

  async #mayScan(): Promise<boolean> {
    if (this.#owner === null) return true;
    const now = this.#now();
    return this.#store.coordination.holdLease(SUBSCRIPTIONS_LEASE, this.#owner, now + this.#leaseMs, now);
  }

  /** Many workspaces: each workspace's scan in its scope; one failing does not stop the others. */
  async #runWorkspaceScans(): Promise<ScanResult> {
    const total: ScanResult = { scanned: false, baseline: false, pages: 0, sent: 0, skipped: 0, failed: 0 };
    // One pass per installation, entered through a workspace of it (an installation's id is its team id, or
    // its org's; rows kept for '' go by their creator's workspace as before).
    const passes = new Map<string, Set<string>>();
    for (const s of await this.#store.subscriptions.listAll()) {
      const key = s.installationId || s.teamId || '';
      passes.set(key, (passes.get(key) ?? new Set()).add(s.teamId ?? key));
    }
    for (const [key, teams] of passes) {
      // A workspace removed from an org-wide install: its subscriptions wait, the others' go on; granted
      // again, they hear of runs that end from then on (the position moved on without them).
      const served = new Set<string>();
      for (const t of teams) if (!key || !t || (await this.#store.installations.serves(key, t))) served.add(t);
      const team = [...served][0] ?? [...teams][0] ?? key;
      try {
        const one = await this.#inTenant(team || null, () =>
          this.#runScan(
            key,
            (s) => (s.installationId || s.teamId || '') === key && (served.size === 0 || served.has(s.teamId ?? key)),
          ),
        );
        total.scanned ||= one.scanned;
        total.baseline ||= one.baseline;
        total.pages += one.pages;
        total.sent += one.sent;
        total.skipped += one.skipped;
        total.failed += one.failed;
      } catch (err) {
        if (err instanceof TenantGoneError || err instanceof ApiUnavailableError) {
          // Uninstalled, or no Runbook API to read (its address withdrawn): its subscriptions are kept, and
          // go on from "now" once it is back (as a first subscription does) rather than telling every run
          // that ended in between.
          await this.#forgetPosition(key).catch(() => undefined);
          continue;
        }
        this.#log.warn({ err, team }, "a workspace's subscription scan failed; will retry");
      }
    }
    return total;
  }

  /** Forgets an installation's scan position: its next scan starts from "now". */
  async #forgetPosition(installation: string): Promise<void> {
    if (await this.#store.cursors.get(SUBSCRIPTIONS_CURSOR, installation)) {
      await this.#store.cursors.set(SUBSCRIPTIONS_CURSOR, '', this.#now(), installation);
    }
  }

  /** The subscriptions a scan serves: all of them, or (per workspace) one workspace's. */
  async #subscriptionsOf(only: ((s: Subscription) => boolean) | null): Promise<Subscription[]> {
    const all = await this.#store.subscriptions.listAll();
    return only ? all.filter(only) : all;
  }

  /** One scan; its position is the cursor kept for `installation` ('' = the one workspace). */
  async #runScan(installation: string, only: ((s: Subscription) => boolean) | null): Promise<ScanResult> {
    const result: ScanResult = { scanned: false, baseline: false, pages: 0, sent: 0, skipped: 0, failed: 0 };
    const subscriptions = await this.#subscriptionsOf(only);
    const raw = await this.#store.cursors.get(SUBSCRIPTIONS_CURSOR, installation);
    if (subscriptions.length === 0) {
      // Nobody listens: forget the position, so a later first subscription starts from "now"
      // instead of replaying everything that happened in between.
      if (raw) await this.#forgetPosition(installation);
      return result;
    }
    result.scanned = true;
    const window = new ScanWindow(decodeCursor(raw), this.settings.cursor);
    result.baseline = window.baseline;
    const owed: Execution[] = [];
    // From the top down to the boundary; then, if the last scan was cut short, on in its gap from
    // where it stopped. A page limit cuts the scan; the cursor records where to carry on.
    let complete = false;
    let resumeToken: string | null = null;
    let segment: 'top' | 'gap' = 'top';
    /** Where the top segment would have gone on: the way into the gap if its token is refused. */
    let fallbackToken: string | null = null;
    let pageToken: string | undefined;
    for (;;) {
      const token = pageToken;
      let page: ExecutionPage;
      try {
        page = await this.#listPage(token);
      } catch (err) {
        if (segment !== 'gap' || fallbackToken === null || token === fallbackToken) throw err;
        // A page token can expire: walk down into the gap from the top instead (already-read runs
        // are below the horizon and skipped).
        this.#log.warn({ err }, 'could not continue the cut-short scan from its page token; reading down to it');
        pageToken = fallbackToken;
        continue;
      }
      result.pages++;
      for (const execution of page.items) if (window.consider(execution)) owed.push(execution);
      const ended = page.items.length === 0 || !page.nextPageToken;
      if (ended || window.reachedBoundary()) {
        const gap = window.gap;
        if (segment === 'top' && gap && !ended) {
          if (result.pages >= this.settings.maxPages) break; // the gap waits for the next scan
          segment = 'gap';
          window.enterGap();
          fallbackToken = page.nextPageToken;
          pageToken = gap.token;
          continue;
        }
        complete = true;
        break;
      }
      if (result.pages >= this.settings.maxPages) {
        this.#log.warn({ pages: result.pages }, 'subscription scan cut short; the rest is read next time');
        resumeToken = page.nextPageToken;
        break;
      }
      pageToken = page.nextPageToken;
    }

    if (owed.length > 0) {
      // Read again after listing: someone who unsubscribed while the pages were read gets nothing
      // that the listing found (the listing saw those runs after the unsubscribe).
      const subscriptions = await this.#subscriptionsOf(only);
      // A channel is in one workspace: its notices go out in that workspace's scope.
      const teamOf = new Map(subscriptions.map((sub) => [sub.channel, sub.teamId]));
      const names = await this.#currentNames(subscriptions);
      const notices: Array<{ channel: string; execution: Execution; message: OutgoingMessage }> = [];
      for (const execution of owed) {
        const allowed = await this.#allowed(subscriptions, execution);
        const channels = channelsFor(allowed, execution, (id) => names.get(id) ?? null);
        if (channels.length === 0) continue;
        const message = await this.#notice(execution);
        // A run started from Slack into a subscribed channel already gets the watcher's card there.
        const watched = (await this.#store.watches.get(execution.id, installationKey()))?.channel ?? null;
        for (const channel of channels) {
          if (channel === watched) {
            result.skipped++;
            continue;
          }
          // A rescanned overlap: already sent, no need to queue it (and inflate a digest).
          if (await this.#noticeClaimed(channel, execution.id)) {
            result.skipped++;
            // Someone else holds the claim; if their post is refused they release it, so look once
            // more next scan (a run already re-checked once is settled).
            if (!window.wasPending(execution.id)) window.retryLater(execution);
          } else notices.push({ channel, execution, message });
        }
      }
      // The listing is newest first; a channel reads its notices in the order the runs finished.
      notices.sort((a, b) => byCompletion(a.execution, b.execution));
      // Queued in one turn, so the pacer sees a burst as a burst (and may send a digest).
      await Promise.all(
        notices.map(({ channel, execution, message }) =>
          this.#inTenant(teamOf.get(channel) ?? null, () => this.#notify(channel, execution, message)).then(
            (outcome) => {
              if (outcome === 'sent') result.sent++;
              else if (outcome === 'skipped') result.skipped++;
              else result.failed++;
              if (outcome === 'refused' || outcome === 'claim_error' || outcome === 'dropped')
                window.retryLater(execution);
              if (outcome === 'skipped' && !window.wasPending(execution.id)) window.retryLater(execution);
            },
          ),
        ),
      );
    }
    // Another replica may have written pending runs since this scan read the cursor: keep them.
    const latest = decodeCursor(await this.#store.cursors.get(SUBSCRIPTIONS_CURSOR, installation));
    if (latest) window.adoptPending(latest.pending);
    const { state, abandoned } = window.finish(complete, resumeToken);
    if (abandoned.length > 0) this.#log.info({ count: abandoned.length }, 'stopped waiting for unfinished executions');
    await this.#store.cursors.set(SUBSCRIPTIONS_CURSOR, encodeCursor(state), this.#now(), installation);
    return result;
  }

  /** One newest-first page of the history, inside the request budget. */
  #listPage(token: string | undefined): Promise<ExecutionPage> {
    return this.#budget.run(() =>
      this.#api.executions.list({
        orderBy: 'descending',
        pageSize: BULK_PAGE_SIZE,
        ...(token ? { pageToken: token } : {}),
      }),
    );
  }

  /** The subscriptions whose subscriber may see this execution (all of them without a mayNotify). */
  async #allowed(subscriptions: Subscription[], execution: Execution): Promise<Subscription[]> {
    const mayNotify = this.#mayNotify;
    if (!mayNotify) return subscriptions;
    const verdicts = await Promise.all(
      subscriptions.map((s) => this.#inTenant(s.teamId, () => mayNotify(s, execution)).catch(() => false)),
    );
    return subscriptions.filter((_, i) => verdicts[i]);
  }

  /** Current catalog names of subscribed runbook ids (a renamed runbook keeps its subscribers). */
  async #currentNames(subscriptions: Subscription[]): Promise<Map<string, string>> {
    const names = new Map<string, string>();
    if (!this.#runbooks) return names;
    for (const s of subscriptions) {
      if (s.runbookId === ALL_RUNBOOKS || names.has(s.runbookId)) continue;
      try {
        const runbook = await this.#runbooks.get(s.runbookId);
        if (runbook) names.set(s.runbookId, runbook.name);
      } catch (err) {
        this.#log.warn({ err }, 'could not look up a subscribed runbook; using the stored name');
        return names;
      }
    }
    return names;
  }

  async #notice(execution: Execution): Promise<OutgoingMessage> {
    let runbook: Workflow | null = null;
    try {
      runbook = (await this.#runbooks?.named(execution.workflowName)) ?? null;
    } catch (err) {
      // Without the schema, masking falls back to credential-like key names.
      this.#log.warn({ err }, 'could not look up the runbook of an execution');
    }
    const inputs = labelExecutionInputs(parseExecutionInputs(execution.inputs), runbook);
    // Inputs that are not a JSON object are not shown: nothing says which part is secret.
    const people = await executorPeople(this.#userIdByEmail, execution.executor);
    return buildSubscriptionNotice(execution, runbook, inputs.kind === 'object' ? inputs.values : {}, people);
  }

  /** Whether this channel's notice of the execution is claimed, in the installation in scope. */
  async #noticeClaimed(channel: string, executionId: string): Promise<boolean> {
    const { notifications } = this.#store;
    return (
      (await notifications.has(subscriptionNoticeKey(channel, executionId, installationKey()))) ||
      this.#legacyNoticeClaimed(channel, executionId)
    );
  }

  /**
   * Many workspaces: a notice claimed under the key it had before claims were kept per installation (an
   * upgrade while runs were being announced), which nothing writes any more.
   */
  async #legacyNoticeClaimed(channel: string, executionId: string): Promise<boolean> {
    return installationKey() !== '' && this.#store.notifications.has(subscriptionNoticeKey(channel, executionId));
  }

  async #notify(channel: string, execution: Execution, message: OutgoingMessage): Promise<NoticeOutcome> {
    const key = subscriptionNoticeKey(channel, execution.id, installationKey());
    const outcome = await this.#pacer.reply({
      channel,
      threadTs: null,
      message,
      digestLine: subscriptionDigestLine(execution),
      // A notice claimed before the claims were kept per installation counts as sent.
      claim: async () =>
        !(await this.#legacyNoticeClaimed(channel, execution.id)) && this.#store.notifications.claim(key, this.#now()),
      sentCheck: namesFinished(execution.id),
    });
    if (outcome === 'claim_error') {
      this.#log.warn(
        { channel, executionId: execution.id },
        'could not claim a subscription notice; retrying next scan',
      );
      return outcome;
    }
    if (outcome !== 'failed') return outcome;
    const failure = this.#lastFailure.get(channel);
    if (!failure?.definite) {
      this.#log.warn(
        { channel, executionId: execution.id },
        'subscription notice may not have been sent; not retrying',
      );
      return 'failed';
    }
    await this.#store.notifications.release(key);
    this.#log.warn({ channel, executionId: execution.id, gone: failure.gone }, 'Slack refused a subscription notice');
    return failure.gone ? 'gone' : 'refused';
  }
}
