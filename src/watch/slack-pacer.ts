// Every Slack call the watcher makes goes through here, so a burst of finished runs never floods a
// channel or trips Slack's limits:
// - posts (thread replies, new messages) go through one lane per channel, at most one per
//   `postIntervalMs` (Slack allows about one message per second per channel);
// - edits (chat.update) go through one shared lane at `updateIntervalMs` (a per-workspace method limit);
// - when more than `digestThreshold` replies wait in a channel's lane, they leave as ONE digest
//   message instead of N thread replies;
// - a rate-limited answer (WebClient with rejectRateLimitedCalls) pauses that lane for Retry-After and
//   the job is tried again; 5xx/network errors back off and retry a few times.
// The clock and sleep are injected: unit tests run whole bursts in virtual time.

export interface OutgoingMessage {
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: Block Kit blocks pass through untouched
  blocks?: any[];
}

export interface PacerTransport {
  post(channel: string, message: OutgoingMessage, threadTs?: string): Promise<{ channel: string; ts: string }>;
  update(channel: string, ts: string, message: OutgoingMessage): Promise<void>;
}

export interface ReplyRequest {
  channel: string;
  /** Thread to reply in; null → a top-level message. */
  threadTs: string | null;
  /** The reply on its own. */
  message: OutgoingMessage;
  /** The same news as one line of a digest. */
  digestLine: string;
  /**
   * Called right before the reply (or the digest holding it) is sent; false → someone else already
   * sent it, skip. The claim is taken once: a retried send does not claim again.
   */
  claim(): Promise<boolean>;
}

export type ReplyOutcome = 'sent' | 'skipped' | 'failed';
export type SendOutcome<T> = { ok: true; value: T } | { ok: false; code: string | null; error: unknown };

export interface SlackPacerOptions {
  transport: PacerTransport;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  postIntervalMs?: number;
  updateIntervalMs?: number;
  digestThreshold?: number;
  /** Attempts per job for rate limits and transient errors (default 5). */
  maxAttempts?: number;
  /** Observes every failed Slack call (metrics, logs). */
  onError?: (method: string, code: string, error: unknown) => void;
}

type Job =
  | {
      kind: 'update';
      channel: string;
      ts: string;
      message: OutgoingMessage;
      attempts: number;
      done: (o: SendOutcome<void>) => void;
    }
  | {
      kind: 'post';
      channel: string;
      message: OutgoingMessage;
      attempts: number;
      done: (o: SendOutcome<{ channel: string; ts: string }>) => void;
    }
  | { kind: 'reply'; request: ReplyRequest; claimed: boolean; attempts: number; done: (o: ReplyOutcome) => void };

interface Lane {
  queue: Job[];
  nextAt: number;
  running: boolean;
}

const UPDATES = '\u0000updates';
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

function isTransient(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'slack_webapi_http_error' || code === 'slack_webapi_request_error';
}

export class SlackPacer {
  readonly #transport: PacerTransport;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #postIntervalMs: number;
  readonly #updateIntervalMs: number;
  readonly #digestThreshold: number;
  readonly #maxAttempts: number;
  readonly #onError: SlackPacerOptions['onError'];
  readonly #lanes = new Map<string, Lane>();
  readonly #pumps = new Set<Promise<void>>();

  constructor(options: SlackPacerOptions) {
    this.#transport = options.transport;
    this.#now = options.now;
    this.#sleep = options.sleep;
    this.#postIntervalMs = options.postIntervalMs ?? 1_000;
    this.#updateIntervalMs = options.updateIntervalMs ?? 1_000;
    this.#digestThreshold = options.digestThreshold ?? 3;
    this.#maxAttempts = options.maxAttempts ?? 5;
    this.#onError = options.onError;
  }

  /** Edits a message in place (idempotent on Slack's side). */
  update(channel: string, ts: string, message: OutgoingMessage): Promise<SendOutcome<void>> {
    return new Promise((done) => this.#enqueue(UPDATES, { kind: 'update', channel, ts, message, attempts: 0, done }));
  }

  /** Posts a new top-level message (never coalesced: the caller needs its ts). */
  post(channel: string, message: OutgoingMessage): Promise<SendOutcome<{ channel: string; ts: string }>> {
    return new Promise((done) => this.#enqueue(channel, { kind: 'post', channel, message, attempts: 0, done }));
  }

  /** Sends a short notice once (see ReplyRequest.claim); may be merged into a digest. */
  reply(request: ReplyRequest): Promise<ReplyOutcome> {
    return new Promise((done) =>
      this.#enqueue(request.channel, { kind: 'reply', request, claimed: false, attempts: 0, done }),
    );
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

  #enqueue(key: string, job: Job): void {
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
        const batch = this.#takeBatch(key, lane);
        const interval = key === UPDATES ? this.#updateIntervalMs : this.#postIntervalMs;
        lane.nextAt = this.#now() + interval;
        const retry = await this.#run(batch);
        if (retry !== null) {
          lane.nextAt = Math.max(lane.nextAt, this.#now() + retry.waitMs);
          lane.queue.unshift(...retry.jobs);
        }
      }
    } finally {
      lane.running = false;
      if (lane.queue.length === 0) this.#lanes.delete(key);
    }
  }

  /** One job, or every waiting reply of the channel when more than the threshold wait. */
  #takeBatch(key: string, lane: Lane): Job[] {
    const first = lane.queue[0]!;
    if (key !== UPDATES && first.kind === 'reply') {
      const replies = lane.queue.filter((j) => j.kind === 'reply');
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
  async #run(batch: Job[]): Promise<{ jobs: Job[]; waitMs: number } | null> {
    const first = batch[0]!;
    const method = first.kind === 'update' ? 'chat.update' : 'chat.postMessage';
    try {
      if (first.kind === 'update') {
        await this.#transport.update(first.channel, first.ts, first.message);
        first.done({ ok: true, value: undefined });
      } else if (first.kind === 'post') {
        first.done({ ok: true, value: await this.#transport.post(first.channel, first.message) });
      } else {
        await this.#sendReplies(batch as Array<Extract<Job, { kind: 'reply' }>>);
      }
      return null;
    } catch (err) {
      const code = slackCallCode(err) ?? 'unknown_error';
      this.#onError?.(method, code, err);
      const limited = retryAfterMs(err);
      const waiting = batch.filter((j) => j.kind !== 'reply' || j.claimed);
      const again = waiting.filter((j) => ++j.attempts < this.#maxAttempts);
      if ((limited !== null || isTransient(err)) && again.length > 0) {
        for (const j of batch) if (!again.includes(j)) this.#fail(j, err);
        const waitMs = limited ?? Math.min(30_000, 500 * 2 ** (again[0]!.attempts - 1));
        return { jobs: again, waitMs };
      }
      for (const j of batch) this.#fail(j, err);
      return null;
    }
  }

  async #sendReplies(batch: Array<Extract<Job, { kind: 'reply' }>>): Promise<void> {
    for (const job of batch) {
      if (job.claimed) continue;
      // The claim is the exactly-once gate: taken before the post, never twice for one job.
      if (await job.request.claim()) job.claimed = true;
      else job.done('skipped');
    }
    const claimed = batch.filter((j) => j.claimed);
    if (claimed.length === 0) return;
    if (claimed.length === 1) {
      const { channel, threadTs, message } = claimed[0]!.request;
      await this.#transport.post(channel, message, threadTs ?? undefined);
    } else {
      const channel = claimed[0]!.request.channel;
      const lines = claimed.map((j) => j.request.digestLine);
      const text = `${claimed.length} runs finished:\n${lines.join('\n')}`;
      await this.#transport.post(channel, { text });
    }
    for (const job of claimed) job.done('sent');
  }

  #fail(job: Job, err: unknown): void {
    if (job.kind === 'reply') job.done(job.claimed ? 'failed' : 'skipped');
    else job.done({ ok: false, code: slackCallCode(err), error: err });
  }
}
