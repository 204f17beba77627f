// Many workspaces: schedule pause reconciliation and skips handle one workspace's rows per pass (the runtime
// runs each pass in that workspace's scope, against its own Runbook API); without a workspace, all rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcilePauses, resumeDueSkips } from '../../../src/runs/schedule-pauses.ts';
import { TABLE_POLICY } from '../../support/authorization-cases.ts';
import { startUseCaseEnv, type UseCaseEnv } from './use-case-env.ts';

let env: UseCaseEnv;
let scheduleIds: string[];
beforeAll(async () => {
  env = await startUseCaseEnv(TABLE_POLICY);
  scheduleIds = (await env.api.schedules.list({})).items.map((s) => s.id);
});
afterAll(() => env.close());

async function pauseRow(scheduleId: string, teamId: string, at: number, resumeAt: number | null = null) {
  await env.store.schedulePauses.begin(
    { scheduleId, cron: '0 5 * * *', runbookId: 'r', runbookName: 'R', pausedBy: 'U02BOB', teamId, resumeAt },
    at,
  );
}

describe('schedule pauses per workspace', () => {
  it('reconcilePauses with a workspace finishes only that workspace’s pauses', async () => {
    const [one, two] = scheduleIds as [string, string];
    const long = env.deps.now() - 60_000;
    await pauseRow(one, 'T0ONE', long);
    await pauseRow(two, 'T0TWO', long);
    const report = await reconcilePauses(env.deps, { graceMs: 1_000, teamId: 'T0ONE' });
    expect(report.paused).toEqual([one]);
    expect((await env.store.schedulePauses.get(one))?.state).toBe('paused');
    expect((await env.store.schedulePauses.get(two))?.state).toBe('pausing');
    expect((await reconcilePauses(env.deps, { graceMs: 1_000 })).paused).toEqual([two]);
  });

  it('resumeDueSkips with a workspace resumes only that workspace’s due skips', async () => {
    const [one, two] = scheduleIds as [string, string];
    for (const id of [one, two]) await env.store.schedulePauses.remove(id);
    const past = env.deps.now() - 60_000;
    await pauseRow(one, 'T0ONE', past, past);
    await pauseRow(two, 'T0TWO', past, past);
    for (const id of [one, two]) await env.store.schedulePauses.move(id, 'pausing', 'paused', past);
    const resumed = await resumeDueSkips(env.deps, { owner: 'test', leaseMs: 10_000, teamId: 'T0TWO' });
    expect(resumed).toEqual([two]);
    expect(await env.store.schedulePauses.get(two)).toBeNull();
    expect((await env.store.schedulePauses.get(one))?.state).toBe('paused');
  });
});
