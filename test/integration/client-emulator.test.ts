// The real client against the real emulator over HTTP: every operation and parameter, typed
// errors with tids, and the retry rules under injected faults. Time moves only by ManualClock.
import { afterEach, describe, expect, it } from 'vitest';
import { apiAgent, createRunbookApi, type RunbookApiOptions } from '../../src/api/client.ts';
import {
  BadRequestError,
  ConnectionError,
  describeApiError,
  NotFoundError,
  RateLimitedError,
  RunbookApiError,
  ServerError,
  UnauthorizedError,
} from '../../src/api/errors.ts';
import type { RunbookApi } from '../../src/api/runbook-api.ts';
import type { Workflow } from '../../src/api/schemas.ts';
import { type Emulator, ManualClock, startEmulator } from '../../src/emulator/server.ts';

const API_KEY = 'integration-key-7f3a';
const START_MS = Date.UTC(2025, 0, 15, 12, 0, 0);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HEX64 = /^[0-9a-f]{64}$/;

interface Harness {
  emu: Emulator;
  api: RunbookApi;
  sleeps: number[];
}

const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) {
    await h.api.close();
    await h.emu.close();
  }
});

async function start(options: Partial<RunbookApiOptions> = {}): Promise<Harness> {
  const emu = await startEmulator({ port: 0, apiKey: API_KEY, clock: new ManualClock(START_MS) });
  const sleeps: number[] = [];
  const api = createRunbookApi({
    baseUrl: `${emu.url}/`,
    apiKey: API_KEY,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...options,
  });
  const h = { emu, api, sleeps };
  open.push(h);
  return h;
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

async function rejection(promise: Promise<unknown>): Promise<RunbookApiError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof RunbookApiError) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}

async function findWorkflow(api: RunbookApi, name: string, isService: boolean): Promise<Workflow> {
  const all = await collect(api.workflows.iterate({ isService }));
  const found = all.find((w) => w.name === name);
  if (!found) throw new Error(`seeded runbook ${name} missing`);
  return found;
}

describe('workflows', () => {
  it('lists service and custom runbooks separately, with counts', async () => {
    const { api } = await start();
    const service = await api.workflows.list({ isService: true });
    const custom = await api.workflows.list({ isService: false });
    expect(service.items.length).toBeGreaterThan(0);
    expect(service.items.every((w) => HEX64.test(w.id))).toBe(true);
    expect(custom.items.every((w) => UUID.test(w.id))).toBe(true);
    expect(service.totalCount).toBeGreaterThanOrEqual(service.items.length);
    expect(service.categoryCounts.length).toBeGreaterThan(0);
    expect(service.tid).toMatch(UUID);
  });

  it('filters, pages with pageSize/pageToken, and iterates every page', async () => {
    const { api, emu } = await start();
    const filtered = await api.workflows.list({ isService: true, filter: 'tag:kubernetes' });
    expect(filtered.items.length).toBeGreaterThan(1);
    expect(filtered.items.every((w) => w.tags.includes('kubernetes'))).toBe(true);

    const first = await api.workflows.list({ isService: true, pageSize: 3 });
    expect(first.items).toHaveLength(3);
    expect(first.nextPageToken).not.toBe('');
    expect(first.pageCount).toBe(Math.ceil(first.totalCount / 3));
    const second = await api.workflows.list({ isService: true, pageSize: 3, pageToken: first.nextPageToken });
    expect(second.items.map((w) => w.id)).not.toContain(first.items[0]?.id);

    emu.state.requests.reset();
    const all = await collect(api.workflows.iterate({ isService: true, pageSize: 4 }));
    expect(all).toHaveLength(first.totalCount);
    expect(new Set(all.map((w) => w.id)).size).toBe(all.length);
    expect(emu.state.requests.count('GET /v1alpha1/workflows', 200)).toBe(Math.ceil(first.totalCount / 4));
  });

  it('gets a service runbook with isService and tenantId, and a custom one without', async () => {
    const { api } = await start();
    const service = await findWorkflow(api, 'Restart Kubernetes Deployment', true);
    const got = await api.workflows.get(service.id, { isService: true, tenantId: 'tenant-1' });
    expect(got.workflow).toEqual(service);
    expect(got.url).toBe('');
    expect(JSON.parse(got.workflow.inputSchema).type).toBe('object');

    const custom = await findWorkflow(api, 'Refresh Feature Flags Cache', false);
    expect((await api.workflows.get(custom.id)).workflow.name).toBe('Refresh Feature Flags Cache');
  });

  it('reports an unknown runbook as NotFoundError with the request tid', async () => {
    const { api } = await start();
    const err = await rejection(api.workflows.get('does-not-exist', {}, { tid: 'tid-404' }));
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err).toMatchObject({ status: 404, grpcCode: 5, tid: 'tid-404' });
    expect(describeApiError(err)).toBe(
      'The Runbook API could not find that runbook; it may have been deleted (request tid-404)',
    );
  });
});

describe('runs and executions', () => {
  it('runs with params, userEmail and userId; the execution finishes as the clock advances', async () => {
    const { api, emu } = await start();
    const runbook = await findWorkflow(api, 'Restart Kubernetes Deployment', true);
    const values = { namespace: 'web', deployment: 'web', simulate_duration_seconds: 5 };
    const run = await api.workflows.run(
      runbook.id,
      { proxyId: 'proxy-prod-us-east-1', params: values, userEmail: 'ops@example.com', userId: 'U123' },
      { tid: 'run-tid-1' },
    );
    expect(run.executionIds).toHaveLength(1);
    expect(run.tid).toMatch(UUID);
    expect(emu.state.requests.log.at(-1)).toMatchObject({ method: 'POST', requestTid: 'run-tid-1' });
    const id = run.executionIds[0]!;

    const pending = await api.executions.get(id, { summary: true });
    expect(pending).toMatchObject({
      id,
      workflowName: 'Restart Kubernetes Deployment',
      executionStatus: 'EXECUTION_STATUS_IN_PROGRESS',
      executor: 'ops@example.com',
      output: '',
    });
    expect(JSON.parse(pending.inputs)).toEqual(values);

    emu.advance(6_000);
    const done = await api.executions.get(id);
    expect(done.executionStatus).toBe('EXECUTION_STATUS_SUCCEEDED');
    expect(done.output).toContain('Starting runbook "Restart Kubernetes Deployment"');
    expect(done.output).toContain('Runbook finished: SUCCEEDED');
    expect(done.endTime).not.toBeNull();
    const summary = await api.executions.get(id, { summary: true });
    expect(summary.executionStatus).toBe('EXECUTION_STATUS_SUCCEEDED');
    expect(summary.output).toBe('');
  });

  it('runs a runbook without inputs with only proxyId, and reports a failure reason', async () => {
    const { api, emu } = await start({ sendInputsField: true });
    const runbook = await findWorkflow(api, 'Refresh Feature Flags Cache', false);
    const plain = await api.workflows.run(runbook.id, { proxyId: 'proxy-staging' });
    const failing = await api.workflows.run(runbook.id, {
      proxyId: 'proxy-staging',
      params: { simulate_outcome: 'failed', simulate_duration_seconds: 1 },
    });
    emu.advance(60_000);
    expect((await api.executions.get(plain.executionIds[0]!)).inputs).toBe('{}');
    const failed = await api.executions.get(failing.executionIds[0]!);
    expect(failed.executionStatus).toBe('EXECUTION_STATUS_FAILED');
    expect(failed.reason).not.toBe('');
  });

  it('lists executions with filter, orderBy, timeRange and pages', async () => {
    const { api } = await start();
    const runbook = await findWorkflow(api, 'Refresh Feature Flags Cache', false);
    const run = await api.workflows.run(runbook.id, { proxyId: 'p', userEmail: 'lister@example.com' });
    const id = run.executionIds[0]!;

    const byId = await api.executions.list({ filter: `id:${id}` });
    expect(byId.items.map((e) => e.id)).toEqual([id]);
    expect(byId.totalCount).toBe(1);
    const byExecutor = await api.executions.list({ filter: 'executor:lister@example.com' });
    expect(byExecutor.items.map((e) => e.id)).toEqual([id]);

    const newest = await api.executions.list({ orderBy: 'descending', pageSize: 1 });
    expect(newest.items[0]?.id).toBe(id);
    const oldest = await api.executions.list({ orderBy: 'ascending', pageSize: 1 });
    expect(oldest.items[0]?.id).not.toBe(id);

    const month = await api.executions.list({ timeRange: 'last_month' });
    const year = await api.executions.list({ timeRange: 'last_year' });
    const all = await api.executions.list({ timeRange: 'all' });
    expect(month.totalCount).toBeLessThanOrEqual(year.totalCount);
    expect(year.totalCount).toBeLessThanOrEqual(all.totalCount);
    const cutoff = START_MS - 30 * 24 * 3600 * 1000;
    expect(month.items.every((e) => Date.parse(e.createTime ?? '') >= cutoff)).toBe(true);

    const everything = await collect(api.executions.iterate({ pageSize: 7, orderBy: 'ascending' }));
    expect(everything).toHaveLength(all.totalCount);
    expect(new Set(everything.map((e) => e.id)).size).toBe(everything.length);
    expect(everything.at(-1)?.id).toBe(id);
    expect(everything.some((e) => e.output.startsWith('['))).toBe(true);
  });
});

describe('schedules', () => {
  it('creates, reads, updates, lists, fires and deletes a schedule', async () => {
    const { api, emu } = await start();
    const runbook = await findWorkflow(api, 'Refresh Feature Flags Cache', false);
    const created = await api.schedules.create({
      proxyId: 'proxy-staging',
      runbookId: runbook.id,
      runbookName: runbook.name,
      inputSchema: runbook.inputSchema,
      params: '{}',
      schedule: '0 5 * * *',
    });
    expect(created).toMatchObject({
      proxyId: 'proxy-staging',
      proxyName: 'Staging',
      runbookId: runbook.id,
      runbookName: runbook.name,
      schedule: '0 5 * * *',
      lastRun: null,
    });
    expect(created.id).toMatch(UUID);
    expect(await api.schedules.get(created.id)).toEqual(created);

    const updated = await api.schedules.update(created.id, {
      runbookId: runbook.id,
      runbookName: runbook.name,
      schedule: '*/30 * * * *',
    });
    expect(updated.schedule).toBe('*/30 * * * *');
    expect(updated.proxyId).toBe('proxy-staging');

    const listed = await api.schedules.list({ filter: `id:${created.id}` });
    expect(listed.items.map((s) => s.id)).toEqual([created.id]);
    const ascending = await collect(api.schedules.iterate({ orderBy: 'ascending', pageSize: 1 }));
    const descending = await collect(api.schedules.iterate({ orderBy: 'descending', pageSize: 1 }));
    expect(ascending.map((s) => s.id)).toContain(created.id);
    expect(descending.map((s) => s.id)).toEqual(ascending.map((s) => s.id).reverse());

    emu.advance(31 * 60_000);
    const fired = await api.executions.list({ filter: `scheduleId:${created.id}` });
    expect(fired.items.length).toBeGreaterThanOrEqual(1);
    expect((await api.schedules.get(created.id)).lastRun).not.toBeNull();

    await api.schedules.delete(created.id);
    const err = await rejection(api.schedules.get(created.id, { tid: 'gone-tid' }));
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.tid).toBe('gone-tid');
    expect(describeApiError(err)).toContain('could not find that schedule');
  });

  it('rejects an invalid cron expression with BadRequestError', async () => {
    const { api, emu } = await start();
    const runbook = await findWorkflow(api, 'Refresh Feature Flags Cache', false);
    const err = await rejection(
      api.schedules.create(
        { runbookId: runbook.id, runbookName: runbook.name, schedule: 'every day' },
        { tid: 'cron-tid' },
      ),
    );
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err).toMatchObject({ status: 400, grpcCode: 3, tid: 'cron-tid' });
    expect(err.message).toMatch(/schedule/);
    expect(describeApiError(err)).toMatch(/^The Runbook API rejected the request: .*\(request cron-tid\)$/);
    expect(emu.state.requests.count('POST /v1alpha1/schedules')).toBe(1);
  });
});

describe('errors and retries over HTTP', () => {
  it('maps a wrong API key to UnauthorizedError', async () => {
    const { api } = await start({ apiKey: 'wrong-key' });
    const err = await rejection(api.workflows.list());
    expect(err).toBeInstanceOf(UnauthorizedError);
    expect(err.grpcCode).toBe(16);
  });

  it('retries a GET through 503s with one tid, then gives up with ServerError', async () => {
    const { api, emu, sleeps } = await start({ maxRetries: 2 });
    emu.setFaults({ errorRate: 1, errorStatuses: [503] });
    const err = await rejection(api.workflows.list({}, { tid: 'flaky-tid' }));
    expect(err).toBeInstanceOf(ServerError);
    expect(err).toMatchObject({ status: 503, tid: 'flaky-tid' });
    const log = emu.state.requests.log.filter((e) => e.path === '/v1alpha1/workflows');
    expect(log.map((e) => e.requestTid)).toEqual(['flaky-tid', 'flaky-tid', 'flaky-tid']);
    expect(sleeps).toHaveLength(2);
  });

  it('never repeats a run on a 5xx or a dropped connection', async () => {
    const { api, emu } = await start();
    const runbook = await findWorkflow(api, 'Refresh Feature Flags Cache', false);
    emu.setFaults({ errorRate: 1, errorStatuses: [502], htmlErrors: true });
    const html = await rejection(api.workflows.run(runbook.id, { proxyId: 'p' }));
    expect(html).toBeInstanceOf(ServerError);
    expect(html.message).toBe('HTTP 502 Bad Gateway (non-JSON body)');

    emu.setFaults({ errorRate: 0, dropRate: 1 });
    const dropped = await rejection(api.workflows.run(runbook.id, { proxyId: 'p' }));
    expect(dropped).toBeInstanceOf(ConnectionError);
    expect((dropped as ConnectionError).requestSent).toBe(true);
    expect(emu.state.requests.count('POST /v1alpha1/workflows/{workflowId}/run')).toBe(2);
  });

  it('retries a run refused with 429 and honours Retry-After', async () => {
    const { api, emu, sleeps } = await start({ maxRetries: 1 });
    const runbook = await findWorkflow(api, 'Refresh Feature Flags Cache', false);
    emu.setFaults({ rateLimitRate: 1, retryAfterSeconds: 2 });
    const err = await rejection(api.workflows.run(runbook.id, { proxyId: 'p' }));
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err.retryAfterMs).toBe(2000);
    expect(sleeps).toEqual([2000]);
    expect(emu.state.requests.count('POST /v1alpha1/workflows/{workflowId}/run', 429)).toBe(2);
  });
});

describe('clients of several tenants over one shared pool (many-workspace mode)', () => {
  it('each request carries its own client’s key; closing one client leaves the pool to the others', async () => {
    const keyB = 'integration-key-beta-2c9d';
    const emu = await startEmulator({
      port: 0,
      apiKey: API_KEY,
      clock: new ManualClock(START_MS),
      tenants: { [keyB]: { name: 'beta', runbooks: ['Postgres Vacuum Analyze'] } },
    });
    // Fewer sockets than requests in flight: requests of both keys take turns on the same connections.
    const dispatcher = apiAgent({ timeoutMs: 10_000, connections: 2 });
    const a = createRunbookApi({ baseUrl: emu.url, apiKey: API_KEY, dispatcher });
    const b = createRunbookApi({ baseUrl: emu.url, apiKey: keyB, dispatcher });
    const ownA = createRunbookApi({ baseUrl: emu.url, apiKey: API_KEY });
    const ownB = createRunbookApi({ baseUrl: emu.url, apiKey: keyB });
    const ids = async (api: RunbookApi) =>
      (await api.workflows.list({ isService: true, pageSize: 100 })).items.map((w) => w.id).sort();
    try {
      const [alone, aloneB] = [await ids(ownA), await ids(ownB)];
      expect(aloneB).toHaveLength(1);
      expect(alone).not.toEqual(aloneB);
      const shared = await Promise.all(Array.from({ length: 20 }, (_, i) => ids(i % 2 ? b : a)));
      shared.forEach((got, i) => {
        expect(got).toEqual(i % 2 ? aloneB : alone);
      });
      await b.close();
      expect(await ids(a)).toEqual(alone);
    } finally {
      await Promise.all([a.close(), ownA.close(), ownB.close()]);
      await dispatcher.close();
      await emu.close();
    }
  });
});
