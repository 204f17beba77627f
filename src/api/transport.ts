// The one request core of the client: URL and tid placement, headers, per-attempt timeout, caller
// aborts, retries with backoff, error mapping and schema parsing all live here, so the resource
// modules only build paths and pick schemas.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { type Logger, pino } from 'pino';
import { Agent, type Dispatcher, request } from 'undici';
import type { z } from 'zod';
import packageJson from '../../package.json' with { type: 'json' };
import { BodyTooLargeError, readBodyHead, readCappedBody } from './capped-body.ts';
import {
  type ApiErrorContext,
  ConnectionError,
  errorFromHttpResponse,
  type HttpMethod,
  RateLimitedError,
  RequestAbortedError,
  ResponseValidationError,
  RunbookApiError,
  TimeoutError,
} from './errors.ts';
import {
  backoffDelay,
  errorCode,
  isConnectPhaseError,
  isRetryableFailure,
  isRetryableStatus,
  parseRetryAfter,
} from './retry-policy.ts';
import type { CallOptions } from './runbook-api.ts';

export const USER_AGENT = `runbook-bot/${packageJson.version}`;

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  maxRetries: number;
  /**
   * Most bytes of a response body kept in memory (default 4 MiB). Beyond it, long strings (an
   * execution's output) keep only their tail and the result says so in `truncated`.
   */
  maxBodyBytes?: number;
  /** Injected dispatcher (not closed by `close()`); default: a keep-alive Agent owned here. */
  dispatcher?: Dispatcher;
  logger?: Logger;
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Clock for Retry-After HTTP dates. */
  now?: () => number;
  /** Told about every attempt once it has an answer or failed (metrics); must not throw. */
  onAttempt?: (attempt: AttemptRecord) => void;
  /**
   * Most attempts of this client in flight at once (unset: no cap). One over it waits up to
   * `inFlightWaitMs` for a slot, then fails as busy (RateLimitedError, not retried), so one client cannot
   * hold a shared pool's sockets.
   */
  maxInFlight?: number;
  inFlightWaitMs?: number;
}

export interface AttemptRecord {
  method: HttpMethod;
  path: string;
  /** HTTP status, or null when no response arrived (then `error` names the failure). */
  status: number | null;
  seconds: number;
  error: string | null;
}

export type QueryValue = string | number | boolean | undefined;

export interface RequestSpec<S extends z.ZodType> {
  method: HttpMethod;
  /** Path under the base URL, starting with /v1alpha1; ids already encoded. */
  path: string;
  query?: Record<string, QueryValue>;
  /** JSON body. For POST the transport adds `reqHdr: {tid}`. */
  body?: Record<string, unknown>;
  schema: S;
  call?: CallOptions;
}

export interface TransportResult<T> {
  data: T;
  /** The request tid that was sent. */
  tid: string;
  /**
   * Set when the body was over `maxBodyBytes`: each string that was cut, as it now appears in
   * `data` (its tail), → its length in characters before the cut.
   */
  truncated?: ReadonlyMap<string, number>;
}

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Error bodies are only summarised: this much is read, the rest dropped. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

export interface Transport {
  request<S extends z.ZodType>(spec: RequestSpec<S>): Promise<TransportResult<z.output<S>>>;
  close(): Promise<void>;
}

const defaultSleep = async (ms: number, signal?: AbortSignal): Promise<void> => {
  await delay(ms, undefined, { signal });
};

/** Compact zod issue list for error messages: `path: message; …`. */
function summarizeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const shown = issues.slice(0, 5).map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`);
  if (issues.length > shown.length) shown.push(`and ${issues.length - shown.length} more`);
  return shown.join('; ');
}

function buildQuery(query: Record<string, QueryValue>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    // Unset and empty values are left out: the server treats a missing parameter as its default.
    if (value === undefined || value === '') continue;
    params.append(key, String(value));
  }
  return params.toString();
}

/**
 * The keep-alive Agent a client owns by default (`connections` per origin, 32). Many-workspace mode builds
 * one with a larger cap and hands it to every installation's client: one pool per API address instead of
 * one per installation (a thousand pools' sockets and buffers cost memory).
 */
export function apiAgent(options: { timeoutMs: number; connections?: number }): Agent {
  return new Agent({
    keepAliveTimeout: 10_000,
    connections: options.connections ?? 32,
    connect: { timeout: options.timeoutMs },
  });
}

/**
 * A counting semaphore: `acquire` gives a release function, or false when no slot freed within `waitMs`
 * (or the signal aborted). Waiters are served first come, first served.
 */
function inFlightSlots(max: number) {
  let inUse = 0;
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else inUse--;
  };
  return {
    acquire(waitMs: number, signal?: AbortSignal): Promise<(() => void) | false> {
      if (inUse < max) {
        inUse++;
        return Promise.resolve(once(release));
      }
      return new Promise((resolve) => {
        const give = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', giveUp);
          resolve(once(release));
        };
        const giveUp = () => {
          const at = waiting.indexOf(give);
          if (at >= 0) waiting.splice(at, 1);
          clearTimeout(timer);
          signal?.removeEventListener('abort', giveUp);
          resolve(false);
        };
        const timer = setTimeout(giveUp, waitMs);
        signal?.addEventListener('abort', giveUp, { once: true });
        waiting.push(give);
      });
    },
  };
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (!done) {
      done = true;
      fn();
    }
  };
}

export function createTransport(options: TransportOptions): Transport {
  const base = new URL(options.baseUrl).toString().replace(/\/+$/, '');
  const ownsDispatcher = options.dispatcher === undefined;
  const dispatcher = options.dispatcher ?? apiAgent({ timeoutMs: options.timeoutMs });
  const log = options.logger ?? pino({ enabled: false });
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? defaultSleep;
  const now = options.now ?? Date.now;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const slots = options.maxInFlight ? inFlightSlots(options.maxInFlight) : null;
  const scrubKey = (text: string) =>
    options.apiKey.length >= 4 ? text.split(options.apiKey).join('[REDACTED]') : text;

  const aborted = (ctx: ApiErrorContext, reason: unknown) =>
    new RequestAbortedError({ ...ctx, message: 'request cancelled by the caller', cause: reason });

  /** Maps a failure without an HTTP response to its typed error. */
  function networkError(
    err: unknown,
    ctx: ApiErrorContext,
    timeoutMs: number,
    timeoutSignal: AbortSignal,
    callSignal?: AbortSignal,
  ) {
    if (callSignal?.aborted) return aborted(ctx, callSignal.reason);
    const code = errorCode(err);
    if (timeoutSignal.aborted || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
      return new TimeoutError({
        ...ctx,
        message: `no complete response within ${timeoutMs} ms`,
        timeoutMs,
        retryable: isRetryableFailure('timeout', ctx.method),
        cause: err,
      });
    }
    const requestSent = !isConnectPhaseError(err);
    const detail = err instanceof Error ? err.message : String(err);
    return new ConnectionError({
      ...ctx,
      message: `connection failed${code ? ` (${code})` : ''}: ${detail}`,
      requestSent,
      retryable: isRetryableFailure(requestSent ? 'sent' : 'connect', ctx.method),
      cause: err,
    });
  }

  async function attempt<S extends z.ZodType>(
    spec: RequestSpec<S>,
    url: string,
    body: string | undefined,
    ctx: ApiErrorContext,
    attemptNo: number,
  ): Promise<{ data: z.output<S>; truncated?: ReadonlyMap<string, number> }> {
    const timeoutMs = spec.call?.timeoutMs ?? options.timeoutMs;
    const callSignal = spec.call?.signal;
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': USER_AGENT,
      'x-service-api-key': options.apiKey,
    };
    if (body !== undefined) headers['content-type'] = 'application/json';

    const release = slots ? await slots.acquire(options.inFlightWaitMs ?? 1_000, callSignal) : null;
    if (release === false) {
      if (callSignal?.aborted) throw aborted(ctx, callSignal.reason);
      throw new RateLimitedError({
        ...ctx,
        message: `more than ${options.maxInFlight} requests of this client in flight`,
        status: null,
        retryable: false,
        retryAfterMs: 5_000,
      });
    }
    try {
      return await attemptSent(spec, url, body, ctx, attemptNo, headers, timeoutMs);
    } finally {
      release?.();
    }
  }

  async function attemptSent<S extends z.ZodType>(
    spec: RequestSpec<S>,
    url: string,
    body: string | undefined,
    ctx: ApiErrorContext,
    attemptNo: number,
    headers: Record<string, string>,
    timeoutMs: number,
  ): Promise<{ data: z.output<S>; truncated?: ReadonlyMap<string, number> }> {
    const callSignal = spec.call?.signal;
    const timeoutSignal = AbortSignal.timeout(timeoutMs);
    const signal = callSignal ? AbortSignal.any([callSignal, timeoutSignal]) : timeoutSignal;
    const started = performance.now();
    let status: number | null = null;
    let text: string;
    let truncated: ReadonlyMap<string, number> | undefined;
    let retryAfter: string | string[] | undefined;
    try {
      const response = await request(url, {
        dispatcher,
        method: spec.method,
        headers,
        body,
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      status = response.statusCode;
      retryAfter = response.headers['retry-after'];
      if (status < 200 || status >= 300) {
        text = await readBodyHead(response.body, MAX_ERROR_BODY_BYTES);
      } else {
        const body = await readCappedBody(response.body, maxBodyBytes);
        text = body.text;
        if (body.cut.size > 0) truncated = body.cut;
      }
    } catch (err) {
      if (err instanceof BodyTooLargeError) {
        throw new ResponseValidationError({
          ...ctx,
          status,
          message: `HTTP ${status} response is too large: ${err.message}`,
          issues: 'body too large',
        });
      }
      const mapped = networkError(err, ctx, timeoutMs, timeoutSignal, callSignal);
      options.onAttempt?.({
        method: ctx.method,
        path: ctx.path,
        status,
        seconds: (performance.now() - started) / 1000,
        error: mapped.name,
      });
      log.debug(
        {
          method: ctx.method,
          path: ctx.path,
          tid: ctx.tid,
          status,
          ms: Math.round(performance.now() - started),
          attempt: attemptNo,
          error: mapped.name,
        },
        'runbook api request failed',
      );
      throw mapped;
    }
    log.debug(
      {
        method: ctx.method,
        path: ctx.path,
        tid: ctx.tid,
        status,
        ms: Math.round(performance.now() - started),
        attempt: attemptNo,
        ...(truncated ? { truncatedStrings: truncated.size } : {}),
      },
      'runbook api request',
    );
    options.onAttempt?.({
      method: ctx.method,
      path: ctx.path,
      status,
      seconds: (performance.now() - started) / 1000,
      error: null,
    });

    if (status < 200 || status >= 300) {
      throw errorFromHttpResponse({
        status,
        // A server that echoes the request (headers included) must not leak the key into messages.
        body: scrubKey(text),
        retryAfterMs: parseRetryAfter(retryAfter, now()),
        retryable: isRetryableStatus(status, ctx.method),
        context: ctx,
      });
    }
    let json: unknown;
    try {
      // grpc-gateway answers `{}` for empty messages; tolerate a bare empty body the same way.
      json = text.trim() === '' ? {} : JSON.parse(text);
    } catch {
      throw new ResponseValidationError({
        ...ctx,
        status,
        message: `HTTP ${status} response is not JSON`,
        issues: 'body is not JSON',
      });
    }
    const parsed = spec.schema.safeParse(json);
    if (!parsed.success) {
      const issues = summarizeIssues(parsed.error.issues);
      throw new ResponseValidationError({
        ...ctx,
        status,
        message: `HTTP ${status} response does not match the expected shape: ${issues}`,
        issues,
      });
    }
    return truncated ? { data: parsed.data, truncated } : { data: parsed.data };
  }

  return {
    async request<S extends z.ZodType>(spec: RequestSpec<S>): Promise<TransportResult<z.output<S>>> {
      const call = spec.call ?? {};
      // One tid per call, kept across retries so the server and support can tie attempts together.
      const tid = call.tid ?? randomUUID();
      const ctx: ApiErrorContext = { tid, method: spec.method, path: spec.path };
      const isPost = spec.method === 'POST';
      const query = buildQuery(isPost ? (spec.query ?? {}) : { 'reqHdr.tid': tid, ...spec.query });
      const url = `${base}${spec.path}${query ? `?${query}` : ''}`;
      const body = isPost
        ? JSON.stringify({ reqHdr: { tid }, ...spec.body })
        : spec.body === undefined
          ? undefined
          : JSON.stringify(spec.body);

      for (let attemptNo = 1; ; attemptNo++) {
        if (call.signal?.aborted) throw aborted(ctx, call.signal.reason);
        try {
          const { data, truncated } = await attempt(spec, url, body, ctx, attemptNo);
          return truncated ? { data, tid, truncated } : { data, tid };
        } catch (err) {
          if (!(err instanceof RunbookApiError) || !err.retryable || attemptNo > options.maxRetries) throw err;
          const delayMs = err.retryAfterMs ?? backoffDelay(attemptNo, random);
          log.warn(
            {
              method: ctx.method,
              path: ctx.path,
              tid,
              attempt: attemptNo,
              status: err.status,
              reason: err.message,
              delayMs,
            },
            'runbook api request failed; retrying',
          );
          try {
            await sleep(delayMs, call.signal);
          } catch (sleepErr) {
            throw aborted(ctx, call.signal?.reason ?? sleepErr);
          }
        }
      }
    },
    async close() {
      if (ownsDispatcher) await dispatcher.close();
    },
  };
}
