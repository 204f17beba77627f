// The emulator's filter modes: the same expression on the three lists, read as each kind of server
// would read the unpublished grammar; the mode is set at start and switched through /_admin.
import { afterEach, describe, expect, it } from 'vitest';
import { fieldMap, readFilter } from '../../../src/emulator/filter.ts';
import { type Harness, startHarness } from './harness.ts';

let h: Harness | null = null;
afterEach(async () => {
  await h?.emulator.close();
  h = null;
});

const NAME = 'Rotate Nginx Logs';
const QUOTED = encodeURIComponent(`workflowName:"${NAME}"`);

async function run(harness: Harness): Promise<string> {
  const id = [...harness.emulator.state.workflows.byId.values()].find((r) => r.seed.name === NAME)!.workflow.id;
  const res = await harness.call('POST', `/v1alpha1/workflows/${id}/run`, { proxyId: 'p' });
  return res.json.executionIds[0] as string;
}

describe('readFilter', () => {
  const fields = fieldMap({ workflowName: ['runbook'], status: [] });
  it('plain-terms keeps quotes in the value, splits words, and reads unknown fields as words', () => {
    expect(readFilter('workflowName:"Rotate Logs" owner:me', fields, 'plain-terms')).toEqual([
      { field: 'workflowName', value: '"Rotate' },
      { field: null, value: 'Logs"' },
      { field: null, value: 'owner:me' },
    ]);
  });
  it('ignore drops the expression, reject refuses any, apply parses the grammar', () => {
    expect(readFilter('workflowName:"Rotate Logs"', fields, 'ignore')).toEqual([]);
    expect(() => readFilter('status:failed', fields, 'reject')).toThrow(/not supported/);
    expect(readFilter('', fields, 'reject')).toEqual([]);
    expect(readFilter('runbook:"Rotate Logs"', fields, 'apply')).toEqual([
      { field: 'workflowName', value: 'Rotate Logs' },
    ]);
  });
});

describe('filter modes on the lists', () => {
  it('apply (default) narrows; ignore returns every row; plain-terms matches nothing; reject is a 400', async () => {
    h = await startHarness();
    const id = await run(h);
    const all = (await h.get('/v1alpha1/executions?pageSize=100')).json.execution.length as number;
    const list = () => h!.get(`/v1alpha1/executions?pageSize=100&filter=${QUOTED}`);

    expect((await h.get('/_admin/filter-mode')).json).toEqual({ mode: 'apply' });
    const applied = (await list()).json.execution as Array<{ id: string; workflowName: string }>;
    expect(applied.map((e) => e.id)).toContain(id);
    expect(applied.every((e) => e.workflowName === NAME)).toBe(true);

    expect((await h.call('PUT', '/_admin/filter-mode', { mode: 'ignore' })).json).toEqual({ mode: 'ignore' });
    expect((await list()).json.execution).toHaveLength(all);

    await h.call('PUT', '/_admin/filter-mode', { mode: 'plain-terms' });
    expect((await list()).json.execution).toEqual([]);
    const unquoted = await h.get(
      `/v1alpha1/executions?pageSize=100&filter=${encodeURIComponent('workflowName:Nginx')}`,
    );
    expect(unquoted.json.execution.map((e: { id: string }) => e.id)).toContain(id);

    await h.call('PUT', '/_admin/filter-mode', { mode: 'reject' });
    const rejected = await list();
    expect(rejected.status).toBe(400);
    expect(rejected.json).toMatchObject({ code: 3, message: expect.stringMatching(/^filter:/) });
    expect((await h.get(`/v1alpha1/workflows?filter=${QUOTED}`)).status).toBe(400);
    expect((await h.get(`/v1alpha1/schedules?filter=${QUOTED}`)).status).toBe(400);
    // No filter is never refused.
    expect((await h.get('/v1alpha1/executions')).status).toBe(200);

    expect((await h.call('PUT', '/_admin/filter-mode', { mode: 'strict' })).status).toBe(400);
  });

  it('takes the mode at start, and the workflows list does not serve a result memoised under another mode', async () => {
    h = await startHarness({ filterMode: 'plain-terms' });
    const filter = encodeURIComponent(`name:"${NAME}"`);
    expect((await h.get(`/v1alpha1/workflows?filter=${filter}`)).json.workflows).toEqual([]);
    h.emulator.setFilterMode('apply');
    expect((await h.get(`/v1alpha1/workflows?filter=${filter}`)).json.workflows).toHaveLength(1);
  });
});
