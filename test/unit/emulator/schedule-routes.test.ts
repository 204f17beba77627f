import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ListSchedulesResponse, ScheduleResponse } from '../../../src/api/schemas.ts';
import { sha256Hex } from '../../../src/emulator/random.ts';
import { type Harness, START_MS, startHarness } from './harness.ts';

let h: Harness;
beforeEach(async () => {
  h = await startHarness({ defaultDurationMs: 5_000 });
});
afterEach(() => h.emulator.close());

const VACUUM = sha256Hex('Postgres Vacuum Analyze');

async function create(schedule: Record<string, unknown>) {
  return h.call('POST', '/v1alpha1/schedules', { reqHdr: { tid: 'c1' }, schedule });
}

describe('POST /v1alpha1/schedules', () => {
  it('creates a schedule as given, owned by the API key', async () => {
    const { status, json } = await create({
      proxyId: 'proxy-prod-us-east-1',
      runbookId: VACUUM,
      params: '{"database":"orders"}',
      schedule: '*/15 * * * *',
    });
    expect(status).toBe(200);
    expect(ScheduleResponse.safeParse(json).success).toBe(true);
    expect(json.respHdr.requestTid).toBe('c1');
    expect(json.schedule).toMatchObject({
      proxyId: 'proxy-prod-us-east-1',
      proxyName: 'Production (us-east-1)',
      runbookId: VACUUM,
      runbookName: 'Postgres Vacuum Analyze',
      params: '{"database":"orders"}',
      schedule: '*/15 * * * *',
      lastRun: null,
      lastUpdated: new Date(START_MS).toISOString(),
      userEmail: 'api-key@runbooks.local',
    });
    expect(json.schedule.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('rejects an invalid cron expression with a 400 naming the field', async () => {
    for (const schedule of ['* 5 * *', '0 25 * * *', '@hourly', '']) {
      const { status, json } = await create({ runbookId: VACUUM, schedule });
      expect(status).toBe(400);
      expect(json.code).toBe(3);
      expect(json.message).toMatch(/^schedule\.schedule: /);
    }
    const { json } = await create({ runbookId: VACUUM, schedule: '0 25 * * *' });
    expect(json.message).toContain('invalid cron expression');
  });

  it('requires an existing runbook', async () => {
    expect((await create({ schedule: '0 5 * * *' })).json.message).toMatch(/runbookId/);
    expect((await create({ runbookId: 'missing', schedule: '0 5 * * *' })).status).toBe(404);
    expect((await h.call('POST', '/v1alpha1/schedules', {})).json.message).toBe('schedule: is required');
  });
});

describe('schedule firing', () => {
  it('fires on advance in UTC, creating runs and updating lastRun on the schedule and runbook', async () => {
    // START is 12:00 UTC; "0 13 * * *" fires at 13:00.
    const { json } = await create({
      runbookId: VACUUM,
      proxyId: 'p1',
      params: '{"database":"app"}',
      schedule: '0 13 * * *',
    });
    const id = json.schedule.id;
    h.emulator.advance(59 * 60_000);
    expect(h.emulator.state.executions.ordered.filter((r) => r.scheduleId === id)).toHaveLength(0);

    h.emulator.advance(60_000);
    const runs = h.emulator.state.executions.ordered.filter((r) => r.scheduleId === id);
    expect(runs).toHaveLength(1);
    const fireTime = new Date(Date.UTC(2025, 0, 15, 13)).toISOString();
    expect(runs[0]).toMatchObject({
      executor: 'api-key@runbooks.local',
      inputs: '{"database":"app"}',
      received: { proxyId: 'p1', scheduleId: id },
    });
    expect(new Date(runs[0]!.createMs).toISOString()).toBe(fireTime);
    expect((await h.get(`/v1alpha1/schedules/${id}`)).json.schedule.lastRun).toBe(fireTime);
    expect((await h.get(`/v1alpha1/workflows/${VACUUM}`)).json.workflow.lastRun).toBe(fireTime);

    // Two more days: two more firings (the seeded 05:00 vacuum schedule fires too, but not this one's id).
    h.emulator.advance(2 * 24 * 3600_000);
    expect(h.emulator.state.executions.ordered.filter((r) => r.scheduleId === id)).toHaveLength(3);
    const listed = (await h.get(`/v1alpha1/executions?filter=scheduleId:${id}`)).json.execution;
    expect(listed).toHaveLength(3);
    // The newest run started this very moment; the earlier ones have finished.
    expect(listed.map((e: { executionStatus: string }) => e.executionStatus)).toEqual([
      'EXECUTION_STATUS_IN_PROGRESS',
      'EXECUTION_STATUS_SUCCEEDED',
      'EXECUTION_STATUS_SUCCEEDED',
    ]);
    h.emulator.advance(5_000);
    const later = (await h.get(`/v1alpha1/executions?filter=scheduleId:${id}`)).json.execution;
    expect(later[0].executionStatus).toBe('EXECUTION_STATUS_SUCCEEDED');
  });

  it('caps firings per advance at 1000', async () => {
    const { json } = await create({ runbookId: VACUUM, schedule: '* * * * *' });
    h.emulator.advance(3 * 24 * 3600_000);
    expect(
      h.emulator.state.executions.ordered.filter((r) => r.scheduleId === json.schedule.id).length,
    ).toBeLessThanOrEqual(1000);
  });

  it('stops firing once deleted', async () => {
    const { json } = await create({ runbookId: VACUUM, schedule: '*/5 * * * *' });
    const del = await h.call('DELETE', `/v1alpha1/schedules/${json.schedule.id}?reqHdr.tid=d1`);
    expect(del.status).toBe(200);
    expect(del.json).toEqual({ respHdr: { tid: expect.any(String), requestTid: 'd1' } });
    h.emulator.advance(3600_000);
    expect(h.emulator.state.executions.ordered.some((r) => r.scheduleId === json.schedule.id)).toBe(false);
    expect((await h.get(`/v1alpha1/schedules/${json.schedule.id}`)).status).toBe(404);
    expect((await h.call('DELETE', `/v1alpha1/schedules/${json.schedule.id}`)).status).toBe(404);
  });
});

describe('PATCH /v1alpha1/schedules/{id}', () => {
  it('changes only the documented fields', async () => {
    const created = (await create({ runbookId: VACUUM, proxyId: 'p1', schedule: '0 5 * * *' })).json.schedule;
    h.emulator.advance(60_000);
    const { status, json } = await h.call('PATCH', `/v1alpha1/schedules/${created.id}?reqHdr.tid=p1`, {
      id: 'hijack',
      userEmail: 'evil@example.com',
      lastRun: '2020-01-01T00:00:00Z',
      proxyName: 'nope',
      proxyId: 'proxy-staging',
      params: '{"database":"x"}',
      schedule: '0 6 * * *',
    });
    expect(status).toBe(200);
    expect(json.respHdr.requestTid).toBe('p1');
    expect(json.schedule).toEqual({
      ...created,
      proxyId: 'proxy-staging',
      proxyName: 'Staging',
      params: '{"database":"x"}',
      schedule: '0 6 * * *',
      lastUpdated: new Date(START_MS + 60_000).toISOString(),
    });
  });

  it('validates a new schedule expression and unknown ids', async () => {
    const created = (await create({ runbookId: VACUUM, schedule: '0 5 * * *' })).json.schedule;
    const bad = await h.call('PATCH', `/v1alpha1/schedules/${created.id}`, { schedule: 'every day' });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toMatch(/^schedule: invalid cron expression/);
    expect((await h.call('PATCH', '/v1alpha1/schedules/missing', { schedule: '0 5 * * *' })).status).toBe(404);
  });
});

describe('GET /v1alpha1/schedules', () => {
  it('lists seeded and created schedules ascending by default, descending on request', async () => {
    const created = (await create({ runbookId: VACUUM, schedule: '0 5 * * *' })).json.schedule;
    const asc = (await h.get('/v1alpha1/schedules')).json;
    expect(ListSchedulesResponse.safeParse(asc).success).toBe(true);
    expect(asc.totalCount).toBeGreaterThanOrEqual(3);
    expect(asc.schedules.at(-1).id).toBe(created.id);
    expect(asc.schedules.some((s: { lastRun: string | null }) => s.lastRun !== null)).toBe(true);
    const desc = (await h.get('/v1alpha1/schedules?orderBy=descending')).json;
    expect(desc.schedules[0].id).toBe(created.id);
  });

  it('pages and filters', async () => {
    const page = (await h.get('/v1alpha1/schedules?pageSize=2')).json;
    expect(page.schedules).toHaveLength(2);
    expect(page.nextPageToken).not.toBe('');
    const rest = (await h.get(`/v1alpha1/schedules?pageSize=2&pageToken=${page.nextPageToken}`)).json;
    expect(rest.schedules[0].id).not.toBe(page.schedules[0].id);
    const byRunbook = (await h.get(`/v1alpha1/schedules?filter=runbookId:${VACUUM}`)).json;
    expect(byRunbook.schedules.every((s: { runbookId: string }) => s.runbookId === VACUUM)).toBe(true);
    expect(byRunbook.totalCount).toBeGreaterThan(0);
    const bare = (await h.get('/v1alpha1/schedules?filter=vacuum')).json;
    expect(bare.totalCount).toBe(byRunbook.totalCount);
    expect((await h.get('/v1alpha1/schedules?filter=cron:x')).status).toBe(400);
  });
});
