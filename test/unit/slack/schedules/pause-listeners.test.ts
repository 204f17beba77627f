// The schedules list's Pause, Skip next run and Resume callbacks, called as Bolt would call them (fake ack,
// respond, client and request context) over the real use cases and the emulator: what reached the API,
// what was shown, a replayed click, a refusal.
import type { ButtonAction } from '@slack/bolt';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NEVER_FIRES } from '../../../../src/runs/schedule-pause-write.ts';
import { ACTIONS } from '../../../../src/slack/kit/ids.ts';
import type { ActionArgs } from '../../../../src/slack/kit/listen.ts';
import {
  scheduleDeleteClicked,
  schedulePauseClicked,
  scheduleResumeClicked,
  scheduleSkipClicked,
} from '../../../../src/slack/schedules/schedule-actions.ts';
import { DAVE_MAY_NOT_SCHEDULE } from '../../../support/authorization-cases.ts';
import { type ListenerEnv, startListenerEnv } from '../listener-env.ts';

let env: ListenerEnv;
beforeAll(async () => {
  env = await startListenerEnv(DAVE_MAY_NOT_SCHEDULE);
});
afterAll(() => env.close());
beforeEach(() => env.reset());

function newSchedule(cron: string): string {
  const runbook = [...env.emulator.state.workflows.byId.values()][0]!.workflow;
  return env.emulator.state.createSchedule({ runbookId: runbook.id, runbookName: runbook.name, schedule: cron })
    .schedule.id;
}

const cronOf = (id: string) => env.emulator.state.schedules.byId.get(id)!.schedule.schedule;

function click(userId: string, actionId: string, scheduleId: string, actionTs: string): ActionArgs {
  const action = { type: 'button', action_id: actionId, value: JSON.stringify({ id: scheduleId, r: null }) };
  return {
    ack: env.ack,
    client: env.client,
    body: {
      user: { id: userId },
      actions: [{ ...action, action_ts: actionTs } as ButtonAction],
      container: { message_ts: '1700000000.000100' },
      channel: { id: 'C01OPS' },
    },
  } as unknown as ActionArgs;
}

describe('pause listeners', () => {
  it('schedulePauseClicked pauses it and redraws the list in place; the same click again changes nothing and says so', async () => {
    const id = newSchedule('0 5 * * *');
    await schedulePauseClicked(click('U01ALICE', ACTIONS.schedulePause, id, '1.1'), env.context());
    expect(cronOf(id)).toBe(NEVER_FIRES);
    expect(env.replies).toHaveLength(1);
    expect(env.replies[0]!.replaceOriginal).toBe(true);
    expect(JSON.stringify(env.replies[0])).toContain('Paused the schedule');
    env.reset();
    await schedulePauseClicked(click('U01ALICE', ACTIONS.schedulePause, id, '1.1'), env.context());
    expect(env.replies).toHaveLength(1);
    expect(env.replies[0]!.replaceOriginal).toBeUndefined();
    expect(JSON.stringify(env.replies[0])).toMatch(/already done.*by you/);
    expect(cronOf(id)).toBe(NEVER_FIRES);
  });

  it('scheduleSkipClicked holds it with a timer and says which run is skipped', async () => {
    const id = newSchedule('30 4 * * *');
    await scheduleSkipClicked(click('U01ALICE', ACTIONS.scheduleSkip, id, '2.1'), env.context());
    expect(cronOf(id)).toBe(NEVER_FIRES);
    expect((await env.store.schedulePauses.get(id))?.resumeAt).toEqual(expect.any(Number));
    // "due <date>": the date token reads "today 4:30 AM", so never "at today …".
    expect(JSON.stringify(env.replies[0])).toMatch(/Skipping the run of .* due <!date\^/);
    expect(JSON.stringify(env.replies[0])).toMatch(/skipping the run due <!date\^/);
  });

  it('scheduleResumeClicked brings the real expression back', async () => {
    const id = newSchedule('0 6 * * 1');
    await schedulePauseClicked(click('U01ALICE', ACTIONS.schedulePause, id, '3.1'), env.context());
    env.reset();
    await scheduleResumeClicked(click('U01ALICE', ACTIONS.scheduleResume, id, '3.2'), env.context());
    expect(cronOf(id)).toBe('0 6 * * 1');
    expect(JSON.stringify(env.replies[0])).toContain('Resumed the schedule');
  });

  it('a person without schedule rights is told in one sentence; nothing changes', async () => {
    const id = newSchedule('0 7 * * *');
    await schedulePauseClicked(click('U04DAVE', ACTIONS.schedulePause, id, '4.1'), env.context('U04DAVE'));
    expect(cronOf(id)).toBe('0 7 * * *');
    expect(env.replies).toHaveLength(1);
    expect(env.replies[0]!.text).toMatch(/\.$/);
  });

  it('deleting a paused schedule deletes its pause too', async () => {
    const id = newSchedule('0 8 * * *');
    await schedulePauseClicked(click('U01ALICE', ACTIONS.schedulePause, id, '5.1'), env.context());
    await scheduleDeleteClicked(click('U01ALICE', ACTIONS.scheduleDelete, id, '5.2'), env.context());
    expect(env.emulator.state.schedules.byId.has(id)).toBe(false);
    expect(await env.store.schedulePauses.get(id)).toBeNull();
  });
});
