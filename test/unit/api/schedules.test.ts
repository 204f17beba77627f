import { describe, expect, it } from 'vitest';
import type { ScheduleWrite } from '../../../src/api/schemas.ts';
import { type MockApi, respHdr, scheduleJson, UUID, useMockApis } from './mock-api.ts';

const setup = useMockApis();
let m: MockApi;

const SID = '11111111-2222-3333-4444-555555555555';
const write: ScheduleWrite = {
  proxyId: 'proxy-1',
  runbookId: 'a'.repeat(64),
  runbookName: 'Restart pods',
  inputSchema: '',
  params: '{"region":"eu-west-1"}',
  schedule: '0 5 * * *',
};

describe('schedules', () => {
  it('list sends filter, pageSize, pageToken and orderBy and parses the page', async () => {
    m = setup();
    m.intercept('GET', '/v1alpha1/schedules').reply(200, {
      respHdr: respHdr('r-1'),
      schedules: [scheduleJson(), scheduleJson({ id: 'other', lastRun: '2024-03-01T00:00:00Z' })],
      nextPageToken: '2',
      pageCount: 4,
      totalCount: 8,
    });
    const page = await m.api.schedules.list({
      filter: 'runbookName:Restart',
      pageSize: 2,
      pageToken: '1',
      orderBy: 'descending',
    });
    expect(m.calls()[0]?.searchParams).toEqual({
      'reqHdr.tid': expect.stringMatching(UUID),
      filter: 'runbookName:Restart',
      pageSize: '2',
      pageToken: '1',
      orderBy: 'descending',
    });
    expect(page.items.map((s) => s.id)).toEqual([SID, 'other']);
    expect(page.items[0]?.lastRun).toBeNull();
    expect(page.items[1]?.lastRun).toBe('2024-03-01T00:00:00Z');
    expect(page).toMatchObject({ nextPageToken: '2', pageCount: 4, totalCount: 8, tid: 'r-1' });
  });

  it('create posts {reqHdr, schedule} with writable fields only', async () => {
    m = setup();
    m.intercept('POST', '/v1alpha1/schedules').reply(200, { respHdr: respHdr(), schedule: scheduleJson() });
    // Read-only fields smuggled in by a caller must not reach the wire.
    const withReadOnly = { ...write, id: 'nope', userEmail: 'x@example.com', proxyName: 'n' } as ScheduleWrite;
    const created = await m.api.schedules.create(withReadOnly, { tid: 'create-tid' });
    expect(m.calls()[0]?.searchParams).toEqual({});
    expect(m.bodyOf(0)).toEqual({ reqHdr: { tid: 'create-tid' }, schedule: write });
    expect(created.id).toBe(SID);
    expect(created.proxyName).toBe('Proxy One');
  });

  it('get reads one schedule with the tid in the query', async () => {
    m = setup();
    m.intercept('GET', `/v1alpha1/schedules/${SID}`).reply(200, { respHdr: respHdr(), schedule: scheduleJson() });
    const schedule = await m.api.schedules.get(SID);
    expect(m.calls()[0]?.searchParams).toEqual({ 'reqHdr.tid': expect.stringMatching(UUID) });
    expect(schedule.schedule).toBe('0 5 * * *');
  });

  it('update PATCHes the given writable fields with the tid in the query', async () => {
    m = setup();
    m.intercept('PATCH', `/v1alpha1/schedules/${SID}`).reply(200, {
      respHdr: respHdr(),
      schedule: scheduleJson({ schedule: '*/15 * * * *' }),
    });
    const updated = await m.api.schedules.update(SID, {
      runbookId: write.runbookId,
      runbookName: write.runbookName,
      schedule: '*/15 * * * *',
      params: undefined,
    });
    const call = m.calls()[0];
    expect(call?.method).toBe('PATCH');
    expect(call?.searchParams).toEqual({ 'reqHdr.tid': expect.stringMatching(UUID) });
    expect(call?.headers).toMatchObject({ 'content-type': 'application/json' });
    expect(m.bodyOf(0)).toEqual({
      runbookId: write.runbookId,
      runbookName: write.runbookName,
      schedule: '*/15 * * * *',
    });
    expect(updated.schedule).toBe('*/15 * * * *');
  });

  it('delete sends DELETE with the tid in the query and no body', async () => {
    m = setup();
    m.intercept('DELETE', `/v1alpha1/schedules/${SID}`).reply(200, { respHdr: respHdr() });
    await expect(m.api.schedules.delete(SID)).resolves.toBeUndefined();
    const call = m.calls()[0];
    expect(call?.method).toBe('DELETE');
    expect(call?.searchParams).toEqual({ 'reqHdr.tid': expect.stringMatching(UUID) });
    expect(call?.body ?? undefined).toBeUndefined();
  });

  it('iterate follows tokens and keeps orderBy on every page', async () => {
    m = setup();
    const page = (ids: string[], next: string) => ({
      respHdr: respHdr(),
      schedules: ids.map((id) => scheduleJson({ id })),
      nextPageToken: next,
      pageCount: 2,
      totalCount: 3,
    });
    m.intercept('GET', '/v1alpha1/schedules').reply(200, page(['s1', 's2'], 'p2'));
    m.intercept('GET', '/v1alpha1/schedules').reply(200, page(['s3'], ''));
    const ids: string[] = [];
    for await (const s of m.api.schedules.iterate({ orderBy: 'ascending' })) ids.push(s.id);
    expect(ids).toEqual(['s1', 's2', 's3']);
    expect(m.calls().map((c) => [c.searchParams.orderBy, c.searchParams.pageToken])).toEqual([
      ['ascending', undefined],
      ['ascending', 'p2'],
    ]);
  });
});
