// Bolt's arguments for a button click or an event, for the listener unit tests.
import type { ButtonAction } from '@slack/bolt';
import type { ActionArgs } from '../../../src/slack/kit/listen.ts';
import type { ListenerEnv } from './listener-env.ts';

/** A click on a button with `value` by `userId` in `channel` (Bolt's args, with the env's fake ack and client). */
export function clickOf(
  env: ListenerEnv,
  userId: string,
  value: string,
  extra: { channel?: string; view?: unknown; actions?: unknown[] } = {},
): ActionArgs {
  const action = { type: 'button', action_id: 'test', value } as ButtonAction;
  return {
    ack: env.ack,
    client: env.client,
    body: {
      user: { id: userId },
      actions: extra.actions ?? [action],
      trigger_id: 'trigger-1',
      channel: { id: extra.channel ?? 'C01OPS' },
      view: extra.view,
    },
  } as unknown as ActionArgs;
}
