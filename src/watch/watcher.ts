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

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { WebClient } from '@slack/web-api';
import { NotFoundError, RunbookApiError } from '../api/errors.ts';
import type { RunbookApi } from '../api/runbook-api.ts';
import { Execution, type ExecutionStatus } from '../api/schemas.ts';
import { toLabelledInputs } from '../forms/labelled-inputs.ts';
import type { Logger } from '../logger.ts';
import type { AdoptedRun, RunTracker, StartedRun } from '../runs/run-tracker.ts';
import { buildResultCard, buildRunningCard, type RunContext } from '../slack/blocks/execution-card.ts';
import type { Store, Watch } from '../store/store.ts';
import { type BackoffSettings, DEFAULT_BACKOFF, nextCheckDelay } from './backoff.ts';
import { chooseBulkDiscovery, discoverFinished, isTerminal } from './bulk-discovery.ts';
import { NO_METRICS, type WatchMetrics } from './metrics.ts';
import { uploadOutputOnce } from './output-upload.ts';
import { digestLine, replyText } from './result-notice.ts';
import { type OutgoingMessage, SlackPacer } from './slack-pacer.ts';
import { namesCard, namesFinished, namesResultCard, readBackMessages } from './slack-read-back.ts';
import { slackPostTransport } from './subscriptions.ts';
import { RequestBudget, realSleep } from './token-bucket.ts';

export interface WatcherSettings {
  requestsPerSecond: number;
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

/** Dedupe key of the claim to post an execution's first card. */
function messageKey(executionId: string): string {
  return `message:${executionId}`;
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
  readonly #budget: RequestBudget;
  readonly #pacer: SlackPacer;
  readonly #inFlight = new Map<string, Promise<void>>();
  #running = false;
  #timer: NodeJS.Timeout | null = null;
  #renewTimer: NodeJS.Timeout | null = null;
  #roundRunning: Promise<void> | null = null;
  #lastHousekeeping = 0;
  #lastBulkPages: number | null = null;
  #bulk: BulkSnapshot | null = null;

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
    this.#budget = new RequestBudget({
      ratePerSecond: this.settings.requestsPerSecond,
      concurrency: this.settings.concurrency,
      now: Date.now,
    });
    this.#pacer = new SlackPacer({
      transport: slackPostTransport(this.#slack),
      claimedRetryWindowMs: Math.min(CLAIMED_RETRY_WINDOW_MS, this.settings.replySettleMs / 2),
      now: Date.now,
      sleep: realSleep,
      postIntervalMs: this.settings.slackPostIntervalMs,
      updateIntervalMs: this.settings.slackUpdateIntervalMs,
      digestThreshold: this.settings.digestThreshold,
      onError: (method, code) => {
        this.#metrics.slackError(method, code);
        this.#log.warn({ method, code }, 'Slack call failed');
      },
    });
  }

  // ---- RunTracker ----------------------------------------------------------------------------

  async started(run: StartedRun): Promise<void> {
    const now = this.#now();
    for (const executionId of run.executionIds) {
      await this.#store.watches.insert(
        {
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
        },
        now,
      );
    }
  }

  /**
   * The right to post an execution's (first) card. startRun, /runbook watch and the watcher all take
   * it before posting, so two of them racing (a slow Slack post, a finished run) never make two cards.
   */
  claimMessage(executionId: string): Promise<boolean> {
    return this.#store.notifications.claim(messageKey(executionId), this.#now());
  }

  async adopt(run: AdoptedRun): Promise<boolean> {
    const now = this.#now();
    return this.#store.watches.insert(
      {
        executionId: run.executionId,
        runbookId: run.runbookId,
        runbookName: run.runbookName,
        channel: run.channel ?? '',
        startedBy: run.adoptedBy,
        teamId: run.teamId,
        proxyId: '',
        inputsSummary: JSON.stringify(run.inputs),
        origin: 'adopted',
        nextCheckAt: run.finished ? now : now + nextCheckDelay(0, this.settings.backoff),
      },
      now,
    );
  }

  async posted(executionIds: string[], channel: string, ts: string): Promise<void> {
    const now = this.#now();
    for (const id of executionIds) await this.#store.watches.setMessage(id, channel, ts, now);
  }

  // ---- lifecycle -----------------------------------------------------------------------------

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
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight.values()]);
    await this.#pacer.idle();
    if (this.#renewTimer) clearInterval(this.#renewTimer);
    this.#renewTimer = null;
    const released = await this.#store.watches.releaseAll(this.owner);
    this.#log.info({ released }, 'watcher stopped');
  }

  /** Runs one claim round now (tests; also used by the loop). */
  async runOnce(): Promise<void> {
    await this.#round();
  }

  /** Resolves when no watch is being handled and no Slack call is queued. */
  async idle(): Promise<void> {
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
    const round = this.#round().catch((err: unknown) => this.#log.warn({ err }, 'watch round failed'));
    this.#roundRunning = round;
    await round;
    this.#roundRunning = null;
    this.#schedule(this.settings.tickMs);
  }

  async #renew(): Promise<void> {
    if (this.#inFlight.size === 0) return;
    try {
      await this.#store.watches.renewLeases(
        this.owner,
        [...this.#inFlight.keys()],
        this.#now() + this.settings.leaseMs,
      );
    } catch (err) {
      this.#log.warn({ err }, 'could not renew leases');
    }
  }

  // ---- one round -----------------------------------------------------------------------------

  async #round(): Promise<void> {
    const now = this.#now();
    if (now - this.#lastHousekeeping >= 2_000) {
      this.#lastHousekeeping = now;
      await this.#housekeeping(now);
    }
    const capacity = this.settings.maxInFlight - this.#inFlight.size;
    if (capacity <= 0) return;
    const claimed = await this.#store.watches.claimDue(this.owner, now, this.settings.leaseMs, capacity);
    if (claimed.length === 0) return;
    // What is due in all, not just what this round could claim, decides whether listing pays off.
    // The claimed watches are in flight from here on, so #renew keeps their leases while a long
    // listing runs: an expired lease would let another replica take them over mid-delivery.
    const discovery = (async () => {
      const due = claimed.length < capacity ? claimed.length : await this.#store.watches.countDue(now);
      await this.#maybeDiscoverInBulk(due, now);
    })();
    const settled = discovery.catch(() => undefined);
    for (const watch of claimed) {
      const work = settled.then(() => this.#handle(watch)).finally(() => this.#inFlight.delete(watch.executionId));
      this.#inFlight.set(watch.executionId, work);
    }
    await discovery;
  }

  async #housekeeping(now: number): Promise<void> {
    const counts = await this.#store.watches.countByState();
    this.#metrics.setPending(counts.active);
    // Messages startRun never got up (crash, Slack down): make them due so #handle posts them.
    const unposted = await this.#store.watches.listUnposted(100);
    const late = unposted.filter((w) => now - w.createdAt >= this.settings.unpostedGraceMs && w.leaseOwner === null);
    if (late.length > 0)
      await this.#store.watches.expedite(
        late.map((w) => w.executionId),
        now,
      );
  }

  async #maybeDiscoverInBulk(dueCount: number, now: number): Promise<void> {
    if (this.#bulk && now - this.#bulk.at < this.settings.bulkIntervalMs) return;
    const active = (await this.#store.watches.countByState()).active;
    const useBulk = chooseBulkDiscovery({
      dueCount,
      watchedCount: active,
      requestsPerSecond: this.settings.requestsPerSecond,
      lastPages: this.#lastBulkPages,
    });
    if (!useBulk) return;
    const oldest = await this.#store.watches.oldestActiveCreatedAt();
    if (oldest === null) return;
    const watched = new Set((await this.#store.watches.listActive(100_000)).map((w) => w.executionId));
    try {
      const result = await discoverFinished(this.#api, {
        watched,
        oldestWatchCreatedAt: oldest,
        call: (fn) => this.#budget.run(fn),
      });
      for (let i = 0; i < result.pages; i++) this.#metrics.checked('bulk');
      this.#lastBulkPages = result.pages;
      this.#bulk = { at: this.#now(), statuses: result.statuses, finished: result.finishedExecutions };
      if (result.finished.length > 0) await this.#store.watches.expedite(result.finished, this.#now());
      this.#log.debug(
        { pages: result.pages, seen: result.statuses.size, finished: result.finished.length },
        'bulk discovery',
      );
    } catch (err) {
      this.#apiError(err);
      this.#log.warn({ err }, 'bulk discovery failed; checking one by one');
    }
  }

  // ---- one watch -----------------------------------------------------------------------------

  async #handle(watch: Watch): Promise<void> {
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
      const snapshot = this.#bulk && this.#now() - this.#bulk.at < this.settings.bulkIntervalMs * 2 ? this.#bulk : null;
      const known = snapshot?.statuses.get(id);
      let terminal: boolean;
      if (known === 'EXECUTION_STATUS_IN_PROGRESS') {
        terminal = false;
      } else if (known === 'EXECUTION_STATUS_SUCCEEDED' || known === 'EXECUTION_STATUS_FAILED') {
        // The listing already saw it end: no status check (and no fetch at all if it carried the output).
        terminal = true;
      } else {
        this.#metrics.checked('single');
        const summary = await this.#budget.run(() => this.#api.executions.get(id, { summary: true }));
        terminal = isTerminal(summary);
      }
      if (!terminal) {
        const attempts = w.attempts + 1;
        await this.#store.watches.reschedule(
          id,
          this.owner,
          this.#now() + nextCheckDelay(attempts, this.settings.backoff),
          attempts,
          this.#now(),
        );
        return;
      }
      if (w.messageTs === null && w.origin === 'slack') {
        // The claim's copy may be older than the running message: startRun can still be posting it
        // (Slack retries) when the run ends. Read again; while it is not up yet and the grace period
        // runs, wait for it instead of posting a second card and leaving the first at "running".
        const fresh = await this.#store.watches.get(id);
        if (fresh?.messageTs) {
          w = { ...w, channel: fresh.channel, messageTs: fresh.messageTs };
        } else {
          const wait = Math.max(250, Math.min(1_000, w.createdAt + this.settings.unpostedGraceMs - this.#now()));
          await this.#store.watches.reschedule(id, this.owner, this.#now() + wait, w.attempts, this.#now());
          return;
        }
      }
      // A listing that carried the output already is the full record: no second request for it.
      const listed = snapshot?.finished.get(id);
      const full = listed?.output ? listed : await this.#budget.run(() => this.#api.executions.get(id));
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

  async #retryLater(watch: Watch, err: unknown): Promise<void> {
    this.#apiError(err);
    this.#log.warn({ err, executionId: watch.executionId }, 'watch check failed; will retry');
    const attempts = watch.attempts + 1;
    const now = this.#now();
    await this.#store.watches
      .reschedule(watch.executionId, this.owner, now + nextCheckDelay(attempts, this.settings.backoff), attempts, now)
      .catch((e: unknown) => this.#log.warn({ err: e }, 'could not reschedule a watch'));
  }

  #apiError(err: unknown): void {
    if (err instanceof RunbookApiError) this.#metrics.apiError(err.status === null ? err.name : String(err.status));
  }

  async #reportStale(w: Watch): Promise<void> {
    // Show what we know; the execution may be gone or the API down, so fall back to a bare card.
    let execution: Execution;
    try {
      execution = await this.#budget.run(() => this.#api.executions.get(w.executionId, { summary: true }));
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
    };
  }

  /** Where a watch's messages go: its channel, or a DM with whoever started it. */
  async #destination(w: Watch): Promise<string | null> {
    if (w.channel) return w.channel;
    if (!w.startedBy) return null;
    const dm = await this.#slack.conversations.open({ users: w.startedBy });
    return dm.channel?.id ?? null;
  }

  async #postRunningCard(w: Watch): Promise<Watch> {
    const channel = await this.#destination(w);
    if (!channel) return w;
    const mine = await this.#mayPostCard(w, channel);
    if (mine !== true) return mine;
    const posted = await this.#pacer.post(channel, buildRunningCard(this.#runContext(w), [w.executionId]), {
      sentCheck: namesCard(w.executionId),
    });
    if (!posted.ok) {
      if (posted.code && GONE.has(posted.code)) return w;
      throw posted.error;
    }
    await this.#store.watches.setMessage(w.executionId, posted.value.channel, posted.value.ts, this.#now());
    return { ...w, channel: posted.value.channel, messageTs: posted.value.ts };
  }

  /**
   * true: we hold the card claim and may post. Otherwise the watch as it now stands: with the card
   * someone else recorded or that Slack shows, or unchanged while another poster is still at it.
   */
  async #mayPostCard(w: Watch, channel: string): Promise<true | Watch> {
    if (await this.claimMessage(w.executionId)) return true;
    const fresh = await this.#store.watches.get(w.executionId);
    if (fresh?.messageTs) return { ...w, channel: fresh.channel, messageTs: fresh.messageTs };
    if (this.#now() - w.createdAt < this.settings.messageTakeoverMs) return w;
    // The claimant has been silent far longer than any post takes: it died. Slack tells whether its
    // card made it; only a missing one is posted (we hold the watch's lease, so no one else does).
    const seen = await readBackMessages(this.#slack, channel, null, w.createdAt - 60_000).catch(() => null);
    if (seen === null) return w;
    const card = seen.find(namesCard(w.executionId));
    if (card) {
      await this.#store.watches.setMessage(w.executionId, channel, card.ts, this.#now());
      return { ...w, channel, messageTs: card.ts };
    }
    return true;
  }

  /** Whether a reply or digest line naming this execution is in the thread or the channel since the claim. */
  async #replySeen(channel: string, ts: string | null, w: Watch): Promise<boolean> {
    const marker = `\`${w.executionId}\``;
    const mentions = (messages: Array<{ text?: string }> | undefined) =>
      (messages ?? []).some(
        (m) => typeof m.text === 'string' && m.text.includes(marker) && !m.text.includes(' is running'),
      );
    try {
      if (ts) {
        const thread = await this.#slack.conversations.replies({ channel, ts, limit: 200 });
        if (mentions((thread.messages ?? []).filter((m) => m.ts !== ts))) return true;
      }
      const since = ((w.replyPostedAt ?? this.#now()) - 60_000) / 1000;
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
    if (outcome !== 'failed') return;
    if (w.attempts < MAX_REPLY_ATTEMPTS) throw new Error('the finished-run reply could not be sent; will retry');
    this.#log.warn({ executionId: w.executionId }, 'the finished-run reply could not be sent; giving up');
  }

  async #deliver(w: Watch, execution: Execution, stale: boolean): Promise<void> {
    const id = w.executionId;
    const card: OutgoingMessage = buildResultCard(this.#runContext(w), execution, { stale });
    let channel = await this.#destination(w);
    let ts = w.messageTs;
    if (channel && w.resultPostedAt === null) {
      let gone = false;
      if (ts) {
        const edited = await this.#pacer.update(channel, ts, card);
        if (!edited.ok) {
          if (!(edited.code && GONE.has(edited.code))) throw edited.error;
          ts = null;
          gone = true;
        }
      }
      if (!ts && !gone) {
        // No card yet: post the result as the first card, but only with the card claim.
        const mine = await this.#mayPostCard(w, channel);
        if (mine !== true) {
          if (mine.messageTs) {
            // Someone else's card is up now: edit that one next time round.
            await this.#store.watches.reschedule(id, this.owner, this.#now(), w.attempts, this.#now());
            return;
          }
          await this.#store.watches.reschedule(id, this.owner, this.#now() + 1_000, w.attempts, this.#now());
          return;
        }
      }
      if (!ts) {
        const sentCheck = namesResultCard(id);
        let posted = await this.#pacer.post(channel, card, { sentCheck });
        if (!posted.ok && posted.code && GONE.has(posted.code) && w.startedBy && w.channel) {
          // The channel is out of reach: tell the person directly rather than lose the result.
          const dm = await this.#destination({ ...w, channel: '' });
          if (dm) posted = await this.#pacer.post(dm, card, { sentCheck });
        }
        if (!posted.ok) {
          if (!(posted.code && GONE.has(posted.code))) throw posted.error;
        } else {
          channel = posted.value.channel;
          ts = posted.value.ts;
          await this.#store.watches.setMessage(id, channel, ts, this.#now());
        }
      }
      await this.#store.watches.markResultPosted(id, this.#now());
      const ended = execution.endTime ? Date.parse(execution.endTime) : Number.NaN;
      if (!stale && Number.isFinite(ended)) this.#metrics.reported((Date.now() - ended) / 1000);
    }
    if (channel && ts && !stale && execution.output) {
      // Longer output than the card shows goes into the thread as a file: once per execution, ever.
      await uploadOutputOnce(
        { store: this.#store, slack: this.#slack, logger: this.#log, now: this.#now },
        { executionId: id, runbookName: w.runbookName, channel, threadTs: ts, output: execution.output },
      );
    }
    if (channel && w.replyPostedAt !== null) {
      // Claimed earlier but the watch never completed: that process died, lost its lease, or the
      // claim's answer was lost. Its sender may still be retrying for a while after the claim, so
      // wait that out first (asking Slack now could miss a reply still in flight and double it).
      const settleAt = w.replyPostedAt + this.settings.replySettleMs;
      if (this.#now() < settleAt) {
        await this.#store.watches.reschedule(id, this.owner, settleAt, w.attempts, this.#now());
        return;
      }
      // Nobody is sending it any more; Slack itself tells whether the reply made it.
      if (!(await this.#replySeen(channel, ts, w))) {
        const outcome = await this.#pacer.reply({
          channel,
          threadTs: ts,
          message: { text: replyText(w, execution, stale) },
          digestLine: digestLine(w, execution, stale),
          claim: async () => true,
          sentCheck: namesFinished(id),
        });
        this.#replyFailed(w, outcome);
      }
    } else if (channel) {
      const outcome = await this.#pacer.reply({
        channel,
        threadTs: ts,
        message: { text: replyText(w, execution, stale) },
        digestLine: digestLine(w, execution, stale),
        claim: () => this.#store.watches.claimReply(id, this.#now()),
        sentCheck: namesFinished(id),
      });
      // A claim that failed in the store (say, Postgres restarting) may still have committed: the
      // watch stays active, and the next attempt sees the claim and asks Slack.
      if (outcome === 'claim_error') throw new Error('could not claim the finished-run reply; will retry');
      this.#replyFailed(w, outcome);
    }
    const state = stale ? 'stale' : 'finished';
    const completed = await this.#store.watches.complete(
      id,
      this.owner,
      state,
      stale ? null : execution.executionStatus,
      this.#now(),
    );
    if (completed) this.#metrics.finished(state);
  }
}
