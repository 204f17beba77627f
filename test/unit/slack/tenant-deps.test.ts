// Per-installation deps (many-workspace mode): each installation reaches its own Runbook API tenant with
// its own catalog; ids of one tenant are "not found" in another; until connected every API call answers
// who can connect it; a replaced or removed key takes effect on the next request.
import { beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../../src/api/errors.ts';
import { UserFacingError } from '../../../src/slack/kit/user-facing-error.ts';
import { TABLE_POLICY } from '../../support/authorization-cases.ts';
import { B_RUNBOOKS, INSTALLER, KEY_A, KEY_B, type TenancyEnv, useTenancyEnvs } from './tenancy-env.ts';

const envs = useTenancyEnvs(TABLE_POLICY);
let t: TenancyEnv;
beforeAll(() => {
  t = envs.tenancy();
});

const names = async (deps: {
  api: { workflows: { list: (p: object) => Promise<{ items: Array<{ name: string }> }> } };
}) => (await deps.api.workflows.list({ isService: true, pageSize: 100 })).items.map((w) => w.name).sort();

describe('tenant deps', () => {
  it('answers every API call of an unconnected installation with who can connect it', async () => {
    const deps = await t.tenants.depsFor(t.installation('T0NEW'));
    expect(deps.tenancy).toMatchObject({ installationId: 'T0NEW', status: null, installerId: INSTALLER });
    const failure = await deps.api.workflows.list({}).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(UserFacingError);
    expect((failure as Error).message).toMatch(/not connected to a Runbook API yet: a workspace admin or owner/);
    await expect(deps.api.executions.get('x')).rejects.toBeInstanceOf(UserFacingError);
    await expect(deps.catalog.all()).rejects.toBeInstanceOf(UserFacingError);
    // No installation at all: never the operator's API.
    const none = await t.tenants.depsFor(undefined);
    await expect(none.api.schedules.list({})).rejects.toThrow(/names no workspace/);
    expect(none.tenancy).toBeUndefined();
  });

  it("gives each installation its own tenant: own catalog, and one tenant's ids are not found in another", async () => {
    expect((await t.connections.connect('T0AAA', { apiKey: KEY_A }, 'U1')).ok).toBe(true);
    expect((await t.connections.connect('T0BBB', { apiKey: KEY_B }, 'U2')).ok).toBe(true);
    const a = await t.tenants.depsFor(t.installation('T0AAA'));
    const b = await t.tenants.depsFor(t.installation('T0BBB'));
    expect(a.tenancy?.status?.connectedBy).toBe('U1');
    expect(await names(b)).toEqual([...B_RUNBOOKS].sort());
    expect((await names(a)).length).toBeGreaterThan(40);
    expect(a.catalog).not.toBe(b.catalog);
    expect(a.access.identity).not.toBe(b.access.identity);
    // Shared: the store, the policy's audit trail.
    expect(a.access.store).toBe(b.access.store);

    const runbook = (await b.api.workflows.list({ isService: true })).items[0]!;
    const run = await b.api.workflows.run(runbook.id, {
      proxyId: 'proxy-dev',
      params: { namespace: 'x', deployment: 'y', database: 'app' },
    });
    const executionId = run.executionIds[0]!;
    expect((await b.api.executions.get(executionId)).id).toBe(executionId);
    await expect(a.api.executions.get(executionId)).rejects.toBeInstanceOf(NotFoundError);
    const scheduleOfA = (await a.api.schedules.list({})).items[0]!.id;
    await expect(b.api.schedules.get(scheduleOfA)).rejects.toBeInstanceOf(NotFoundError);
    await expect(b.api.schedules.delete(scheduleOfA)).rejects.toBeInstanceOf(NotFoundError);
    expect((await a.api.schedules.get(scheduleOfA)).id).toBe(scheduleOfA);
  });

  it('keeps an installation’s deps while its connection is unchanged and rebuilds them when it changes', async () => {
    await t.connections.connect('T0CCC', { apiKey: KEY_A }, 'U1');
    const first = await t.tenants.depsFor(t.installation('T0CCC'));
    expect(await t.tenants.depsFor(t.installation('T0CCC'))).toBe(first);
    await t.connections.connect('T0CCC', { apiKey: KEY_B }, 'U3');
    const replaced = await t.tenants.depsFor(t.installation('T0CCC'));
    expect(replaced).not.toBe(first);
    expect(await names(replaced)).toEqual([...B_RUNBOOKS].sort());
    await t.connections.remove('T0CCC');
    const removed = await t.tenants.depsFor(t.installation('T0CCC'));
    expect(removed.tenancy?.status).toBeNull();
    await expect(removed.api.workflows.list({})).rejects.toBeInstanceOf(UserFacingError);
  });

  it('keeps the deps of 1,001 installations built at once: none is rebuilt on its next use', async () => {
    const ids = Array.from({ length: 1_001 }, (_, i) => `T9${String(i).padStart(5, '0')}`);
    const built = new Map<string, unknown>();
    for (const id of ids) built.set(id, await t.tenants.depsFor(t.installation(id)));
    for (const id of ids) expect(await t.tenants.depsFor(t.installation(id))).toBe(built.get(id));
  });

  it('checks a key with the API before saving it: a wrong key is refused and nothing is kept', async () => {
    const outcome = await t.connections.connect('T0DDD', { apiKey: 'not-a-tenant-key' }, 'U1');
    expect(outcome).toMatchObject({ ok: false, field: 'apiKey' });
    expect(outcome.ok ? '' : outcome.sentence).toMatch(/refused this key \(HTTP 401\).*Nothing was saved/);
    expect(outcome.ok ? '' : outcome.sentence).not.toContain('not-a-tenant-key');
    expect(await t.connections.status('T0DDD')).toBeNull();
  });
});
