import { describe, expect, it } from 'vitest';
import {
  type ApiErrorContext,
  BadRequestError,
  ConflictError,
  ConnectionError,
  describeApiError,
  errorFromHttpResponse,
  ForbiddenError,
  NotFoundError,
  PaginationError,
  RateLimitedError,
  RequestAbortedError,
  ResponseValidationError,
  RunbookApiError,
  ServerError,
  TimeoutError,
  UnauthorizedError,
} from '../../../src/api/errors.ts';

const TID = '1234-abcd';
const get = (path = '/v1alpha1/workflows/abc'): ApiErrorContext => ({ tid: TID, method: 'GET', path });
const run: ApiErrorContext = { tid: TID, method: 'POST', path: '/v1alpha1/workflows/abc/run' };
const create: ApiErrorContext = { tid: TID, method: 'POST', path: '/v1alpha1/schedules' };

describe('describeApiError', () => {
  it.each([
    [new NotFoundError({ ...get(), message: 'x', status: 404 }), 'The Runbook API could not find that runbook'],
    [
      new NotFoundError({ ...get('/v1alpha1/schedules/s1'), message: 'x', status: 404 }),
      'The Runbook API could not find that schedule',
    ],
    [
      new NotFoundError({ ...get('/v1alpha1/executions/e1'), message: 'x', status: 404 }),
      'The Runbook API could not find that execution',
    ],
    [
      new ConnectionError({ ...get(), message: 'refused', requestSent: false }),
      'The Runbook API is unreachable right now; try again in a minute',
    ],
    [
      new ConnectionError({ ...run, message: 'reset', requestSent: true }),
      'The connection to the Runbook API dropped; the run may still have started, so check recent executions before running it again',
    ],
    [
      new BadRequestError({ ...create, message: 'invalid cron expression "* *"', status: 400 }),
      'The Runbook API rejected the request: invalid cron expression "* *"; check the values and try again',
    ],
    [new UnauthorizedError({ ...get(), message: 'x', status: 401 }), 'RUNBOOK_API_KEY'],
    [new ForbiddenError({ ...get(), message: 'x', status: 403 }), 'not allowed'],
    [new ConflictError({ ...create, message: 'already exists', status: 409 }), 'conflict: already exists'],
    [
      new RateLimitedError({ ...get(), message: 'x', status: 429, retryAfterMs: 2500 }),
      'too many requests; try again in 3 seconds',
    ],
    [new RateLimitedError({ ...get(), message: 'x', status: 429 }), 'try again in a minute'],
    [new ServerError({ ...get(), message: 'x', status: 503 }), 'unavailable right now; try again in a minute'],
    [new ServerError({ ...run, message: 'x', status: 500 }), 'internal error; the run may still have started'],
    [new ServerError({ ...create, message: 'x', status: 502 }), 'the schedule may still have been created'],
    [
      new TimeoutError({ ...run, message: 'x', timeoutMs: 10 }),
      'did not answer in time; the run may still have started',
    ],
    [new TimeoutError({ ...get(), message: 'x', timeoutMs: 10 }), 'did not answer in time; try again in a minute'],
    [new ResponseValidationError({ ...get(), message: 'x', issues: 'y', status: 200 }), 'could not understand'],
    [new RequestAbortedError({ ...get(), message: 'x' }), 'was cancelled'],
    [new PaginationError({ ...get('/v1alpha1/workflows'), message: 'x' }), 'same list page'],
    [new RunbookApiError({ ...get(), message: 'HTTP 418', status: 418 }), 'answered with an error (HTTP 418)'],
  ])('%s', (err, expected) => {
    const sentence = describeApiError(err);
    expect(sentence).toContain(expected);
    expect(sentence.endsWith(`(request ${TID})`)).toBe(true);
    // One sentence, one line, no stack.
    expect(sentence).not.toMatch(/\n|\bat \w+ \(/);
  });

  it('omits the request suffix when no tid is known', () => {
    const err = new PaginationError({ tid: '', method: 'GET', path: '/v1alpha1/workflows', message: 'loop' });
    expect(describeApiError(err)).not.toContain('(request');
  });

  it('gives a generic sentence for anything else, without its message', () => {
    const sentence = describeApiError(new Error('secret internals at foo.ts:12'));
    expect(sentence).toMatch(/^Something went wrong while talking to the Runbook API/);
    expect(sentence).not.toContain('secret');
    expect(describeApiError('boom')).toMatch(/^Something went wrong/);
  });
});

describe('errorFromHttpResponse', () => {
  const base = { retryAfterMs: null, retryable: false, context: get() };

  it('reads rpcStatus message and code, with int32 as a string', () => {
    const err = errorFromHttpResponse({ ...base, status: 404, body: '{"code":"5","message":"workflow not found"}' });
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err).toMatchObject({ grpcCode: 5, message: 'workflow not found', status: 404, tid: TID });
  });

  it('falls back to the status line for JSON that is not an rpcStatus, or an empty body', () => {
    expect(errorFromHttpResponse({ ...base, status: 503, body: '{"error":{"x":1}}' }).message).toBe(
      'HTTP 503 Service Unavailable',
    );
    expect(errorFromHttpResponse({ ...base, status: 504, body: '' }).message).toBe(
      'HTTP 504 Gateway Timeout (empty body)',
    );
  });

  it('keeps a long or multi-line server message to one bounded line', () => {
    const err = errorFromHttpResponse({
      ...base,
      status: 400,
      body: JSON.stringify({ code: 3, message: `a\nb ${'x'.repeat(1000)}` }),
    });
    expect(err.message).not.toContain('\n');
    expect(err.message.length).toBeLessThanOrEqual(300);
  });

  it('carries retryable and retryAfterMs through', () => {
    const err = errorFromHttpResponse({ ...base, status: 429, body: '{}', retryable: true, retryAfterMs: 1500 });
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err).toMatchObject({ retryable: true, retryAfterMs: 1500 });
  });

  it('maps every 5xx to ServerError', () => {
    for (const status of [500, 501, 502, 503, 504, 599]) {
      expect(errorFromHttpResponse({ ...base, status, body: '' })).toBeInstanceOf(ServerError);
    }
  });
});
