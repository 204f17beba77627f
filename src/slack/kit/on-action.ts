// What a button carries: its value ('' for elements without one). The shape of a button listener
// (ack first, failure as one sentence) is `button(…)` in ./listen.ts.
import type { BlockAction, ButtonAction } from '@slack/bolt';

/** The value of the clicked button ('' for elements without one). */
export function buttonValue(body: BlockAction): string {
  return (body.actions[0] as ButtonAction | undefined)?.value ?? '';
}
