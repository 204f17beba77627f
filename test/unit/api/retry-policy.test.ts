import { describe, expect, it } from 'vitest';
import {
  BACKOFF_CAP_MS,
  backoffDelay,
  isConnectPhaseError,
  isRetryableFailure,
  isRetryableStatus,
  parseRetryAfter,
  RETRY_AFTER_CAP_MS,
} from '../../../src/api/retry-policy.ts';

const coded = (code: string) => Object.assign(new Error(code), { code });

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-06-01T12:00:00Z');
  it.each([
    [undefined, null],
    ['', null],
    ['soon', null],
    ['0', 0],
    ['3', 3000],
    ['1.5', 1500],
    ['120', RETRY_AFTER_CAP_MS],
    ['Sun, 01 Jun 2025 12:00:10 GMT', 10_000],
    ['Sun, 01 Jun 2025 11:59:00 GMT', 0],
    [['4', '9'], 4000],
  ])('%j → %j', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});

describe('backoffDelay', () => {
  it('doubles from 200 ms and caps at 5 s, scaled by the jitter draw', () => {
    const top = (retry: number) => backoffDelay(retry, () => 0.9999999);
    expect([1, 2, 3, 4, 5, 6, 10].map(top)).toEqual([199, 399, 799, 1599, 3199, 4999, 4999]);
    expect(backoffDelay(3, () => 0)).toBe(0);
    expect(backoffDelay(30, () => 0.5)).toBe(BACKOFF_CAP_MS / 2);
  });
});

describe('isConnectPhaseError', () => {
  it('accepts only errors raised before the request was written', () => {
    for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']) {
      expect(isConnectPhaseError(coded(code))).toBe(true);
    }
    for (const code of ['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE', 'UND_ERR_HEADERS_TIMEOUT']) {
      expect(isConnectPhaseError(coded(code))).toBe(false);
    }
    expect(isConnectPhaseError(new Error('no code'))).toBe(false);
    expect(isConnectPhaseError(null)).toBe(false);
  });

  it('looks into causes and AggregateErrors, and needs every inner error to be connect-phase', () => {
    expect(isConnectPhaseError(new Error('wrapped', { cause: coded('ECONNREFUSED') }))).toBe(true);
    expect(isConnectPhaseError(new AggregateError([coded('ECONNREFUSED'), coded('ENETUNREACH')]))).toBe(true);
    expect(isConnectPhaseError(new AggregateError([coded('ECONNREFUSED'), coded('ECONNRESET')]))).toBe(false);
  });
});

describe('retry decisions', () => {
  it('retries transient statuses only for idempotent methods, 429 for all', () => {
    expect(isRetryableStatus(503, 'GET')).toBe(true);
    expect(isRetryableStatus(502, 'DELETE')).toBe(true);
    expect(isRetryableStatus(504, 'PATCH')).toBe(true);
    expect(isRetryableStatus(503, 'POST')).toBe(false);
    expect(isRetryableStatus(500, 'GET')).toBe(false);
    expect(isRetryableStatus(404, 'GET')).toBe(false);
    expect(isRetryableStatus(429, 'POST')).toBe(true);
  });

  it('retries POST failures only before the request was sent', () => {
    expect(isRetryableFailure('connect', 'POST')).toBe(true);
    expect(isRetryableFailure('sent', 'POST')).toBe(false);
    expect(isRetryableFailure('timeout', 'POST')).toBe(false);
    expect(isRetryableFailure('sent', 'GET')).toBe(true);
    expect(isRetryableFailure('timeout', 'DELETE')).toBe(true);
  });
});
