// The connect feature's listeners (many-workspace mode): Connect / Replace key, its form, Disconnect, and
// the workspace's approval settings.
import { ACTIONS, VIEWS } from '../kit/ids.ts';
import { action, button, type Registration, view } from '../kit/listen.ts';
import { connectOpenClicked, connectRemoveClicked, connectSubmitted } from './connect-actions.ts';
import { settingsOpenClicked, settingsSubmitted } from './settings-actions.ts';

export const connectListeners: readonly Registration[] = [
  action({ action_id: ACTIONS.connectOpen }, 'navigating', connectOpenClicked),
  view(VIEWS.connect, connectSubmitted),
  button(ACTIONS.connectRemove, 'Disconnecting the Runbook API', 'acting', connectRemoveClicked),
  action({ action_id: ACTIONS.settingsOpen }, 'navigating', settingsOpenClicked),
  view(VIEWS.settings, settingsSubmitted),
];
