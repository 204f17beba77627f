// Schedules and executions through the real Bolt pipeline: create with a cron preview and field
// errors, list, edit, delete (list updated in place), run now; executions list with filters, paging
// and status of one execution. Assertions on the Slack calls made and on the emulator's state.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blocksOf, findElement } from '../../src/sandbox/slack-user.ts';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import { checkBlocks, checkView } from '../../src/slack/kit/limits.ts';
import { ephemeralContaining, type Harness, modalContaining, startHarness, waitFor } from '../support/bot-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

const VACUUM = 'Postgres Vacuum Analyze';

function schedulesOf(name: string) {
  return [...h.emulator.state.schedules.byId.values()].map((s) => s.schedule).filter((s) => s.runbookName === name);
}

function scheduleValues(cron: string, database: string) {
  return {
    [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-prod' } } },
    [BLOCKS.preset]: { [ACTIONS.presetSelect]: { type: 'static_select', selected_option: { value: 'custom' } } },
    [BLOCKS.cron]: { [ACTIONS.cronInput]: { type: 'plain_text_input', value: cron } },
    field_database: { value: { type: 'plain_text_input', value: database } },
    field_verbose: { value: { type: 'checkboxes', selected_options: [] } },
  };
}

async function openScheduleModal() {
  await h.user().command(`schedule "${VACUUM}"`, 'C01OPS');
  return waitFor(() => modalContaining(h, BLOCKS.preset), 'schedule modal');
}

describe('schedules', () => {
  it('creates a schedule: preview as you type, invalid cron refused on the field, then saved', async () => {
    const modal = await openScheduleModal();
    expect(checkView(modal.view)).toEqual([]);
    expect(JSON.stringify(modal.view.blocks)).toContain('field_database');

    // Switch to a raw expression: the preview follows (block_actions → views.update).
    await h.user().act({ kind: 'view', view: modal }, ACTIONS.presetSelect, {
      type: 'static_select',
      selected_option: { text: { type: 'plain_text', text: 'Custom' }, value: 'custom' },
    });
    const custom = await waitFor(
      () => modalContaining(h, `"action_id":"${ACTIONS.cronInput}"`),
      'custom expression input',
    );
    await h
      .user()
      .act({ kind: 'view', view: custom }, ACTIONS.cronInput, { type: 'plain_text_input', value: '*/15 * * * *' });
    await waitFor(() => modalContaining(h, 'Every 15 minutes'), 'live preview');

    const before = schedulesOf(VACUUM).length;
    const bad = await h.user().submit(modal.id, scheduleValues('0 25 * * *', 'app'));
    const answer = bad.json as { response_action: string; errors: Record<string, string> };
    expect(answer.response_action).toBe('errors');
    expect(answer.errors[BLOCKS.cron]).toContain("hour field '25'");
    expect(schedulesOf(VACUUM).length).toBe(before);

    const ok = await h.user().submit(modal.id, scheduleValues('0 5 * * *', 'billing'));
    expect(ok.status).toBe(200);
    const created = await waitFor(() => schedulesOf(VACUUM).find((s) => s.params.includes('billing')), 'created');
    expect(created.schedule).toBe('0 5 * * *');
    expect(created.proxyId).toBe('proxy-prod');
    expect(JSON.parse(created.params)).toMatchObject({ database: 'billing', verbose: false });
    // The owner is stored before the confirmation is sent; the schedule itself exists a moment earlier.
    await waitFor(() => ephemeralContaining(h.fake, 'Scheduled'), 'confirmation');
    const owner = await h.runtime.store.scheduleOwners.get(created.id);
    expect(owner?.userId).toBe('U01ALICE');
  });

  it('lists schedules with their owner, edits one (PATCH), runs one now and deletes one', async () => {
    const target = schedulesOf(VACUUM).find((s) => s.params.includes('billing'))!;
    await h.user().command(`schedules "${VACUUM}"`, 'C01OPS');
    const list = await waitFor(() => ephemeralContaining(h.fake, target.id), 'schedule list');
    const text = JSON.stringify(list.blocks);
    expect(text).toContain('<@U01ALICE>');
    expect(text).toContain('At 05:00');
    expect(checkBlocks(list.blocks ?? [], 'message')).toEqual([]);
    const byId = (id: string) => (el: { action_id?: string; value?: string }) =>
      Boolean(el.action_id?.startsWith('schedule_') && el.value?.includes(id));

    // Edit: the modal is prefilled; saving PATCHes the schedule.
    await h
      .user()
      .act(
        { kind: 'ephemeral', ephemeral: list },
        (el) => byId(target.id)(el) && el.action_id === ACTIONS.scheduleEdit,
      );
    const edit = await waitFor(() => {
      const m = modalContaining(h, 'Edit schedule');
      return m && JSON.stringify(m.view.blocks).includes('field_database') ? m : undefined;
    }, 'edit modal');
    expect(JSON.stringify(edit.view.blocks)).toContain('billing');
    await h.user().submit(edit.id, scheduleValues('30 6 * * 1-5', 'billing'));
    await waitFor(
      () => h.emulator.state.schedules.byId.get(target.id)?.schedule.schedule === '30 6 * * 1-5',
      'patched',
    );

    // Run now: one execution of that runbook with the schedule's params.
    const runsBefore = h.emulator.state.executions.byId.size;
    await h
      .user()
      .act(
        { kind: 'ephemeral', ephemeral: list },
        (el) => byId(target.id)(el) && el.action_id === ACTIONS.scheduleRunNow,
      );
    // Run now asks first: the runbook, the inputs, the proxy and the owner; nothing runs yet.
    const confirmation = await waitFor(
      () => ephemeralContaining(h.fake, ACTIONS.scheduleRunNowConfirmed),
      'the Run now confirmation',
    );
    const asked = JSON.stringify(confirmation.blocks);
    expect(asked).toContain(`*Runbook*\\n${VACUUM}`);
    expect(asked).toContain('`billing`');
    expect(asked).toContain('*Proxy*');
    expect(asked).toContain('*Schedule owner*\\n<@U01ALICE>');
    await new Promise((r) => setTimeout(r, 200));
    expect(h.emulator.state.executions.byId.size).toBe(runsBefore);
    await h.user().act({ kind: 'ephemeral', ephemeral: confirmation }, ACTIONS.scheduleRunNowConfirmed);
    await waitFor(() => h.emulator.state.executions.byId.size === runsBefore + 1, 'run now');
    const run = [...h.emulator.state.executions.byId.values()].at(-1)!;
    expect(run.workflowName).toBe(VACUUM);
    expect(run.params).toMatchObject({ database: 'billing' });
    // The used confirmation is replaced by what started: its Run now cannot be clicked again.
    const started = await waitFor(
      () =>
        h.fake.state.responseUrlPosts.find(
          (p) => p.body.replace_original && JSON.stringify(p.body).includes(`${VACUUM} started`),
        ),
      'the confirmation replaced',
    );
    expect(JSON.stringify(started.body.blocks)).not.toContain(ACTIONS.scheduleRunNowConfirmed);

    // Delete (the confirm dialog is client-side): gone from the API and from the list, updated in place.
    const posts = h.fake.state.responseUrlPosts.length;
    await h
      .user()
      .act(
        { kind: 'ephemeral', ephemeral: list },
        (el) => byId(target.id)(el) && el.action_id === ACTIONS.scheduleDelete,
      );
    await waitFor(() => !h.emulator.state.schedules.byId.has(target.id), 'deleted');
    const replaced = await waitFor(
      () => h.fake.state.responseUrlPosts.slice(posts).find((p) => p.body.replace_original),
      'list updated in place',
    );
    expect(JSON.stringify(replaced.body.blocks)).not.toContain(target.id);
    expect(JSON.stringify(replaced.body.blocks)).toContain('deleted');
    expect((await h.runtime.deps.access.audit.recent(20)).map((e) => e.action)).toEqual(
      expect.arrayContaining(['schedule.create', 'schedule.update', 'schedule.delete']),
    );
  });

  it('the delete button asks for confirmation first', async () => {
    await h.user().command('schedules', 'C01OPS');
    const list = await waitFor(() => ephemeralContaining(h.fake, ACTIONS.scheduleDelete), 'list');
    const found = findElement(blocksOf({ kind: 'ephemeral', ephemeral: list }), ACTIONS.scheduleDelete);
    const button = found?.element as { style?: string; confirm?: { text?: { text?: string } } } | undefined;
    expect(button?.style).toBe('danger');
    expect(button?.confirm?.text?.text).toContain('Delete the schedule');
  });
});

describe('executions and status', () => {
  it('lists executions with filters, a status summary and paging', async () => {
    await h.user().command('executions --status failed --last year', 'C01OPS');
    const reply = await waitFor(() => ephemeralContaining(h.fake, 'Executions'), 'executions');
    const text = JSON.stringify(reply.blocks);
    expect(text).toContain(':x:');
    expect(text).not.toContain(':white_check_mark: *');
    expect(checkBlocks(reply.blocks ?? [], 'message')).toEqual([]);
    await h.user().command('executions', 'C01OPS');
    const all = await waitFor(() => ephemeralContaining(h.fake, 'page 1 of'), 'all executions');
    const posts = h.fake.state.responseUrlPosts.length;
    await h
      .user()
      .act(
        { kind: 'ephemeral', ephemeral: all },
        (el) => el.action_id?.startsWith(`${ACTIONS.executionsPage}_next`) ?? false,
      );
    const next = await waitFor(
      () => h.fake.state.responseUrlPosts.slice(posts).find((p) => p.body.replace_original),
      'page 2',
    );
    expect(JSON.stringify(next.body.blocks)).toContain('page 2 of');
  });

  it('status shows one execution with its output and a button for all of it; unknown ids are explained', async () => {
    const failed = [...h.emulator.state.executions.byId.values()].find((e) => e.status === 'EXECUTION_STATUS_FAILED')!;
    await h.user().command(`status ${failed.id}`, 'C01OPS');
    const reply = await waitFor(() => ephemeralContaining(h.fake, failed.reason.slice(0, 30)), 'status');
    const text = JSON.stringify(reply.blocks);
    expect(text).toContain(ACTIONS.executionOutput);
    expect(text).toContain('```');
    await h.user().act({ kind: 'ephemeral', ephemeral: reply }, ACTIONS.executionOutput);
    const modal = await waitFor(() => modalContaining(h, 'Step'), 'output modal');
    expect(checkView(modal.view)).toEqual([]);
    await h.user().command('status 00000000-0000-0000-0000-000000000000', 'C01OPS');
    await waitFor(() => ephemeralContaining(h.fake, 'No execution has the id'), 'not found');
  });
});
