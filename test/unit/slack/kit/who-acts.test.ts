// The person a request comes from, as its payload says (the who-acts middleware's input).
import { describe, expect, it } from 'vitest';
import { incomingOf } from '../../../../src/slack/kit/who-acts.ts';

describe('incomingOf', () => {
  it('reads commands, events and interactions; never the command text', () => {
    expect(
      incomingOf({
        command: '/runbook',
        user_id: 'U1',
        team_id: 'T1',
        channel_id: 'C1',
        text: 'run x password=hunter2',
      }),
    ).toEqual({ userId: 'U1', teamHint: 'T1', what: '/runbook', channelId: 'C1', threadTs: null });
    expect(
      incomingOf({
        type: 'event_callback',
        event: {
          type: 'app_mention',
          user: 'U2',
          user_team: 'T9',
          team: 'T1',
          channel: 'C1',
          ts: '1.2',
          thread_ts: '1.0',
        },
      }),
    ).toEqual({ userId: 'U2', teamHint: 'T9', botHint: false, what: 'app_mention', channelId: 'C1', threadTs: '1.0' });
    expect(
      incomingOf({
        type: 'event_callback',
        event: { type: 'app_mention', user: 'U3', bot_id: 'B1', channel: 'C1', ts: '1.3' },
      }),
    ).toMatchObject({ userId: 'U3', botHint: true, threadTs: '1.3' });
    expect(
      incomingOf({
        type: 'block_actions',
        user: { id: 'U4', team_id: 'T4' },
        channel: { id: 'C4' },
        actions: [{ action_id: 'approval_approve' }],
      }),
    ).toEqual({ userId: 'U4', teamHint: 'T4', what: 'approval_approve', channelId: 'C4', threadTs: null });
  });

  it('nobody: a workflow step (its actor is decided by the step), an event without a user, junk', () => {
    expect(incomingOf({ type: 'event_callback', event: { type: 'function_executed', inputs: {} } })).toBeNull();
    expect(incomingOf({ type: 'event_callback', event: { type: 'app_home_opened', user: { id: 'U1' } } })).toBeNull();
    expect(incomingOf({ type: 'block_actions', user: 'U1' })).toBeNull();
    expect(incomingOf({ command: '/runbook' })).toBeNull();
  });
});
