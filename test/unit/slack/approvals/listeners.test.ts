// The approvals feature's listeners, called as Bolt would call them (fake ack, respond, client and
// request context) over the real use cases: what reached the use case, what was shown, one refusal.
import type { ButtonAction } from '@slack/bolt';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { approveClicked, rejectClicked, rejectSubmitted } from '../../../../src/slack/approvals/approval-actions.ts';
import { approvalsListeners } from '../../../../src/slack/approvals/register.ts';
import { ACTIONS, BLOCKS, VIEWS } from '../../../../src/slack/kit/ids.ts';
import type { ActionArgs, ViewArgs } from '../../../../src/slack/kit/listen.ts';
import { NEEDS_APPROVAL, TABLE_POLICY } from '../../../support/authorization-cases.ts';
import { aliceRuns, type ListenerEnv, shown, startListenerEnv } from '../listener-env.ts';

let env: ListenerEnv;
beforeAll(async () => {
  env = await startListenerEnv(TABLE_POLICY);
});
afterAll(() => env.close());
beforeEach(() => env.reset());

/** A pending request to run the runbook that needs approval, asked by Alice in #ops. */
async function pendingRequest(): Promise<string> {
  const result = await aliceRuns(env, NEEDS_APPROVAL);
  if (result.kind !== 'approval-requested') throw new Error(`expected a request, got ${result.kind}`);
  env.reset();
  return result.approval.id;
}

function click(userId: string, value: string, view?: { type: string }): ActionArgs {
  const action = { type: 'button', action_id: ACTIONS.approvalApprove, value } as ButtonAction;
  return {
    ack: env.ack,
    client: env.client,
    body: { user: { id: userId }, actions: [action], trigger_id: 'trigger-1', channel: { id: 'C0APPROVALS' }, view },
  } as unknown as ActionArgs;
}

describe('approvals listeners', () => {
  it('registers Approve, Reject and the reject form', () => {
    expect(approvalsListeners.map((r) => r.listener)).toEqual([approveClicked, rejectClicked, rejectSubmitted]);
  });

  it('approveClicked: a click by the approver approves the request and the run starts, its card on the way', async () => {
    const id = await pendingRequest();
    await env.mark();
    await approveClicked(click('U0APPROVER', id), env.context('U0APPROVER', 'C0APPROVALS'));
    expect(env.acks).toEqual([undefined]);
    // What reached the use case: the approval of that request by that approver, which started the run.
    expect(await env.mutations()).toEqual(['POST POST /v1alpha1/workflows/{workflowId}/run']);
    const approval = await env.store.approvals.get(id);
    expect(approval?.state).toBe('approved');
    expect(approval?.decidedBy).toBe('U0APPROVER');
    expect(env.tracker.started_.map((r) => r.runbookName)).toEqual([NEEDS_APPROVAL]);
    // What it rendered: the running card handed to the run tracker (which posts it), no error answered.
    expect(env.tracker.started_[0]?.channel).toBe('C01OPS');
    expect(env.replies).toEqual([]);
  });

  it('approveClicked from App Home refreshes the Home tab through the request context', async () => {
    const id = await pendingRequest();
    await approveClicked(click('U0APPROVER', id, { type: 'home' }), env.context('U0APPROVER', null));
    expect(env.called('refreshHome')).toEqual([{ method: 'refreshHome', args: { userId: 'U0APPROVER' } }]);
  });

  it('approveClicked refuses someone who may not approve: one sentence, nothing runs, the refusal audited', async () => {
    const id = await pendingRequest();
    await env.mark();
    await approveClicked(click('U01ALICE', id), env.context('U01ALICE', 'C0APPROVALS'));
    expect(await env.mutations()).toEqual([]);
    expect((await env.store.approvals.get(id))?.state).toBe('pending');
    expect(env.replies).toHaveLength(1);
    expect(env.replies[0]!.text).toMatch(/\.$/);
    expect(shown(env)).not.toContain('Traceback');
  });

  it('rejectClicked opens the reason form for that request', async () => {
    const id = await pendingRequest();
    await rejectClicked(click('U0APPROVER', id), env.context('U0APPROVER', 'C0APPROVALS'));
    const opened = env.called('views.open');
    expect(opened).toHaveLength(1);
    const view = opened[0]!.args.view as { callback_id: string; private_metadata: string };
    expect(view.callback_id).toBe(VIEWS.reject);
    expect(JSON.parse(view.private_metadata)).toEqual({ a: id, c: 'C0APPROVALS' });
  });

  it('rejectClicked on a request that no longer exists says so in the form', async () => {
    await rejectClicked(click('U0APPROVER', 'no-such-request'), env.context('U0APPROVER', 'C0APPROVALS'));
    expect(JSON.stringify(env.called('views.open')[0]!.args.view)).toContain('no longer exists');
  });

  function submission(metadata: string, reason: string): ViewArgs {
    return {
      ack: env.ack,
      body: { user: { id: 'U0APPROVER' } },
      view: {
        private_metadata: metadata,
        state: { values: { [BLOCKS.rejectReason]: { [ACTIONS.rejectReason]: { value: reason } } } },
      },
    } as unknown as ViewArgs;
  }

  it('rejectSubmitted rejects the request with the reason; nothing runs', async () => {
    const id = await pendingRequest();
    await env.mark();
    await rejectSubmitted(
      submission(JSON.stringify({ a: id, c: 'C0APPROVALS' }), 'not during the freeze'),
      env.context('U0APPROVER', null),
    );
    expect(env.acks).toEqual([undefined]);
    expect(await env.mutations()).toEqual([]);
    const approval = await env.store.approvals.get(id);
    expect(approval?.state).toBe('rejected');
    expect(JSON.stringify(approval)).toContain('not during the freeze');
  });

  it('rejectSubmitted without a reason keeps the form open with a field error', async () => {
    const id = await pendingRequest();
    await rejectSubmitted(submission(JSON.stringify({ a: id }), '  '), env.context('U0APPROVER', null));
    expect(env.acks).toEqual([
      { response_action: 'errors', errors: { [BLOCKS.rejectReason]: 'Say why, so the requester knows.' } },
    ]);
    expect((await env.store.approvals.get(id))?.state).toBe('pending');
  });
});
