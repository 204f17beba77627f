// The one shape of a button/select listener: ack at once, build the handler context, run the
// handler, and turn any failure into one sentence for the person.
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { SlackDeps } from './deps.ts';
import type { HandlerContext } from './handler-context.ts';
import { interactionContext } from './interaction-context.ts';
import { reportFailure } from './report-failure.ts';

type Respond = Parameters<typeof interactionContext>[3];

export type ActionHandler = (ctx: HandlerContext, body: BlockAction, client: WebClient) => Promise<void>;

/** The value of the clicked button ('' for elements without one). */
export function buttonValue(body: BlockAction): string {
  return (body.actions[0] as ButtonAction | undefined)?.value ?? '';
}

/** Registers `handler` for `actionId`; `what` names the action in failure messages ("Deleting the schedule"). */
export function onAction(
  app: App,
  deps: SlackDeps,
  actionId: string | RegExp,
  what: string,
  handler: ActionHandler,
): void {
  app.action<BlockAction>({ action_id: actionId }, async ({ ack, body, client, respond }) => {
    await ack();
    const ctx = interactionContext(deps, client, body, respond as Respond);
    try {
      await handler(ctx, body, client);
    } catch (err) {
      await reportFailure(ctx, err, what);
    }
  });
}
