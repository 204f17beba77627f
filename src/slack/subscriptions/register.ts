// The subscriptions feature's listeners.
import { ACTIONS } from '../kit/ids.ts';
import { button, type Registration } from '../kit/listen.ts';
import { subscriptionPickClicked, unsubscribeClicked } from './subscription-actions.ts';

export const subscriptionsListeners: readonly Registration[] = [
  button(ACTIONS.subscriptionRemove, 'Unsubscribing', 'acting', unsubscribeClicked),
  button(new RegExp(`^${ACTIONS.subscriptionPick}_\\d+$`), 'Subscribing', 'acting', subscriptionPickClicked),
];
