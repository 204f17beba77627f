// The subscriptions feature's listeners.
import { ACTIONS } from '../kit/ids.ts';
import { button, type Registration, suffixed } from '../kit/listen.ts';
import { subscriptionPickClicked, unsubscribeClicked } from './subscription-actions.ts';

export const subscriptionsListeners: readonly Registration[] = [
  button(ACTIONS.subscriptionRemove, 'Unsubscribing', 'acting', unsubscribeClicked),
  button(suffixed(ACTIONS.subscriptionPick, '\\d+'), 'Subscribing', 'acting', subscriptionPickClicked),
];
