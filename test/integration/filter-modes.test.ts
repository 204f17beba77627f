// `/runbook executions <runbook>` through the real Bolt pipeline against each way a Runbook API may
// treat the unpublished filter grammar (the emulator's filter modes): applied, ignored, read as plain
// terms (the quoted name matches nothing) or rejected with a 400. The list shows exactly the runs of
// that runbook — none missing, none of another runbook — and, where the API did not narrow the list and
// the bot stopped at its page bound, says so and offers Next, which finds the older runs.
import type { KnownBlock } from '@slack/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILTER_MODES } from '../../src/emulator/server.ts';
import type { FakeEphemeral } from '../../src/sandbox/fake-slack-state.ts';
import { ACTIONS } from '../../src/slack/kit/ids.ts';
import { checkBlocks } from '../../src/slack/kit/limits.ts';
import { type Harness, startHarness, waitFor } from '../support/bot-harness.ts';

const TARGET = 'Rotate Nginx Logs';
const OTHER = 'Scale Kubernetes Deployment';

/** The execution ids a list shows (each row's Details button carries its id). */
function rowIds(blocks: unknown[]): string[] {
  return (blocks as KnownBlock[]).flatMap((b) =>
    b.type === 'section' && b.accessory?.type === 'button' && b.accessory.action_id === ACTIONS.executionStatus
      ? [b.accessory.value ?? '']
      : [],
  );
}

describe.each(FILTER_MODES)('executions <runbook> when the Runbook API filter mode is %s', (mode) => {
  let h: Harness;
  const workflowId = (name: string) =>
    [...h.emulator.state.workflows.byId.values()].find((r) => r.seed.name === name)!.workflow.id;
  const runsOf = (name: string) =>
    [...h.emulator.state.executions.byId.values()]
      .filter((e) => e.workflowName === name)
      .sort((a, b) => b.createMs - a.createMs)
      .map((e) => e.id);

  beforeAll(async () => {
    h = await startHarness();
    h.emulator.setFilterMode(mode);
  });
  afterAll(async () => {
    await h.stop();
  });

  async function listReply(): Promise<FakeEphemeral> {
    const before = h.fake.state.ephemerals.length;
    await h.user().command(`executions "${TARGET}"`, 'C01OPS');
    return waitFor(
      () =>
        h.fake.state.ephemerals.slice(before).find((e) => JSON.stringify(e.blocks).includes(`Executions of ${TARGET}`)),
      'the executions list',
    );
  }

  it('shows exactly the runs of that runbook, and nothing says the answer may be incomplete', async () => {
    for (let i = 0; i < 3; i++)
      h.emulator.state.runWorkflow(workflowId(TARGET), { proxyId: 'proxy-dev', params: '{}' });
    h.emulator.advance(1_000);
    for (let i = 0; i < 5; i++) h.emulator.state.runWorkflow(workflowId(OTHER), { proxyId: 'proxy-dev', params: '{}' });
    const expected = runsOf(TARGET);
    expect(expected.length).toBeGreaterThanOrEqual(3);
    expect(expected.length).toBeLessThanOrEqual(10);

    const reply = await listReply();
    expect(rowIds(reply.blocks ?? []).sort()).toEqual([...expected].sort());
    expect(JSON.stringify(reply.blocks)).not.toContain('Showing matches among');
    expect(JSON.stringify(reply.blocks)).not.toContain('No executions');
    expect(checkBlocks(reply.blocks ?? [], 'message')).toEqual([]);
  });

  it('finds older runs beneath 600 newer ones, saying when it stopped at its bound', async () => {
    h.emulator.advance(1_000);
    for (let i = 0; i < 600; i++)
      h.emulator.state.runWorkflow(workflowId(OTHER), { proxyId: 'proxy-dev', params: '{}' });
    const expected = runsOf(TARGET);

    const first = await listReply();
    const text = JSON.stringify(first.blocks);
    const shown = [...rowIds(first.blocks ?? [])];
    let blocks = first.blocks ?? [];
    if (mode === 'apply') {
      // The API narrowed the list: all runs on the first page, nothing to add.
      expect(text).not.toContain('Showing matches among');
    } else {
      // 600 newer runs of another runbook: the bound (5 requests, pages of 100) stops short of them.
      expect(shown).toEqual([]);
      expect(text).toContain('Showing matches among the ');
      expect(text).toMatch(/the (4|5)00 most recent executions/);
      expect(first.text).not.toContain('No executions');
      // Next looks further and finds them.
      for (let page = 0; page < 3 && shown.length < expected.length; page++) {
        const posts = h.fake.state.responseUrlPosts.length;
        await h
          .user()
          .act(
            { kind: 'ephemeral', ephemeral: { ...first, blocks } },
            (el) => el.action_id === `${ACTIONS.executionsPage}_next`,
          );
        const next = await waitFor(
          () => h.fake.state.responseUrlPosts.slice(posts).find((p) => p.body.replace_original),
          'the next page',
        );
        blocks = (next.body.blocks ?? []) as typeof blocks;
        shown.push(...rowIds(blocks));
      }
    }
    if (mode === 'apply') shown.push(...rowIds(blocks).filter((id) => !shown.includes(id)));
    expect(shown.sort()).toEqual([...expected].sort());
  });
});
