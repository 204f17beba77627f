import { describe, expect, it } from 'vitest';
import { decodeOutput } from '../../../src/api/executions.ts';
import { executionJson, type MockApi, respHdr, UUID, useMockApis } from './mock-api.ts';

const setup = useMockApis();
let m: MockApi;

const EID = '99999999-8888-7777-6666-555555555555';
const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('executions.list', () => {
  it('sends every parameter including timeRange and decodes each output', async () => {
    m = setup();
    m.intercept('GET', '/v1alpha1/executions').reply(200, {
      respHdr: respHdr('r-9'),
      execution: [executionJson(), executionJson({ id: 'e2', output: b64('second\nline') })],
      statusTable: { EXECUTION_STATUS_SUCCEEDED: '2', EXECUTION_STATUS_FAILED: 1 },
      nextPageToken: '',
      pageCount: 1,
      aggregateTotalTable: { total: 3 },
    });
    const page = await m.api.executions.list({
      filter: 'workflowName:Restart',
      pageSize: 25,
      pageToken: '1',
      orderBy: 'descending',
      timeRange: 'last_month',
    });
    expect(m.calls()[0]?.searchParams).toEqual({
      'reqHdr.tid': expect.stringMatching(UUID),
      filter: 'workflowName:Restart',
      pageSize: '25',
      pageToken: '1',
      orderBy: 'descending',
      timeRange: 'last_month',
    });
    expect(page.items.map((e) => e.output)).toEqual(['all pods restarted ✓', 'second\nline']);
    expect(page.statusTable).toEqual({ EXECUTION_STATUS_SUCCEEDED: 2, EXECUTION_STATUS_FAILED: 1 });
    expect(page.aggregateTotalTable).toEqual({ total: 3 });
    expect(page.totalCount).toBe(3);
    expect(page.tid).toBe('r-9');
  });

  it('maps unknown enum values to "unknown" and missing ones to UNSPECIFIED', async () => {
    m = setup();
    m.intercept('GET', '/v1alpha1/executions').reply(200, {
      execution: [
        executionJson({ executionStatus: 'EXECUTION_STATUS_PAUSED', executionType: null }),
        executionJson({ executionStatus: undefined, executionType: 'EXECUTION_TYPE_WORKFLOW' }),
      ],
    });
    const page = await m.api.executions.list();
    expect(page.items.map((e) => [e.executionStatus, e.executionType])).toEqual([
      ['unknown', 'EXECUTION_TYPE_UNSPECIFIED'],
      ['EXECUTION_STATUS_UNSPECIFIED', 'unknown'],
    ]);
    expect(page).toMatchObject({ nextPageToken: '', pageCount: 0, statusTable: {}, tid: expect.stringMatching(UUID) });
  });

  it('iterates over pages of executions', async () => {
    m = setup();
    m.intercept('GET', '/v1alpha1/executions').reply(200, {
      execution: [executionJson({ id: 'e1' })],
      nextPageToken: 't2',
    });
    m.intercept('GET', '/v1alpha1/executions').reply(200, {
      execution: [executionJson({ id: 'e2' })],
      nextPageToken: '',
    });
    const ids: string[] = [];
    for await (const e of m.api.executions.iterate({ timeRange: 'all' })) ids.push(e.id);
    expect(ids).toEqual(['e1', 'e2']);
    expect(m.calls().map((c) => c.searchParams.timeRange)).toEqual(['all', 'all']);
  });
});

describe('executions.get', () => {
  it('decodes base64 output and sends no summary flag by default', async () => {
    m = setup();
    m.intercept('GET', `/v1alpha1/executions/${EID}`).reply(200, { respHdr: respHdr(), execution: executionJson() });
    const execution = await m.api.executions.get(EID);
    expect(m.calls()[0]?.searchParams).toEqual({ 'reqHdr.tid': expect.stringMatching(UUID) });
    expect(execution.output).toBe('all pods restarted ✓');
    expect(execution.executionStatus).toBe('EXECUTION_STATUS_SUCCEEDED');
  });

  it('sends summary=true and copes with the omitted output', async () => {
    m = setup();
    const { output: _omitted, ...summary } = executionJson();
    m.intercept('GET', `/v1alpha1/executions/${EID}`).reply(200, { respHdr: respHdr(), execution: summary });
    const execution = await m.api.executions.get(EID, { summary: true });
    expect(m.calls()[0]?.searchParams).toEqual({ 'reqHdr.tid': expect.any(String), summary: 'true' });
    expect(execution.output).toBe('');
  });

  it('keeps output that is not base64 as-is', async () => {
    m = setup();
    m.intercept('GET', `/v1alpha1/executions/${EID}`).reply(200, {
      execution: executionJson({ output: 'Error: pod not found!' }),
    });
    expect((await m.api.executions.get(EID)).output).toBe('Error: pod not found!');
  });

  it('leaves output untouched in plain mode', async () => {
    m = setup({ outputEncoding: 'plain' });
    const encoded = b64('hello');
    m.intercept('GET', `/v1alpha1/executions/${EID}`).reply(200, { execution: executionJson({ output: encoded }) });
    expect((await m.api.executions.get(EID)).output).toBe(encoded);
  });
});

describe('decodeOutput', () => {
  it.each([
    ['', ''],
    [b64('plain text'), 'plain text'],
    [b64('{"ok":true}'), '{"ok":true}'],
    [b64('ünïcödé'), 'ünïcödé'],
    ['not base64!', 'not base64!'],
    ['abc', 'abc'],
    // Valid base64 alphabet but decodes to invalid UTF-8: kept.
    ['//79/w==', '//79/w=='],
    // Non-canonical padding bits: kept.
    ['QR==', 'QR=='],
  ])('decodeOutput(%j) → %j', (raw, expected) => {
    expect(decodeOutput(raw)).toBe(expected);
  });
});
