import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../src/emulator/server.ts';
import { type Harness, KEY, startHarness } from './harness.ts';

let h: Harness;
afterEach(() => h?.emulator.close());

describe('auth, routing and health', () => {
  it('answers 401 code 16 without or with a wrong X-Service-API-Key', async () => {
    h = await startHarness();
    const missing = await fetch(`${h.emulator.url}/v1alpha1/workflows`);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({ code: 16, message: 'missing X-Service-API-Key header', details: [] });
    const wrong = await h.call('GET', '/v1alpha1/executions', undefined, { 'X-Service-API-Key': 'nope' });
    expect(wrong.status).toBe(401);
    expect(wrong.json.code).toBe(16);
    // The upstream header name is not honoured.
    const upstream = await fetch(`${h.emulator.url}/v1alpha1/workflows`, { headers: { 'X-unSkript-API-Key': KEY } });
    expect(upstream.status).toBe(401);
  });

  it('answers 404 for unknown paths and 405 for a wrong method, as rpcStatus JSON', async () => {
    h = await startHarness();
    const unknown = await h.get('/v1alpha1/folders');
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ code: 5, message: 'Not Found', details: [] });
    const wrongMethod = await h.call('DELETE', '/v1alpha1/workflows');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.json).toMatchObject({ code: 12, details: [] });
    expect(wrongMethod.headers.get('allow')).toBe('GET');
  });

  it('serves /healthz without a key and without faults', async () => {
    h = await startHarness({ faults: { errorRate: 1, dropRate: 1 } });
    const res = await fetch(`${h.emulator.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('refuses advance() on the system clock', async () => {
    const emulator = await startEmulator({ port: 0, apiKey: KEY });
    try {
      expect(() => emulator.advance(1000)).toThrow(/ManualClock/);
      expect(emulator.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      await emulator.close();
    }
  });

  it('close() ends keep-alive connections', async () => {
    h = await startHarness();
    const agentResponse = await new Promise<number>((resolve, reject) => {
      const req = request(`${h.emulator.url}/healthz`, { headers: { connection: 'keep-alive' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end();
    });
    expect(agentResponse).toBe(200);
    await h.emulator.close();
    await expect(fetch(`${h.emulator.url}/healthz`)).rejects.toThrow();
  });
});

describe('fault injection', () => {
  it('answers 5xx rpcStatus for every /v1alpha1 request at errorRate 1', async () => {
    h = await startHarness({ faults: { errorRate: 1, errorStatuses: [503] } });
    const res = await h.get('/v1alpha1/workflows');
    expect(res.status).toBe(503);
    expect(res.json).toMatchObject({ code: 14, details: [] });
    // Admin routes are never faulted.
    expect((await h.get('/_admin/stats')).status).toBe(200);
  });

  it('answers proxy-style HTML when htmlErrors is on', async () => {
    h = await startHarness({ faults: { errorRate: 1, errorStatuses: [502], htmlErrors: true } });
    const res = await h.get('/v1alpha1/executions');
    expect(res.status).toBe(502);
    expect(res.headers.get('content-type')).toBe('text/html');
    expect(res.text).toBe('<html><body><h1>502 Bad Gateway</h1></body></html>');
  });

  it('answers 429 with Retry-After and code 8', async () => {
    h = await startHarness({ faults: { rateLimitRate: 1, retryAfterSeconds: 7 } });
    const res = await h.get('/v1alpha1/schedules');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(res.json).toMatchObject({ code: 8 });
  });

  it('drops the connection without an answer', async () => {
    h = await startHarness({ faults: { dropRate: 1 } });
    await expect(h.get('/v1alpha1/workflows')).rejects.toThrow();
    h.emulator.setFaults({ dropRate: 0 });
    expect((await h.get('/v1alpha1/workflows')).status).toBe(200);
  });

  it('does not run a runbook when the request is faulted', async () => {
    h = await startHarness({ faults: { errorRate: 1 } });
    const before = h.emulator.state.executions.size;
    const id = [...h.emulator.state.workflows.byId.keys()][0]!;
    const res = await h.call('POST', `/v1alpha1/workflows/${id}/run`, { proxyId: 'p' });
    expect(res.status).toBeGreaterThanOrEqual(500);
    expect(h.emulator.state.executions.size).toBe(before);
  });
});

describe('admin API', () => {
  it('reads and changes faults, requiring the key', async () => {
    h = await startHarness();
    expect((await fetch(`${h.emulator.url}/_admin/faults`)).status).toBe(401);
    const initial = await h.get('/_admin/faults');
    expect(initial.json).toMatchObject({ errorRate: 0, errorStatuses: [500, 502, 503], htmlErrors: false });
    const put = await h.call('PUT', '/_admin/faults', { rateLimitRate: 1, retryAfterSeconds: 3 });
    expect(put.json).toMatchObject({ rateLimitRate: 1, retryAfterSeconds: 3, errorRate: 0 });
    expect((await h.get('/v1alpha1/workflows')).status).toBe(429);
    const bad = await h.call('PUT', '/_admin/faults', { errorRate: 2 });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toMatch(/^errorRate:/);
    expect((await h.call('PUT', '/_admin/faults', { bogus: true })).status).toBe(400);
  });

  it('advances the manual clock, firing schedules and finishing runs', async () => {
    h = await startHarness({ defaultDurationMs: 1_000 });
    const id = [...h.emulator.state.workflows.byId.values()].find((r) => r.seed.name === 'Rotate Nginx Logs')!.workflow
      .id;
    const run = await h.call('POST', `/v1alpha1/workflows/${id}/run`, { proxyId: 'p' });
    const res = await h.call('POST', '/_admin/advance', { ms: 1_000 });
    expect(res.status).toBe(200);
    expect(res.json.now).toBe(new Date(h.clock.now()).toISOString());
    const execution = (await h.get(`/v1alpha1/executions/${run.json.executionIds[0]}?summary=true`)).json.execution;
    expect(execution.executionStatus).toBe('EXECUTION_STATUS_SUCCEEDED');
    expect((await h.call('POST', '/_admin/advance', { ms: -1 })).status).toBe(400);
  });

  it('counts requests by route and status, and resets', async () => {
    h = await startHarness();
    await h.get('/v1alpha1/workflows');
    await h.get('/v1alpha1/workflows');
    await h.get('/v1alpha1/workflows/nope');
    const stats = (await h.get('/_admin/stats')).json;
    expect(stats.requests.byRoute['GET /v1alpha1/workflows']).toEqual({ '200': 2 });
    expect(stats.requests.byRoute['GET /v1alpha1/workflows/{workflowId}']).toEqual({ '404': 1 });
    expect(stats.executions.byStatus.EXECUTION_STATUS_SUCCEEDED).toBeGreaterThan(0);
    expect(h.emulator.state.requests.count('GET /v1alpha1/workflows', 200)).toBe(2);
    expect((await h.call('POST', '/_admin/reset-stats')).status).toBe(200);
    expect(h.emulator.state.requests.count('GET /v1alpha1/workflows')).toBe(0);
  });

  it('advance is refused on the system clock', async () => {
    const emulator = await startEmulator({ port: 0, apiKey: KEY });
    try {
      const res = await fetch(`${emulator.url}/_admin/advance`, {
        method: 'POST',
        headers: { 'X-Service-API-Key': KEY },
        body: JSON.stringify({ ms: 10 }),
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { code: number }).code).toBe(9);
    } finally {
      await emulator.close();
    }
  });
});
