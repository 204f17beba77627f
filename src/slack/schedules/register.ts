// The schedules feature's listeners. The form's picker is matched by Bolt on the form's callback_id.
import { ACTIONS, VIEWS } from '../kit/ids.ts';
import { action, button, type Registration, view } from '../kit/listen.ts';
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
  button(ACTIONS.runbookSchedule, 'Opening the schedule form', scheduleClicked),
  action({ action_id: ACTIONS.homeNewSchedule }, homeNewScheduleClicked),
  button(ACTIONS.scheduleEdit, 'Opening the schedule', scheduleEditClicked),
  // The confirm dialog is shown by Slack before this arrives.
  button(ACTIONS.scheduleDelete, 'Deleting the schedule', scheduleDeleteClicked),
  // Claimed once per click; the list is redrawn with a notice.
  button(ACTIONS.schedulePause, 'Pausing the schedule', schedulePauseClicked),
  button(ACTIONS.scheduleSkip, 'Skipping the next run', scheduleSkipClicked),
  button(ACTIONS.scheduleResume, 'Resuming the schedule', scheduleResumeClicked),
  // Run now asks first; only the confirmation's Run now runs it.
  button(ACTIONS.scheduleRunNow, 'Preparing Run now', runNowClicked),
  button(ACTIONS.scheduleRunNowConfirmed, 'Running the schedule now', runNowConfirmed),
  button(ACTIONS.scheduleRunNowCancel, 'Cancelling Run now', runNowCancelled),
  button(new RegExp(`^${ACTIONS.schedulesPage}_`), 'Paging the schedules', schedulesPageClicked),
  button(ACTIONS.scheduleRetry, 'Reopening the schedule form', scheduleTryAgainClicked),
  action({ action_id: ACTIONS.runbookPicker, callback_id: VIEWS.schedule }, schedulePickerChosen),
  ...BUILDER_ACTIONS.map((actionId) => action({ action_id: actionId }, builderInputChanged)),
  view(VIEWS.schedule, scheduleFormSubmitted),
];
