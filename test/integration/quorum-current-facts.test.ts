// A quorum is decided on current facts, through Bolt: when the last approval arrives every counted vote is
// re-checked with user groups read from Slack now (not the 10-minute cache), so an approver removed from
// the approver group between votes no longer counts; an Approve after expiry answers "expired" and
// records nothing; a runbook disabled before the deciding approval is not sent to the API.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FakeMessage } from '../../src/sandbox/fake-slack-state.ts';
import { ACTIONS } from '../../src/slack/kit/ids.ts';
import { requestDrain as requestDrainIn, runsOf as runsOfIn } from '../support/approval-requests.ts';
import { ephemeralContaining, type Harness, startHarness, waitFor } from '../support/bot-harness.ts';

const POLICY = `
approvers: { groups: [S0APPROVERS] }
quorum: { approvals: 2 }
`;

let h: Harness;
beforeAll(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'quorum-facts-'));
  writeFileSync(path.join(dir, 'policy.yaml'), POLICY);
  h = await startHarness({ env: { POLICY_FILE: path.join(dir, 'policy.yaml'), APPROVALS_CHANNEL: 'C03APPROVALS' } });
  h.fake.state.users.push({
    id: 'U04DAN',
    name: 'dan',
    real_name: 'Dan Diaz',
    email: 'dan@example.com',
    tz: 'Europe/London',
    tz_label: 'Greenwich Mean Time',
    tz_offset: 0,
  });
  h.fake.state.usergroups.S0APPROVERS!.users = ['U02BOB', 'U03CAROL', 'U04DAN'];
});
afterAll(async () => {
  await h.stop();
});

const runsOf = (requestId: string) => runsOfIn(h, requestId);
const runCalls = () => h.emulator.state.requests.log.filter((r) => r.method === 'POST' && r.path.endsWith('/run'));
const settle = () => new Promise((r) => setTimeout(r, 300));

const requestDrain = (node: string) => requestDrainIn(h, node);

const approve = (user: string, message: FakeMessage) =>
  h.user(user).act({ kind: 'message', message }, ACTIONS.approvalApprove);

it('an approver removed from the group between votes no longer counts', async () => {
  const { message, approvalId } = await requestDrain('node-removed-approver');
  await approve('U02BOB', message);
  await waitFor(() => ephemeralContaining(h.fake, 'Your approval is recorded; 1 more approval', 'U02BOB'), 'Bob');
  // Bob leaves the approver group; the bot's cached membership (10 minutes) still has him.
  h.fake.state.usergroups.S0APPROVERS!.users = ['U03CAROL', 'U04DAN'];
  await approve('U03CAROL', message);
  await waitFor(() => ephemeralContaining(h.fake, 'Your approval is recorded; 1 more approval', 'U03CAROL'), 'Carol');
  await settle();
  expect(runsOf(approvalId)).toHaveLength(0);
  expect((await h.runtime.store.approvals.votes(approvalId)).map((v) => v.userId)).toEqual(['U03CAROL']);
  const withdrawn = (await h.runtime.store.audit.recent(50)).find(
    (e) => e.action === 'approval.vote_withdrawn' && e.target?.includes(approvalId),
  );
  expect(withdrawn).toMatchObject({ userId: 'U02BOB', outcome: 'denied' });

  await approve('U04DAN', message);
  await waitFor(() => runsOf(approvalId).length > 0, 'the run');
  await settle();
  expect(runsOf(approvalId)).toHaveLength(1);
  const card = await waitFor(
    () => h.fake.state.messages.C01OPS?.find((m) => JSON.stringify(m.blocks).includes('node-removed-approver')),
    'the card',
  );
  expect(JSON.stringify(card.blocks)).toContain('<@U03CAROL> and <@U04DAN>');
  expect(JSON.stringify(card.blocks)).not.toContain('<@U02BOB>');
});

it('an Approve after expiry answers "expired" and records nothing as a vote', async () => {
  const { message, approvalId } = await requestDrain('node-after-expiry');
  const deps = h.runtime.deps as { now: () => number };
  const realNow = deps.now;
  deps.now = () => Date.now() + 2 * 60 * 60_000;
  try {
    await approve('U03CAROL', message);
    await waitFor(() => ephemeralContaining(h.fake, 'has expired, so nothing was recorded', 'U03CAROL'), 'expired');
  } finally {
    deps.now = realNow;
  }
  expect(await h.runtime.store.approvals.votes(approvalId)).toEqual([]);
  const audit = await h.runtime.store.audit.recent(50);
  expect(audit.filter((e) => e.action === 'approval.vote' && e.target?.includes(approvalId))).toEqual([]);
  expect(ephemeralContaining(h.fake, 'You already approved', 'U03CAROL')).toBeUndefined();
  expect(runsOf(approvalId)).toHaveLength(0);
});

it('a runbook disabled before the deciding approval is not sent to the API', async () => {
  const { message, approvalId } = await requestDrain('node-disabled-before');
  await approve('U04DAN', message);
  await waitFor(() => ephemeralContaining(h.fake, 'Your approval is recorded; 1 more approval', 'U04DAN'), 'Dan');
  const record = [...h.emulator.state.workflows.byId.values()].find(
    (r) => r.workflow.name === 'Drain Kubernetes Node',
  )!;
  record.workflow.runningDisabled = true;
  const before = runCalls().length;
  try {
    await approve('U03CAROL', message);
    await waitFor(() => ephemeralContaining(h.fake, 'cannot be run now', 'U03CAROL'), 'the refusal');
  } finally {
    record.workflow.runningDisabled = false;
  }
  await settle();
  expect(runCalls().length).toBe(before);
  expect(runsOf(approvalId)).toHaveLength(0);
  expect((await h.runtime.store.approvals.get(approvalId))?.state).toBe('pending');
});
