// Retries, timeouts, aborts and error mapping of the request core, driven through the public client.
import { once } from 'node:events';
import { createServer } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createRunbookApi } from '../../../src/api/client.ts';
import {
  BadRequestError,
  ConflictError,
  ConnectionError,
  describeApiError,
  ForbiddenError,
  NotFoundError,
  RateLimitedError,
  RequestAbortedError,
  ResponseValidationError,
  RunbookApiError,
  ServerError,
  TimeoutError,
  UnauthorizedError,
} from '../../../src/api/errors.ts';
import {
  API_KEY,
  JSON_HEADERS,
  type MockApi,
  respHdr,
  scheduleJson,
  UUID,
  useMockApis,
  workflowJson,
} from './mock-api.ts';

const setup = useMockApis();
let m: MockApi;

const WF = '/v1alpha1/workflows/abc';
const RUN = '/v1alpha1/workflows/abc/run';
const okWorkflow = { respHdr: respHdr(), workflow: workflowJson() };
const okRun = { respHdr: respHdr(), executionIds: ['e-1'] };
const unavailable = { code: 14, message: 'upstream unavailable', details: [] };
const errorWithCode = (code: string, message = code) => Object.assign(new Error(message), { code });

async function rejection(promise: Promise<unknown>): Promise<RunbookApiError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof RunbookApiError) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}

describe('retries of idempotent requests', () => {
  it('retries a GET after 503 and succeeds, with full-jitter backoff', async () => {
    m = setup({ random: () => 0.5 });
    m.intercept('GET', WF).reply(503, unavailable);
    m.intercept('GET', WF).reply(200, okWorkflow);
    const result = await m.api.workflows.get('abc');
    expect(result.workflow.name).toBe('Restart pods');
    expect(m.calls()).toHaveLength(2);
    expect(m.sleeps).toEqual([100]);
  });

  it('backs off exponentially with a cap and keeps one tid across attempts', async () => {
    m = setup({ random: () => 0.999999, maxRetries: 6 });
    for (let i = 0; i < 6; i++) m.intercept('GET', WF).reply(502, 'bad gateway');
    m.intercept('GET', WF).reply(200, okWorkflow);
    await m.api.workflows.get('abc', {}, { tid: 'same-tid' });
    expect(m.sleeps).toEqual([199, 399, 799, 1599, 3199, 4999]);
    expect(new Set(m.calls().map((c) => c.searchParams['reqHdr.tid']))).toEqual(new Set(['same-tid']));
  });

  it('honours Retry-After in seconds', async () => {
    m = setup();
    m.intercept('GET', WF).reply(503, unavailable, { headers: { 'retry-after': '2' } });
    m.intercept('GET', WF).reply(200, okWorkflow);
    await m.api.workflows.get('abc');
    expect(m.sleeps).toEqual([2000]);
  });

  it('honours Retry-After as an HTTP date, against the injected clock', async () => {
    const now = Date.parse('2025-06-01T12:00:00Z');
    m = setup({ now: () => now });
    m.intercept('GET', WF).reply(
      429,
      { code: 8, message: 'slow down' },
      {
        headers: { 'retry-after': 'Sun, 01 Jun 2025 12:00:07 GMT' },
      },
    );
    m.intercept('GET', WF).reply(200, okWorkflow);
    await m.api.workflows.get('abc');
    expect(m.sleeps).toEqual([7000]);
  });

  it('caps a long Retry-After at 30 seconds', async () => {
    m = setup();
    m.intercept('GET', WF).reply(503, unavailable, { headers: { 'retry-after': '3600' } });
    m.intercept('GET', WF).reply(200, okWorkflow);
    await m.api.workflows.get('abc');
    expect(m.sleeps).toEqual([30_000]);
  });

  it('gives up after maxRetries with a ServerError carrying the tid', async () => {
    m = setup({ maxRetries: 2 });
    for (let i = 0; i < 3; i++) m.intercept('GET', WF).reply(503, unavailable);
    const err = await rejection(m.api.workflows.get('abc', {}, { tid: 'tid-503' }));
    expect(err).toBeInstanceOf(ServerError);
    expect(err).toMatchObject({
      status: 503,
      grpcCode: 14,
      tid: 'tid-503',
      message: 'upstream unavailable',
      retryable: true,
    });
    expect(m.calls()).toHaveLength(3);
    expect(m.sleeps).toHaveLength(2);
  });

  it('does not retry a 500 (a bug, not a blip)', async () => {
    m = setup();
    m.intercept('GET', WF).reply(500, { code: 13, message: 'boom' });
    const err = await rejection(m.api.workflows.get('abc'));
    expect(err).toBeInstanceOf(ServerError);
    expect(err.retryable).toBe(false);
    expect(m.calls()).toHaveLength(1);
  });

  it('retries GET on a reset connection and on a timeout', async () => {
    m = setup({ timeoutMs: 30 });
    m.intercept('GET', WF).replyWithError(errorWithCode('ECONNRESET', 'read ECONNRESET'));
    m.intercept('GET', WF).reply(200, okWorkflow).delay(2_000);
    m.intercept('GET', WF).reply(200, okWorkflow);
    await m.api.workflows.get('abc');
    expect(m.calls()).toHaveLength(3);
    expect(m.sleeps).toHaveLength(2);
  });

  it('retries DELETE and PATCH on 503', async () => {
    m = setup();
    const path = `/v1alpha1/schedules/s1`;
    m.intercept('DELETE', path).reply(503, unavailable);
    m.intercept('DELETE', path).reply(200, { respHdr: respHdr() });
    m.intercept('PATCH', path).reply(504, 'gateway timeout');
    m.intercept('PATCH', path).reply(200, { respHdr: respHdr(), schedule: scheduleJson() });
    await m.api.schedules.delete('s1');
    await m.api.schedules.update('s1', { schedule: '0 6 * * *' });
    expect(m.calls().map((c) => c.method)).toEqual(['DELETE', 'DELETE', 'PATCH', 'PATCH']);
  });

  it('retries a 429 GET and surfaces RateLimitedError with retryAfterMs when exhausted', async () => {
    m = setup({ maxRetries: 1 });
    m.intercept('GET', WF).reply(429, { code: 8, message: 'quota' }, { headers: { 'retry-after': '4' } });
    m.intercept('GET', WF).reply(429, { code: 8, message: 'quota' }, { headers: { 'retry-after': '5' } });
    const err = await rejection(m.api.workflows.get('abc'));
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err).toMatchObject({ status: 429, grpcCode: 8, retryAfterMs: 5000 });
    expect(m.sleeps).toEqual([4000]);
  });
});

describe('a run is never repeated unless it provably never reached the server', () => {
  it('does not retry a run on 503', async () => {
    m = setup();
    m.intercept('POST', RUN).reply(503, unavailable);
    const err = await rejection(m.api.workflows.run('abc', { proxyId: 'p' }));
    expect(err).toBeInstanceOf(ServerError);
    expect(err.retryable).toBe(false);
    expect(m.calls()).toHaveLength(1);
    expect(m.sleeps).toEqual([]);
  });

  it('does not retry a schedule create on 502', async () => {
    m = setup();
    m.intercept('POST', '/v1alpha1/schedules').reply(502, '<html>bad gateway</html>');
    await expect(m.api.schedules.create({ schedule: '0 5 * * *' })).rejects.toBeInstanceOf(ServerError);
    expect(m.calls()).toHaveLength(1);
  });

  it('does not retry a run on timeout', async () => {
    m = setup({ timeoutMs: 20 });
    m.intercept('POST', RUN).reply(200, okRun).delay(2_000);
    const err = await rejection(m.api.workflows.run('abc', { proxyId: 'p' }, { tid: 'run-timeout' }));
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({ tid: 'run-timeout', status: null, retryable: false, timeoutMs: 20 });
    expect(m.calls()).toHaveLength(1);
  });

  it('honours a per-call timeout override', async () => {
    m = setup({ timeoutMs: 60_000, maxRetries: 1 });
    m.intercept('GET', WF).reply(200, okWorkflow).delay(2_000);
    m.intercept('GET', WF).reply(200, okWorkflow).delay(2_000);
    const err = await rejection(m.api.workflows.get('abc', {}, { timeoutMs: 20 }));
    expect(err).toBeInstanceOf(TimeoutError);
    expect(m.sleeps).toHaveLength(1);
  });

  it.each(['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE'])('does not retry a run on %s after sending', async (code) => {
    m = setup();
    m.intercept('POST', RUN).replyWithError(errorWithCode(code, 'other side closed'));
    const err = await rejection(m.api.workflows.run('abc', { proxyId: 'p' }));
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err).toMatchObject({ requestSent: true, retryable: false });
    expect(m.calls()).toHaveLength(1);
  });

  it.each(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT'])(
    'retries a run on %s and keeps the tid',
    async (code) => {
      m = setup();
      m.intercept('POST', RUN).replyWithError(errorWithCode(code, `connect ${code}`));
      m.intercept('POST', RUN).reply(200, okRun);
      const result = await m.api.workflows.run('abc', { proxyId: 'p' });
      expect(result.executionIds).toEqual(['e-1']);
      expect(m.calls()).toHaveLength(2);
      expect(m.bodyOf(0).reqHdr.tid).toBe(m.bodyOf(1).reqHdr.tid);
    },
  );

  it('retries a run on 429: the server refused it before acting', async () => {
    m = setup();
    m.intercept('POST', RUN).reply(429, { code: 8, message: 'rate limited' }, { headers: { 'retry-after': '1' } });
    m.intercept('POST', RUN).reply(200, okRun);
    await m.api.workflows.run('abc', { proxyId: 'p' });
    expect(m.calls()).toHaveLength(2);
    expect(m.sleeps).toEqual([1000]);
  });

  it('retries a run against a real closed port, then reports it unreachable', async () => {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    server.close();
    await once(server, 'close');
    const sleeps: number[] = [];
    const api = createRunbookApi({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: API_KEY,
      maxRetries: 2,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    try {
      const err = await rejection(api.workflows.run('abc', { proxyId: 'p' }));
      expect(err).toBeInstanceOf(ConnectionError);
      expect(err).toMatchObject({ requestSent: false, retryable: true, status: null });
      expect(sleeps).toHaveLength(2);
    } finally {
      await api.close();
    }
  });
});

describe('caller aborts', () => {
  it('rejects promptly with an AbortError and does not retry', async () => {
    m = setup();
    m.intercept('GET', WF).reply(200, okWorkflow).delay(2_000);
    const controller = new AbortController();
    const pending = rejection(m.api.workflows.get('abc', {}, { signal: controller.signal, tid: 'abort-tid' }));
    setImmediate(() => controller.abort(new Error('user left')));
    const err = await pending;
    expect(err).toBeInstanceOf(RequestAbortedError);
    expect(err.name).toBe('AbortError');
    expect(err.tid).toBe('abort-tid');
    expect(m.calls()).toHaveLength(1);
    expect(m.sleeps).toEqual([]);
  });

  it('sends nothing when the signal is already aborted', async () => {
    m = setup();
    const err = await rejection(m.api.workflows.list({}, { signal: AbortSignal.abort() }));
    expect(err).toBeInstanceOf(RequestAbortedError);
    expect(m.calls()).toHaveLength(0);
  });

  it('stops during the backoff sleep', async () => {
    const controller = new AbortController();
    m = setup({
      sleep: async () => {
        controller.abort();
        throw new DOMException('aborted', 'AbortError');
      },
    });
    m.intercept('GET', WF).reply(503, unavailable);
    const err = await rejection(m.api.workflows.get('abc', {}, { signal: controller.signal }));
    expect(err).toBeInstanceOf(RequestAbortedError);
    expect(m.calls()).toHaveLength(1);
  });
});

describe('error bodies', () => {
  it('reports an HTML 502 cleanly, without quoting the page', async () => {
    m = setup({ maxRetries: 0 });
    m.intercept('GET', WF).reply(502, '<html><body><h1>502 Bad Gateway</h1><p>nginx</p></body></html>', {
      headers: { 'content-type': 'text/html' },
    });
    const err = await rejection(m.api.workflows.get('abc'));
    expect(err).toBeInstanceOf(ServerError);
    expect(err.message).toBe('HTTP 502 Bad Gateway (non-JSON body)');
    expect(err.grpcCode).toBeNull();
    expect(err.path).toBe(WF);
    expect(err.method).toBe('GET');
  });

  it.each([
    [400, 3, BadRequestError],
    [401, 16, UnauthorizedError],
    [403, 7, ForbiddenError],
    [404, 5, NotFoundError],
    [409, 6, ConflictError],
    [429, 8, RateLimitedError],
    [500, 13, ServerError],
  ])('maps rpcStatus with HTTP %i to its class', async (status, code, errorClass) => {
    m = setup({ maxRetries: 0 });
    m.intercept('GET', WF).reply(
      status,
      { code, message: `failure ${code}`, details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo' }] },
      { headers: JSON_HEADERS },
    );
    const err = await rejection(m.api.workflows.get('abc', {}, { tid: `tid-${status}` }));
    expect(err).toBeInstanceOf(errorClass);
    expect(err).toMatchObject({ status, grpcCode: code, message: `failure ${code}`, tid: `tid-${status}` });
  });

  it('maps an unlisted status to the base class', async () => {
    m = setup();
    m.intercept('GET', WF).reply(418, 'teapot');
    const err = await rejection(m.api.workflows.get('abc'));
    expect(err.constructor).toBe(RunbookApiError);
    expect(err).toMatchObject({ status: 418, message: "HTTP 418 I'm a Teapot (non-JSON body)" });
  });

  it('rejects a 200 that does not match the schema with ResponseValidationError', async () => {
    m = setup();
    m.intercept('GET', '/v1alpha1/workflows').reply(200, { workflows: 'nope', pageCount: 'many' });
    const err = await rejection(m.api.workflows.list({}, { tid: 'bad-shape' }));
    expect(err).toBeInstanceOf(ResponseValidationError);
    expect(err).toMatchObject({ status: 200, tid: 'bad-shape' });
    expect((err as ResponseValidationError).issues).toMatch(/workflows/);
    expect((err as ResponseValidationError).issues).toMatch(/pageCount/);
    expect(m.calls()).toHaveLength(1);
  });

  it('rejects a 200 whose body is not JSON', async () => {
    m = setup();
    m.intercept('GET', WF).reply(200, '<html>login</html>');
    await expect(m.api.workflows.get('abc')).rejects.toBeInstanceOf(ResponseValidationError);
  });

  it('rejects a get whose required object is missing', async () => {
    m = setup();
    m.intercept('GET', WF).reply(200, { respHdr: respHdr() });
    await expect(m.api.workflows.get('abc')).rejects.toBeInstanceOf(ResponseValidationError);
  });
});

describe('logging', () => {
  it('logs each attempt at debug and each retry at warn, never the API key', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    m = setup({ logger: pino({ level: 'debug' }, sink) });
    m.intercept('GET', WF).reply(503, { code: 14, message: `echo ${API_KEY}?` });
    m.intercept('GET', WF).reply(200, okWorkflow);
    await m.api.workflows.get('abc', {}, { tid: 'log-tid' });
    const records = lines.map((l) => JSON.parse(l));
    const debug = records.filter((r) => r.level === 20);
    const warn = records.filter((r) => r.level === 40);
    expect(debug).toEqual([
      expect.objectContaining({
        method: 'GET',
        path: WF,
        tid: 'log-tid',
        status: 503,
        attempt: 1,
        ms: expect.any(Number),
      }),
      expect.objectContaining({
        method: 'GET',
        path: WF,
        tid: 'log-tid',
        status: 200,
        attempt: 2,
        ms: expect.any(Number),
      }),
    ]);
    expect(warn).toEqual([expect.objectContaining({ tid: 'log-tid', attempt: 1, delayMs: expect.any(Number) })]);
    expect(lines.join('\n')).not.toContain(API_KEY);
    expect(records.every((r) => r.headers === undefined)).toBe(true);
  });

  it('never puts the API key into an error', async () => {
    m = setup({ maxRetries: 0 });
    m.intercept('GET', WF).reply(400, { code: 3, message: `bad key ${API_KEY}` });
    const err = await rejection(m.api.workflows.get('abc'));
    expect(JSON.stringify({ ...err, message: err.message })).not.toContain(API_KEY);
    expect(String(err.stack)).not.toContain(API_KEY);
  });
});

it('tid placement: query for GET, body for POST (sanity across all methods)', async () => {
  m = setup();
  m.intercept('GET', WF).reply(200, okWorkflow);
  m.intercept('POST', RUN).reply(200, okRun);
  await m.api.workflows.get('abc');
  await m.api.workflows.run('abc', { proxyId: 'p' });
  expect(m.calls()[0]?.searchParams['reqHdr.tid']).toMatch(UUID);
  expect(m.bodyOf(1).reqHdr.tid).toMatch(UUID);
});

describe('in-flight cap', () => {
  it('a request over maxInFlight waits for a slot, and past inFlightWaitMs fails as busy without being sent', async () => {
    m = setup({ maxInFlight: 1, inFlightWaitMs: 50 });
    m.intercept('GET', WF).reply(200, okWorkflow).delay(300);
    m.intercept('GET', WF).reply(200, okWorkflow);
    const first = m.api.workflows.get('abc');
    const err = await rejection(m.api.workflows.get('abc', {}, { tid: 'over-cap' }));
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err).toMatchObject({ tid: 'over-cap', status: null, retryable: false });
    expect(describeApiError(err)).toContain('The Runbook API is receiving too many requests');
    expect((await first).workflow.name).toBe('Restart pods');
    expect(m.calls()).toHaveLength(1);
  });

  it('a slot freed within the wait is taken: the waiting request is sent and answered', async () => {
    m = setup({ maxInFlight: 1, inFlightWaitMs: 5_000 });
    m.intercept('GET', WF).reply(200, okWorkflow).delay(50);
    m.intercept('GET', WF).reply(200, okWorkflow);
    const [a, b] = await Promise.all([m.api.workflows.get('abc'), m.api.workflows.get('abc')]);
    expect([a.workflow.name, b.workflow.name]).toEqual(['Restart pods', 'Restart pods']);
    expect(m.calls()).toHaveLength(2);
  });
});
