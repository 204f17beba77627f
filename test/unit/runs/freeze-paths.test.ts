// A change freeze is one rule in the gate, so every run path meets it: the form (opening and submitting),
// a run without a form (`--now`, aliases, a Workflow Builder step), a schedule's Run now and an approved
// request (which stays open). Each refusal names the window and its end, is audited, and starts nothing;
// a break-glass pass lets its holder through once, on whichever path.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Workflow } from '../../../src/api/schemas.ts';
import { actor } from '../../../src/runs/actor.ts';
import { approveRequest } from '../../../src/runs/approvals.ts';
import { breakFreeze } from '../../../src/runs/freezes.ts';
import { askApproval, checkRunForm, runFromForm, runScheduleNow } from '../../../src/runs/run.ts';
import { runWithoutApproval } from '../../../src/runs/run-direct.ts';
import { startUseCaseEnv, type UseCaseEnv } from './use-case-env.ts';

const POLICY = `
approvers: { users: [U0BOB] }
freezes:
  - name: Release freeze
    start: "2020-01-01T00:00Z"
    end: "2100-01-01T00:00Z"
    runbooks: { names: ["Scale *", "Drain *"] }
`;

let env: UseCaseEnv;
let scale: Workflow;
let drain: Workflow;
const alice = actor({ userId: 'U0ALICE', teamId: 'T1', groups: [], channelId: 'C0OPS', timeZone: 'Asia/Tokyo' });
const bob = actor({ userId: 'U0BOB', teamId: 'T1', groups: [], channelId: 'C0OPS' });
const SCALE_PARAMS = { namespace: 'prod', deployment: 'web', replicas: 2 };

beforeAll(async () => {
  env = await startUseCaseEnv(POLICY);
  scale = await env.runbook('Scale Kubernetes Deployment');
  drain = await env.runbook('Drain Kubernetes Node');
});
afterAll(async () => {
  await env.close();
});

async function expectFrozen(
  result: Promise<{ kind: string; reason?: string; sentence?: string }>,
  action: string,
  via: string | null,
) {
  await env.mark();
  const r = await result;
  expect(r).toMatchObject({ kind: 'refused', reason: 'frozen' });
  expect(r.sentence).toContain('the change freeze “Release freeze” is on until');
  expect(await env.mutations()).toEqual([]);
  const [last] = await env.audit(1);
  expect(last).toMatchObject({ action, outcome: 'denied' });
  expect(last!.detail).toContain('Release freeze');
  // A run's refusal names its entry point last, whichever path refused it.
  if (via) expect(last!.detail).toMatch(new RegExp(`; via ${via}$`));
}

describe('every run path meets the freeze', () => {
  it('the form, opening and submitting, in the person’s zone', async () => {
    await expectFrozen(checkRunForm(env.deps, alice, scale, 'form'), 'run.open', 'form');
    const r = await checkRunForm(env.deps, alice, scale, 'form');
    // 2100-01-01 00:00 UTC is 09:00 in Tokyo.
    expect(r.kind === 'refused' && r.sentence).toContain('until Fri 1 Jan 09:00');
    await expectFrozen(
      runFromForm(env.deps, alice, { runbook: scale, proxyId: 'proxy-dev', params: SCALE_PARAMS }),
      'run.start',
      'form',
    );
  });

  it('a run without a form: --now, an alias, a workflow step', async () => {
    const request = { runbook: scale, proxyId: 'proxy-dev', params: SCALE_PARAMS, via: 'workflow-step' as const };
    await expectFrozen(runWithoutApproval(env.deps, alice, request, 'from a workflow'), 'run.start', 'workflow-step');
  });

  it('a schedule’s Run now', async () => {
    const schedule = env.emulator.state.createSchedule({
      runbookId: scale.id,
      runbookName: scale.name,
      proxyId: 'proxy-dev',
      params: JSON.stringify(SCALE_PARAMS),
      schedule: '0 5 * * *',
    }).schedule;
    await expectFrozen(runScheduleNow(env.deps, alice, schedule.id), 'run.start', 'schedule-run-now');
  });

  it('an approved request stays open; the approver’s break-glass pass lets it run once', async () => {
    const request = { runbook: drain, proxyId: 'proxy-dev', params: { node_name: 'n1' } };
    const asked = await askApproval(env.deps, alice, request, null);
    await expectFrozen(
      approveRequest(env.deps, bob, asked.id, async () => null),
      'approval.approve',
      null,
    );
    expect((await env.store.approvals.get(asked.id))?.state).toBe('pending');

    // Alice may not break it; Bob (an approver) may, with a reason.
    expect(await breakFreeze(env.deps, alice, drain.name, 'I really need it')).toMatchObject({
      kind: 'refused',
      reason: 'denied',
    });
    expect(await breakFreeze(env.deps, bob, drain.name, 'no')).toMatchObject({ kind: 'refused', reason: 'invalid' });
    expect(await breakFreeze(env.deps, bob, drain.name, 'INC-9: node is on fire')).toMatchObject({ kind: 'granted' });
    const approved = await approveRequest(env.deps, bob, asked.id, async () => null);
    expect(approved).toMatchObject({ kind: 'approved', outcome: { kind: 'run', result: { kind: 'started' } } });
    const broken = (await env.audit(10)).find((e) => e.action === 'freeze.break');
    expect(broken).toMatchObject({ userId: 'U0BOB', outcome: 'ok' });
    expect(broken!.detail).toContain('INC-9: node is on fire');
    // The pass is used up: the next one is refused again.
    const again = await askApproval(env.deps, alice, request, null);
    await expectFrozen(
      approveRequest(env.deps, bob, again.id, async () => null),
      'approval.approve',
      null,
    );
  });
});
