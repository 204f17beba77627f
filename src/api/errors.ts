// Typed errors of the Runbook API client. Every error carries the request tid (for support) and
// the method and path (never the query's user input, never the API key), and says whether repeating
// the same request is both safe and worthwhile (`retryable`). `describeApiError` turns any of them
// into the one sentence a user sees.
import { STATUS_CODES } from 'node:http';
import { RpcStatus } from './schemas.ts';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface ApiErrorContext {
  /** The request tid sent as reqHdr.tid (the same on every attempt of one call). */
  tid: string;
  method: HttpMethod;
  /** Path without the query string. */
  path: string;
}

export interface ApiErrorInit extends ApiErrorContext {
  message: string;
  status?: number | null;
  grpcCode?: number | null;
  retryable?: boolean;
  retryAfterMs?: number | null;
  cause?: unknown;
}

export class RunbookApiError extends Error {
  /** HTTP status, or null when no response arrived. */
  readonly status: number | null;
  /** gRPC code from an rpcStatus body, when the server sent one. */
  readonly grpcCode: number | null;
  readonly tid: string;
  readonly method: HttpMethod;
  readonly path: string;
  /** True when repeating this same request is safe (no second run) and may succeed. */
  readonly retryable: boolean;
  /** Delay the server asked for (Retry-After), when it sent one. */
  readonly retryAfterMs: number | null;

  constructor(init: ApiErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'RunbookApiError';
    this.status = init.status ?? null;
    this.grpcCode = init.grpcCode ?? null;
    this.tid = init.tid;
    this.method = init.method;
    this.path = init.path;
    this.retryable = init.retryable ?? false;
    this.retryAfterMs = init.retryAfterMs ?? null;
  }
}

export class BadRequestError extends RunbookApiError {
  constructor(init: ApiErrorInit) {
    super(init);
    this.name = 'BadRequestError';
  }
}

export class UnauthorizedError extends RunbookApiError {
  constructor(init: ApiErrorInit) {
    super(init);
    this.name = 'UnauthorizedError';
  }
}

export class ForbiddenError extends RunbookApiError {
  constructor(init: ApiErrorInit) {
    super(init);
    this.name = 'ForbiddenError';
  }
}

export class NotFoundError extends RunbookApiError {
  constructor(init: ApiErrorInit) {
    super(init);
    this.name = 'NotFoundError';
  }
}

export class ConflictError extends RunbookApiError {
  constructor(init: ApiErrorInit) {
    super(init);
    this.name = 'ConflictError';
  }
}

export class RateLimitedError extends RunbookApiError {
  constructor(init: ApiErrorInit) {
    super(init);
    this.name = 'RateLimitedError';
  }
}

/** Any 5xx. */
export class ServerError extends RunbookApiError {
  constructor(init: ApiErrorInit) {
    super(init);
    this.name = 'ServerError';
  }
}

/** No HTTP response: refused, unresolvable, reset, closed. */
export class ConnectionError extends RunbookApiError {
  /** False only when the request provably never reached the server (refused, DNS, connect timeout). */
  readonly requestSent: boolean;
  constructor(init: ApiErrorInit & { requestSent: boolean }) {
    super(init);
    this.name = 'ConnectionError';
    this.requestSent = init.requestSent;
  }
}

/** The per-request timeout elapsed after the request may have been sent. */
export class TimeoutError extends RunbookApiError {
  readonly timeoutMs: number;
  constructor(init: ApiErrorInit & { timeoutMs: number }) {
    super(init);
    this.name = 'TimeoutError';
    this.timeoutMs = init.timeoutMs;
  }
}

/** A response (2xx) that is not JSON or does not match its schema. */
export class ResponseValidationError extends RunbookApiError {
  /** Short zod issue summary, e.g. `workflows.0.tags: expected array`. */
  readonly issues: string;
  constructor(init: ApiErrorInit & { issues: string }) {
    super(init);
    this.name = 'ResponseValidationError';
    this.issues = init.issues;
  }
}

/**
 * The caller's AbortSignal fired. Named 'AbortError' so code that checks `err.name === 'AbortError'`
 * keeps working; the signal's reason is the `cause`.
 */
export class RequestAbortedError extends RunbookApiError {
  constructor(init: ApiErrorInit) {
    super(init);
    this.name = 'AbortError';
  }
}

/** Pagination stopped: the server repeated a page token or exceeded the page limit. */
export class PaginationError extends RunbookApiError {
  constructor(init: ApiErrorInit) {
    super(init);
    this.name = 'PaginationError';
  }
}

/**
 * An id that cannot be a path segment (".", "", "a/b", control characters…). Raised before any
 * request is made, so there is no tid; `path` is the collection the id was meant for.
 */
export class InvalidIdError extends RunbookApiError {
  readonly kind: 'runbook' | 'execution' | 'schedule';
  /** The refused id, at most 60 characters, for logs. */
  readonly id: string;
  constructor(init: { kind: InvalidIdError['kind']; id: string; method: HttpMethod; path: string }) {
    super({
      tid: '',
      method: init.method,
      path: init.path,
      message: `not a valid ${init.kind} id: ${JSON.stringify(init.id.slice(0, 60))}`,
    });
    this.name = 'InvalidIdError';
    this.kind = init.kind;
    this.id = init.id.slice(0, 60);
  }
}

const MAX_SERVER_MESSAGE = 300;

/** One line, bounded: a server message is quoted to users and logs, never dumped. */
function tidyMessage(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_SERVER_MESSAGE ? `${line.slice(0, MAX_SERVER_MESSAGE - 1)}…` : line;
}

function statusLine(status: number): string {
  const reason = STATUS_CODES[status];
  return reason ? `HTTP ${status} ${reason}` : `HTTP ${status}`;
}

export interface HttpErrorInput {
  status: number;
  /** Raw response body text. */
  body: string;
  retryAfterMs: number | null;
  /** Decided by the retry policy (retry-policy.ts) from the status and the method. */
  retryable: boolean;
  context: ApiErrorContext;
}

/** Maps a non-2xx response to its typed error, reading a grpc-gateway rpcStatus body when present. */
export function errorFromHttpResponse(input: HttpErrorInput): RunbookApiError {
  const { status, body, context } = input;
  let message = statusLine(status);
  let grpcCode: number | null = null;
  let json: unknown;
  let isJson = false;
  try {
    json = JSON.parse(body);
    isJson = true;
  } catch {
    // Not JSON (an HTML page from a proxy, an empty body): never quote it.
  }
  if (!isJson) {
    message = body.trim() === '' ? `${message} (empty body)` : `${message} (non-JSON body)`;
  } else {
    const rpc = RpcStatus.safeParse(json);
    if (rpc.success) {
      if (rpc.data.message) message = tidyMessage(rpc.data.message);
      // code 0 (OK) on an error response means "not set".
      if (rpc.data.code !== 0) grpcCode = rpc.data.code;
    }
  }
  const init: ApiErrorInit = {
    ...context,
    message,
    status,
    grpcCode,
    retryAfterMs: input.retryAfterMs,
    retryable: input.retryable,
  };
  switch (status) {
    case 400:
      return new BadRequestError(init);
    case 401:
      return new UnauthorizedError(init);
    case 403:
      return new ForbiddenError(init);
    case 404:
      return new NotFoundError(init);
    case 409:
      return new ConflictError(init);
    case 429:
      return new RateLimitedError(init);
  }
  if (status >= 500) return new ServerError(init);
  return new RunbookApiError(init);
}

function resourceNoun(path: string): string {
  if (path.includes('/schedules')) return 'schedule';
  if (path.includes('/executions')) return 'execution';
  if (path.includes('/workflows')) return 'runbook';
  return 'item';
}

function isRun(err: RunbookApiError): boolean {
  return err.method === 'POST' && err.path.endsWith('/run');
}

/** The sentence without the request id, per error kind. */
function sentenceFor(err: RunbookApiError): string {
  const noun = resourceNoun(err.path);
  // A POST may have been acted on; tell the user to look before repeating it.
  const checkFirst = isRun(err)
    ? 'the run may still have started, so check recent executions before running it again'
    : err.method === 'POST'
      ? `the ${noun} may still have been created, so check the list before trying again`
      : 'try again in a minute';
  if (err instanceof RequestAbortedError) return 'The request to the Runbook API was cancelled';
  if (err instanceof InvalidIdError) {
    // The id is not quoted back: it came from a person and may hold anything.
    const example = err.kind === 'execution' ? '; copy it from `/runbook executions`' : '';
    return `That is not a valid ${err.kind} id (an id has no spaces and is not "." or "..")${example}`;
  }
  if (err instanceof TimeoutError) return `The Runbook API did not answer in time; ${checkFirst}`;
  if (err instanceof ConnectionError) {
    if (!err.requestSent || err.method !== 'POST') {
      return 'The Runbook API is unreachable right now; try again in a minute';
    }
    return `The connection to the Runbook API dropped; ${checkFirst}`;
  }
  if (err instanceof ResponseValidationError) {
    return 'The Runbook API sent a response the bot could not understand; please report this to the bot admins';
  }
  if (err instanceof PaginationError) {
    return 'The Runbook API kept returning the same list page; try again later or narrow the search';
  }
  if (err instanceof NotFoundError) return `The Runbook API could not find that ${noun}; it may have been deleted`;
  if (err instanceof UnauthorizedError) {
    return 'The Runbook API did not accept the bot’s API key; ask an admin to check RUNBOOK_API_KEY';
  }
  if (err instanceof ForbiddenError) {
    return 'The bot’s Runbook API key is not allowed to do that; ask an admin for access';
  }
  if (err instanceof BadRequestError) {
    return `The Runbook API rejected the request: ${err.message}; check the values and try again`;
  }
  if (err instanceof ConflictError) {
    return `The Runbook API reported a conflict: ${err.message}; refresh and try again`;
  }
  if (err instanceof RateLimitedError) {
    const wait =
      err.retryAfterMs && err.retryAfterMs > 0 ? `${Math.ceil(err.retryAfterMs / 1000)} seconds` : 'a minute';
    return `The Runbook API is receiving too many requests; try again in ${wait}`;
  }
  if (err instanceof ServerError) {
    if (err.status === 502 || err.status === 503 || err.status === 504) {
      return err.method === 'POST'
        ? `The Runbook API is unavailable right now; ${checkFirst}`
        : 'The Runbook API is unavailable right now; try again in a minute';
    }
    return `The Runbook API had an internal error; ${checkFirst}`;
  }
  return `The Runbook API answered with an error (${err.message}); try again, and tell the bot admins if it keeps happening`;
}

/**
 * One user-facing sentence: what happened and what to do, ending with `(request <tid>)` when a tid
 * is known. Never a stack trace, never a header value.
 */
export function describeApiError(err: unknown): string {
  if (err instanceof RunbookApiError) {
    const sentence = sentenceFor(err);
    return err.tid ? `${sentence} (request ${err.tid})` : sentence;
  }
  return 'Something went wrong while talking to the Runbook API; try again, and tell the bot admins if it keeps happening';
}
