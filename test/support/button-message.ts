// A message in `channel` carrying one button, as a list, card or confirmation the bot posted would show it:
// for clicking a button with a recorded or crafted value.
import type { FakeMessage } from '../../src/sandbox/fake-slack-state.ts';
import type { Surface } from '../../src/sandbox/slack-user.ts';

export function buttonIn(channel: string, actionId: string, value: string): Surface {
  const message = {
    type: 'message',
    channel,
    ts: `${Date.now() / 1000}`,
    text: '',
    blocks: [
      {
        type: 'actions',
        block_id: 'b',
        elements: [{ type: 'button', action_id: actionId, value, text: { type: 'plain_text', text: 'Go' } }],
      },
    ],
  } as unknown as FakeMessage;
  return { kind: 'message', message };
}
