// Change freezes on the paths a form does not take, through the real Bolt pipeline with the bot on the
// emulator's clock: an approval request approved inside a window is refused with the window's name and
// stays open (approved after the window, it runs); a Workflow Builder step inside a window fails with the
// sentence a person would read and starts nothing, and so does a schedule's Run now; a schedule created in the form inside a window is paused
// at once (it never fires inside the window), its creator told so, and resumed at the window's end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NEVER_FIRES } from '../../src/runs/schedule-pause-write.ts';
import { stepDefinition } from '../../src/sandbox/workflow-steps.ts';
import { ACTIONS, BLOCKS, FUNCTIONS } from '../../src/slack/kit/ids.ts';
import { requestDrain, runsOf } from '../support/approval-requests.ts';
import { type Harness, modalContaining, startHarness, waitFor, writePolicyFile } from '../support/bot-harness.ts';
import { clickRunNow, SCALE_RUNBOOK, scaleFormValues } from '../support/run-form.ts';

const FREEZE = 'Release freeze';
const POLICY = `
contact: "#platform"
approvers: { users: [U02BOB] }
freezes:
  - name: ${FREEZE}
    start: "2026-11-21T09:00Z"
    end: "2026-11-23T09:00Z"
    runbooks: { names: ["Scale *", "Drain *"] }
`;
const BEFORE = Date.parse('2026-11-21T08:30:00Z');
const INSIDE = Date.parse('2026-11-21T09:30:00Z');
const AFTER = Date.parse('2026-11-23T09:30:00Z');

let h: Harness;
beforeAll(async () => {
  // Requests live three days here, so one refused inside the window is still open after it.
  const env = { POLICY_FILE: writePolicyFile(POLICY), APPROVALS_CHANNEL: 'C03APPROVALS', APPROVAL_TTL_MINUTES: '4320' };
  h = await startHarness({ env, sharedClock: true });
});
afterAll(async () => {
  await h.stop();
});

const mark = () => ({ ephemerals: h.fake.state.ephemerals.length, posts: h.fake.state.responseUrlPosts.length });

/** What `user` was told privately (an ephemeral or a response_url post) since `from`, containing `needle`. */
function toldPrivately(needle: string, from: ReturnType<typeof mark>, user = 'U01ALICE'): string | undefined {
  const texts = [
    ...h.fake.state.ephemerals.slice(from.ephemerals).filter((e) => e.user === user),
    ...h.fake.state.responseUrlPosts.slice(from.posts).map((p) => p.body),
  ].map((t) => JSON.stringify(t));
  return texts.find((t) => t.includes(needle));
}

const scaleRuns = (namespace: string) =>
  [...h.emulator.state.executions.byId.values()].filter((e) => e.params.namespace === namespace);

describe('change freezes beyond the form', () => {
  it('an approval approved inside the window is refused with its name and stays open; after it, it runs', async () => {
    h.clock.set(BEFORE);
    const { message, approvalId } = await requestDrain(h, 'frozen-node');
    for (let i = 0; !(await h.runtime.store.approvals.get(approvalId))?.approversTs; i++) {
      if (i > 400) throw new Error('timed out waiting for the approval message refs');
      await new Promise((r) => setTimeout(r, 25));
    }

    h.clock.set(INSIDE);
    const at = mark();
    await h.user('U02BOB').act({ kind: 'message', message }, ACTIONS.approvalApprove);
    const told = await waitFor(() => toldPrivately(FREEZE, at, 'U02BOB'), 'the refusal told to Bob');
    expect(told).toContain('The request stays open');
    expect(told).toContain('is on until');
    expect(runsOf(h, approvalId)).toHaveLength(0);
    expect((await h.runtime.store.approvals.get(approvalId))?.state).toBe('pending');
    const denied = (await h.runtime.deps.access.audit.recent(50)).filter(
      (e) => e.userId === 'U02BOB' && e.outcome === 'denied' && e.detail?.includes(FREEZE),
    );
    expect(denied).toHaveLength(1);

    // The window ends: the same request, approved again, runs once.
    h.clock.set(AFTER);
    const request = h.fake.state.messages.C03APPROVALS!.find((m) => m.ts === message.ts)!;
    await h.user('U02BOB').act({ kind: 'message', message: request }, ACTIONS.approvalApprove);
    await waitFor(() => (runsOf(h, approvalId).length > 0 ? true : undefined), 'the approved run');
    expect(runsOf(h, approvalId)).toHaveLength(1);
  });

  it('a Workflow Builder step inside the window fails with the sentence and starts nothing', async () => {
    h.clock.set(INSIDE);
    const res = await h.user().runWorkflowStep(FUNCTIONS.runRunbook, stepDefinition(FUNCTIONS.runRunbook), {
      invoking_user: 'U01ALICE',
      runbook: SCALE_RUNBOOK,
      inputs: JSON.stringify({ namespace: 'frozen-step', deployment: 'web', replicas: 2 }),
    });
    expect(res.status).toBe(200);
    const id = res.started.execution.id;
    const done = await waitFor(() => {
      const run = h.fake.state.functionExecutions[id];
      return run && run.state !== 'running' ? run : undefined;
    }, 'the step to end');
    expect(done.state).toBe('failed');
    expect(done.error).toContain(`the change freeze “${FREEZE}” is on until`);
    expect(scaleRuns('frozen-step')).toHaveLength(0);
    const audit = await h.runtime.deps.access.audit.recent(50);
    expect(
      audit.some(
        (e) => e.action === 'run.start' && e.outcome === 'denied' && e.detail?.endsWith('; via workflow-step'),
      ),
    ).toBe(true);
  });

  it('a schedule’s Run now inside the window is refused with the sentence and starts nothing', async () => {
    h.clock.set(INSIDE);
    // Made before the window in #ops by Alice; the freeze's minute pass has not come yet.
    const runbookId = [...h.emulator.state.workflows.byId.values()].find((w) => w.workflow.name === SCALE_RUNBOOK)!
      .workflow.id;
    const { schedule } = h.emulator.state.createSchedule({
      runbookId,
      runbookName: SCALE_RUNBOOK,
      proxyId: 'proxy-dev',
      params: JSON.stringify({ namespace: 'frozen-run-now', deployment: 'web', replicas: 2 }),
      schedule: '0 3 * * *',
    });
    await h.runtime.store.scheduleOwners.set(
      schedule.id,
      { userId: 'U01ALICE', teamId: null, channel: 'C01OPS' },
      h.clock.now(),
    );
    const listed = mark();
    await h.user().command('schedules', 'C01OPS');
    const list = await waitFor(
      () =>
        h.fake.state.ephemerals
          .slice(listed.ephemerals)
          .find((e) => e.user === 'U01ALICE' && JSON.stringify(e.blocks ?? []).includes(schedule.id)),
      'the schedules list',
    );
    const at = mark();
    await clickRunNow(h, list, schedule.id);
    // Refused at the confirmation or at its Run: either way with the window's name and end, and no run.
    const confirmation = await waitFor(
      () =>
        toldPrivately(FREEZE, at) ??
        h.fake.state.ephemerals
          .slice(at.ephemerals)
          .find((e) => JSON.stringify(e.blocks ?? []).includes(ACTIONS.scheduleRunNowConfirmed)),
      'the confirmation or the refusal',
    );
    if (typeof confirmation !== 'string') {
      const clicked = mark();
      await h.user().act({ kind: 'ephemeral', ephemeral: confirmation }, ACTIONS.scheduleRunNowConfirmed);
      await waitFor(() => toldPrivately(FREEZE, clicked), 'the refusal');
    }
    const told = toldPrivately(FREEZE, at)!;
    expect(told).toContain(`the change freeze “${FREEZE}” is on until`);
    expect(scaleRuns('frozen-run-now')).toHaveLength(0);
    const audit = await h.runtime.deps.access.audit.recent(50);
    expect(audit.some((e) => e.outcome === 'denied' && e.detail?.includes('schedule-run-now'))).toBe(true);
  });

  it('a schedule created inside the window is paused at once, its creator told, and resumed at the end', async () => {
    h.clock.set(INSIDE);
    await h.user().command(`schedule "${SCALE_RUNBOOK}"`, 'C01OPS');
    const modal = await waitFor(() => modalContaining(h, BLOCKS.cron), 'the schedule form');
    const at = mark();
    await h.user().submit(modal.id, {
      ...scaleFormValues('frozen-schedule', 'C01OPS'),
      [BLOCKS.preset]: { [ACTIONS.presetSelect]: { type: 'static_select', selected_option: { value: 'custom' } } },
      [BLOCKS.cron]: { [ACTIONS.cronInput]: { type: 'plain_text_input', value: '*/10 * * * *' } },
    });
    const told = await waitFor(() => toldPrivately('paused at once', at), 'the creator told');
    expect(told).toContain(`the change freeze “${FREEZE}” is on until`);
    expect(told).not.toContain('Next run');
    const record = [...h.emulator.state.schedules.byId.values()].find((s) =>
      s.schedule.params.includes('frozen-schedule'),
    )!;
    // Paused before the answer: the API never holds the real expression inside the window.
    expect(record.schedule.schedule).toBe(NEVER_FIRES);
    expect(await h.runtime.store.schedulePauses.get(record.schedule.id)).toMatchObject({
      state: 'paused',
      cron: '*/10 * * * *',
      freeze: FREEZE,
    });
    // An hour inside the window: it has not run.
    h.clock.set(INSIDE + 3_600_000);
    expect(scaleRuns('frozen-schedule')).toHaveLength(0);
    const trail = (await h.runtime.deps.access.audit.recent(50)).filter((e) => e.target?.includes(record.schedule.id));
    expect(trail.map((e) => [e.action, e.outcome])).toEqual(
      expect.arrayContaining([
        ['schedule.create', 'ok'],
        ['schedule.pause', 'ok'],
      ]),
    );
    // The freeze acted, not Alice.
    expect(trail.find((e) => e.action === 'schedule.pause')?.userId).toBeNull();

    // The window ends: the minute's pass resumes it with its own expression, and it runs again.
    h.clock.set(AFTER);
    await h.runtime.tick();
    expect(h.emulator.state.schedules.byId.get(record.schedule.id)!.schedule.schedule).toBe('*/10 * * * *');
    expect(await h.runtime.store.schedulePauses.get(record.schedule.id)).toBeNull();
    h.clock.set(AFTER + 30 * 60_000);
    h.emulator.state.catchUp();
    expect(scaleRuns('frozen-schedule').length).toBeGreaterThan(0);
  });
});
