// Every Slack call the watcher makes goes through here, so a burst of finished runs never floods a
// channel or trips Slack's limits:
// - posts (thread replies, new messages) go through one lane per channel, at most one per
//   `postIntervalMs` (Slack allows about one message per second per channel);
// - edits (chat.update) go through one shared lane at `updateIntervalMs` (a per-workspace method limit);
// - when more than `digestThreshold` replies wait in a channel's lane, they leave as ONE digest
//   message instead of N thread replies (replies about cards inside one thread: one digest in it);
// - a rate-limited answer (WebClient with rejectRateLimitedCalls) pauses that lane for Retry-After and
//   the job is tried again (Slack refused it, so nothing was posted);
// - a 5xx/network error on an edit backs off and retries (an edit is idempotent). On a POST the
//   outcome is unknown: Slack may have stored the message. A post or reply is sent again only when
//   its job can say what it looks like (`sentCheck`) and the transport can read the channel back
//   (`recent`): before each new attempt the pacer asks Slack whether it arrived, and a message that
//   did arrive is never sent twice. Without that check an unknown outcome is final (lost beats doubled);
// - a claim that throws (the store is down) fails only that job ('claim_error'); the rest of a
//   digest still goes out;
// - a failed post says whether it surely did not arrive (`notSent`: refused, rate-limited, or read
//   back and absent) or may have (a claim on it must then be kept);
// - a token Slack answers as dead (token_revoked, invalid_auth, account_inactive) ends that scope's
//   queued work at once: every job of the installation not yet sent fails without a call (`drop`);
//   `dropWorkspace` does the same for one workspace of an org-wide installation (removed from it). A job
//   in flight then is not tried again.
// The clock and sleep are injected: unit tests run whole bursts in virtual time.

import { AsyncResource } from 'node:async_hooks';
import type { SeenMessage, SentCheck } from '../slack/kit/read-back.ts';
import { tokenStateOf } from '../tenants/revocation.ts';

export type { SeenMessage, SentCheck };

export interface OutgoingMessage {
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: Block Kit blocks pass through untouched
  blocks?: any[];
}

export interface PacerTransport {
  post(channel: string, message: OutgoingMessage, threadTs?: string): Promise<{ channel: string; ts: string }>;
  update(channel: string, ts: string, message: OutgoingMessage): Promise<void>;
  /**
   * Reads back what is in a thread (its replies, not the parent) or, with threadTs null, the
   * channel's top-level messages since `oldestMs`. Lets the pacer check whether a post whose
   * outcome was unknown arrived before sending it again; without it such posts are not retried.
   */
  recent?(channel: string, threadTs: string | null, oldestMs: number): Promise<SeenMessage[]>;
}

export interface UpdateOptions {
  /**
   * Records the edit (say, in the store) once Slack has taken it, before the edit lane moves on: a
   * process killed at any moment has at most one edit done on Slack but not recorded, so at most one
   * is repeated by whoever takes over. A record that throws does not fail the edit (it was sent): the
   * caller can tell from its own record whether it ran, and record again.
   */
  record?: () => Promise<void>;
}

export interface PostOptions {
  /** Makes a post safe to retry after a 5xx/network error (see PacerTransport.recent). */
  sentCheck?: SentCheck;
  /** Post into this thread (its parent's ts); read back there. */
  threadTs?: string | null;
}

export interface ReplyRequest {
  channel: string;
  /** Thread to reply in (a parent's ts: a card's, or the thread a card is in); null → a top-level message. */
  threadTs: string | null;
  /**
   * The card, when it is itself a reply in `threadTs`: not taken for the reply when read back, and a burst
   * of replies in that thread leaves as one digest there (not at the top level).
   */
  cardTs?: string | null;
  /** The reply on its own. */
  message: OutgoingMessage;
  /** The same news as one line of a digest. */
  digestLine: string;
  /**
   * Called right before the reply (or the digest holding it) is sent; false → someone else already
   * sent it, skip. The claim is taken once: a retried send does not claim again.
   */
  claim(): Promise<boolean>;
  /** Recognises the reply or a digest line of it (see PostOptions.sentCheck). */
  sentCheck?: SentCheck;
}

/**
 * 'claim_error': the claim threw (store down); nothing was sent for this job, but the claim may have
 * committed, so the caller must not treat the notice as settled. 'dropped': never claimed nor sent
 * (its installation's token was answered as dead, see `drop`); not settled either.
 */
export type ReplyOutcome = 'sent' | 'skipped' | 'failed' | 'claim_error' | 'dropped';
/**
 * A failure's `notSent`: Slack surely has nothing of it (refused, rate-limited, or a post read back and
 * absent), so sending it again later cannot double it. False: it may have arrived.
 */
export type SendOutcome<T> =
  | { ok: true; value: T }
  | { ok: false; code: string | null; error: unknown; notSent: boolean };

export interface SlackPacerOptions {
  transport: PacerTransport;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  postIntervalMs?: number;
  updateIntervalMs?: number;
  digestThreshold?: number;
  /** Attempts per job for rate limits and transient errors (default 5). */
  maxAttempts?: number;
  /**
   * A claimed reply is not tried again once this long has passed since its claim (default 60 s):
   * someone taking the work over waits this long before asking Slack whether it arrived.
   */
  claimedRetryWindowMs?: number;
  /**
   * Many workspaces: the tenant in scope when a job is queued. Each tenant gets its own edit lane and
   * its own channel lanes (Slack's limits are per workspace), so one tenant's burst never holds another's.
   */
  laneScope?: () => string | null | undefined;
  /**
   * Within a scope, the workspace in scope: an org-wide installation's workspaces each get their own edit
   * lane (the method limit is per workspace; a channel's lane is the channel's). `drop` ends them all,
   * `dropWorkspace` one workspace's jobs (edits and posts).
   */
  laneWorkspace?: () => string | null | undefined;
  /** Observes every failed Slack call (metrics, logs). */
  onError?: (method: string, code: string, error: unknown) => void;
  /** Observes queued jobs dropped because their installation's token was answered as dead. */
  onDropped?: (scope: string | null, jobs: number) => void;
}

/** Set on post and reply jobs once a send's outcome was unknown: check Slack before sending again. */
interface Unsure {
  /** When the first send was tried (the read-back starts a minute before). */
  firstSentAt: number | null;
  unsure: boolean;
}

/** The lane scope a job was queued in (its installation) and the workspace in scope, shared by every kind. */
interface Scoped {
  scope: string | null;
  workspace: string | null;
}

type Job = Scoped &
  (
    | {
        kind: 'update';
        channel: string;
        ts: string;
        message: OutgoingMessage;
        record: (() => Promise<void>) | null;
        attempts: number;
        done: (o: SendOutcome<void>) => void;
      }
    | ({
        kind: 'post';
        channel: string;
        threadTs: string | null;
        message: OutgoingMessage;
        sentCheck: SentCheck | null;
        attempts: number;
        done: (o: SendOutcome<{ channel: string; ts: string }>) => void;
      } & Unsure)
    | ({
        kind: 'reply';
        request: ReplyRequest;
        claimed: boolean;
        claimedAt: number;
        /** done() was called (skipped, claim error, found already sent). */
        settled: boolean;
        attempts: number;
        done: (o: ReplyOutcome) => void;
      } & Unsure)
  );

type ReplyJob = Extract<Job, { kind: 'reply' }>;

/** Reading Slack back failed: the job's outcome is still unknown, and reading is safe to retry. */
class ReadBackError extends Error {
  constructor(cause: unknown) {
    super('could not read Slack back', { cause });
  }
}

interface Lane {
  queue: Job[];
  nextAt: number;
  running: boolean;
}

const UPDATES = '\u0000updates';

/** The edit lane, or one tenant's edit lane. */
function isUpdates(key: string): boolean {
  return key === UPDATES || key.startsWith(`${UPDATES}\u0001`);
}
const MAX_DIGEST_LINES = 50;

/** Slack error code of a WebClient error, or the WebClient's own code. */
export function slackCallCode(err: unknown): string | null {
  const e = err as { code?: unknown; data?: { error?: unknown } } | null;
  if (typeof e?.data?.error === 'string') return e.data.error;
  return typeof e?.code === 'string' ? e.code : null;
}

function retryAfterMs(err: unknown): number | null {
  const e = err as { code?: unknown; retryAfter?: unknown; data?: { error?: unknown } } | null;
  if (e?.code === 'slack_webapi_rate_limited_error') return Math.max(1, Number(e.retryAfter) || 1) * 1000;
  if (e?.data?.error === 'ratelimited') return 1000;
  return null;
}

/** 5xx or network/timeout: Slack may or may not have acted on the call. */
function isUnknownOutcome(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'slack_webapi_http_error' || code === 'slack_webapi_request_error';
}

const READ_BACK_MARGIN_MS = 60_000;

/** Where a reply's digest goes: the thread its card is in, or (a top-level card) the top level. */
function digestThread(job: Job): string | null {
  return job.kind === 'reply' && job.request.cardTs ? job.request.threadTs : null;
}

export class SlackPacer {
  readonly #transport: PacerTransport;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #postIntervalMs: number;
  readonly #updateIntervalMs: number;
  readonly #laneScope: (() => string | null | undefined) | null;
  readonly #laneWorkspace: (() => string | null | undefined) | null;
  readonly #digestThreshold: number;
  readonly #maxAttempts: number;
  readonly #claimedRetryWindowMs: number;
  readonly #onError: SlackPacerOptions['onError'];
  readonly #onDropped: SlackPacerOptions['onDropped'];
  readonly #lanes = new Map<string, Lane>();
  /** Each job's async context, kept while the job lives (retries included). */
  readonly #contexts = new WeakMap<Job, AsyncResource>();
  readonly #pumps = new Set<Promise<void>>();
  /** Jobs being sent now, and those of them dropped meanwhile (never tried again). */
  readonly #inFlight = new Set<Job>();
  readonly #droppedInFlight = new WeakMap<Job, unknown>();

  constructor(options: SlackPacerOptions) {
    this.#transport = options.transport;
    this.#now = options.now;
    this.#sleep = options.sleep;
    this.#postIntervalMs = options.postIntervalMs ?? 1_000;
    this.#updateIntervalMs = options.updateIntervalMs ?? 1_000;
    this.#laneScope = options.laneScope ?? null;
    this.#laneWorkspace = options.laneWorkspace ?? null;
    this.#digestThreshold = options.digestThreshold ?? 3;
    this.#maxAttempts = options.maxAttempts ?? 5;
    this.#claimedRetryWindowMs = options.claimedRetryWindowMs ?? 60_000;
    this.#onError = options.onError;
    this.#onDropped = options.onDropped;
  }

  /** Edits a message in place (idempotent on Slack's side). */
  update(
    channel: string,
    ts: string,
    message: OutgoingMessage,
    options: UpdateOptions = {},
  ): Promise<SendOutcome<void>> {
    return new Promise((done) =>
      this.#enqueue(UPDATES, {
        kind: 'update',
        scope: null,
        workspace: null,
        channel,
        ts,
        message,
        record: options.record ?? null,
        attempts: 0,
        done,
      }),
    );
  }

  /**
   * Posts a new message, top-level or into `threadTs` (never coalesced: the caller needs its ts). With a
   * sentCheck, a post that already arrived is found and its ts returned instead of posting again.
   */
  post(
    channel: string,
    message: OutgoingMessage,
    options: PostOptions = {},
  ): Promise<SendOutcome<{ channel: string; ts: string }>> {
    return new Promise((done) =>
      this.#enqueue(channel, {
        kind: 'post',
        scope: null,
        workspace: null,
        channel,
        threadTs: options.threadTs ?? null,
        message,
        sentCheck: options.sentCheck ?? null,
        attempts: 0,
        firstSentAt: null,
        unsure: false,
        done,
      }),
    );
  }

  /** Sends a short notice once (see ReplyRequest.claim); may be merged into a digest. */
  reply(request: ReplyRequest): Promise<ReplyOutcome> {
    return new Promise((resolve) => {
      const job: ReplyJob = {
        kind: 'reply',
        scope: null,
        workspace: null,
        request,
        claimed: false,
        claimedAt: 0,
        settled: false,
        attempts: 0,
        firstSentAt: null,
        unsure: false,
        done: (o) => {
          job.settled = true;
          resolve(o);
        },
      };
      this.#enqueue(request.channel, job);
    });
  }

  /** Jobs waiting or in flight, per lane. */
  pending(): number {
    let n = 0;
    for (const lane of this.#lanes.values()) n += lane.queue.length;
    return n;
  }

  /** Resolves when every queued job is done. */
  async idle(): Promise<void> {
    while (this.#pumps.size > 0) await Promise.all([...this.#pumps]);
  }

  /**
   * Fails every queued job of a scope (an installation whose token is dead, or uninstalled) without
   * sending it; a job already in flight finishes on its own. Returns how many were dropped.
   */
  drop(scope: string | null, error: unknown = new Error('the installation is gone')): number {
    return this.#dropWhere((j) => j.scope === scope, error);
  }

  /**
   * Fails every queued job of one workspace of an org-wide installation (removed from it) without
   * sending it, as `drop` does for a whole installation; its other workspaces' jobs go on.
   */
  dropWorkspace(
    scope: string,
    workspace: string,
    error: unknown = new Error('the workspace was removed from its installation'),
  ): number {
    return this.#dropWhere((j) => j.scope === scope && j.workspace === workspace, error);
  }

  #dropWhere(gone: (job: Job) => boolean, error: unknown): number {
    let dropped = 0;
    for (const lane of this.#lanes.values()) {
      const jobs = lane.queue.filter(gone);
      if (jobs.length === 0) continue;
      lane.queue = lane.queue.filter((j) => !gone(j));
      for (const job of jobs) this.#dropJob(job, error);
      dropped += jobs.length;
    }
    // In flight: it finishes on its own, but is not tried again.
    for (const job of this.#inFlight) if (gone(job)) this.#droppedInFlight.set(job, error);
    return dropped;
  }

  #dropJob(job: Job, error: unknown): void {
    if (job.kind === 'reply' && !job.claimed) job.done('dropped');
    // A post tried before with an unknown outcome may be there.
    else this.#fail(job, error, !(job.kind !== 'update' && job.unsure));
  }

  #enqueue(base: string, job: Job): void {
    const scope = this.#laneScope?.() ?? null;
    job.scope = scope;
    job.workspace = (scope && this.#laneWorkspace?.()) || null;
    const workspace = base === UPDATES ? job.workspace : null;
    const key = scope ? `${base}\u0001${scope}${workspace ? `\u0001${workspace}` : ''}` : base;
    // The job is sent in the async context it was queued from (a workspace's scope in many-workspace
    // mode, a trace span), not the lane's: one lane (edits) serves every channel.
    this.#contexts.set(job, new AsyncResource('SlackPacerJob'));
    let lane = this.#lanes.get(key);
    if (!lane) {
      lane = { queue: [], nextAt: 0, running: false };
      this.#lanes.set(key, lane);
    }
    lane.queue.push(job);
    if (!lane.running) {
      lane.running = true;
      const pump = this.#pump(key, lane).finally(() => {
        this.#pumps.delete(pump);
      });
      this.#pumps.add(pump);
    }
  }

  async #pump(key: string, lane: Lane): Promise<void> {
    try {
      // Let callers queue up what they have in this turn, so a burst is seen as a burst.
      await Promise.resolve();
      while (lane.queue.length > 0) {
        const wait = lane.nextAt - this.#now();
        if (wait > 0) await this.#sleep(wait);
        // Dropped while waiting (a dead token): nothing left to send.
        if (lane.queue.length === 0) break;
        const batch = this.#takeBatch(key, lane);
        const interval = isUpdates(key) ? this.#updateIntervalMs : this.#postIntervalMs;
        lane.nextAt = this.#now() + interval;
        for (const job of batch) this.#inFlight.add(job);
        const retry = await this.#run(batch).finally(() => {
          for (const job of batch) this.#inFlight.delete(job);
        });
        if (retry !== null) {
          const again = retry.jobs.filter((j) => !this.#droppedInFlight.has(j));
          for (const j of retry.jobs) if (!again.includes(j)) this.#dropJob(j, this.#droppedInFlight.get(j));
          lane.nextAt = Math.max(lane.nextAt, this.#now() + retry.waitMs);
          lane.queue.unshift(...again);
        }
      }
    } finally {
      lane.running = false;
      if (lane.queue.length === 0) this.#lanes.delete(key);
    }
  }

  /**
   * One job, or every waiting reply of the channel (of cards at the top level, or of cards in the first's
   * thread) when more than the threshold wait.
   */
  #takeBatch(key: string, lane: Lane): Job[] {
    const first = lane.queue[0]!;
    if (!isUpdates(key) && first.kind === 'reply') {
      const thread = digestThread(first);
      const replies = lane.queue.filter((j) => j.kind === 'reply' && digestThread(j) === thread);
      if (replies.length > this.#digestThreshold) {
        // A digest holds at most MAX_DIGEST_LINES so it always fits in one message.
        const taken = new Set<Job>(replies.slice(0, MAX_DIGEST_LINES));
        lane.queue = lane.queue.filter((j) => !taken.has(j));
        return [...taken];
      }
    }
    lane.queue.shift();
    return [first];
  }

  /** Runs a batch; returns the jobs to try again (and how long to wait) or null. */
  #run(batch: Job[]): Promise<{ jobs: Job[]; waitMs: number } | null> {
    const context = this.#contexts.get(batch[0]!);
    return context ? context.runInAsyncScope(() => this.#send(batch)) : this.#send(batch);
  }

  async #send(batch: Job[]): Promise<{ jobs: Job[]; waitMs: number } | null> {
    const first = batch[0]!;
    const method = first.kind === 'update' ? 'chat.update' : 'chat.postMessage';
    let live: Job[] = batch;
    try {
      if (first.kind === 'update') {
        await this.#transport.update(first.channel, first.ts, first.message);
        // Sent: record it before the lane takes the next edit (see UpdateOptions.record).
        await first.record?.().catch(() => {});
        first.done({ ok: true, value: undefined });
      } else if (first.kind === 'post') {
        const found = first.unsure
          ? await this.#readBack(first.channel, first.threadTs, null, first.firstSentAt, first.sentCheck)
          : null;
        if (found) {
          first.done({ ok: true, value: { channel: first.channel, ts: found } });
          return null;
        }
        first.firstSentAt ??= this.#now();
        const posted = await this.#transport.post(first.channel, first.message, first.threadTs ?? undefined);
        first.done({ ok: true, value: posted });
      } else {
        const toSend = await this.#claimReplies(batch as ReplyJob[]);
        live = toSend;
        await this.#sendReplies(toSend);
      }
      return null;
    } catch (err) {
      const readBack = err instanceof ReadBackError;
      const cause = readBack ? err.cause : err;
      const code = slackCallCode(cause) ?? 'unknown_error';
      this.#onError?.(readBack ? 'conversations.history' : method, code, cause);
      const limited = readBack ? null : retryAfterMs(cause);
      const unknown = readBack || isUnknownOutcome(cause);
      // Replies already settled while claiming (skipped, claim error, found) are out of it.
      live = live.filter((j) => j.kind !== 'reply' || (j.claimed && !j.settled));
      if (tokenStateOf({ error: cause }) === 'revoked') {
        // The installation's token is dead: nothing of it still queued may go out.
        const dropped = this.drop(first.scope, cause);
        if (dropped > 0) this.#onDropped?.(first.scope, dropped);
      }
      if (unknown) for (const j of live) if (j.kind !== 'update' && j.firstSentAt !== null) j.unsure = true;
      const again = live.filter((j) => {
        if (++j.attempts >= this.#maxAttempts) return false;
        if (j.kind === 'reply' && this.#now() - j.claimedAt > this.#claimedRetryWindowMs) return false;
        if (limited !== null) return true;
        if (!unknown) return false;
        // An edit is idempotent; a post only when Slack can be asked first whether it arrived.
        return j.kind === 'update' || this.#canReadBack(j);
      });
      for (const j of live) {
        if (again.includes(j)) continue;
        // A post given up after an unknown outcome: one last look tells not-sent from arrived.
        if (unknown && j.kind === 'post' && j.firstSentAt !== null && this.#canReadBack(j)) {
          const found = await this.#readBack(j.channel, j.threadTs, null, j.firstSentAt, j.sentCheck).catch(
            () => undefined,
          );
          if (found) j.done({ ok: true, value: { channel: j.channel, ts: found } });
          else this.#fail(j, cause, found === null);
        } else this.#fail(j, cause, !unknown);
      }
      if (again.length === 0) return null;
      const waitMs = limited ?? Math.min(30_000, 500 * 2 ** (again[0]!.attempts - 1));
      return { jobs: again, waitMs };
    }
  }

  #canReadBack(job: Job): boolean {
    if (!this.#transport.recent) return false;
    if (job.kind === 'post') return job.sentCheck !== null;
    return job.kind === 'reply' && job.request.sentCheck !== undefined;
  }

  /**
   * The ts of a message matching `check` in the thread (or top level), or null; `exclude` is the
   * message the reply belongs to (its card names the execution too). Throws ReadBackError.
   */
  async #readBack(
    channel: string,
    threadTs: string | null,
    exclude: string | null,
    firstSentAt: number | null,
    check: SentCheck | null,
  ): Promise<string | null> {
    if (!check || !this.#transport.recent) return null;
    const oldest = (firstSentAt ?? this.#now()) - READ_BACK_MARGIN_MS;
    let messages: SeenMessage[];
    try {
      messages = await this.#transport.recent(channel, threadTs, oldest);
    } catch (err) {
      throw new ReadBackError(err);
    }
    return messages.find((m) => m.ts !== threadTs && m.ts !== exclude && check(m))?.ts ?? null;
  }

  /**
   * Claims every unclaimed reply (each claim on its own: one that throws fails only its job), then
   * settles the claimed ones whose earlier send may have arrived by reading Slack back. Returns the
   * jobs still to send.
   */
  async #claimReplies(batch: ReplyJob[]): Promise<ReplyJob[]> {
    for (const job of batch) {
      if (job.claimed) continue;
      // The claim is the exactly-once gate: taken before the post, never twice for one job.
      let won: boolean;
      try {
        won = await job.request.claim();
      } catch {
        job.done('claim_error');
        continue;
      }
      if (won) {
        job.claimed = true;
        job.claimedAt = this.#now();
      } else job.done('skipped');
    }
    const toSend: ReplyJob[] = [];
    for (const job of batch.filter((j) => j.claimed)) {
      if (job.unsure) {
        const { channel, threadTs, sentCheck, cardTs } = job.request;
        // It may have left as a thread reply or as a digest line at the top level; of a card in a thread, both
        // in that thread (where the card, naming the run too, is not counted).
        const found =
          (threadTs
            ? await this.#readBack(channel, threadTs, cardTs ?? null, job.firstSentAt, sentCheck ?? null)
            : null) ??
          (cardTs ? null : await this.#readBack(channel, null, threadTs, job.firstSentAt, sentCheck ?? null));
        if (found) {
          job.done('sent');
          continue;
        }
      }
      toSend.push(job);
    }
    return toSend;
  }

  async #sendReplies(claimed: ReplyJob[]): Promise<void> {
    if (claimed.length === 0) return;
    const at = this.#now();
    for (const job of claimed) job.firstSentAt ??= at;
    if (claimed.length === 1) {
      const { channel, threadTs, message } = claimed[0]!.request;
      await this.#transport.post(channel, message, threadTs ?? undefined);
    } else {
      const channel = claimed[0]!.request.channel;
      const lines = claimed.map((j) => j.request.digestLine);
      const text = `${claimed.length} runs finished:\n${lines.join('\n')}`;
      await this.#transport.post(channel, { text }, digestThread(claimed[0]!) ?? undefined);
    }
    for (const job of claimed) job.done('sent');
  }

  /** `notSent`: this job surely did not arrive (see SendOutcome). */
  #fail(job: Job, err: unknown, notSent: boolean): void {
    if (job.kind === 'reply') job.done(job.claimed ? 'failed' : 'skipped');
    else job.done({ ok: false, code: slackCallCode(err), error: err, notSent });
  }
}
