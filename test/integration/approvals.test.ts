// Access control end to end: a policy file, runs denied by it, approvals approved, rejected and
// expired, the requester unable to approve, the double-click race, sealed modal metadata, the
// audit trail, and secrets kept out of the logs.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../src/sandbox/fake-slack-state.ts';
import { announceExpiredApprovals } from '../../src/slack/approvals/expiry.ts';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import {
  API_KEY,
  BOT_TOKEN,
  ephemeralContaining,
  type Harness,
  modalContaining,
  SIGNING_SECRET,
  startHarness,
  waitFor,
} from '../support/bot-harness.ts';

const POLICY = `
contact: "#platform"
approvers: { groups: [S0APPROVERS] }
rules:
  - name: carol may not run
    effect: deny
    actions: [run]
    users: [U03CAROL]
  - name: nothing runs into deploys
    effect: deny
    actions: [run]
    channels: [C02DEPLOYS]
  - name: vacuum is private
    effect: deny
    actions: [view]
    runbooks: { names: ["Postgres Vacuum*"] }
`;

let h: Harness;
beforeAll(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'policy-'));
  writeFileSync(path.join(dir, 'policy.yaml'), POLICY);
  h = await startHarness({
    env: { POLICY_FILE: path.join(dir, 'policy.yaml'), APPROVALS_CHANNEL: 'C03APPROVALS' },
  });
});
afterAll(async () => {
  await h.stop();
});

const DRAIN = 'Drain Kubernetes Node';

function executionsWithRequest(requestId: string) {
  return [...h.emulator.state.executions.byId.values()].filter((e) => e.received.requestId === requestId);
}

function drainValues(node: string) {
  return {
    [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
    [BLOCKS.channel]: { [ACTIONS.channelSelect]: { type: 'conversations_select', selected_conversation: 'C01OPS' } },
    field_node_name: { value: { type: 'plain_text_input', value: node } },
  };
}

/** Alice asks to run Drain Kubernetes Node; returns the approvers' message and the approval id. */
async function requestDrain(node: string): Promise<{ message: FakeMessage; approvalId: string }> {
  await h.user('U01ALICE').command(`run "${DRAIN}"`, 'C01OPS');
  const modal = await waitFor(() => modalContaining(h, 'field_node_name'), 'run modal');
  expect(JSON.stringify(modal.view.blocks)).toContain('needs approval');
  const res = await h.user('U01ALICE').submit(modal.id, drainValues(node));
  expect(res.status).toBe(200);
  const message = await waitFor(
    () => h.fake.state.messages.C03APPROVALS?.find((m) => JSON.stringify(m.blocks).includes(node)),
    'approval request',
  );
  const approve = JSON.stringify(message.blocks).match(/"action_id":"approval_approve","value":"([^"]+)"/);
  const approvalId = approve![1]!;
  // The request records where its messages are only after the requester's DM is sent too; a test that
  // acts before then races that write (an expiry would find no message to update).
  for (let i = 0; !(await h.runtime.deps.access.store.approvals.get(approvalId))?.approversTs; i++) {
    if (i > 400) throw new Error('timed out waiting for the approval message refs');
    await new Promise((r) => setTimeout(r, 25));
  }
  return { message, approvalId };
}

function latest(channel: string, ts: string): FakeMessage {
  return h.fake.state.messages[channel]!.find((m) => m.ts === ts)!;
}

describe('policy denials', () => {
  it('a denied user sees which rule denied and whom to ask, and the denial is audited', async () => {
    // (Postgres Vacuum is hidden by `view`: Carol would not even find it, so a visible runbook is used.)
    await h.user('U03CAROL').command('run "Scale Kubernetes Deployment"', 'C01OPS');
    const modal = await waitFor(() => modalContaining(h, 'carol may not run', 'U03CAROL'), 'denial');
    expect(JSON.stringify(modal.view)).toContain('Ask #platform');
    expect(modal.view.submit).toBeUndefined();
    const entries = await h.runtime.deps.access.audit.recent(10);
    expect(entries.find((e) => e.userId === 'U03CAROL')).toMatchObject({ action: 'run.open', outcome: 'denied' });
  });
});

describe('policy on where results go and what may be seen', () => {
  it('a run whose result would go to a channel the policy closes is refused, though opened elsewhere', async () => {
    await h.user('U01ALICE').command('run "Scale Kubernetes Deployment"', 'C01OPS');
    const modal = await waitFor(() => modalContaining(h, 'field_replicas'), 'run modal');
    const before = h.emulator.state.executions.byId.size;
    const res = await h.user('U01ALICE').submit(modal.id, {
      [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
      [BLOCKS.channel]: {
        [ACTIONS.channelSelect]: { type: 'conversations_select', selected_conversation: 'C02DEPLOYS' },
      },
      field_namespace: { value: { type: 'plain_text_input', value: 'web' } },
      field_deployment: { value: { type: 'plain_text_input', value: 'api' } },
      field_replicas: { value: { type: 'number_input', value: '2' } },
    });
    expect(JSON.stringify(res.json)).toContain('nothing runs into deploys');
    expect(h.emulator.state.executions.byId.size).toBe(before);
  });

  it('a proxy the form did not offer is refused on its field', async () => {
    await h.user('U01ALICE').command('run "Scale Kubernetes Deployment"', 'C01OPS');
    const modal = await waitFor(() => modalContaining(h, 'field_replicas'), 'run modal');
    const res = await h.user('U01ALICE').submit(modal.id, {
      [BLOCKS.proxy]: {
        [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-elsewhere' } },
      },
      field_namespace: { value: { type: 'plain_text_input', value: 'web' } },
      field_deployment: { value: { type: 'plain_text_input', value: 'api' } },
      field_replicas: { value: { type: 'number_input', value: '2' } },
    });
    expect((res.json as { errors: Record<string, string> }).errors[BLOCKS.proxy]).toContain('offered proxies');
  });

  it('executions of a runbook the policy hides are left out of lists and refused in status', async () => {
    const hidden = [...h.emulator.state.executions.byId.values()].find(
      (e) => e.workflowName === 'Postgres Vacuum Analyze',
    )!;
    await h.user('U01ALICE').command(`status ${hidden.id}`, 'C01OPS');
    await waitFor(() => ephemeralContaining(h.fake, 'vacuum is private'), 'status refused');
    await h.user('U01ALICE').command('executions --last year', 'C01OPS');
    const list = await waitFor(() => ephemeralContaining(h.fake, 'Executions'), 'executions');
    expect(JSON.stringify(list.blocks)).not.toContain('Postgres Vacuum Analyze');
  });
});

describe('approvals', () => {
  it('a run that needs approval runs only after an approver approves, with requestId set', async () => {
    const { message, approvalId } = await requestDrain('node-approve-1');
    expect(executionsWithRequest(approvalId)).toHaveLength(0);
    expect([...h.emulator.state.executions.byId.values()].some((e) => e.params.node_name === 'node-approve-1')).toBe(
      false,
    );
    // The requester cannot approve their own request.
    await h.user('U01ALICE').act({ kind: 'message', message }, ACTIONS.approvalApprove);
    await waitFor(() => ephemeralContaining(h.fake, 'cannot approve your own request'), 'self-approval refusal');
    expect(executionsWithRequest(approvalId)).toHaveLength(0);
    // Carol is not an approver.
    await h.user('U03CAROL').act({ kind: 'message', message }, ACTIONS.approvalApprove);
    await waitFor(() => ephemeralContaining(h.fake, 'not an approver', 'U03CAROL'), 'non-approver refusal');
    // Bob (in the approvers group) approves.
    await h.user('U02BOB').act({ kind: 'message', message }, ACTIONS.approvalApprove);
    const run = await waitFor(() => executionsWithRequest(approvalId)[0], 'approved run');
    expect(run.received.userId).toBe('U01ALICE');
    expect(run.received.userEmail).toBe('alice@example.com');
    const updated = await waitFor(() => {
      const m = latest('C03APPROVALS', message.ts);
      return JSON.stringify(m.blocks).includes('Approved by <@U02BOB>') && m;
    }, 'approvers message updated');
    expect(JSON.stringify(updated.blocks)).not.toContain(ACTIONS.approvalApprove);
    await waitFor(
      () => h.fake.state.messages.C01OPS?.find((m) => m.text.includes(`${DRAIN} is running`)),
      'running message',
    );
    const dm = await waitFor(
      () =>
        Object.values(h.fake.state.messages)
          .flat()
          .find((m) => m.channel.startsWith('D') && JSON.stringify(m.blocks).includes('Approved by <@U02BOB>')),
      'requester copy updated',
    );
    expect(JSON.stringify(dm.blocks)).toContain('node-approve-1');
  });

  it('a rejection asks for a reason and tells the requester; nothing runs', async () => {
    const { message, approvalId } = await requestDrain('node-reject-1');
    await h.user('U02BOB').act({ kind: 'message', message }, ACTIONS.approvalReject);
    const modal = await waitFor(() => modalContaining(h, BLOCKS.rejectReason, 'U02BOB'), 'reason modal');
    const empty = await h.user('U02BOB').submit(modal.id, {
      [BLOCKS.rejectReason]: { [ACTIONS.rejectReason]: { type: 'plain_text_input', value: '  ' } },
    });
    expect((empty.json as { response_action: string }).response_action).toBe('errors');
    await h.user('U02BOB').submit(modal.id, {
      [BLOCKS.rejectReason]: { [ACTIONS.rejectReason]: { type: 'plain_text_input', value: 'not during the freeze' } },
    });
    await waitFor(
      () => JSON.stringify(latest('C03APPROVALS', message.ts).blocks).includes('not during the freeze'),
      'rejection shown',
    );
    expect(executionsWithRequest(approvalId)).toHaveLength(0);
    expect((await h.runtime.deps.access.store.approvals.get(approvalId))?.state).toBe('rejected');
  });

  it('an expired request can no longer be approved', async () => {
    const { message, approvalId } = await requestDrain('node-expire-1');
    // What the approver's client still shows if it has not refreshed yet.
    const stale = structuredClone(message);
    const later = { ...h.runtime.deps, now: () => Date.now() + 2 * 60 * 60_000 };
    expect(await announceExpiredApprovals(later, h.runtime.slack.app.client)).toBeGreaterThanOrEqual(1);
    await waitFor(() => JSON.stringify(latest('C03APPROVALS', message.ts).blocks).includes('Expired'), 'expired');
    await h.user('U02BOB').act({ kind: 'message', message: stale }, ACTIONS.approvalApprove);
    await waitFor(() => ephemeralContaining(h.fake, 'already expired', 'U02BOB'), 'expired answer');
    expect(executionsWithRequest(approvalId)).toHaveLength(0);
  });

  it('a click that decides nothing lets its claim go before it is answered: a click made on that answer is told the same', async () => {
    const { message, approvalId } = await requestDrain('node-again-1');
    const told = () =>
      h.fake.state.ephemerals.filter((e) => e.user === 'U03CAROL' && JSON.stringify(e).includes('not an approver'));
    const before = told().length;
    // The moment the first refusal reaches Slack, Carol clicks again: her first click's claim is already let go.
    let again: Promise<unknown> | null = null;
    h.fake.on('call', (call: { method: string; args: unknown }) => {
      if (again || call.method !== 'response_url' || !JSON.stringify(call.args).includes('not an approver')) return;
      again = h.user('U03CAROL').act({ kind: 'message', message }, ACTIONS.approvalApprove);
    });
    await h.user('U03CAROL').act({ kind: 'message', message }, ACTIONS.approvalApprove);
    await waitFor(() => told().length >= before + 2 || undefined, 'both clicks told she is not an approver');
    await again;
    expect(h.fake.state.ephemerals.some((e) => e.user === 'U03CAROL' && /already done/i.test(e.text))).toBe(false);
    expect(executionsWithRequest(approvalId)).toHaveLength(0);
  });

  it('two approvers clicking at once produce exactly one run', async () => {
    const { message, approvalId } = await requestDrain('node-race-1');
    await Promise.all([
      h.user('U02BOB').act({ kind: 'message', message }, ACTIONS.approvalApprove),
      h.user('U02BOB').act({ kind: 'message', message }, ACTIONS.approvalApprove),
      h.user('U02BOB').act({ kind: 'message', message }, ACTIONS.approvalApprove),
    ]);
    await waitFor(() => executionsWithRequest(approvalId).length > 0, 'the run');
    await new Promise((r) => setTimeout(r, 300));
    expect(executionsWithRequest(approvalId)).toHaveLength(1);
  });
});

describe('hardening', () => {
  it('a submission with tampered private_metadata is refused and runs nothing', async () => {
    await h.user('U01ALICE').command('run "Scale Kubernetes Deployment"', 'C01OPS');
    const modal = await waitFor(() => modalContaining(h, 'field_replicas'), 'run modal');
    const view = h.fake.state.views[modal.id]!;
    const sealed = String(view.view.private_metadata);
    const other = [...h.emulator.state.workflows.byId.values()].find(
      (w) => w.workflow.name === 'Postgres Vacuum Analyze',
    )!;
    view.view.private_metadata = sealed.replace(/"r":"[^"]+"/, `"r":"${other.workflow.id}"`);
    const before = h.emulator.state.executions.byId.size;
    const res = await h.user('U01ALICE').submit(modal.id, {});
    expect(JSON.stringify(res.json)).toContain('could not be verified');
    expect(h.emulator.state.executions.byId.size).toBe(before);
  });

  it('secret values, the API key and the bot token never reach the logs; the run is audited', async () => {
    await h.user('U01ALICE').command('run "Rotate Webhook Signing Secret"', 'C01OPS');
    const modal = await waitFor(() => modalContaining(h, 'field_new_secret'), 'run modal');
    const secret = 'sup3r-s3cret-value-XYZ-0987654321';
    await h.user('U01ALICE').submit(modal.id, {
      [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
      [BLOCKS.channel]: { [ACTIONS.channelSelect]: { type: 'conversations_select', selected_conversation: 'C01OPS' } },
      field_integration: { value: { type: 'static_select', selected_option: { value: '0' } } },
      field_new_secret: { value: { type: 'plain_text_input', value: secret } },
    });
    const run = await waitFor(
      () => [...h.emulator.state.executions.byId.values()].find((e) => e.params.new_secret === secret),
      'run with the secret',
    );
    const message = await waitFor(
      () => h.fake.state.messages.C01OPS?.find((m) => JSON.stringify(m.blocks).includes(run.id)),
      'running message',
    );
    expect(JSON.stringify(message.blocks)).not.toContain(secret);
    const entries = await h.runtime.deps.access.audit.recent(50);
    const audited = entries.find((e) => e.action === 'run.start' && e.detail?.includes(run.id));
    expect(audited?.outcome).toBe('ok');
    expect(audited?.detail).not.toContain(secret);
    const logs = h.logs.join('');
    expect(logs).toContain('"audit"');
    for (const value of [secret, API_KEY, BOT_TOKEN, SIGNING_SECRET]) expect(logs).not.toContain(value);
    // …and nothing Slack was shown carries it either.
    expect(JSON.stringify(h.fake.state.messages)).not.toContain(secret);
    expect(JSON.stringify(h.fake.state.ephemerals)).not.toContain(secret);
  });

  it('/runbook audit lists recent actions, denials included', async () => {
    await h.user('U01ALICE').command('audit 30', 'C01OPS');
    const reply = await waitFor(() => ephemeralContaining(h.fake, 'Audit trail'), 'audit');
    const text = JSON.stringify(reply.blocks);
    expect(text).toContain('run.start');
    expect(text).toContain('approval.approve');
    expect(text).toContain('approval.reject');
  });

  it('a user over the run rate limit is told to wait, and nothing runs', async () => {
    const limited = h.runtime.deps.access.runLimit;
    for (let i = 0; i < 20; i++) await limited.take('U02BOB');
    await h.user('U02BOB').command('run "Scale Kubernetes Deployment"', 'C01OPS');
    const modal = await waitFor(() => modalContaining(h, 'field_replicas', 'U02BOB'), 'run modal');
    const res = await h.user('U02BOB').submit(modal.id, {
      [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
      field_namespace: { value: { type: 'plain_text_input', value: 'web' } },
      field_deployment: { value: { type: 'plain_text_input', value: 'rate' } },
      field_replicas: { value: { type: 'number_input', value: '2' } },
    });
    expect(JSON.stringify(res.json)).toContain('too many runs this minute');
  });
});
