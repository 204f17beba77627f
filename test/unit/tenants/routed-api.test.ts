// The routed Runbook API: each call reaches the API of the installation in scope, outside any it fails.
import { describe, expect, it } from 'vitest';
import type { RunbookApi } from '../../../src/api/runbook-api.ts';
import { NoApiInScopeError, routedRunbookApi } from '../../../src/tenants/routed-api.ts';
import { currentInstallation, inInstallation } from '../../../src/tenants/tenant-scope.ts';

function fakeApi(name: string): RunbookApi {
  const page = async () => ({ items: [{ id: name }], nextPageToken: '', pageCount: 1, totalCount: 1, tid: name });
  const each = async function* () {
    yield { id: `${name}-1` };
    yield { id: `${name}-2` };
  };
  return {
    workflows: {
      list: page,
      iterate: each,
      get: async (id: string) => ({ workflow: { id: `${name}:${id}` } }),
      run: async () => ({ executionIds: [name] }),
    },
    schedules: {
      list: page,
      iterate: each,
      create: async () => ({ id: name }),
      get: async () => ({ id: name }),
      update: async () => ({ id: name }),
      delete: async () => {},
    },
    executions: { list: page, iterate: each, get: async (id: string) => ({ id: `${name}:${id}` }) },
    close: async () => {},
  } as unknown as RunbookApi;
}

const apis: Record<string, RunbookApi> = { T1: fakeApi('one'), T2: fakeApi('two') };
const routed = routedRunbookApi(async () => {
  const id = currentInstallation();
  if (!id) throw new NoApiInScopeError();
  return apis[id]!;
});

describe('routedRunbookApi', () => {
  it('sends each call to the API of the installation in scope, across awaits and iteration', async () => {
    const [one, two] = await Promise.all([
      inInstallation('T1', async () => {
        await new Promise((r) => setTimeout(r, 5));
        return (await routed.executions.get('x')).id;
      }),
      inInstallation('T2', async () => (await routed.executions.get('x')).id),
    ]);
    expect([one, two]).toEqual(['one:x', 'two:x']);
    const ids = await inInstallation('T2', async () => {
      const seen: string[] = [];
      for await (const s of routed.schedules.iterate({})) seen.push(s.id);
      return seen;
    });
    expect(ids).toEqual(['two-1', 'two-2']);
    expect(await inInstallation('T1', () => routed.workflows.run('w', { proxyId: 'p' }))).toEqual({
      executionIds: ['one'],
    });
  });

  it('fails outside any installation rather than reach some API', async () => {
    await expect(routed.workflows.list({})).rejects.toBeInstanceOf(NoApiInScopeError);
    await expect(
      (async () => {
        for await (const _ of routed.executions.iterate({})) return;
      })(),
    ).rejects.toBeInstanceOf(NoApiInScopeError);
  });
});
