// The schedules feature's listeners. The form's picker is matched by Bolt on the form's callback_id.
import { ACTIONS, VIEWS } from '../kit/ids.ts';
import { action, button, type Registration, suffixed, view } from '../kit/listen.ts';
import {
  BUILDER_ACTIONS,
  builderInputChanged,
  homeNewScheduleClicked,
  runNowCancelled,
  runNowClicked,
  runNowConfirmed,
  scheduleClicked,
  scheduleDeleteClicked,
  scheduleEditClicked,
  scheduleFormSubmitted,
  schedulePauseClicked,
  schedulePickerChosen,
  scheduleResumeClicked,
  scheduleSkipClicked,
  schedulesPageClicked,
  scheduleTryAgainClicked,
} from './schedule-actions.ts';

export const schedulesListeners: readonly Registration[] = [
  button(ACTIONS.runbookSchedule, 'Opening the schedule form', 'navigating', scheduleClicked),
  action({ action_id: ACTIONS.homeNewSchedule }, 'navigating', homeNewScheduleClicked),
  button(ACTIONS.scheduleEdit, 'Opening the schedule', 'navigating', scheduleEditClicked),
  // The confirm dialog is shown by Slack before this arrives.
  button(ACTIONS.scheduleDelete, 'Deleting the schedule', 'acting', scheduleDeleteClicked),
  // Claimed once per click; the list is redrawn with a notice.
  button(ACTIONS.schedulePause, 'Pausing the schedule', 'acting', schedulePauseClicked),
  button(ACTIONS.scheduleSkip, 'Skipping the next run', 'acting', scheduleSkipClicked),
  button(ACTIONS.scheduleResume, 'Resuming the schedule', 'acting', scheduleResumeClicked),
  // Run now asks first; only the confirmation's Run now runs it.
  button(ACTIONS.scheduleRunNow, 'Preparing Run now', 'navigating', runNowClicked),
  button(ACTIONS.scheduleRunNowConfirmed, 'Running the schedule now', 'acting', runNowConfirmed),
  button(ACTIONS.scheduleRunNowCancel, 'Cancelling Run now', 'acting', runNowCancelled),
  button(suffixed(ACTIONS.schedulesPage), 'Paging the schedules', 'navigating', schedulesPageClicked),
  button(ACTIONS.scheduleRetry, 'Reopening the schedule form', 'navigating', scheduleTryAgainClicked),
  action({ action_id: ACTIONS.runbookPicker, callback_id: VIEWS.schedule }, 'navigating', schedulePickerChosen),
  ...BUILDER_ACTIONS.map((actionId) => action({ action_id: actionId }, 'navigating', builderInputChanged)),
  view(VIEWS.schedule, scheduleFormSubmitted),
];
