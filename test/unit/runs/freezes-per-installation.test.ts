// Many workspaces: change freezes are applied once per installation, in its scope against its own Runbook
// API (the runtime runs each pass so). A pass pauses that API's schedules, touches only the frozen rows of
// that installation's workspaces, and announces only in channels of its workspaces; without an
// installation (single workspace) it handles every row, as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyFreezes, type FreezeNotice } from '../../../src/runs/freezes.ts';
import { TABLE_POLICY } from '../../support/authorization-cases.ts';
import { startUseCaseEnv, type UseCaseEnv } from './use-case-env.ts';

// Covers every runbook, from before the emulator's clock (2026-11-21T08:00Z) to well after.
const POLICY = `${TABLE_POLICY}
freezes:
  - name: Big freeze
    start: "2026-11-20T00:00Z"
    end: "2026-11-30T00:00Z"
    runbooks: { names: ["*"] }
`;

let env: UseCaseEnv;
beforeAll(async () => {
  env = await startUseCaseEnv(POLICY);
});
afterAll(() => env.close());

const ONE = 'T0ONE';
const TWO = 'T0TWO';
const ofOne = { id: ONE, ofInstallation: async (teamId: string | null) => teamId === ONE };

describe('change freezes per installation', () => {
  it('a pass in one installation pauses its API’s schedules, leaves the other’s rows, says it only in its channels', async () => {
    const schedules = (await env.api.schedules.list({})).items;
    const [first, second] = schedules as [(typeof schedules)[0], (typeof schedules)[0]];
    // The other installation's row: frozen by a freeze that has ended; its pass (not this one) resumes it.
    await env.store.schedulePauses.begin(
      {
        ...{ scheduleId: 'sched-of-two', cron: '0 5 * * *', runbookId: 'r', runbookName: 'R' },
        pausedBy: '',
        teamId: TWO,
        freeze: 'Old freeze',
      },
      env.deps.now(),
    );
    await env.store.schedulePauses.move('sched-of-two', 'pausing', 'paused', env.deps.now());
    await env.store.scheduleOwners.set(
      second.id,
      { userId: 'U01ALICE', teamId: ONE, channel: 'C0MADEONE' },
      env.deps.now(),
    );
    for (const [channel, teamId] of [
      ['C0SUBONE', ONE],
      ['C0SUBTWO', TWO],
    ] as const) {
      await env.store.subscriptions.add(
        {
          channel,
          runbookId: first.runbookId,
          runbookName: first.runbookName,
          failuresOnly: false,
          createdBy: 'U1',
          teamId,
        },
        env.deps.now(),
      );
    }
    const said: FreezeNotice[] = [];
    const report = await applyFreezes(env.deps, {
      owner: 'test',
      leaseMs: 10_000,
      installation: ofOne,
      announce: async (notice) => {
        said.push(notice);
      },
    });
    expect(report.paused.sort()).toEqual(schedules.map((s) => s.id).sort());
    expect(report.resumed).toEqual([]);
    // A schedule nobody made through the bot is the installation's; one made in Slack, its maker's workspace's.
    expect((await env.store.schedulePauses.get(first.id))?.teamId).toBe(ONE);
    expect((await env.store.schedulePauses.get(second.id))?.teamId).toBe(ONE);
    expect((await env.store.schedulePauses.get('sched-of-two'))?.freeze).toBe('Old freeze');
    const channels = new Set(said.map((n) => n.channel));
    expect(channels.has('C0SUBONE')).toBe(true);
    expect(channels.has('C0MADEONE')).toBe(true);
    expect(channels.has('C0SUBTWO')).toBe(false);
    expect(said.every((n) => n.teamId === ONE)).toBe(true);

    // Single workspace (no installation): every row is its own, the other's included.
    await applyFreezes(env.deps, { owner: 'test', leaseMs: 10_000 });
    expect((await env.store.schedulePauses.get('sched-of-two'))?.freeze).toBe('Big freeze');
  });
});
