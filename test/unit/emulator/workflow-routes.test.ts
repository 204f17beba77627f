import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListWorkflowsResponse } from '../../../src/api/schemas.ts';
import { sha256Hex } from '../../../src/emulator/random.ts';
import { type Harness, startHarness } from './harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ defaultDurationMs: 10_000 });
});
afterAll(() => h.emulator.close());

const RESTART = sha256Hex('Restart Kubernetes Deployment');

describe('GET /v1alpha1/workflows', () => {
  it('lists every runbook by name with totals, categoryCounts and the echoed tid', async () => {
    const { status, json } = await h.get('/v1alpha1/workflows?reqHdr.tid=req-1&pageSize=100');
    expect(status).toBe(200);
    expect(json.respHdr.requestTid).toBe('req-1');
    expect(json.respHdr.tid).toMatch(/^[0-9a-f-]{36}$/);
    expect(json.totalCount).toBe(h.emulator.state.workflows.size);
    const names = json.workflows.map((w: { name: string }) => w.name);
    expect(names).toEqual([...names].sort((a: string, b: string) => a.localeCompare(b, 'en', { sensitivity: 'base' })));
    expect(json.categoryCounts.length).toBeGreaterThan(0);
    for (const entry of json.categoryCounts) expect(entry.count).toMatch(/^\d+\/\d+$/);
    expect(ListWorkflowsResponse.safeParse(json).success).toBe(true);
  });

  it('selects service or custom runbooks with isService', async () => {
    const service = (await h.get('/v1alpha1/workflows?isService=true&pageSize=100')).json;
    const custom = (await h.get('/v1alpha1/workflows?isService=false')).json;
    expect(custom.totalCount).toBe(10);
    expect(service.totalCount + custom.totalCount).toBe(h.emulator.state.workflows.size);
    expect(custom.workflows.every((w: { id: string }) => w.id.length === 36)).toBe(true);
    expect(service.workflows.every((w: { id: string }) => w.id.length === 64)).toBe(true);
    expect((await h.get('/v1alpha1/workflows?isService=maybe')).status).toBe(400);
  });

  it('pages with opaque tokens until nextPageToken is empty', async () => {
    const seen: string[] = [];
    let token = '';
    let pages = 0;
    do {
      const { json } = await h.get(`/v1alpha1/workflows?pageSize=7&pageToken=${encodeURIComponent(token)}`);
      expect(json.pageCount).toBe(Math.ceil(json.totalCount / 7));
      seen.push(...json.workflows.map((w: { id: string }) => w.id));
      token = json.nextPageToken;
      pages++;
    } while (token !== '' && pages < 50);
    expect(seen).toHaveLength(h.emulator.state.workflows.size);
    expect(new Set(seen).size).toBe(seen.length);
    const bad = await h.get('/v1alpha1/workflows?pageToken=bogus');
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ code: 3, message: expect.stringContaining('pageToken'), details: [] });
  });

  it('clamps pageSize to 100', async () => {
    const { json } = await h.get('/v1alpha1/workflows?pageSize=1000');
    expect(json.workflows.length).toBeLessThanOrEqual(100);
  });

  it('filters by field terms and bare words', async () => {
    const byTag = (await h.get('/v1alpha1/workflows?filter=tag:kubernetes&pageSize=100')).json;
    expect(byTag.workflows.length).toBeGreaterThan(3);
    expect(byTag.workflows.every((w: { tags: string[] }) => w.tags.includes('kubernetes'))).toBe(true);

    const both = (await h.get(`/v1alpha1/workflows?filter=${encodeURIComponent('connector:aws category:cost_opt')}`))
      .json;
    expect(both.workflows.length).toBeGreaterThan(0);
    for (const w of both.workflows) {
      expect(w.connectorTypes).toContain('CONNECTOR_TYPE_AWS');
      expect(w.categories).toContain('CATEGORY_TYPE_COST_OPT');
    }
    const cost = both.categoryCounts.find((c: { name: string }) => c.name === 'CATEGORY_TYPE_COST_OPT');
    expect(cost.count.split('/')[0]).toBe(String(both.totalCount));

    const quoted = (await h.get(`/v1alpha1/workflows?filter=${encodeURIComponent('name:"drain kubernetes"')}`)).json;
    expect(quoted.workflows.map((w: { name: string }) => w.name)).toEqual(['Drain Kubernetes Node']);

    const bare = (await h.get('/v1alpha1/workflows?filter=vacuum')).json;
    expect(bare.workflows.map((w: { name: string }) => w.name)).toEqual(['Postgres Vacuum Analyze']);

    const approval = (await h.get('/v1alpha1/workflows?filter=approval:true&pageSize=100')).json;
    expect(approval.workflows.every((w: { requiresApproval: boolean }) => w.requiresApproval)).toBe(true);

    const unknown = await h.get('/v1alpha1/workflows?filter=owner:me');
    expect(unknown.status).toBe(400);
    expect(unknown.json.message).toContain('owner');
  });
});

describe('GET /v1alpha1/workflows/{id}', () => {
  it('returns the workflow with url ""', async () => {
    const { status, json } = await h.get(`/v1alpha1/workflows/${RESTART}?isService=true&tenantId=t`);
    expect(status).toBe(200);
    expect(json.workflow.name).toBe('Restart Kubernetes Deployment');
    expect(json.url).toBe('');
  });

  it('finds custom runbooks without isService but not among service runbooks', async () => {
    const custom = [...h.emulator.state.workflows.byId.values()].find((r) => !r.isService)!;
    expect((await h.get(`/v1alpha1/workflows/${custom.workflow.id}`)).status).toBe(200);
    expect((await h.get(`/v1alpha1/workflows/${custom.workflow.id}?isService=true`)).status).toBe(404);
  });

  it('answers 404 code 5 for an unknown id', async () => {
    const { status, json } = await h.get('/v1alpha1/workflows/nope');
    expect(status).toBe(404);
    expect(json).toEqual({ code: 5, message: 'workflow nope not found', details: [] });
  });
});

describe('POST /v1alpha1/workflows/{id}/run', () => {
  const run = (id: string, body: unknown) => h.call('POST', `/v1alpha1/workflows/${id}/run`, body);

  it('creates one IN_PROGRESS execution and records what was sent', async () => {
    const before = h.emulator.state.workflows.byId.get(RESTART)!.workflow.lastRun;
    const { status, json } = await run(RESTART, {
      reqHdr: { tid: 'run-tid' },
      proxyId: 'proxy-1',
      params: '{"namespace":"web","deployment":"api"}',
      userEmail: 'dana@example.com',
      userId: 'U123',
    });
    expect(status).toBe(200);
    expect(json.respHdr.requestTid).toBe('run-tid');
    expect(json.executionIds).toHaveLength(1);
    const record = h.emulator.state.executions.byId.get(json.executionIds[0])!;
    expect(record.status).toBe('EXECUTION_STATUS_IN_PROGRESS');
    expect(record.executor).toBe('dana@example.com');
    expect(record.approver).toBe('');
    expect(record.inputs).toBe('{"namespace":"web","deployment":"api"}');
    expect(record.received).toMatchObject({ proxyId: 'proxy-1', userId: 'U123', userEmail: 'dana@example.com' });
    const after = h.emulator.state.workflows.byId.get(RESTART)!.workflow.lastRun;
    expect(after).toBe(new Date(h.clock.now()).toISOString());
    expect(after).not.toBe(before);
  });

  it('uses api-key as executor, inputs as an alias, and notes the approval request', async () => {
    const { json } = await run(RESTART, { proxyId: 'p', inputs: '{"namespace":"x"}', requestId: 'REQ-9' });
    const record = h.emulator.state.executions.byId.get(json.executionIds[0])!;
    expect(record.executor).toBe('api-key');
    expect(record.approver).toBe('approved via request REQ-9');
    expect(record.inputs).toBe('{"namespace":"x"}');
    expect(record.params).toEqual({ namespace: 'x' });
  });

  it('requires proxyId', async () => {
    const { status, json } = await run(RESTART, { params: '{}' });
    expect(status).toBe(400);
    expect(json).toMatchObject({ code: 3, message: 'proxyId is required' });
  });

  it('rejects params that are not a JSON object string', async () => {
    for (const params of ['not json', '[1,2]', '"x"']) {
      const { status, json } = await run(RESTART, { proxyId: 'p', params });
      expect(status).toBe(400);
      expect(json.message).toMatch(/^params:/);
    }
    const wrongType = await run(RESTART, { proxyId: 'p', params: { a: 1 } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.json.message).toMatch(/^params:/);
  });

  it('answers 404 for an unknown runbook and 400 FailedPrecondition for disabled ones', async () => {
    expect((await run('missing', { proxyId: 'p' })).status).toBe(404);
    const disabled = [...h.emulator.state.workflows.byId.values()].filter(
      (r) => r.workflow.runningDisabled || r.workflow.executionDisabled,
    );
    expect(disabled.length).toBeGreaterThan(1);
    for (const r of disabled) {
      const { status, json } = await run(r.workflow.id, { proxyId: 'p' });
      expect(status).toBe(400);
      expect(json.code).toBe(9);
      expect(json.message).toContain(r.workflow.name);
    }
  });

  it('rejects a body that is not JSON', async () => {
    const { status, json } = await h.call('POST', `/v1alpha1/workflows/${RESTART}/run`, '{oops');
    expect(status).toBe(400);
    expect(json.message).toBe('body: invalid JSON');
  });
});
