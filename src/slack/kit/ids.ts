// Every action_id, callback_id and fixed block_id the app uses, in one place, so listeners and
// builders cannot disagree. Form fields generated from a runbook's schema use block ids that
// start with `field_` (see src/forms); fixed blocks of our modals start with `meta_`.

export const COMMAND = '/runbook';

export const ACTIONS = {
  // runbook browser
  listPage: 'list_page', // value: JSON {q, kind, category, page}
  listCategory: 'list_category', // static select of categories
  runbookRun: 'runbook_run', // value: runbook id
  runbookSchedule: 'runbook_schedule', // value: runbook id
  runbookDetails: 'runbook_details', // value: runbook id
  pickRunbook: 'pick_runbook', // value: JSON {id, next: 'show' | 'run' | 'schedule' | 'schedules' | 'executions'}
  // schedules
  scheduleEdit: 'schedule_edit', // value: schedule id
  scheduleDelete: 'schedule_delete', // value: schedule id (button with a confirm dialog)
  scheduleRunNow: 'schedule_run_now', // value: schedule id (asks first: shows the confirmation)
  scheduleRunNowConfirmed: 'schedule_run_now_confirmed', // value: schedule id (the confirmation's Run now)
  scheduleRunNowCancel: 'schedule_run_now_cancel', // value: schedule id
  schedulesPage: 'schedules_page', // value: JSON {runbookId, token}
  schedulePause: 'schedule_pause', // value: JSON schedule ref {id, r}
  scheduleResume: 'schedule_resume', // value: JSON schedule ref {id, r}
  scheduleSkip: 'schedule_skip', // value: JSON schedule ref {id, r} (skips the next run, then resumes by itself)
  // executions
  executionsPage: 'executions_page', // value: JSON {runbook, status, last, token}
  executionStatus: 'execution_status', // value: execution id
  executionOutput: 'execution_output', // value: execution id
  executionRerun: 'execution_rerun', // value: execution id
  executionFind: 'execution_find', // value: execution id (opens "Find in output")
  outputPage: 'output_page', // value: JSON {e: execution id, p: page} (pages the full-output modal)
  // modal internals
  runbookPicker: 'runbook_picker', // external select in run/schedule modals (dispatches to reload the form)
  proxySelect: 'proxy_select',
  channelSelect: 'channel_select',
  presetSelect: 'preset_select',
  cronInput: 'cron_input',
  presetMinutes: 'preset_minutes',
  presetTime: 'preset_time',
  presetWeekday: 'preset_weekday',
  presetMonthDay: 'preset_month_day',
  // home / shortcuts
  homeRun: 'home_run',
  homeNewSchedule: 'home_new_schedule',
  homeRefresh: 'home_refresh',
  retryRun: 'retry_run', // value: JSON of a saved run draft id
  executionRefresh: 'execution_refresh', // value: execution id (reloads the status message in place)
  // schedules (appended by the schedules UI)
  presetHourMinute: 'preset_hour_minute', // minute past the hour of the "Every hour" preset
  scheduleRetry: 'schedule_retry', // value: id of a saved schedule draft ("Try again" after a failed save)
  // approvals
  approvalApprove: 'approval_approve', // value: approval id
  approvalReject: 'approval_reject', // value: approval id (opens the reason modal)
  rejectReason: 'reject_reason',
  // subscriptions
  subscriptionRemove: 'subscription_remove', // value: runbook id or '*' (the channel is where the button is)
  subscriptionPick: 'subscription_pick', // prefix, + `_${i}`; value: JSON {id, f: failures only}
  // mentions (a mention has no trigger_id: forms open from a button)
  mentionOpenForm: 'mention_open_form', // value: JSON {c: command text, t: thread ts}
  // --now confirmation (one-line runs and aliases)
  confirmRun: 'confirm_run', // value: JSON {d: draft id, t?: thread ts}
  confirmEdit: 'confirm_edit', // same value: opens the form filled in
  confirmCancel: 'confirm_cancel',
  // many workspaces: the installation's Runbook API (App Home)
  connectOpen: 'connect_open', // opens the Connect form (connect, or replace the key)
  connectRemove: 'connect_remove', // removes the connection (button with a confirm dialog)
  connectKey: 'connect_key',
  connectUrl: 'connect_url',
  connectAccount: 'connect_account', // Replace: the same account (a rotated key) or another
  settingsOpen: 'settings_open', // opens the workspace's approval settings (App Home)
  settingsChannel: 'settings_channel',
  settingsGroup: 'settings_group',
} as const;

export const VIEWS = {
  loading: 'loading_modal',
  run: 'run_modal',
  schedule: 'schedule_modal',
  output: 'output_modal',
  info: 'info_modal',
  reject: 'reject_modal',
  outputFind: 'output_find_modal',
  connect: 'connect_modal',
  settings: 'settings_modal',
} as const;

export const BLOCKS = {
  runbookPicker: 'meta_runbook',
  proxy: 'meta_proxy',
  channel: 'meta_channel',
  preset: 'meta_preset',
  presetMinutes: 'meta_preset_minutes',
  presetTime: 'meta_preset_time',
  presetWeekday: 'meta_preset_weekday',
  presetMonthDay: 'meta_preset_month_day',
  cron: 'meta_cron',
  cronPreview: 'meta_cron_preview',
  notice: 'meta_notice',
  // schedules (appended by the schedules UI)
  presetHourMinute: 'meta_preset_hour_minute',
  scheduleSummary: 'meta_schedule_summary',
  scheduleHeader: 'meta_schedule_header',
  rejectReason: 'meta_reject_reason',
  connectKey: 'meta_connect_key',
  connectUrl: 'meta_connect_url',
  connectAccount: 'meta_connect_account',
  settingsChannel: 'meta_settings_channel',
  settingsGroup: 'meta_settings_group',
} as const;

export const SHORTCUTS = {
  runRunbook: 'run_runbook',
  /** Message shortcut "Run a runbook…": the picker, with the message as context. */
  runFromMessage: 'run_runbook_from_message',
} as const;

/** Workflow Builder custom steps (manifest `functions`), with their input and output names. */
export const FUNCTIONS = {
  runRunbook: 'run_runbook_step',
} as const;

export const STEP_INPUTS = {
  runbook: 'runbook',
  inputs: 'inputs',
  proxy: 'proxy',
  channel: 'channel',
  wait: 'wait_for_completion',
  /** slack#/types/interactivity: the person who started the workflow, as Slack attests it (its `interactor`). */
  startedBy: 'started_by',
  /** The old "Run as" (a plain user id anyone can map): checked against the attested person, never trusted. */
  runAs: 'invoking_user',
} as const;

export const STEP_OUTPUTS = {
  executionId: 'execution_id',
  status: 'status',
  reason: 'failure_reason',
  outputTail: 'output_tail',
  cardLink: 'card_link',
} as const;
