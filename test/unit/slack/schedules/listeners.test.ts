// The schedules feature's listeners that open, page, confirm and submit (Pause / Skip / Resume / Delete:
// ./pause-listeners.test.ts), called as Bolt would call them (fake ack, respond, client and request
// context) over the real use cases and the emulator: what reached the use case (the schedule or run the
// API received, the form's target), what was shown, one refusal each.
import type { KnownBlock } from '@slack/types';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseInputSchema } from '../../../../src/forms/input-schema.ts';
import { ALREADY_DONE } from '../../../../src/runs/once.ts';
import { ACTIONS, BLOCKS, VIEWS } from '../../../../src/slack/kit/ids.ts';
import type { ActionArgs, ViewArgs } from '../../../../src/slack/kit/listen.ts';
import { schedulesListeners } from '../../../../src/slack/schedules/register.ts';
import {
  BUILDER_ACTIONS,
  builderInputChanged,
  homeNewScheduleClicked,
  runNowCancelled,
  runNowClicked,
  runNowConfirmed,
  scheduleClicked,
  scheduleEditClicked,
  scheduleFormSubmitted,
  schedulePickerChosen,
  schedulesPageClicked,
  scheduleTryAgainClicked,
} from '../../../../src/slack/schedules/schedule-actions.ts';
import { encodeScheduleRef, encodeSchedulesPage } from '../../../../src/slack/schedules/schedule-list.ts';
import {
  DEFAULT_BUILDER,
  decodeScheduleMetadata,
  encodeScheduleMetadata,
} from '../../../../src/slack/schedules/schedule-modal.ts';
import { saveScheduleDraft } from '../../../../src/slack/schedules/schedules.ts';
import { PLAIN, TABLE_POLICY } from '../../../support/authorization-cases.ts';
import { submit } from '../../forms/slack-state.ts';
import { clickOf } from '../listener-args.ts';
import {
  blockOf,
  type ListenerEnv,
  lastView,
  type ShownView,
  shown,
  startListenerEnv,
  viewsShown,
} from '../listener-env.ts';

/** The authorization table's policy (bob may not run, carol does not see PLAIN), and dave may not schedule. */
const POLICY = `${TABLE_POLICY}
  - name: dave does not schedule
    effect: deny
    actions: [schedule]
    users: [U04DAVE]
`;

const PLAIN_PARAMS = { namespace: 'web', deployment: 'api' };

let env: ListenerEnv;
let plainId = '';
beforeAll(async () => {
  env = await startListenerEnv(POLICY);
  plainId = (await env.runbook(PLAIN)).id;
});
afterAll(() => env.close());
beforeEach(() => env.reset());

/** A schedule of PLAIN in the emulator, as the API would list it. */
function plainSchedule(cron = '0 5 * * *'): string {
  return env.emulator.state.createSchedule({
    runbookId: plainId,
    runbookName: PLAIN,
    schedule: cron,
    proxyId: 'proxy-dev',
    params: JSON.stringify(PLAIN_PARAMS),
  }).schedule.id;
}

const schedulesOf = (runbookId: string) =>
  [...env.emulator.state.schedules.byId.values()].map((r) => r.schedule).filter((s) => s.runbookId === runbookId);

/** A click on the confirmation message `ts`. */
function confirmationClick(userId: string, scheduleId: string, ts: string): ActionArgs {
  const args = clickOf(env, userId, scheduleId);
  (args.body as unknown as { container: unknown }).container = { message_ts: ts };
  return args;
}

describe('schedules listeners', () => {
  it('registers every button, the picker, the builder inputs and the submission', () => {
    const names = schedulesListeners.map((r) => r.listener.name);
    for (const listener of [scheduleClicked, homeNewScheduleClicked, scheduleEditClicked, runNowClicked]) {
      expect(names).toContain(listener.name);
    }
    expect(schedulesListeners.filter((r) => r.listener === builderInputChanged)).toHaveLength(BUILDER_ACTIONS.length);
    expect(schedulesListeners.at(-1)).toMatchObject({ kind: 'view', callbackId: VIEWS.schedule });
  });

  it('scheduleClicked opens a loading form, then the new schedule form of that runbook for this channel', async () => {
    await scheduleClicked(clickOf(env, 'U01ALICE', plainId), env.context());
    const [loading, form] = viewsShown(env);
    expect(loading!.title?.text).toBe('New schedule');
    expect(form!.callback_id).toBe(VIEWS.schedule);
    expect(decodeScheduleMetadata(form!.private_metadata)).toEqual({ r: plainId, s: null, c: 'C01OPS' });
    expect((blockOf(form!, BLOCKS.proxy).element.initial_option as { value: string }).value).toBe('proxy-dev');
    expect(JSON.stringify(form!.blocks)).toContain(PLAIN);
  });

  it('scheduleClicked by someone who may not schedule shows the refusal, not the form; audited', async () => {
    await scheduleClicked(clickOf(env, 'U04DAVE', plainId), env.context('U04DAVE'));
    const view = lastView(env);
    expect(view.callback_id).not.toBe(VIEWS.schedule);
    expect(view.blocks.some((b) => b.block_id === BLOCKS.proxy)).toBe(false);
    expect((await env.audit(1))[0]).toMatchObject({ userId: 'U04DAVE', outcome: 'denied' });
  });

  it('homeNewScheduleClicked acks and opens the form with the runbook picker', async () => {
    await homeNewScheduleClicked(clickOf(env, 'U01ALICE', ''), env.context('U01ALICE', null));
    expect(env.acks).toEqual([undefined]);
    const form = lastView(env);
    expect(decodeScheduleMetadata(form.private_metadata)).toEqual({ r: null, s: null, c: null });
    expect(form.blocks.some((b) => b.block_id === BLOCKS.runbookPicker)).toBe(true);
  });

  it('homeNewScheduleClicked without a trigger says the form did not open', async () => {
    await homeNewScheduleClicked(clickOf(env, 'U01ALICE', ''), { ...env.context('U01ALICE', null), triggerId: null });
    expect(env.replies[0]!.text).toMatch(/^Opening the schedule form failed\./);
  });

  it('scheduleEditClicked opens that schedule in the form: its cron, proxy and values', async () => {
    const id = plainSchedule('30 6 * * 1');
    await scheduleEditClicked(clickOf(env, 'U01ALICE', encodeScheduleRef({ id, r: null })), env.context());
    const form = lastView(env);
    expect(form.title?.text).toBe('Edit schedule');
    expect(decodeScheduleMetadata(form.private_metadata)).toEqual({ r: plainId, s: id, c: 'C01OPS' });
    expect(blockOf(form, 'field_deployment').element.initial_value).toBe('api');
    expect(blockOf(form, BLOCKS.presetTime).element.initial_time).toBe('06:30');
  });

  it('scheduleEditClicked by someone who may not change it shows the refusal without its values', async () => {
    const id = plainSchedule();
    await scheduleEditClicked(clickOf(env, 'U04DAVE', encodeScheduleRef({ id, r: null })), env.context('U04DAVE'));
    const view = lastView(env);
    expect(view.callback_id).not.toBe(VIEWS.schedule);
    expect(JSON.stringify(view)).not.toContain('"api"');
  });

  it('runNowClicked asks first: the confirmation names the runbook and its inputs; nothing runs', async () => {
    const id = plainSchedule();
    await runNowClicked(clickOf(env, 'U01ALICE', encodeScheduleRef({ id, r: null })), env.context());
    expect(env.runs()).toEqual([]);
    expect(env.replies).toHaveLength(1);
    expect(env.replies[0]!.text).toBe(`Run ${PLAIN} now?`);
    const text = JSON.stringify(env.replies[0]!.blocks);
    expect(text).toContain(ACTIONS.scheduleRunNowConfirmed);
    expect(text).toContain('api');
  });

  it('runNowClicked by someone who may not run it: one sentence, no confirmation; audited', async () => {
    const id = plainSchedule();
    await runNowClicked(clickOf(env, 'U02BOB', encodeScheduleRef({ id, r: null })), env.context('U02BOB'));
    expect(env.replies).toHaveLength(1);
    expect(JSON.stringify(env.replies)).not.toContain(ACTIONS.scheduleRunNowConfirmed);
    expect((await env.audit(1))[0]).toMatchObject({ userId: 'U02BOB', outcome: 'denied' });
  });

  it('runNowConfirmed runs the schedule with its proxy and values once, in place of the confirmation', async () => {
    const id = plainSchedule();
    await runNowConfirmed(confirmationClick('U01ALICE', id, '1700000000.000500'), env.context());
    expect(env.runs()).toEqual([
      expect.objectContaining({ runbook: PLAIN, proxyId: 'proxy-dev', params: expect.objectContaining(PLAIN_PARAMS) }),
    ]);
    expect(env.replies.map((r) => r.replaceOriginal)).toEqual([true]);
    expect(env.replies[0]!.text).toContain(PLAIN);
    env.reset();
    await runNowConfirmed(confirmationClick('U01ALICE', id, '1700000000.000500'), env.context());
    expect(env.runs()).toEqual([]);
    expect(JSON.stringify(env.replies)).toContain(ALREADY_DONE);
  });

  it('runNowConfirmed by someone who may not run it: nothing runs, one sentence; audited', async () => {
    const id = plainSchedule();
    await runNowConfirmed(confirmationClick('U02BOB', id, '1700000000.000600'), env.context('U02BOB'));
    expect(env.runs()).toEqual([]);
    expect(env.replies).toHaveLength(1);
    expect((await env.audit(1))[0]).toMatchObject({ userId: 'U02BOB', outcome: 'denied' });
  });

  it('runNowCancelled replaces the confirmation with "not run"; nothing runs', async () => {
    const id = plainSchedule();
    await runNowCancelled(clickOf(env, 'U01ALICE', id), env.context());
    expect(env.runs()).toEqual([]);
    expect(env.replies).toHaveLength(1);
    expect(env.replies[0]!.replaceOriginal).toBe(true);
    expect(JSON.stringify(env.replies[0]!.blocks)).toContain('Nothing was started.');
  });

  it('schedulesPageClicked redraws the runbook list in place', async () => {
    plainSchedule('15 3 * * *');
    await schedulesPageClicked(
      clickOf(env, 'U01ALICE', encodeSchedulesPage({ runbookId: plainId, page: 0 })),
      env.context(),
    );
    expect(env.replies.map((r) => r.replaceOriginal)).toEqual([true]);
    expect(JSON.stringify(env.replies[0])).toContain(PLAIN);
    expect(JSON.stringify(env.replies[0])).toContain('15 3 * * *');
  });

  it('schedulesPageClicked never names a runbook the person may not view, nor lists its schedules', async () => {
    plainSchedule('45 3 * * *');
    await schedulesPageClicked(
      clickOf(env, 'U03CAROL', encodeSchedulesPage({ runbookId: plainId, page: 0 })),
      env.context('U03CAROL'),
    );
    expect(env.replies).toHaveLength(1);
    expect(shown(env)).not.toContain(PLAIN);
    expect(shown(env)).not.toContain('45 3 * * *');
  });

  it('scheduleTryAgainClicked reopens the unsaved form filled in from its draft', async () => {
    const runbook = await env.runbook(PLAIN);
    const draftId = await saveScheduleDraft(
      env.slackDeps,
      {
        runbookId: plainId,
        scheduleId: null,
        proxyId: 'proxy-dev',
        channel: 'C01OPS',
        params: { namespace: 'batch', deployment: 'worker' },
        builder: { ...DEFAULT_BUILDER, time: '07:15' },
      },
      parseInputSchema(runbook.inputSchema),
    );
    await scheduleTryAgainClicked(clickOf(env, 'U01ALICE', draftId), env.context());
    const form = lastView(env);
    expect(decodeScheduleMetadata(form.private_metadata)).toEqual({ r: plainId, s: null, c: 'C01OPS' });
    expect(blockOf(form, 'field_deployment').element.initial_value).toBe('worker');
    expect(blockOf(form, BLOCKS.presetTime).element.initial_time).toBe('07:15');
  });

  it('scheduleTryAgainClicked on an expired draft says so and opens nothing', async () => {
    await scheduleTryAgainClicked(clickOf(env, 'U01ALICE', 'gone'), env.context());
    expect(env.replies.map((r) => r.text)).toEqual(['That form has expired.']);
    expect(viewsShown(env)).toEqual([]);
  });

  function picked(userId: string, runbookId: string): ActionArgs {
    return clickOf(env, userId, '', {
      actions: [{ type: 'external_select', selected_option: { value: runbookId } }],
      view: {
        id: 'V0SCHED',
        hash: 'h3',
        private_metadata: encodeScheduleMetadata({ r: null, s: null, c: 'C01OPS' }),
        state: { values: {} },
        blocks: [],
      },
    });
  }

  it('schedulePickerChosen swaps the form in place for the chosen runbook', async () => {
    await schedulePickerChosen(picked('U01ALICE', plainId), env.context());
    expect(env.acks).toEqual([undefined]);
    const update = env.called('views.update')[0]!;
    expect(update.args).toMatchObject({ view_id: 'V0SCHED', hash: 'h3' });
    const form = update.args.view as ShownView;
    expect(decodeScheduleMetadata(form.private_metadata)).toEqual({ r: plainId, s: null, c: 'C01OPS' });
    expect(form.blocks.some((b) => b.block_id === 'field_deployment')).toBe(true);
  });

  it('schedulePickerChosen by someone who may not schedule shows the refusal', async () => {
    await schedulePickerChosen(picked('U04DAVE', plainId), env.context('U04DAVE'));
    const view = env.called('views.update')[0]!.args.view as ShownView;
    expect(view.callback_id).not.toBe(VIEWS.schedule);
    expect(view.blocks.some((b) => b.block_id === 'field_deployment')).toBe(false);
  });

  /** The new schedule form of PLAIN as Alice gets it. */
  async function plainForm(): Promise<ShownView> {
    await scheduleClicked(clickOf(env, 'U01ALICE', plainId), env.context());
    const form = lastView(env);
    env.reset();
    return form;
  }

  it('builderInputChanged rebuilds the preview from the new time', async () => {
    const form = await plainForm();
    const values = submit(form.blocks as unknown as KnownBlock[], {
      [BLOCKS.presetTime]: { selected_time: '04:45' },
    });
    const action = {
      type: 'timepicker',
      block_id: BLOCKS.presetTime,
      action_id: ACTIONS.presetTime,
      selected_time: '04:45',
    };
    const args = clickOf(env, 'U01ALICE', '', {
      actions: [action],
      view: { ...form, id: 'V0SCHED', hash: 'h4', state: { values } },
    });
    await builderInputChanged(args, env.context());
    expect(env.acks).toEqual([undefined]);
    const update = env.called('views.update')[0]!;
    expect(update.args).toMatchObject({ view_id: 'V0SCHED', hash: 'h4' });
    const preview = JSON.stringify(blockOf(update.args.view as ShownView, BLOCKS.cronPreview));
    expect(preview).toContain('45 4 * * *');
  });

  it('builderInputChanged leaves any other form alone', async () => {
    const args = clickOf(env, 'U01ALICE', '', {
      actions: [{ type: 'plain_text_input', action_id: ACTIONS.cronInput, value: '* * * * *' }],
      view: { id: 'V0OTHER', hash: 'h5', callback_id: VIEWS.run, blocks: [], state: { values: {} } },
    });
    await builderInputChanged(args, env.context());
    expect(env.acks).toEqual([undefined]);
    expect(env.called('views.update')).toEqual([]);
  });

  function submission(form: ShownView, userId: string, edits: Record<string, Record<string, unknown>>): ViewArgs {
    const view = {
      id: 'V0SCHED',
      hash: 'h6',
      callback_id: VIEWS.schedule,
      private_metadata: form.private_metadata,
      state: { values: submit(form.blocks as unknown as KnownBlock[], edits) },
    };
    return { ack: env.ack, client: env.client, body: { user: { id: userId }, view }, view } as unknown as ViewArgs;
  }

  const TYPED = {
    field_namespace: { value: 'web' },
    field_deployment: { value: 'api' },
    [BLOCKS.presetTime]: { selected_time: '05:20' },
  };

  it('scheduleFormSubmitted closes the form, saves the schedule as typed and says when it runs next', async () => {
    const form = await plainForm();
    const before = schedulesOf(plainId).length;
    await scheduleFormSubmitted(submission(form, 'U01ALICE', TYPED), env.context());
    expect(env.acks).toEqual([undefined]);
    const saved = schedulesOf(plainId);
    expect(saved).toHaveLength(before + 1);
    const schedule = saved.at(-1)!;
    expect(schedule.schedule).toBe('20 5 * * *');
    expect(schedule.proxyId).toBe('proxy-dev');
    expect(JSON.parse(schedule.params)).toMatchObject(PLAIN_PARAMS);
    const told = env.called('chat.postEphemeral').map((c) => JSON.stringify(c.args));
    expect(told.join()).toMatch(/Scheduled.*Next run/);
  });

  it('scheduleFormSubmitted keeps the form open with a field error when a required value is missing', async () => {
    const form = await plainForm();
    const before = schedulesOf(plainId).length;
    await scheduleFormSubmitted(submission(form, 'U01ALICE', { field_namespace: { value: 'web' } }), env.context());
    expect(env.acks).toEqual([{ response_action: 'errors', errors: { field_deployment: expect.any(String) } }]);
    expect(schedulesOf(plainId)).toHaveLength(before);
  });

  it('scheduleFormSubmitted by someone who may not schedule: nothing saved, told in one sentence; audited', async () => {
    const form = await plainForm();
    const before = schedulesOf(plainId).length;
    await scheduleFormSubmitted(submission(form, 'U04DAVE', TYPED), env.context('U04DAVE'));
    expect(schedulesOf(plainId)).toHaveLength(before);
    expect(shown(env)).not.toContain('Scheduled');
    expect((await env.audit(1))[0]).toMatchObject({ userId: 'U04DAVE', outcome: 'denied' });
  });
});
