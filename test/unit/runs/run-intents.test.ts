// Intent before the run call: the run is on record before POST …/run; a run call whose answer never
// came (a crash, a timeout) leaves the intent open, and reconciliation finds its execution in the list
// (same runbook, executor, params, time) and reports and audits it; nothing found after the window is
// audited as lost; a call the API refused is settled at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunbookApi } from '../../../src/api/runbook-api.ts';
import { actor } from '../../../src/runs/actor.ts';
import type { RunsDeps } from '../../../src/runs/deps.ts';
import { startRun } from '../../../src/runs/run.ts';
import { INTENT_WINDOW_MS, paramsHash, reconcileIntents } from '../../../src/runs/run-intents.ts';
import { inInstallation } from '../../../src/tenants/tenant-scope.ts';
import { answerLost, startUseCaseEnv, type UseCaseEnv } from './use-case-env.ts';

const NOW = Date.parse('2026-11-21T08:00:00Z');
let env: UseCaseEnv;
let now = NOW;
const who = actor({ userId: 'U01ALICE', teamId: 'T1', groups: [], channelId: 'C01OPS', email: 'alice@example.com' });

beforeAll(async () => {
  env = await startUseCaseEnv('rules: []\n');
});
afterAll(async () => {
  await env.close();
});

/** Deps whose clock is the emulator's, and whose run call may be swapped for a failing one. */
function depsWith(run?: RunbookApi['workflows']['run']): RunsDeps {
  return {
    ...env.deps,
    now: () => now,
    api: run ? { ...env.deps.api, workflows: { ...env.deps.api.workflows, run } } : env.deps.api,
  };
}

describe('run intents', () => {
  it('hashes params regardless of key order', () => {
    expect(paramsHash({ a: 1, b: { c: 2, d: [1, { e: 3, f: 4 }] } })).toBe(
      paramsHash({ b: { d: [1, { f: 4, e: 3 }], c: 2 }, a: 1 }),
    );
    expect(paramsHash({ a: 1 })).not.toBe(paramsHash({ a: 2 }));
  });

  it('records the intent before the call and settles it when the answer is recorded', async () => {
    const runbook = await env.runbook('Scale Kubernetes Deployment');
    let openDuringCall = 0;
    const deps = depsWith(async (id, params, call) => {
      openDuringCall = (await env.store.intents.listOpen(now + 1, 10)).length;
      return env.deps.api.workflows.run(id, params, call);
    });
    const result = await startRun(deps, who, {
      runbook,
      proxyId: 'proxy-dev',
      params: { namespace: 'ok', deployment: 'api', replicas: 1 },
      via: 'form',
    });
    expect(result.kind).toBe('started');
    expect(openDuringCall).toBe(1);
    expect(await env.store.intents.listOpen(now + 1, 10)).toEqual([]);
  });

  it('finds the execution of a call whose answer was lost, adopts it once, and audits it naming its entry point', async () => {
    const runbook = await env.runbook('Scale Kubernetes Deployment');
    const params = { namespace: 'lost-answer', deployment: 'api', replicas: 3 };
    // The call reaches the API (the execution starts) but its answer never comes back.
    const deps = depsWith(answerLost(env.deps.api));
    // Another run of the same runbook by the same person with other params must not be taken for it.
    await env.deps.api.workflows.run(runbook.id, {
      proxyId: 'proxy-dev',
      params: { ...params, replicas: 4 },
      userEmail: 'alice@example.com',
    });
    const result = await startRun(deps, who, { runbook, proxyId: 'proxy-dev', params, via: 'alias' });
    expect(result.kind).toBe('failed');
    const open = await env.store.intents.listOpen(now + 1, 10);
    expect(open.map((i) => i.via)).toEqual(['alias']);

    const before = env.tracker.started_.length;
    now += 30_000;
    const report = await reconcileIntents(depsWith(), { graceMs: 10_000 });
    expect(report.reconciled).toHaveLength(1);
    const found = [...env.emulator.state.executions.byId.values()].filter(
      (e) => e.params.namespace === 'lost-answer' && e.params.replicas === 3,
    );
    expect(report.reconciled[0]!.executionIds).toEqual(found.map((e) => e.id));
    expect(env.tracker.started_.slice(before).map((r) => r.executionIds)).toEqual([found.map((e) => e.id)]);
    expect(env.tracker.started_.at(-1)).toMatchObject({
      startedBy: 'U01ALICE',
      channel: 'C01OPS',
      runbookName: runbook.name,
    });
    const audit = (await env.audit(5)).find((a) => a.detail?.includes('found after a restart'));
    expect(audit).toMatchObject({ action: 'run.start', outcome: 'ok', userId: 'U01ALICE', channel: 'C01OPS' });
    // Recorded as the run would have been had its answer come: the entry point last.
    expect(audit?.detail).toMatch(
      /^executions [^;]+; proxy proxy-dev; inputs \{[^;]*\}; found after a restart .*; via alias$/,
    );
    // Settled: a second pass (another replica, the next minute) does nothing.
    expect((await reconcileIntents(depsWith(), { graceMs: 10_000 })).reconciled).toEqual([]);
    expect(env.tracker.started_.length).toBe(before + 1);
  });

  it('keeps no hash a secret could be guessed back from, and still finds the run whose answer was lost', async () => {
    const runbook = await env.runbook('Terminate Blocking Postgres Queries'); // db_password: format password
    const params = { database: 'lost-secret', pids: [42], db_password: 'Summer2026!' };
    const result = await startRun(
      depsWith(answerLost(env.deps.api)),
      who,
      { runbook, proxyId: 'proxy-dev', params, via: 'approval' },
      { requestId: 'req-lost', approvedBy: ['U02BOB', 'U03CAROL'] },
    );
    expect(result.kind).toBe('failed');
    const [intent] = await env.store.intents.listOpen(now + 1, 10);
    // Whoever reads the store and guesses the password (the other inputs are on the card) gets no match.
    for (const guess of ['Summer2026!', 'summer2026', 'Password1']) {
      expect(intent!.paramsHash).not.toBe(paramsHash({ ...params, db_password: guess }));
    }
    now += 30_000;
    const report = await reconcileIntents(depsWith(), { graceMs: 10_000 });
    const found = [...env.emulator.state.executions.byId.values()].filter((e) => e.params.database === 'lost-secret');
    expect(report.reconciled.map((r) => r.executionIds)).toEqual([found.map((e) => e.id)]);
    const audit = (await env.audit(5)).find((a) => a.detail?.includes(found[0]!.id));
    expect(audit?.detail).toMatch(/; via approval \(approved by U02BOB, U03CAROL\)$/);
    expect(audit?.detail).not.toContain('Summer2026!');
  });

  it('leaves a young intent alone, keeps an unfound one open within the window, then audits it as lost', async () => {
    await env.store.intents.record(
      {
        id: 'never-ran',
        userId: 'U02BOB',
        userEmail: 'bob@example.com',
        teamId: 'T1',
        runbookId: 'rb-x',
        runbookName: 'Nothing Like It',
        proxyId: 'proxy-dev',
        paramsHash: paramsHash({}),
        channel: 'C01OPS',
        inputsSummary: '{}',
        via: 'workflow-step',
      },
      now,
    );
    expect((await reconcileIntents(depsWith(), { graceMs: 10_000 })).pending).not.toContain('never-ran');
    now += 20_000;
    expect((await reconcileIntents(depsWith(), { graceMs: 10_000 })).pending).toContain('never-ran');
    now += INTENT_WINDOW_MS;
    expect((await reconcileIntents(depsWith(), { graceMs: 10_000 })).lost).toEqual(['never-ran']);
    expect((await env.store.intents.get('never-ran'))?.state).toBe('lost');
    const lost = (await env.audit(5)).find((a) => a.userId === 'U02BOB');
    expect(lost).toMatchObject({ action: 'run.start', outcome: 'error' });
    expect(lost?.detail).toMatch(/^no execution found for a run .*; via workflow-step$/);
  });

  it('settles at once a call the API refused (nothing to reconcile)', async () => {
    const runbook = await env.runbook('Scale Kubernetes Deployment');
    const result = await startRun(depsWith(), who, {
      runbook: { ...runbook, id: 'no-such-runbook' },
      proxyId: 'proxy-dev',
      params: {},
      via: 'form',
    });
    expect(result.kind).toBe('failed');
    expect(await env.store.intents.listOpen(now + 1, 10)).toEqual([]);
  });

  it("many workspaces: a pass in one installation's scope looks only at that installation's intents", async () => {
    // Both workspaces' APIs may answer for the same runbook; only the installation's own API can tell.
    const intentOf = (id: string, installationId: string) => ({
      id,
      userId: 'U02BOB',
      userEmail: 'bob@example.com',
      teamId: installationId,
      runbookId: 'rb-y',
      runbookName: 'Nothing Like It Either',
      proxyId: 'proxy-dev',
      paramsHash: paramsHash({}),
      channel: 'C01OPS',
      inputsSummary: '{}',
      via: 'workflow-step',
      installationId,
    });
    await env.store.intents.record(intentOf('in-one', 'T0ONE'), now);
    await env.store.intents.record(intentOf('in-two', 'T0TWO'), now);
    now += 20_000;
    expect((await env.store.intents.listOpen(now, 10, 'T0ONE')).map((i) => i.id)).toEqual(['in-one']);
    const one = await inInstallation('T0ONE', () => reconcileIntents(depsWith(), { graceMs: 10_000 }));
    expect(one.pending).toEqual(['in-one']);
    // Outside any installation (the single workspace): neither is its own.
    now += INTENT_WINDOW_MS;
    expect(await reconcileIntents(depsWith(), { graceMs: 10_000 })).toEqual({ reconciled: [], lost: [], pending: [] });
    const two = await inInstallation('T0TWO', () => reconcileIntents(depsWith(), { graceMs: 10_000 }));
    expect(two.lost).toEqual(['in-two']);
    expect((await env.store.intents.get('in-one'))?.state).toBe('open');
    expect((await env.store.intents.get('in-two'))?.state).toBe('lost');
  });
});
