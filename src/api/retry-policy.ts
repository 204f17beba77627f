// When a request may be repeated, and how long to wait. Pure functions, so the rules that keep a
// runbook from running twice are tested on their own.
//
// GET, DELETE and PATCH are repeated on transient failures: reading is harmless, deleting twice
// ends in the same state (a second DELETE may answer 404, which the caller sees), and a PATCH sets
// fields to given values, so applying it twice equals applying it once.
// POST (run a runbook, create a schedule) is repeated only when the server provably did not act:
// the connection was never made (refused, DNS, connect timeout), or the server answered 429 —
// grpc-gateway maps ResourceExhausted to 429 and a rate limiter refuses before the handler runs.
// Never on 5xx, timeouts or resets after the request was written.
import type { HttpMethod } from './errors.ts';

export const BACKOFF_BASE_MS = 200;
export const BACKOFF_FACTOR = 2;
export const BACKOFF_CAP_MS = 5_000;
export const RETRY_AFTER_CAP_MS = 30_000;

/** Errors raised before any byte of the request left this process. */
const CONNECT_PHASE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

export function isIdempotent(method: HttpMethod): boolean {
  return method !== 'POST';
}

function codesOf(err: unknown): string[] {
  if (typeof err !== 'object' || err === null) return [];
  const codes: string[] = [];
  const { code, cause, errors } = err as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string') codes.push(code);
  if (cause && cause !== err) codes.push(...codesOf(cause));
  // Happy-eyeballs connects fail with an AggregateError holding one error per address.
  if (Array.isArray(errors)) for (const inner of errors) codes.push(...codesOf(inner));
  return codes;
}

/** True when the error proves the request never reached the server. */
export function isConnectPhaseError(err: unknown): boolean {
  const codes = codesOf(err);
  return codes.length > 0 && codes.every((c) => CONNECT_PHASE_CODES.has(c));
}

/** First error code found on the error or its causes, for messages and logs. */
export function errorCode(err: unknown): string | null {
  return codesOf(err)[0] ?? null;
}

/** Whether a response with this status may be repeated for this method. */
export function isRetryableStatus(status: number, method: HttpMethod): boolean {
  if (status === 429) return true;
  if (status === 502 || status === 503 || status === 504) return isIdempotent(method);
  return false;
}

/** Whether a failure without a response may be repeated for this method. */
export function isRetryableFailure(kind: 'connect' | 'sent' | 'timeout', method: HttpMethod): boolean {
  return kind === 'connect' || isIdempotent(method);
}

/**
 * Retry-After in milliseconds: delta-seconds or an HTTP date, capped; null when absent or unreadable.
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return null;
  const text = raw.trim();
  if (text === '') return null;
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(text)) {
    ms = Math.round(Number(text) * 1000);
  } else {
    const date = Date.parse(text);
    if (Number.isNaN(date)) return null;
    ms = Math.max(0, date - nowMs);
  }
  return Math.min(ms, RETRY_AFTER_CAP_MS);
}

/** Exponential backoff with full jitter; `retry` counts from 1. */
export function backoffDelay(retry: number, random: () => number): number {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * BACKOFF_FACTOR ** (retry - 1));
  return Math.floor(random() * ceiling);
}
