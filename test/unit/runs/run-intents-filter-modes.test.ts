// Run recovery does not rest on the unpublished filter grammar: whether the Runbook API applies the
// runbook-name filter, ignores it, reads it as plain terms (the quoted name then matches nothing) or
// rejects it with a 400, the execution of a run whose answer was lost is found — here beneath 150
// newer executions of another runbook, so more than one page must be read — adopted once and audited;
// one that is not found is audited as lost, saying how many executions were searched when the API did
// not narrow the list.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILTER_MODES } from '../../../src/emulator/server.ts';
import { actor } from '../../../src/runs/actor.ts';
import type { RunsDeps } from '../../../src/runs/deps.ts';
import { startRun } from '../../../src/runs/run.ts';
import { INTENT_WINDOW_MS, paramsHash, reconcileIntents } from '../../../src/runs/run-intents.ts';
import { answerLost, startUseCaseEnv, type UseCaseEnv } from './use-case-env.ts';

const NOW = Date.parse('2026-11-21T08:00:00Z');
const who = actor({ userId: 'U01ALICE', teamId: 'T1', groups: [], channelId: 'C01OPS', email: 'alice@example.com' });

describe.each(FILTER_MODES)('recovery of a run whose answer was lost, the API filter mode being %s', (mode) => {
  let env: UseCaseEnv;
  let now = NOW;
  beforeAll(async () => {
    env = await startUseCaseEnv('rules: []\n');
    env.emulator.setFilterMode(mode);
  });
  afterAll(async () => {
    await env.close();
  });

  it('finds the execution beneath newer runs of another runbook, adopts it once and audits it', async () => {
    const runbook = await env.runbook('Scale Kubernetes Deployment');
    const params = { namespace: `lost-${mode}`, deployment: 'api', replicas: 2 };
    const deps: RunsDeps = {
      ...env.deps,
      now: () => now,
      api: { ...env.deps.api, workflows: { ...env.deps.api.workflows, run: answerLost(env.deps.api) } },
    };
    expect((await startRun(deps, who, { runbook, proxyId: 'proxy-dev', params, via: 'form' })).kind).toBe('failed');
    const started = [...env.emulator.state.executions.byId.values()].filter(
      (e) => e.params.namespace === `lost-${mode}`,
    );
    expect(started).toHaveLength(1);

    // 150 newer executions of another runbook: the run is on the second page of the unfiltered list.
    env.emulator.advance(1_000);
    const other = await env.runbook('Rotate Nginx Logs');
    for (let i = 0; i < 150; i++) env.emulator.state.runWorkflow(other.id, { proxyId: 'proxy-dev', params: '{}' });

    now += 30_000;
    const report = await reconcileIntents({ ...deps, api: env.deps.api }, { graceMs: 10_000 });
    expect(report.reconciled).toEqual([{ intentId: expect.any(String), executionIds: [started[0]!.id] }]);
    expect(env.tracker.started_.map((r) => r.executionIds)).toEqual([[started[0]!.id]]);
    const audit = (await env.audit(5)).find((a) => a.detail?.includes('found after a restart'));
    expect(audit).toMatchObject({ action: 'run.start', outcome: 'ok', userId: 'U01ALICE' });
    expect(audit?.detail).toContain(started[0]!.id);
    expect((await reconcileIntents({ ...deps, api: env.deps.api }, { graceMs: 10_000 })).reconciled).toEqual([]);
  });
  it('audits an unfound run as lost, saying how many executions it searched where the API did not narrow', async () => {
    const other = await env.runbook('Rotate Nginx Logs');
    for (let i = 0; i < 400; i++) env.emulator.state.runWorkflow(other.id, { proxyId: 'proxy-dev', params: '{}' });
    const runbook = await env.runbook('Scale Kubernetes Deployment');
    await env.store.intents.record(
      {
        id: `never-ran-${mode}`,
        userId: 'U02BOB',
        userEmail: 'bob@example.com',
        teamId: 'T1',
        runbookId: runbook.id,
        runbookName: runbook.name,
        proxyId: 'proxy-dev',
        paramsHash: paramsHash({ nothing: 'like it' }),
        channel: 'C01OPS',
        inputsSummary: '{}',
        // Recorded by a release that did not keep the entry point: recovered without one.
        via: null,
      },
      now,
    );
    now += INTENT_WINDOW_MS + 60_000;
    expect((await reconcileIntents({ ...env.deps, now: () => now }, { graceMs: 10_000 })).lost).toEqual([
      `never-ran-${mode}`,
    ]);
    const lost = (await env.audit(5)).find((a) => a.userId === 'U02BOB');
    expect(lost).toMatchObject({ action: 'run.start', outcome: 'error' });
    expect(lost?.detail).not.toContain('; via');
    if (mode === 'apply') expect(lost?.detail).toMatch(/^no execution found for a run/);
    else expect(lost?.detail).toMatch(/^no execution found among the [45]00 most recent executions for a run/);
  });
});
