// What is already posted keeps working: buttons recorded from main 72196f9 (action ids and values as they
// sit in messages people still have: lists, result cards, pending approval requests, `--now` and alias
// confirmations) are clicked through the real Bolt pipeline and must still answer with what they did
// then, not an error; a confirmation the previous release already used says it was done. Forms still open
// on someone's screen, whose private_metadata the previous release sealed, are submitted and do what they
// did (a bad seal is answered with one clear sentence).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseInputSchema } from '../../src/forms/input-schema.ts';
import { BLOCKS } from '../../src/slack/kit/ids.ts';
import { requestDrain } from '../support/approval-requests.ts';
import { type Harness, startHarness, waitFor } from '../support/bot-harness.ts';
import { buttonIn } from '../support/button-message.ts';
import { createScaleSchedule, SCALE_RUNBOOK, scaleFormValues } from '../support/run-form.ts';

interface Recorded {
  action_id: string;
  value: string;
  /** Who clicks (default Alice; an approver for Approve / Reject). */
  user?: string;
  /** A claim the previous release took for this click (the confirmation was used there). */
  claimedBefore?: string;
  answers: 'ephemeral' | 'modal' | 'message';
  says: string;
}
interface RecordedSubmission {
  callback_id: string;
  /** The button that opens such a form today (its view is then submitted with the recorded metadata). */
  opens_with: string;
  private_metadata: string;
  makes: 'run' | 'schedule' | 'nothing';
  says?: string;
}
const { buttons, submissions } = JSON.parse(
  readFileSync(path.join(import.meta.dirname, '../fixtures/posted-buttons-72196f9.json'), 'utf8'),
) as { buttons: Recorded[]; submissions: RecordedSubmission[] };

const POLICY = 'approvers: { groups: [S0APPROVERS] }\nrules: []\n';

let h: Harness;
const ids: Record<string, string> = {};
beforeAll(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'replay-policy-'));
  writeFileSync(path.join(dir, 'policy.yaml'), POLICY);
  h = await startHarness({ env: { POLICY_FILE: path.join(dir, 'policy.yaml'), APPROVALS_CHANNEL: 'C03APPROVALS' } });
  const params = { namespace: 'replay', deployment: 'web', replicas: 2 };
  const { schedule, runbook } = await createScaleSchedule(h, params, '0 5 * * *');
  const { executionIds } = await h.runtime.api.workflows.run(runbook.id, { proxyId: 'proxy-dev', params });
  Object.assign(ids, { runbook: runbook.id, schedule: schedule.id, execution: executionIds[0]! });
  // Pending approval requests, as the previous release left them in #approvals.
  ids.approval = (await requestDrain(h, 'replay-node-1')).approvalId;
  ids.approval2 = (await requestDrain(h, 'replay-node-2')).approvalId;
  // The drafts behind `--now` confirmations still on screen.
  const spec = parseInputSchema(runbook.inputSchema);
  for (const n of [1, 2, 3, 4, 5]) {
    ids[`draft${n}`] = await h.runtime.deps.drafts.save(
      { runbookId: runbook.id, proxyId: 'proxy-dev', channel: null, params: { ...params, deployment: `draft-${n}` } },
      spec,
    );
  }
});
afterAll(async () => {
  await h.stop();
});

const fill = (text: string) =>
  text.replace(/\{(runbook|schedule|execution|approval2?|draft\d)\}/g, (_, k: string) => ids[k]!);
const FAILED = /could not|no longer exists|has expired|You may not/i;

it.each(buttons)('$action_id with $value still works', async (recorded) => {
  const user = h.user(recorded.user);
  for (let top = user.topModal(); top; top = user.topModal()) await user.close(top.id);
  if (recorded.claimedBefore) {
    expect(await h.runtime.store.notifications.claim(fill(recorded.claimedBefore), Date.now())).toBe(true);
  }
  const value = fill(recorded.value);
  const since = { ephemerals: h.fake.state.ephemerals.length, calls: h.fake.state.calls.length };
  await user.act(buttonIn('C01OPS', recorded.action_id, value), recorded.action_id);
  const says = fill(recorded.says);
  if (recorded.answers === 'modal') {
    const modal = await waitFor(() => {
      const top = user.topModal();
      const text = JSON.stringify(top?.view ?? '');
      return top && !text.includes('Loading') ? text : undefined;
    }, 'the modal');
    expect(modal).toContain(says);
    expect(modal).not.toMatch(FAILED);
  } else if (recorded.answers === 'message') {
    // A channel message posted or updated (the approval request, a card) says it.
    await waitFor(
      () =>
        h.fake.state.calls
          .slice(since.calls)
          .find((c) => c.method.startsWith('chat.') && JSON.stringify(c.args).includes(says)),
      `a message with ${says}`,
    );
  } else {
    const answer = await waitFor(
      () =>
        h.fake.state.ephemerals.slice(since.ephemerals).find((e) => JSON.stringify([e.text, e.blocks]).includes(says)),
      `an answer with ${says}`,
    );
    expect(JSON.stringify([answer.text, answer.blocks])).not.toMatch(FAILED);
  }
});

it('the recorded approval request ran once approved, and the confirmations ran what they named', async () => {
  const ran = (deployment: string) =>
    [...h.emulator.state.executions.byId.values()].filter((e) => e.params.deployment === deployment).length;
  await waitFor(
    () => [...h.emulator.state.executions.byId.values()].some((e) => e.received.requestId === ids.approval),
    'the approved run',
  );
  expect(ran('draft-1')).toBe(1);
  expect(ran('draft-2')).toBe(1);
  // Edit, Cancel and the confirmation used before the upgrade ran nothing.
  expect(ran('draft-3') + ran('draft-4') + ran('draft-5')).toBe(0);
});

it.each(submissions)('$callback_id sealed by 72196f9 ($makes)', async (recorded) => {
  const user = h.user();
  for (let top = user.topModal(); top; top = user.topModal()) await user.close(top.id);
  await user.act(buttonIn('C01OPS', recorded.opens_with, ids.runbook!), recorded.opens_with);
  const modal = await waitFor(() => {
    const top = user.topModal();
    return top && JSON.stringify(top.view).includes(BLOCKS.proxy) ? top : undefined;
  }, 'the form');
  // The form as the previous release left it on screen: its metadata sealed then.
  h.fake.state.views[modal.id]!.view.private_metadata = recorded.private_metadata;
  const namespace = `sealed-${recorded.callback_id}-${recorded.makes}`;
  const values = {
    ...scaleFormValues(namespace, 'C01OPS', 'sealed'),
    ...(recorded.callback_id === 'schedule_modal'
      ? {
          [BLOCKS.preset]: { preset_select: { type: 'static_select', selected_option: { value: 'custom' } } },
          [BLOCKS.cron]: { cron_input: { type: 'plain_text_input', value: '17 4 * * *' } },
        }
      : {}),
  };
  const schedulesBefore = h.emulator.state.schedules.byId.size;
  const response = await user.submit(modal.id, values);
  if (recorded.makes === 'nothing') {
    expect(JSON.stringify(response.json)).toContain(recorded.says);
    await new Promise((r) => setTimeout(r, 200));
    expect([...h.emulator.state.executions.byId.values()].some((e) => e.params.namespace === namespace)).toBe(false);
    return;
  }
  expect(JSON.stringify(response.json ?? '')).not.toMatch(/could not be verified|errors/);
  if (recorded.makes === 'run') {
    await waitFor(
      () => [...h.emulator.state.executions.byId.values()].find((e) => e.params.namespace === namespace),
      'the run',
    );
  } else {
    await waitFor(() => h.emulator.state.schedules.byId.size === schedulesBefore + 1, 'the schedule');
    const created = [...h.emulator.state.schedules.byId.values()].at(-1)!.schedule;
    expect(created).toMatchObject({ schedule: '17 4 * * *', runbookName: SCALE_RUNBOOK });
  }
});
