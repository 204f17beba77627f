// A two-approver quorum end to end through Bolt: the requester is told where they submitted who the
// run waits for; the first approval records a vote and runs nothing, the request shows who approved
// and what is still needed; the second approval runs it once, and the card says who approved. Two
// approvers clicking at once (twice each) complete a quorum with exactly one run. Expiry is said on
// the request's thread and told to the requester.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FakeMessage } from '../../src/sandbox/fake-slack-state.ts';
import { announceExpiredApprovals } from '../../src/slack/approvals/expiry.ts';
import { ACTIONS } from '../../src/slack/kit/ids.ts';
import { requestDrain as requestDrainIn, runsOf as runsOfIn } from '../support/approval-requests.ts';
import { mrkdwnTexts } from '../support/block-texts.ts';
import { ephemeralContaining, type Harness, startHarness, waitFor } from '../support/bot-harness.ts';

const POLICY = `
approvers: { users: [U02BOB, U03CAROL] }
quorum: { approvals: 2 }
`;

let h: Harness;
beforeAll(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'quorum-'));
  writeFileSync(path.join(dir, 'policy.yaml'), POLICY);
  h = await startHarness({ env: { POLICY_FILE: path.join(dir, 'policy.yaml'), APPROVALS_CHANNEL: 'C03APPROVALS' } });
});
afterAll(async () => {
  await h.stop();
});

const runsOf = (requestId: string) => runsOfIn(h, requestId);
const latest = (channel: string, ts: string): FakeMessage => h.fake.state.messages[channel]!.find((m) => m.ts === ts)!;
const textOf = (m: FakeMessage) => mrkdwnTexts(m.blocks ?? []).join('\n');
const settle = () => new Promise((r) => setTimeout(r, 300));

const requestDrain = (node: string) => requestDrainIn(h, node);

it('the first approval does not run, the second does, once; the cards say who approved', async () => {
  const { message, approvalId } = await requestDrain('node-quorum-1');
  // Where Alice submitted: an ephemeral naming who it waits for (besides the DM copy).
  const waiting = await waitFor(() => ephemeralContaining(h.fake, 'your run is waiting for it'), 'waiting notice');
  expect(waiting.channel).toBe('C01OPS');
  // A quorum of both approvers says "both … and …", never "or".
  expect(JSON.stringify(waiting.blocks)).toContain('it needs approval from both <@U02BOB> and <@U03CAROL>');
  expect(JSON.stringify(waiting.blocks)).not.toContain('<@U02BOB> or <@U03CAROL>');
  expect(textOf(message)).toContain('*Still needed:* 2 more approvals');

  await h.user('U02BOB').act({ kind: 'message', message }, ACTIONS.approvalApprove);
  await waitFor(() => ephemeralContaining(h.fake, 'Your approval is recorded; 1 more approval', 'U02BOB'), 'vote');
  await waitFor(() => textOf(latest('C03APPROVALS', message.ts)).includes('*Approved so far:* <@U02BOB>'), 'progress');
  expect(textOf(latest('C03APPROVALS', message.ts))).toContain('*Still needed:* 1 more approval');
  await settle();
  expect(runsOf(approvalId)).toHaveLength(0);
  expect((await h.runtime.store.approvals.get(approvalId))?.state).toBe('pending');

  // Bob again changes nothing (no second vote recorded) and is told so.
  const votes = async () =>
    (await h.runtime.store.audit.recent(100)).filter((e) => e.action === 'approval.vote' && e.userId === 'U02BOB');
  expect(await votes()).toHaveLength(1);
  await h.user('U02BOB').act({ kind: 'message', message }, ACTIONS.approvalApprove);
  await waitFor(
    () => ephemeralContaining(h.fake, 'already done, so nothing more happened. (by you', 'U02BOB'),
    'again',
  );
  expect(runsOf(approvalId)).toHaveLength(0);
  expect(await votes()).toHaveLength(1);

  await h.user('U03CAROL').act({ kind: 'message', message }, ACTIONS.approvalApprove);
  await waitFor(() => runsOf(approvalId).length > 0, 'the run');
  await waitFor(
    () => textOf(latest('C03APPROVALS', message.ts)).includes('Approved by <@U02BOB> and <@U03CAROL>'),
    'approved request',
  );
  const card = await waitFor(
    () => h.fake.state.messages.C01OPS?.find((m) => m.text.includes('Drain Kubernetes Node is running')),
    'running card',
  );
  expect(textOf(card)).toContain('*Approved by*\n<@U02BOB> and <@U03CAROL>');
  await settle();
  expect(runsOf(approvalId)).toHaveLength(1);
});

it('two approvers clicking at once (twice each) make exactly one run', async () => {
  const { message, approvalId } = await requestDrain('node-quorum-race');
  await Promise.all(
    ['U02BOB', 'U03CAROL', 'U02BOB', 'U03CAROL'].map((u) =>
      h.user(u).act({ kind: 'message', message }, ACTIONS.approvalApprove),
    ),
  );
  await waitFor(() => runsOf(approvalId).length > 0, 'the run');
  await settle();
  expect(runsOf(approvalId)).toHaveLength(1);
  expect((await h.runtime.store.approvals.votes(approvalId)).map((v) => v.userId).sort()).toEqual([
    'U02BOB',
    'U03CAROL',
  ]);
});

it('expiry is said on the request and told to the requester', async () => {
  const { message, approvalId } = await requestDrain('node-quorum-expire');
  await h.user('U02BOB').act({ kind: 'message', message }, ACTIONS.approvalApprove);
  await waitFor(() => textOf(latest('C03APPROVALS', message.ts)).includes('*Approved so far:* <@U02BOB>'), 'vote');
  const later = { ...h.runtime.deps, now: () => Date.now() + 2 * 60 * 60_000 };
  expect(await announceExpiredApprovals(later, h.runtime.slack.app.client)).toBeGreaterThanOrEqual(1);
  const thread = h.fake.state.messages.C03APPROVALS!.filter((m) => m.thread_ts === message.ts && m.ts !== message.ts);
  expect(thread.map((m) => m.text)).toEqual(['Request expired']);
  expect(textOf(latest('C03APPROVALS', message.ts))).toContain('without enough approvals');
  const dm = h.fake.state.messages.D01ALICE!.at(-1)!;
  expect(dm.text).toBe('Your request to run Drain Kubernetes Node expired');
  expect(runsOf(approvalId)).toHaveLength(0);
});

it('App Home shows what waits for your approval (Approve works from there) and your recent runs', async () => {
  const { approvalId } = await requestDrain('node-quorum-home');
  const homeOf = (user: string) => {
    const id = h.fake.state.homeViews[user];
    return id ? h.fake.state.views[id] : undefined;
  };
  await h.user('U02BOB').openHome();
  const home = await waitFor(() => {
    const v = homeOf('U02BOB');
    return v && JSON.stringify(v.view).includes(approvalId) ? v : undefined;
  }, "Bob's home");
  const text = JSON.stringify(home.view.blocks);
  expect(text).toContain('Waiting for your approval');
  expect(text).toContain('*Drain Kubernetes Node* requested by <@U01ALICE>');
  expect(text).toContain('2 approvals still needed');
  await h
    .user('U02BOB')
    .act({ kind: 'view', view: home }, (el) => el.action_id === ACTIONS.approvalApprove && el.value === approvalId);
  await waitFor(() => {
    const v = homeOf('U02BOB');
    return v && !JSON.stringify(v.view).includes(approvalId);
  }, "the request leaves Bob's list");
  expect((await h.runtime.store.approvals.votes(approvalId)).map((v) => v.userId)).toEqual(['U02BOB']);

  // Alice's home lists her runs (the earlier ones in this file ran as her after approval).
  await h.user('U01ALICE').openHome();
  const alice = await waitFor(() => {
    const v = homeOf('U01ALICE');
    return v && JSON.stringify(v.view).includes('Your recent runs') ? v : undefined;
  }, "Alice's home");
  expect(JSON.stringify(alice.view.blocks)).toContain('*Drain Kubernetes Node*');
  expect(JSON.stringify(alice.view.blocks)).toContain('Nothing is waiting for your approval.');
});
