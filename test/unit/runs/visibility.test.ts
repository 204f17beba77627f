// `view` of a runbook known only by a name or id (executions, schedules, health): judged by the catalog's
// facts; when the catalog cannot be read, a policy that hides runbooks by those facts hides them all
// rather than letting a deny-by-tag rule lapse, and a policy that does not still shows them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunbookCatalog } from '../../../src/catalog/runbook-catalog.ts';
import { actor } from '../../../src/runs/actor.ts';
import type { RunsDeps } from '../../../src/runs/deps.ts';
import { visibilityFor } from '../../../src/runs/visibility.ts';
import { startUseCaseEnv, type UseCaseEnv } from './use-case-env.ts';

const BY_TAG = `
rules:
  - name: carol does not see databases
    effect: deny
    actions: [view]
    users: [U03CAROL]
    runbooks: { tags: [database] }
`;
const BY_NAME = `
rules:
  - name: carol does not see restarts
    effect: deny
    actions: [view]
    users: [U03CAROL]
    runbooks: { names: ["Restart *"] }
`;
const carol = actor({ userId: 'U03CAROL', teamId: 'T1', groups: [], channelId: 'C01OPS' });
const VACUUM = 'Postgres Vacuum Analyze';

/** The same deps with a catalog that cannot be read (the API's workflow list failing from the start). */
function unreadable(deps: RunsDeps): RunsDeps {
  const down = async () => {
    throw new Error('the catalog could not be read');
  };
  const catalog = { all: down, get: down, resolve: down, search: down, named: down } as unknown as RunbookCatalog;
  return { ...deps, catalog };
}

let byTag: UseCaseEnv;
let byName: UseCaseEnv;
beforeAll(async () => {
  [byTag, byName] = await Promise.all([startUseCaseEnv(BY_TAG), startUseCaseEnv(BY_NAME)]);
});
afterAll(async () => {
  await Promise.all([byTag?.close(), byName?.close()]);
});

describe('view of a runbook known by name only', () => {
  it('is judged by the catalog’s facts, whatever the case and edge spaces of the name', async () => {
    expect((await byTag.runbook(VACUUM)).tags).toContain('database');
    const visible = await visibilityFor(byTag.deps, carol);
    expect(visible.ref({ name: VACUUM })).toBe(false);
    expect(visible.ref({ name: `  ${VACUUM.toUpperCase()} ` })).toBe(false);
    expect(visible.ref({ name: 'Restart Kubernetes Deployment' })).toBe(true);
  });

  it('with the catalog unreadable, a policy hiding by tag hides it, with a sentence that names nothing', async () => {
    const visible = await visibilityFor(unreadable(byTag.deps), carol);
    expect(visible.ref({ name: VACUUM })).toBe(false);
    expect(visible.ref({ id: (await byTag.runbook(VACUUM)).id, name: VACUUM })).toBe(false);
    const decision = visible.decide({ name: VACUUM });
    expect(decision.allowed ? '' : decision.message).toMatch(/could not read the runbook catalog/);
    expect(decision.allowed ? '' : decision.message).not.toContain(VACUUM);
  });

  it('with the catalog unreadable, a policy hiding by name only still judges the name', async () => {
    const visible = await visibilityFor(unreadable(byName.deps), carol);
    expect(visible.ref({ name: VACUUM })).toBe(true);
    expect(visible.ref({ name: 'Restart Kubernetes Deployment' })).toBe(false);
  });
});
