// The buttons of the subscriptions list (Unsubscribe) and of the `subscribe <name>` pick list. The
// channel always comes from where the button was clicked, never from the button's value, so a
// crafted payload cannot change another channel's subscriptions.
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { decodeSubscriptionPick } from '../blocks/subscription-list.ts';
import type { HandlerContext } from '../commands/context.ts';
import { removeSubscription, subscribe } from '../commands/subscriptions.ts';
import type { SlackDeps } from '../deps.ts';
import { ACTIONS } from '../ids.ts';
import { interactionContext } from './interaction-context.ts';
import { reportFailure } from './report-failure.ts';

type Respond = Parameters<typeof interactionContext>[3];

function buttonValue(body: BlockAction): string {
  return (body.actions[0] as ButtonAction | undefined)?.value ?? '';
}

export function registerSubscriptionActions(app: App, deps: SlackDeps): void {
  const on = (
    actionId: string | RegExp,
    what: string,
    handler: (ctx: HandlerContext, body: BlockAction) => Promise<void>,
  ) => {
    app.action<BlockAction>({ action_id: actionId }, async ({ ack, body, client, respond }) => {
      await ack();
      const ctx = interactionContext(deps, client, body, respond as Respond);
      try {
        await handler(ctx, body);
      } catch (err) {
        await reportFailure(ctx, err, what);
      }
    });
  };

  on(ACTIONS.subscriptionRemove, 'Unsubscribing', async (ctx, body) => {
    const runbookId = buttonValue(body);
    if (runbookId) await removeSubscription(ctx, runbookId, true);
  });

  on(new RegExp(`^${ACTIONS.subscriptionPick}_\\d+$`), 'Subscribing', async (ctx, body) => {
    const pick = decodeSubscriptionPick(buttonValue(body));
    if (pick) await subscribe(ctx, { runbookId: pick.id, failuresOnly: pick.f }, true);
  });
}
