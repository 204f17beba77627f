// Test helpers for approval requests: Alice asks to run "Drain Kubernetes Node" (a runbook the emulator
// marks requiresApproval) from #ops through the real form, and the request lands in #approvals.
import type { FakeMessage } from '../../src/sandbox/fake-slack-state.ts';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import { type Harness, modalContaining, waitFor } from './bot-harness.ts';

/** Submits the run form for node `node`; returns the request message in #approvals and its approval id. */
export async function requestDrain(h: Harness, node: string): Promise<{ message: FakeMessage; approvalId: string }> {
  await h.user('U01ALICE').command('run "Drain Kubernetes Node"', 'C01OPS');
  const modal = await waitFor(() => modalContaining(h, 'field_node_name'), 'run modal');
  await h.user('U01ALICE').submit(modal.id, {
    [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
    [BLOCKS.channel]: { [ACTIONS.channelSelect]: { type: 'conversations_select', selected_conversation: 'C01OPS' } },
    field_node_name: { value: { type: 'plain_text_input', value: node } },
  });
  const message = await waitFor(
    () => h.fake.state.messages.C03APPROVALS?.find((m) => JSON.stringify(m.blocks).includes(node)),
    'approval request',
  );
  const approvalId = JSON.stringify(message.blocks).match(/"action_id":"approval_approve","value":"([^"]+)"/)![1]!;
  return { message, approvalId };
}

/** Executions the emulator started for an approval request. */
export function runsOf(h: Harness, requestId: string) {
  return [...h.emulator.state.executions.byId.values()].filter((e) => e.received.requestId === requestId);
}
