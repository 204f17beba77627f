import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GetExecutionResponse, ListExecutionsResponse } from '../../../src/api/schemas.ts';
import { sha256Hex } from '../../../src/emulator/random.ts';
import { decodeOutput, type Harness, startHarness } from './harness.ts';

let h: Harness;
beforeEach(async () => {
  h = await startHarness({ defaultDurationMs: 10_000 });
});
afterEach(() => h.emulator.close());

const RESTART = sha256Hex('Restart Kubernetes Deployment');
const LOGS = sha256Hex('Collect Kubernetes Pod Logs');

async function run(id: string, params: Record<string, unknown> = {}): Promise<string> {
  const { json } = await h.call('POST', `/v1alpha1/workflows/${id}/run`, {
    proxyId: 'p',
    params: JSON.stringify(params),
  });
  return json.executionIds[0];
}

describe('GET /v1alpha1/executions/{id}', () => {
  it('stays IN_PROGRESS until the clock passes its duration, then succeeds with base64 output', async () => {
    const id = await run(RESTART, { namespace: 'web', deployment: 'api' });
    let { json } = await h.get(`/v1alpha1/executions/${id}?reqHdr.tid=g1`);
    expect(json.respHdr.requestTid).toBe('g1');
    expect(json.execution).toMatchObject({
      id,
      executionStatus: 'EXECUTION_STATUS_IN_PROGRESS',
      endTime: null,
      duration: '',
      output: '',
      reason: '',
      executionType: 'EXECUTION_TYPE_RUNBOOK',
      version: '1.0.0',
      workflowName: 'Restart Kubernetes Deployment',
      inputs: '{"namespace":"web","deployment":"api"}',
    });
    expect(json.execution.startTime).toBe(json.execution.createTime);

    h.emulator.advance(9_999);
    expect((await h.get(`/v1alpha1/executions/${id}`)).json.execution.executionStatus).toBe(
      'EXECUTION_STATUS_IN_PROGRESS',
    );

    h.emulator.advance(1);
    ({ json } = await h.get(`/v1alpha1/executions/${id}`));
    expect(json.execution.executionStatus).toBe('EXECUTION_STATUS_SUCCEEDED');
    expect(json.execution.duration).toBe('10s');
    expect(Date.parse(json.execution.endTime) - Date.parse(json.execution.startTime)).toBe(10_000);
    expect(json.execution.output).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(decodeOutput(json.execution.output)).toContain('Runbook finished: SUCCEEDED in 10s');
    expect(GetExecutionResponse.safeParse(json).success).toBe(true);
  });

  it('fails with a reason when a param is FAIL', async () => {
    const id = await run(RESTART, { namespace: 'web', deployment: 'FAIL' });
    h.emulator.advance(10_000);
    const { json } = await h.get(`/v1alpha1/executions/${id}`);
    expect(json.execution.executionStatus).toBe('EXECUTION_STATUS_FAILED');
    expect(json.execution.reason).toBe(
      'Step 3 (kubectl rollout restart) exited with code 1: deployment "web" not found',
    );
    expect(decodeOutput(json.execution.output)).toContain('ERROR deployment "web" not found');
  });

  it('honours simulate_outcome and simulate_duration_seconds', async () => {
    const id = await run(RESTART, { simulate_outcome: 'failed', simulate_duration_seconds: 60 });
    h.emulator.advance(59_000);
    expect((await h.get(`/v1alpha1/executions/${id}`)).json.execution.executionStatus).toBe(
      'EXECUTION_STATUS_IN_PROGRESS',
    );
    h.emulator.advance(1_000);
    expect((await h.get(`/v1alpha1/executions/${id}`)).json.execution.executionStatus).toBe('EXECUTION_STATUS_FAILED');
  });

  it('omits output with summary=true', async () => {
    const id = await run(LOGS, { namespace: 'web' });
    h.emulator.advance(10_000);
    const full = (await h.get(`/v1alpha1/executions/${id}`)).json.execution;
    expect(decodeOutput(full.output).length).toBeGreaterThan(10_240);
    const summary = (await h.get(`/v1alpha1/executions/${id}?summary=true`)).json.execution;
    expect(summary).not.toHaveProperty('output');
    expect(summary.executionStatus).toBe('EXECUTION_STATUS_SUCCEEDED');
  });

  it('answers 404 for an unknown execution', async () => {
    const { status, json } = await h.get('/v1alpha1/executions/00000000-0000-4000-8000-000000000000');
    expect(status).toBe(404);
    expect(json.code).toBe(5);
  });
});

describe('GET /v1alpha1/executions', () => {
  it('lists newest first by default with statusTable and aggregateTotalTable', async () => {
    const id = await run(RESTART);
    const { json } = await h.get('/v1alpha1/executions');
    expect(ListExecutionsResponse.safeParse(json).success).toBe(true);
    expect(json.execution).toHaveLength(25);
    expect(json.execution[0].id).toBe(id);
    const times = json.execution.map((e: { createTime: string }) => Date.parse(e.createTime));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const total = h.emulator.state.executions.size;
    expect(json.pageCount).toBe(Math.ceil(total / 25));
    const sum = (t: Record<string, number>) => Object.values(t).reduce((a, b) => a + b, 0);
    expect(sum(json.statusTable)).toBe(total);
    expect(json.aggregateTotalTable).toEqual(json.statusTable);
    expect(json.statusTable.EXECUTION_STATUS_IN_PROGRESS).toBe(1);
    expect(json).not.toHaveProperty('totalCount');
  });

  it('orders ascending on request and pages through every execution', async () => {
    const ids: string[] = [];
    let token = '';
    do {
      const { json } = await h.get(`/v1alpha1/executions?orderBy=ASC&pageSize=8&pageToken=${token}`);
      ids.push(...json.execution.map((e: { id: string }) => e.id));
      token = json.nextPageToken;
    } while (token !== '');
    const expected = h.emulator.state.executions.ordered.map((r) => r.id);
    expect(ids).toEqual(expected);
    expect((await h.get('/v1alpha1/executions?orderBy=sideways')).status).toBe(400);
  });

  it('filters by status, runbook and bare words; statusTable follows the filter', async () => {
    await run(RESTART, { deployment: 'FAIL' });
    await run(RESTART);
    h.emulator.advance(10_000);
    const failed = (await h.get('/v1alpha1/executions?filter=status:failed&pageSize=100')).json;
    expect(failed.execution.length).toBeGreaterThan(0);
    expect(
      failed.execution.every((e: { executionStatus: string }) => e.executionStatus === 'EXECUTION_STATUS_FAILED'),
    ).toBe(true);
    expect(failed.statusTable).toEqual({
      EXECUTION_STATUS_SUCCEEDED: 0,
      EXECUTION_STATUS_FAILED: failed.execution.length,
      EXECUTION_STATUS_IN_PROGRESS: 0,
    });
    expect(failed.aggregateTotalTable.EXECUTION_STATUS_SUCCEEDED).toBeGreaterThan(0);

    const q = encodeURIComponent('runbook:"restart kubernetes" status:EXECUTION_STATUS_SUCCEEDED');
    const mine = (await h.get(`/v1alpha1/executions?filter=${q}`)).json;
    expect(mine.execution.length).toBeGreaterThan(0);
    for (const e of mine.execution) {
      expect(e.workflowName).toBe('Restart Kubernetes Deployment');
      expect(e.executionStatus).toBe('EXECUTION_STATUS_SUCCEEDED');
    }
    const byExecutor = (await h.get('/v1alpha1/executions?filter=executor:alice')).json;
    expect(byExecutor.execution.every((e: { executor: string }) => e.executor.includes('alice'))).toBe(true);
    expect((await h.get('/v1alpha1/executions?filter=colour:red')).status).toBe(400);
  });

  it('restricts to the last month or year with timeRange', async () => {
    const all = (await h.get('/v1alpha1/executions?pageSize=100')).json.execution;
    const month = (await h.get('/v1alpha1/executions?pageSize=100&timeRange=LAST_MONTH')).json.execution;
    const year = (await h.get('/v1alpha1/executions?pageSize=100&timeRange=year')).json.execution;
    const cutoff = h.clock.now() - 30 * 24 * 3600 * 1000;
    expect(month.length).toBeGreaterThan(0);
    expect(month.length).toBeLessThan(all.length);
    expect(month.every((e: { createTime: string }) => Date.parse(e.createTime) >= cutoff)).toBe(true);
    expect(year.length).toBe(all.length);
    const bad = await h.get('/v1alpha1/executions?timeRange=fortnight');
    expect(bad.status).toBe(400);
    expect(bad.json.message).toContain('timeRange');
  });

  it('has ~30 seeded finished executions, both outcomes, across the last year', () => {
    const seeded = h.emulator.state.executions.ordered;
    expect(seeded.length).toBeGreaterThanOrEqual(25);
    expect(seeded.some((r) => r.status === 'EXECUTION_STATUS_FAILED')).toBe(true);
    expect(seeded.some((r) => r.status === 'EXECUTION_STATUS_SUCCEEDED')).toBe(true);
    expect(seeded.every((r) => r.status !== 'EXECUTION_STATUS_IN_PROGRESS')).toBe(true);
    expect(Math.min(...seeded.map((r) => r.createMs))).toBeLessThan(h.clock.now() - 60 * 24 * 3600 * 1000);
  });

  it('stays fast with 10,000 executions', async () => {
    const big = await startHarness({ defaultDurationMs: 1_000 });
    try {
      const runbook = big.emulator.state.workflows.byId.get(RESTART)!;
      for (let i = 0; i < 10_000; i++) {
        big.emulator.state.startExecutionAt(runbook, { proxyId: 'p' }, {}, big.clock.now() + i, {
          executor: `user${i % 50}@example.com`,
          approver: '',
        });
      }
      big.emulator.advance(20_000);
      const { json } = await big.get('/v1alpha1/executions?filter=executor:user7&pageSize=100');
      expect(json.execution.length).toBe(100);
      expect(big.emulator.state.executions.size).toBeGreaterThan(10_000);
      expect(json.aggregateTotalTable.EXECUTION_STATUS_IN_PROGRESS).toBe(0);
    } finally {
      await big.emulator.close();
    }
  });
});
