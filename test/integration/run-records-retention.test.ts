// Per-run records pruned by the real runtime's pass (here at once, by tick(), after moving the bot's clock), through
// the real Bolt pipeline. A long output's upload claim goes with its run's watch: watched again after both were
// pruned, the run's new result card gets the whole output in its own thread (one file per card, never two in one).
// A decided approval request goes 30 days after its decision: a late click on a copy of the request that still
// shows its buttons says "already approved" until then, and after it that the request no longer exists; nothing
// runs either way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../src/sandbox/fake-slack-api.ts';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import { RUN_RECORD_HORIZON_MS, WATCH_HORIZON_MS } from '../../src/tenants/retention.ts';
import {
  ephemeralContaining,
  type Harness,
  modalContaining,
  startHarness,
  waitFor,
  writePolicyFile,
} from '../support/bot-harness.ts';
import { watchAndSee as watchAgain, watchFinished } from '../support/watch-again.ts';

const LOGS = 'Collect Kubernetes Pod Logs';
const DRAIN = 'Drain Kubernetes Node';
const MIN = 60_000;
const ALICE = 'U01ALICE';
const BOB = 'U02BOB';
const CAROL = 'U03CAROL';
const OPS = 'C01OPS';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    sharedClock: true,
    env: {
      POLICY_FILE: writePolicyFile('approvers: { users: [U02BOB, U03CAROL] }\n'),
      APPROVALS_CHANNEL: 'C03APPROVALS',
      WATCH_TICK_MS: '20',
      WATCH_SLACK_POST_INTERVAL_MS: '0',
      WATCH_SLACK_UPDATE_INTERVAL_MS: '0',
    },
  });
});
afterAll(async () => {
  await h.stop();
});

const messagesIn = (channel: string): FakeMessage[] => h.fake.state.messages[channel] ?? [];
/** Top-level messages in the channel that name this execution (its result cards). */
const cardsOf = (id: string): FakeMessage[] =>
  messagesIn(OPS).filter((m) => !m.thread_ts && JSON.stringify([m.text, m.blocks ?? []]).includes(id));
const filesUnder = (ts: string): FakeMessage[] =>
  messagesIn(OPS).filter((m) => m.thread_ts === ts && m.ts !== ts && m.files?.length);
const watchAndSee = (id: string, needle: string) => watchAgain(h, CAROL, OPS, id, needle);
const finished = (id: string) => watchFinished(h, id);

describe('run records retention', () => {
  it('a run watched again after its watch and upload claim were pruned gets its file in the new card’s thread', {
    timeout: 40_000,
  }, async () => {
    const found = await h.runtime.deps.catalog.resolve(LOGS);
    if (found.kind !== 'match') throw new Error(`the emulator has no ${LOGS}`);
    const run = await h.runtime.api.workflows.run(found.runbook.id, {
      proxyId: 'proxy-dev',
      params: { namespace: 'web' },
    });
    const id = run.executionIds[0]!;
    h.clock.advance(60 * MIN);
    await watchAndSee(id, 'has already finished');
    const first = await waitFor(() => cardsOf(id)[0], 'result card');
    await waitFor(() => filesUnder(first.ts).length > 0 || undefined, 'the file in its thread');
    await finished(id);
    expect((await h.runtime.store.outputUploads.get(id))?.fileId).toBeTruthy();

    // Past the watch's horizon (counted from the watcher's stamp): one pass deletes the watch, then its upload claim.
    const endedAt = (await h.runtime.store.watches.get(id))!.updatedAt;
    h.clock.advance(endedAt + WATCH_HORIZON_MS + MIN - h.clock.now());
    await h.runtime.tick();
    expect(await h.runtime.store.watches.get(id)).toBeNull();
    expect(await h.runtime.store.outputUploads.get(id)).toBeNull();

    await watchAndSee(id, 'has already finished');
    const second = await waitFor(() => cardsOf(id)[1], 'the result told again');
    await waitFor(() => filesUnder(second.ts).length > 0 || undefined, 'the file in the new card’s thread');
    await finished(id);
    await new Promise((r) => setTimeout(r, 100));
    expect(filesUnder(first.ts)).toHaveLength(1);
    expect(filesUnder(second.ts)).toHaveLength(1);
    expect(filesUnder(second.ts)[0]!.files![0]!.content).toBe((await h.runtime.api.executions.get(id)).output);
  });

  it('a late click on an approved request: "already approved" within 30 days, then "no longer exists"; no run', async () => {
    await h.user(ALICE).command(`run "${DRAIN}"`, OPS);
    const modal = await waitFor(() => modalContaining(h, 'field_node_name', ALICE), 'run modal');
    await h.user(ALICE).submit(modal.id, {
      [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
      [BLOCKS.channel]: { [ACTIONS.channelSelect]: { type: 'conversations_select', selected_conversation: OPS } },
      field_node_name: { value: { type: 'plain_text_input', value: 'node-late-1' } },
    });
    const message = await waitFor(
      () => messagesIn('C03APPROVALS').find((m) => JSON.stringify(m.blocks).includes('node-late-1')),
      'approval request',
    );
    const approvalId = /"action_id":"approval_approve","value":"([^"]+)"/.exec(JSON.stringify(message.blocks))![1]!;
    for (let i = 0; !(await h.runtime.store.approvals.get(approvalId))?.approversTs; i++) {
      if (i > 400) throw new Error('timed out waiting for the approval message refs');
      await new Promise((r) => setTimeout(r, 25));
    }
    // What a client that never refreshed still shows: the request with its buttons.
    const stale = structuredClone(message);
    const runs = () =>
      [...h.emulator.state.executions.byId.values()].filter((e) => e.received.requestId === approvalId);
    await h.user(BOB).act({ kind: 'message', message }, ACTIONS.approvalApprove);
    await waitFor(() => runs()[0], 'the approved run');
    const decidedAt = (await h.runtime.store.approvals.get(approvalId))!.decidedAt!;

    const lateClick = async (needle: string) => {
      await h.user(CAROL).act({ kind: 'message', message: stale }, ACTIONS.approvalApprove);
      await waitFor(() => ephemeralContaining(h.fake, needle, CAROL), needle);
      h.fake.state.ephemerals.splice(0);
    };
    h.clock.advance(decidedAt + RUN_RECORD_HORIZON_MS.approvals - MIN - h.clock.now());
    await h.runtime.tick();
    await lateClick('already approved by <@U02BOB>');

    h.clock.advance(2 * MIN);
    await h.runtime.tick();
    expect(await h.runtime.store.approvals.get(approvalId)).toBeNull();
    await lateClick('That approval request no longer exists.');
    await new Promise((r) => setTimeout(r, 200));
    expect(runs()).toHaveLength(1);
    // The audit trail keeps the decision: it follows its own retention.
    const audit = await h.runtime.deps.access.audit.recent(200);
    expect(audit.some((e) => e.action === 'approval.approve' && e.target?.includes(approvalId))).toBe(true);
  });
});
