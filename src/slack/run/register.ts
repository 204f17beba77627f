// The run feature's listeners. The form's picker is matched by Bolt on the form's callback_id.
import { ACTIONS, SHORTCUTS, VIEWS } from '../kit/ids.ts';
import { action, button, options, type Registration, shortcut, view } from '../kit/listen.ts';
import { confirmCancelClicked, confirmEditClicked, confirmRunClicked } from './confirm-actions.ts';
import { fieldSuggested, runbookSuggested } from './options.ts';
import { homeRunClicked, runClicked, runPickerChosen, tryAgainClicked } from './run-actions.ts';
import { messageShortcutUsed, runShortcutUsed } from './shortcuts.ts';
import { runFormSubmitted } from './views.ts';

export const runListeners: readonly Registration[] = [
  button(ACTIONS.runbookRun, 'Opening the run form', 'navigating', runClicked),
  button(ACTIONS.retryRun, 'Reopening the run form', 'navigating', tryAgainClicked),
  action({ action_id: ACTIONS.homeRun }, 'navigating', homeRunClicked),
  action({ action_id: ACTIONS.runbookPicker, callback_id: VIEWS.run }, 'navigating', runPickerChosen),
  view(VIEWS.run, runFormSubmitted),
  options({ action_id: ACTIONS.runbookPicker }, runbookSuggested),
  options({ action_id: 'value' }, fieldSuggested),
  shortcut(SHORTCUTS.runRunbook, runShortcutUsed),
  shortcut(SHORTCUTS.runFromMessage, messageShortcutUsed),
  button(ACTIONS.confirmRun, 'Running it', 'acting', confirmRunClicked),
  button(ACTIONS.confirmEdit, 'Opening the run form', 'acting', confirmEditClicked),
  button(ACTIONS.confirmCancel, 'Cancelling', 'acting', confirmCancelClicked),
];
