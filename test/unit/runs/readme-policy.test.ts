// The README's own example policy (read from README.md, so the example and the behaviour cannot drift):
// a person denied `run` of a runbook cannot create or edit a schedule of it, and a runbook that needs
// approval is scheduled only once an approver approves the schedule request.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Workflow } from '../../../src/api/schemas.ts';
import { actor } from '../../../src/runs/actor.ts';
import { approveRequest } from '../../../src/runs/approvals.ts';
import { runFromForm } from '../../../src/runs/run.ts';
import { saveSchedule } from '../../../src/runs/schedules.ts';
import { startUseCaseEnv, type UseCaseEnv } from './use-case-env.ts';

function readmePolicy(): string {
  const readme = readFileSync(path.resolve(import.meta.dirname, '../../../README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Access control'));
  const yaml = section.match(/```yaml\n([\s\S]*?)```/);
  if (!yaml) throw new Error('no example policy in the README');
  return yaml[1]!;
}

const RESTART = 'Restart Kubernetes Deployment';
const IAM = 'List IAM Users Without MFA';

let env: UseCaseEnv;
let restart: Workflow;
beforeAll(async () => {
  env = await startUseCaseEnv(readmePolicy());
  // The example's production rule is about "Restart *" runbooks tagged prod.
  for (const record of env.emulator.state.workflows.byId.values()) {
    if (record.workflow.name === RESTART) record.workflow.tags.push('prod');
  }
  restart = await env.runbook(RESTART);
  expect(restart.tags).toContain('prod');
});
afterAll(async () => {
  await env.close();
});

const dev = actor({ userId: 'U0DEV', teamId: 'T1', groups: [], channelId: 'C0OPS' });
const sre = actor({ userId: 'U0SRE', teamId: 'T1', groups: ['S0SRE'], channelId: 'C0OPS' });
const params = { namespace: 'web', deployment: 'api' };

function schedulesOf(runbook: Workflow) {
  return [...env.emulator.state.schedules.byId.values()].filter((s) => s.schedule.runbookId === runbook.id);
}

describe('the README example policy', () => {
  it('a person denied `run` of "Restart *" on prod cannot run it, nor create a schedule of it', async () => {
    const run = await runFromForm(env.deps, dev, { runbook: restart, proxyId: 'proxy-dev', params });
    expect(run).toMatchObject({ kind: 'refused', reason: 'denied' });
    await env.mark();
    const created = await saveSchedule(env.deps, dev, {
      runbook: restart,
      proxyId: 'proxy-dev',
      params,
      cron: '0 3 * * *',
      scheduleId: null,
    });
    expect(created).toMatchObject({ kind: 'refused', reason: 'denied' });
    if (created.kind === 'refused') expect(created.sentence).toContain('nobody else restarts production');
    expect(await env.mutations()).toEqual([]);
    expect(schedulesOf(restart)).toHaveLength(0);
    expect((await env.audit(1))[0]).toMatchObject({ userId: 'U0DEV', action: 'schedule.create', outcome: 'denied' });
  });

  it('nor edit one (someone else’s schedule of it, or their own schedule switched to it)', async () => {
    const theirs = await saveSchedule(env.deps, sre, {
      runbook: restart,
      proxyId: 'proxy-dev',
      params,
      cron: '0 4 * * *',
      scheduleId: null,
    });
    expect(theirs.kind).toBe('saved');
    const id = theirs.kind === 'saved' ? theirs.schedule.id : '';
    await env.mark();
    const edited = await saveSchedule(env.deps, dev, {
      runbook: restart,
      proxyId: 'proxy-dev',
      params,
      cron: '* * * * *',
      scheduleId: id,
    });
    expect(edited).toMatchObject({ kind: 'refused', reason: 'denied' });
    expect(await env.mutations()).toEqual([]);
    expect(env.emulator.state.schedules.byId.get(id)?.schedule.schedule).toBe('0 4 * * *');
  });

  it('an SRE may schedule it', async () => {
    const saved = await saveSchedule(env.deps, sre, {
      runbook: restart,
      proxyId: 'proxy-dev',
      params,
      cron: '0 5 * * *',
      scheduleId: null,
    });
    expect(saved.kind).toBe('saved');
  });

  it('an IAM runbook (approval rule) is scheduled only when its approver approves the request', async () => {
    const iam = await env.runbook(IAM);
    const before = schedulesOf(iam).length;
    await env.mark();
    const asked = await saveSchedule(env.deps, dev, {
      runbook: iam,
      proxyId: 'proxy-dev',
      params: {},
      cron: '0 6 * * 1',
      scheduleId: null,
    });
    expect(asked.kind).toBe('approval-requested');
    expect(await env.mutations()).toEqual([]);
    expect(schedulesOf(iam)).toHaveLength(before);
    const approvalId = asked.kind === 'approval-requested' ? asked.approval.id : '';

    // Someone who is not the rule's approver cannot approve it; the requester never can.
    const notApprover = await approveRequest(env.deps, sre, approvalId, async () => null);
    expect(notApprover).toMatchObject({ kind: 'refused', reason: 'denied' });
    const self = await approveRequest(env.deps, dev, approvalId, async () => null);
    expect(self).toMatchObject({ kind: 'refused' });
    expect(schedulesOf(iam)).toHaveLength(before);

    const lead = actor({ userId: 'U0SECLEAD', teamId: 'T1', groups: [], channelId: 'C0OPS' });
    const approved = await approveRequest(env.deps, lead, approvalId, async () => null);
    expect(approved.kind).toBe('approved');
    const now = schedulesOf(iam);
    expect(now).toHaveLength(before + 1);
    const created = now.at(-1)!.schedule;
    expect(created.schedule).toBe('0 6 * * 1');
    // The schedule is the requester's, approved by the lead.
    expect((await env.store.scheduleOwners.get(created.id))?.userId).toBe('U0DEV');
    const trail = await env.audit(5);
    expect(trail.find((e) => e.action === 'schedule.create' && e.outcome === 'ok')?.detail).toContain(
      'approved by U0SECLEAD',
    );
  });

  it('a runbook the API marks requiresApproval goes to the `approvers` group too', async () => {
    const drain = await env.runbook('Drain Kubernetes Node');
    const asked = await saveSchedule(env.deps, sre, {
      runbook: drain,
      proxyId: 'proxy-dev',
      params: { node_name: 'n1' },
      cron: '0 7 * * *',
      scheduleId: null,
    });
    expect(asked.kind).toBe('approval-requested');
    const id = asked.kind === 'approval-requested' ? asked.approval.id : '';
    const lead = actor({ userId: 'U0LEAD', teamId: 'T1', groups: ['S0SRELEADS'], channelId: 'C0OPS' });
    const approved = await approveRequest(env.deps, lead, id, async () => null);
    expect(approved.kind).toBe('approved');
    expect(schedulesOf(drain).some((s) => s.schedule.schedule === '0 7 * * *')).toBe(true);
  });
});
