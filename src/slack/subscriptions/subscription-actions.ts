// The buttons of the subscriptions list (Unsubscribe) and of the `subscribe <name>` pick list. The
// channel always comes from where the button was clicked, never from the button's value, so a
// crafted payload cannot change another channel's subscriptions.
import type { App } from '@slack/bolt';
import type { SlackDeps } from '../kit/deps.ts';
import { ACTIONS } from '../kit/ids.ts';
import { type ActionHandler, buttonValue, onAction } from '../kit/on-action.ts';
import { decodeSubscriptionPick } from './subscription-list.ts';
import { removeSubscription, subscribe } from './subscriptions.ts';

export function registerSubscriptionActions(app: App, deps: SlackDeps): void {
  const on = (actionId: string | RegExp, what: string, handler: ActionHandler) =>
    onAction(app, deps, actionId, what, handler);

  on(ACTIONS.subscriptionRemove, 'Unsubscribing', async (ctx, body) => {
    const runbookId = buttonValue(body);
    if (runbookId) await removeSubscription(ctx, runbookId, true);
  });

  on(new RegExp(`^${ACTIONS.subscriptionPick}_\\d+$`), 'Subscribing', async (ctx, body) => {
    const pick = decodeSubscriptionPick(buttonValue(body));
    if (pick) await subscribe(ctx, { runbookId: pick.id, failuresOnly: pick.f }, true);
  });
}
