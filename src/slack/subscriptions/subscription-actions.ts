// The buttons of the subscriptions list (Unsubscribe) and of the `subscribe <name>` pick list. The
// channel always comes from where the button was clicked, never from the button's value, so a
// crafted payload cannot change another channel's subscriptions.
import type { HandlerContext } from '../kit/handler-context.ts';
import type { ActionArgs } from '../kit/listen.ts';
import { buttonValue } from '../kit/on-action.ts';
import { decodeSubscriptionPick } from './subscription-list.ts';
import { removeSubscription, subscribe } from './subscriptions.ts';

export async function unsubscribeClicked({ body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  const runbookId = buttonValue(body);
  if (runbookId) await removeSubscription(ctx, runbookId, true);
}

export async function subscriptionPickClicked({ body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  const pick = decodeSubscriptionPick(buttonValue(body));
  if (pick) await subscribe(ctx, { runbookId: pick.id, failuresOnly: pick.f }, true);
}
