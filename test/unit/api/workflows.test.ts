import { describe, expect, it } from 'vitest';
import { PaginationError } from '../../../src/api/errors.ts';
import { USER_AGENT } from '../../../src/api/transport.ts';
import { API_KEY, type MockApi, respHdr, UUID, useMockApis, workflowJson } from './mock-api.ts';

const setup = useMockApis();
let m: MockApi;

const listBody = (overrides: Record<string, unknown> = {}) => ({
  respHdr: respHdr(),
  workflows: [workflowJson()],
  nextPageToken: '',
  pageCount: 1,
  totalCount: 1,
  categoryCounts: [{ name: 'CATEGORY_TYPE_SRE', count: '8/8' }],
  ...overrides,
});

describe('workflows.list', () => {
  it('sends every parameter, the tid in the query and the standard headers', async () => {
    m = setup();
    m.intercept('GET', '/v1alpha1/workflows').reply(200, listBody());
    const page = await m.api.workflows.list({ isService: true, filter: 'name:restart', pageSize: 10, pageToken: '2' });

    const [call] = m.calls();
    expect(call?.method).toBe('GET');
    expect(call?.path).toBe('/v1alpha1/workflows');
    expect(call?.searchParams).toEqual({
      'reqHdr.tid': expect.stringMatching(UUID),
      filter: 'name:restart',
      pageSize: '10',
      pageToken: '2',
      isService: 'true',
    });
    expect(call?.headers).toMatchObject({
      'x-service-api-key': API_KEY,
      accept: 'application/json',
      'user-agent': USER_AGENT,
    });
    expect(USER_AGENT).toMatch(/^runbook-bot\/\d+\.\d+\.\d+/);
    expect(call?.headers).not.toHaveProperty('content-type');
    expect(page.items).toHaveLength(1);
    expect(page.items[0]?.name).toBe('Restart pods');
    expect(page.categoryCounts).toEqual([{ name: 'CATEGORY_TYPE_SRE', count: '8/8' }]);
    expect(page.tid).toBe('resp-tid-1');
  });

  it('sends isService=false for custom runbooks and nothing when it is omitted', async () => {
    m = setup();
    m.intercept('GET', '/v1alpha1/workflows').reply(200, listBody());
    m.intercept('GET', '/v1alpha1/workflows').reply(200, listBody());
    await m.api.workflows.list({ isService: false });
    await m.api.workflows.list();
    expect(m.calls()[0]?.searchParams).toEqual({ 'reqHdr.tid': expect.any(String), isService: 'false' });
    expect(m.calls()[1]?.searchParams).toEqual({ 'reqHdr.tid': expect.any(String) });
  });

  it('uses a caller-given tid and falls back to it when the response has none', async () => {
    m = setup();
    m.intercept('GET', '/v1alpha1/workflows').reply(200, listBody({ respHdr: null }));
    const page = await m.api.workflows.list({}, { tid: 'my-tid-42' });
    expect(m.calls()[0]?.searchParams['reqHdr.tid']).toBe('my-tid-42');
    expect(page.tid).toBe('my-tid-42');
  });

  it('generates a fresh tid for every call', async () => {
    m = setup();
    m.intercept('GET', '/v1alpha1/workflows').reply(200, listBody());
    m.intercept('GET', '/v1alpha1/workflows').reply(200, listBody());
    await m.api.workflows.list();
    await m.api.workflows.list();
    const [a, b] = m.calls().map((c) => c.searchParams['reqHdr.tid']);
    expect(a).not.toBe(b);
  });

  it('is lenient: ignores unknown fields, defaults nulls, reads int32 as numeric strings', async () => {
    m = setup();
    const { description: _dropped, ...withoutDescription } = workflowJson();
    m.intercept('GET', '/v1alpha1/workflows').reply(200, {
      respHdr: respHdr(),
      workflows: [{ ...withoutDescription, tags: null, createTime: '', surprise: { nested: true } }],
      nextPageToken: null,
      pageCount: '3',
      totalCount: '57',
      categoryCounts: null,
      extraTopLevel: 'ignored',
    });
    const page = await m.api.workflows.list();
    const workflow = page.items[0];
    expect(workflow?.description).toBe('');
    expect(workflow?.tags).toEqual([]);
    expect(workflow?.createTime).toBeNull();
    expect(workflow).not.toHaveProperty('surprise');
    expect(page).toMatchObject({ nextPageToken: '', pageCount: 3, totalCount: 57, categoryCounts: [] });
  });

  it('accepts a base URL with a trailing slash and keeps a path prefix', async () => {
    m = setup({ baseUrl: 'http://runbook.test/api/' });
    m.intercept('GET', '/api/v1alpha1/workflows').reply(200, listBody());
    await m.api.workflows.list();
    expect(m.calls()[0]?.path).toBe('/api/v1alpha1/workflows');
  });
});

describe('workflows.get', () => {
  it('encodes the id and sends isService and tenantId', async () => {
    m = setup();
    m.intercept('GET', '/v1alpha1/workflows/wf%2F1').reply(200, {
      respHdr: respHdr(),
      workflow: workflowJson({ id: 'wf/1' }),
      url: 'https://files.example/tmp/1',
    });
    const result = await m.api.workflows.get('wf/1', { isService: true, tenantId: 'tenant-7' });
    expect(m.calls()[0]?.searchParams).toEqual({
      'reqHdr.tid': expect.stringMatching(UUID),
      isService: 'true',
      tenantId: 'tenant-7',
    });
    expect(result.workflow.id).toBe('wf/1');
    expect(result.url).toBe('https://files.example/tmp/1');
  });

  it('omits isService for a custom runbook and defaults a missing url to ""', async () => {
    m = setup();
    m.intercept('GET', '/v1alpha1/workflows/abc').reply(200, { respHdr: respHdr(), workflow: workflowJson() });
    const result = await m.api.workflows.get('abc');
    expect(m.calls()[0]?.searchParams).toEqual({ 'reqHdr.tid': expect.any(String) });
    expect(result.url).toBe('');
  });
});

describe('workflows.run', () => {
  it('posts the values as a params string, the tid in the body, and only given fields', async () => {
    m = setup();
    m.intercept('POST', '/v1alpha1/workflows/abc/run').reply(200, {
      respHdr: respHdr('resp-run'),
      executionIds: ['e-1'],
    });
    const result = await m.api.workflows.run('abc', {
      proxyId: 'proxy-1',
      params: { region: 'us-west-2', dry_run: true },
      userEmail: 'ops@example.com',
      userId: 'U123',
    });
    const call = m.calls()[0];
    expect(call?.method).toBe('POST');
    expect(call?.searchParams).toEqual({});
    expect(call?.headers).toMatchObject({
      'content-type': 'application/json',
      'x-service-api-key': API_KEY,
      accept: 'application/json',
    });
    expect(m.bodyOf(0)).toEqual({
      reqHdr: { tid: expect.stringMatching(UUID) },
      proxyId: 'proxy-1',
      params: '{"region":"us-west-2","dry_run":true}',
      userEmail: 'ops@example.com',
      userId: 'U123',
    });
    expect(result).toEqual({ executionIds: ['e-1'], tid: 'resp-run' });
  });

  it('sends only proxyId (and reqHdr) for a runbook without inputs', async () => {
    m = setup();
    m.intercept('POST', '/v1alpha1/workflows/abc/run').reply(200, { respHdr: respHdr(), executionIds: ['e-1'] });
    await m.api.workflows.run('abc', { proxyId: 'p' }, { tid: 'run-tid' });
    expect(m.bodyOf(0)).toEqual({ reqHdr: { tid: 'run-tid' }, proxyId: 'p' });
  });

  it('also sends inputs when configured, and passes scheduleId, requestId and tenantId', async () => {
    m = setup({ sendInputsField: true });
    m.intercept('POST', '/v1alpha1/workflows/abc/run').reply(200, { respHdr: respHdr(), executionIds: [] });
    await m.api.workflows.run('abc', {
      proxyId: 'p',
      params: { a: 1 },
      scheduleId: 's-1',
      requestId: 'r-1',
      tenantId: 't-1',
    });
    expect(m.bodyOf(0)).toEqual({
      reqHdr: { tid: expect.any(String) },
      proxyId: 'p',
      params: '{"a":1}',
      inputs: '{"a":1}',
      scheduleId: 's-1',
      requestId: 'r-1',
      tenantId: 't-1',
    });
  });
});

describe('workflows.iterate', () => {
  it('follows nextPageToken across three pages with a fresh tid per page', async () => {
    m = setup();
    const names = ['a', 'b', 'c', 'd', 'e'];
    m.intercept('GET', '/v1alpha1/workflows').reply(
      200,
      listBody({ workflows: [workflowJson({ name: 'a' }), workflowJson({ name: 'b' })], nextPageToken: '2' }),
    );
    m.intercept('GET', '/v1alpha1/workflows').reply(
      200,
      listBody({ workflows: [workflowJson({ name: 'c' }), workflowJson({ name: 'd' })], nextPageToken: '3' }),
    );
    m.intercept('GET', '/v1alpha1/workflows').reply(200, listBody({ workflows: [workflowJson({ name: 'e' })] }));

    const seen: string[] = [];
    for await (const workflow of m.api.workflows.iterate({ isService: true, pageSize: 2 }, { tid: 'ignored' })) {
      seen.push(workflow.name);
    }
    expect(seen).toEqual(names);
    const calls = m.calls();
    expect(calls.map((c) => c.searchParams.pageToken)).toEqual([undefined, '2', '3']);
    expect(calls.every((c) => c.searchParams.isService === 'true' && c.searchParams.pageSize === '2')).toBe(true);
    expect(new Set(calls.map((c) => c.searchParams['reqHdr.tid'])).size).toBe(3);
  });

  it('throws a PaginationError when the server repeats a page token', async () => {
    m = setup();
    m.intercept('GET', '/v1alpha1/workflows').reply(200, listBody({ nextPageToken: 'x' }));
    m.intercept('GET', '/v1alpha1/workflows').reply(200, listBody({ nextPageToken: 'y' }));
    m.intercept('GET', '/v1alpha1/workflows').reply(200, listBody({ nextPageToken: 'x' }));
    const seen: string[] = [];
    const consume = async () => {
      for await (const workflow of m.api.workflows.iterate()) seen.push(workflow.id);
    };
    await expect(consume()).rejects.toBeInstanceOf(PaginationError);
    expect(seen).toHaveLength(3);
    expect(m.calls()).toHaveLength(3);
  });

  it('stops with a PaginationError at the max-pages limit', async () => {
    m = setup({ maxPages: 2 });
    m.intercept('GET', '/v1alpha1/workflows').reply(200, listBody({ nextPageToken: '2' }));
    m.intercept('GET', '/v1alpha1/workflows').reply(200, listBody({ nextPageToken: '3' }));
    const consume = async () => {
      for await (const _ of m.api.workflows.iterate()) {
        // drain
      }
    };
    const error = await consume().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(PaginationError);
    expect((error as Error).message).toMatch(/after 2 pages/);
    // The error carries the last page's transaction id, so the person can quote it.
    expect((error as PaginationError).tid).not.toBe('');
    expect(m.calls()).toHaveLength(2);
  });
});
