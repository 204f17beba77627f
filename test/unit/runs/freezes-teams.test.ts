// Background work and `teams:`: the minute's change-freeze pass of an installation judges a window naming
// teams by that installation (its policy applied forInstallation, as tenant-deps gives it): a freeze naming
// workspace ONE pauses ONE's schedules, and the same pass in TWO pauses nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunsDeps } from '../../../src/runs/deps.ts';
import { applyFreezes } from '../../../src/runs/freezes.ts';
import { TABLE_POLICY } from '../../support/authorization-cases.ts';
import { startUseCaseEnv, type UseCaseEnv } from './use-case-env.ts';

const ONE = 'T0ONE';
const TWO = 'T0TWO';
const POLICY = `${TABLE_POLICY}
freezes:
  - name: One's freeze
    teams: [${ONE}]
    start: "2026-11-20T00:00Z"
    end: "2026-11-30T00:00Z"
`;

let env: UseCaseEnv;
beforeAll(async () => {
  env = await startUseCaseEnv(POLICY);
});
afterAll(() => env.close());

/** The deps of one installation's pass: its policy as the installation applies it. */
const depsOf = (id: string): RunsDeps => ({
  ...env.deps,
  access: { ...env.deps.access, policy: env.deps.access.policy.forInstallation({ installationId: id, teamId: id }) },
});
const passOf = (id: string) =>
  applyFreezes(depsOf(id), {
    owner: 'one replica',
    leaseMs: 10_000,
    installation: { id, ofInstallation: async (teamId) => teamId === id },
  });

describe('a change freeze naming a team, applied in the background', () => {
  it("pauses nothing in another installation's pass, and the named one's schedules in its own", async () => {
    const schedules = (await env.api.schedules.list({})).items;
    expect(schedules.length).toBeGreaterThan(0);
    expect((await passOf(TWO)).paused).toEqual([]);
    expect(await env.store.schedulePauses.list(100)).toEqual([]);
    const one = await passOf(ONE);
    expect(one.paused.sort()).toEqual(schedules.map((s) => s.id).sort());
    expect((await env.store.schedulePauses.get(schedules[0]!.id))?.freeze).toBe("One's freeze");
  });
});
