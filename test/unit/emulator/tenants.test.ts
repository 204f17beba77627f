// Several tenants in one emulator, each chosen by its API key, as the real service takes the tenant
// from the credential: own catalog, own executions, own schedules; ids of one are "not found" in another.
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../src/emulator/server.ts';
import { type Harness, KEY, startHarness } from './harness.ts';

let h: Harness;
afterEach(() => h?.emulator.close());

const B = 'key-of-tenant-b';
const C = 'key-of-tenant-c';
const asB = { 'X-Service-API-Key': B };
const asC = { 'X-Service-API-Key': C };

async function startTenants(): Promise<Harness> {
  return startHarness({
    tenants: {
      [B]: { name: 'beta', runbooks: ['Restart Kubernetes Deployment', 'Postgres Vacuum Analyze'] },
      [C]: { name: 'gamma', history: false },
    },
  });
}

const names = (json: { workflows: Array<{ name: string }> }) => json.workflows.map((w) => w.name).sort();

describe('emulator tenants', () => {
  it('keeps the single-key default: one tenant, its state, wrong keys 401', async () => {
    h = await startHarness();
    expect(h.emulator.tenant(KEY)).toBe(h.emulator.state);
    expect(h.emulator.tenant(B)).toBeUndefined();
    expect((await h.call('GET', '/v1alpha1/workflows', undefined, asB)).status).toBe(401);
  });

  it('serves each tenant its own catalog by key', async () => {
    h = await startTenants();
    const all = await h.get('/v1alpha1/workflows?isService=true&pageSize=100');
    const beta = await h.call('GET', '/v1alpha1/workflows?isService=true&pageSize=100', undefined, asB);
    expect(beta.status).toBe(200);
    expect(names(beta.json)).toEqual(['Postgres Vacuum Analyze', 'Restart Kubernetes Deployment']);
    expect(all.json.totalCount).toBeGreaterThan(40);
    const betaCustom = await h.call('GET', '/v1alpha1/workflows?isService=false', undefined, asB);
    expect(betaCustom.json.workflows).toEqual([]);
    // Custom runbooks of two tenants with the same seed have ids of their own.
    const defaultCustom = await h.get('/v1alpha1/workflows?isService=false&pageSize=100');
    const gammaCustom = await h.call('GET', '/v1alpha1/workflows?isService=false&pageSize=100', undefined, asC);
    const idsA = new Set(defaultCustom.json.workflows.map((w: { id: string }) => w.id));
    expect(gammaCustom.json.workflows.length).toBe(defaultCustom.json.workflows.length);
    for (const w of gammaCustom.json.workflows) expect(idsA.has(w.id)).toBe(false);
    const foreign = await h.call('GET', `/v1alpha1/workflows/${defaultCustom.json.workflows[0].id}`, undefined, asC);
    expect(foreign.status).toBe(404);
  });

  it("keeps executions and schedules apart: one tenant's ids are not found in another", async () => {
    h = await startTenants();
    const runbookId = (await h.call('GET', '/v1alpha1/workflows?isService=true', undefined, asB)).json.workflows[0].id;
    const run = await h.call(
      'POST',
      `/v1alpha1/workflows/${runbookId}/run`,
      { proxyId: 'p', params: '{"namespace":"x","deployment":"y"}' },
      asB,
    );
    expect(run.status).toBe(200);
    const executionId = run.json.executionIds[0];
    expect((await h.call('GET', `/v1alpha1/executions/${executionId}`, undefined, asB)).status).toBe(200);
    expect((await h.get(`/v1alpha1/executions/${executionId}`)).status).toBe(404);
    expect((await h.call('GET', `/v1alpha1/executions/${executionId}`, undefined, asC)).status).toBe(404);

    // Demo history: each tenant with history has its own schedule ids; gamma has none.
    const defaultSchedules = (await h.get('/v1alpha1/schedules')).json.schedules as Array<{ id: string }>;
    const betaSchedules = (await h.call('GET', '/v1alpha1/schedules', undefined, asB)).json.schedules as Array<{
      id: string;
    }>;
    expect(defaultSchedules).toHaveLength(3);
    expect(betaSchedules.length).toBeGreaterThan(0);
    for (const s of betaSchedules) expect(defaultSchedules.map((d) => d.id)).not.toContain(s.id);
    expect((await h.call('GET', '/v1alpha1/schedules', undefined, asC)).json.schedules).toEqual([]);
    expect((await h.call('GET', '/v1alpha1/executions', undefined, asC)).json.execution).toEqual([]);

    const foreignSchedule = defaultSchedules[0]!.id;
    expect((await h.call('GET', `/v1alpha1/schedules/${foreignSchedule}`, undefined, asB)).status).toBe(404);
    expect((await h.call('DELETE', `/v1alpha1/schedules/${foreignSchedule}`, undefined, asB)).status).toBe(404);
    expect((await h.get(`/v1alpha1/schedules/${foreignSchedule}`)).status).toBe(200);

    // Each tenant counts its own requests.
    expect(h.emulator.tenant(C)!.requests.snapshot().total).toBe(3);
  });

  it('fires each tenant schedules on the shared clock, into that tenant only', async () => {
    h = await startTenants();
    const runbookId = (await h.call('GET', '/v1alpha1/workflows?isService=true', undefined, asC)).json.workflows[0].id;
    const created = await h.call(
      'POST',
      '/v1alpha1/schedules',
      { schedule: { runbookId, proxyId: 'p', params: '{}', schedule: '*/5 * * * *' } },
      asC,
    );
    expect(created.status).toBe(200);
    h.emulator.advance(10 * 60_000);
    const gammaRuns = h.emulator.tenant(C)!.executions;
    expect([...gammaRuns.byId.values()].filter((e) => e.scheduleId === created.json.schedule.id)).toHaveLength(2);
    expect([...h.emulator.state.executions.byId.values()].some((e) => e.scheduleId === created.json.schedule.id)).toBe(
      false,
    );
  });

  it('refuses a tenant whose key is the default key or empty', async () => {
    await expect(startEmulator({ port: 0, apiKey: KEY, tenants: { [KEY]: { name: 'dup' } } })).rejects.toThrow(
      /unique/,
    );
    await expect(startEmulator({ port: 0, apiKey: KEY, tenants: { '': { name: 'empty' } } })).rejects.toThrow(/unique/);
  });
});
