// The App Home tab: quick buttons, what waits for your approval (Approve / Reject), your recent runs,
// the runs due in the next 24 hours, the runbooks failing most, recent executions, schedules. A list that failed to load shows one sentence instead of blanking the
// whole tab.
import type { HomeView, KnownBlock } from '@slack/types';
import type { Execution, Schedule } from '../../api/schemas.ts';
import type { HeldRun, VisibleForecast } from '../../runs/forecast.ts';
import type { FreezeListing } from '../../runs/freezes.ts';
import type { FailingRunbooks } from '../../runs/health.ts';
import { describeCron } from '../../schedules/cron.ts';
import type { RunAlias } from '../../store/saved-runs.ts';
import type { Approval, SchedulePause } from '../../store/store.ts';
import { button, when } from '../kit/common.ts';
import { describeFailure } from '../kit/describe-failure.ts';
import { STATUS_EMOJI, STATUS_WORD } from '../kit/execution-card.ts';
import { coverageNote, freshness, outcomeStrip, percentText } from '../kit/health-summary.ts';
import { ACTIONS } from '../kit/ids.ts';
import {
  channelMention,
  escapeMrkdwn,
  inlineCode,
  mrkdwnText,
  plainText,
  truncate,
  userMention,
} from '../kit/mrkdwn.ts';
import { emailPerson, type PeopleByEmail, personText } from '../kit/people.ts';

export interface AppHomeInput {
  executions: Execution[] | unknown;
  schedules: Schedule[] | unknown;
  /** Saved runs (aliases) this person made, in the channels they belong to. */
  aliases?: RunAlias[];
  now: number;
  /** Open requests this person may approve (and has not yet); omitted: the section is not shown. */
  awaitingApproval?: readonly AwaitingApproval[] | unknown;
  /** Runs this person started, newest first; omitted: the section is not shown. */
  myRuns?: Execution[] | unknown;
  /** Executors Slack knows by email, shown as mentions. */
  people?: PeopleByEmail;
  /** Paused schedules by id: shown with their real expression, who paused them and when. */
  pauses?: ReadonlyMap<string, SchedulePause>;
  /** Many-workspace mode: the Runbook API connection's section (connection-section.ts), shown first. */
  connection?: KnownBlock[];
  /** Runs due in the next 24 hours (or why they could not be read); omitted: the section is not shown. */
  forecast?: VisibleForecast | unknown;
  /** The runbooks failing most (or why that could not be read); omitted: the section is not shown. */
  failing?: FailingRunbooks | unknown;
  /** The policy's change freezes: those on now are said at the top. */
  freezes?: readonly FreezeListing[];
}

/** Change freezes on now, one line each (at most three), or nothing. */
function freezeLines(freezes: readonly FreezeListing[] | undefined): KnownBlock[] {
  const on = (freezes ?? []).filter((f) => f.activeUntil !== null).slice(0, 3);
  if (on.length === 0) return [];
  const lines = on.map(
    (f) =>
      `:snowflake: Change freeze *${escapeMrkdwn(truncate(f.name, 80))}* is on until ${when(new Date(f.activeUntil!).toISOString())}: runs it covers are refused and the schedules it covers paused.`,
  );
  return [{ type: 'section', block_id: 'home_freezes', text: mrkdwnText(lines.join('\n')) }];
}

/** Schedules listed under the next 24 hours, and failing runbooks listed. */
export const HOME_FORECAST_ROWS = 10;
export const HOME_FAILING_ROWS = 5;

function isForecast(value: unknown): value is VisibleForecast {
  return typeof value === 'object' && value !== null && Array.isArray((value as VisibleForecast).runs);
}

function isFailing(value: unknown): value is FailingRunbooks {
  return typeof value === 'object' && value !== null && Array.isArray((value as FailingRunbooks).reports);
}

/** Each schedule's next run in the window (in order), how many more it has there, and whether any overlaps. */
function bySchedule(runs: readonly HeldRun[]): Array<{ first: HeldRun; count: number; overlaps: boolean }> {
  const groups = new Map<string, { first: HeldRun; count: number; overlaps: boolean }>();
  for (const run of runs) {
    const group = groups.get(run.scheduleId);
    if (group) {
      group.count++;
      group.overlaps ||= run.overlaps;
    } else {
      groups.set(run.scheduleId, { first: run, count: 1, overlaps: run.overlaps });
    }
  }
  return [...groups.values()];
}

function forecastLines(forecast: VisibleForecast): KnownBlock[] {
  const { runs } = forecast;
  const frequent = forecast.frequent ?? [];
  if (runs.length === 0 && frequent.length === 0) {
    return [{ type: 'context', elements: [mrkdwnText('Nothing is scheduled to run in the next 24 hours.')] }];
  }
  // One line per schedule (its next run, then how many more), so a frequent one does not hide the rest.
  // A schedule firing more often than hourly comes summed up (its count, its first run): one line too.
  const schedules = [
    ...bySchedule(runs),
    ...frequent.map((f) => ({
      first: { ...f, at: f.firstAt, overlaps: false },
      count: f.count,
      overlaps: false,
    })),
  ].sort((a, b) => a.first.at - b.first.at);
  const total = runs.length + frequent.reduce((sum, f) => sum + f.count, 0);
  const overlapping = runs.filter((r) => r.overlaps).length;
  const notes = [
    `${total}${forecast.truncated ? '+' : ''} ${total === 1 ? 'run' : 'runs'} due from ${schedules.length} ${schedules.length === 1 ? 'schedule' : 'schedules'}`,
    overlapping ? `${overlapping} overlapping` : '',
    forecast.pausedCount ? `${forecast.pausedCount} paused left out` : '',
    forecast.truncated ? 'only the earliest runs were computed' : '',
    'times in your time zone',
    '`/runbook schedules --next 24h` lists every run',
  ].filter(Boolean);
  const lines = schedules.slice(0, HOME_FORECAST_ROWS).map(({ first, count, overlaps }) => {
    const more = count > 1 ? `, then ${count - 1} more` : '';
    const overlap = overlaps ? '  :warning: _overlapping runs_' : '';
    const held = first.frozenBy
      ? `  :snowflake: _held by the change freeze ${escapeMrkdwn(truncate(first.frozenBy, 80))}_`
      : '';
    return `${when(new Date(first.at).toISOString())} · *${escapeMrkdwn(truncate(first.runbookName || first.runbookId, 120))}*${more}${overlap}${held}`;
  });
  if (schedules.length > HOME_FORECAST_ROWS) {
    lines.push(`_…and ${schedules.length - HOME_FORECAST_ROWS} more schedules_`);
  }
  return [
    { type: 'section', block_id: 'home_forecast', text: mrkdwnText(lines.join('\n')) },
    { type: 'context', elements: [mrkdwnText(notes.join(' · '))] },
  ];
}

function failingLines(failing: FailingRunbooks, now: number): KnownBlock[] {
  const basis = failing.reports[0] ? coverageNote(failing.reports[0], failing.rowsRead) : '';
  const footer: KnownBlock = {
    type: 'context',
    elements: [
      mrkdwnText(
        [freshness(failing.fetchedAt, now), basis, '`/runbook health &lt;runbook&gt;` for one']
          .filter(Boolean)
          .join(' · '),
      ),
    ],
  };
  if (failing.reports.length === 0) {
    return [{ type: 'context', elements: [mrkdwnText('No runbook you may view failed in the last 30 days.')] }, footer];
  }
  const lines = failing.reports.slice(0, HOME_FAILING_ROWS).map((r) => {
    const rate = r.successRate === null ? '' : ` (${percentText(r.successRate)} ok)`;
    return `*${escapeMrkdwn(truncate(r.runbookName, 120))}*: ${r.failed} of ${r.runs} failed${rate} ${outcomeStrip(r.lastOutcomes)}`;
  });
  return [{ type: 'section', block_id: 'home_failing', text: mrkdwnText(lines.join('\n')) }, footer];
}

function outlookSections(input: AppHomeInput): KnownBlock[] {
  const blocks: KnownBlock[] = [];
  if (input.forecast !== undefined) {
    blocks.push({ type: 'header', text: plainText('Next 24 hours', 150) });
    blocks.push(
      ...(isForecast(input.forecast) ? forecastLines(input.forecast) : [failed('the runs due', input.forecast)]),
      { type: 'divider' },
    );
  }
  if (input.failing !== undefined) {
    blocks.push({ type: 'header', text: plainText('Failing most (last 30 days)', 150) });
    blocks.push(
      ...(isFailing(input.failing)
        ? failingLines(input.failing, input.now)
        : [failed('the health of runbooks', input.failing)]),
      { type: 'divider' },
    );
  }
  return blocks;
}

/** A request waiting for this person, with where its quorum stands. */
export interface AwaitingApproval {
  approval: Approval;
  /** Approvals still needed (1 for a single-approver request). */
  missingCount: number;
}

/** Rows shown per personal section. */
export const HOME_PERSONAL_ROWS = 5;

function awaitingLines(items: readonly AwaitingApproval[]): KnownBlock[] {
  if (items.length === 0) return [{ type: 'context', elements: [mrkdwnText('Nothing is waiting for your approval.')] }];
  const blocks: KnownBlock[] = [];
  for (const { approval, missingCount } of items.slice(0, HOME_PERSONAL_ROWS)) {
    const more = missingCount > 1 ? ` · ${missingCount} approvals still needed` : '';
    blocks.push({
      type: 'section',
      text: mrkdwnText(
        `:lock: *${escapeMrkdwn(truncate(approval.runbookName, 120))}* requested by ${personText({ userId: approval.requesterId })} · expires ${when(new Date(approval.expiresAt).toISOString())}${more}`,
      ),
    });
    blocks.push({
      type: 'actions',
      block_id: `home_approval_${approval.id}`.slice(0, 255),
      elements: [
        button('Approve', ACTIONS.approvalApprove, approval.id, { style: 'primary' }),
        button('Reject', ACTIONS.approvalReject, approval.id, { style: 'danger' }),
      ],
    });
  }
  if (items.length > HOME_PERSONAL_ROWS) {
    blocks.push({
      type: 'context',
      elements: [mrkdwnText(`…and ${items.length - HOME_PERSONAL_ROWS} more in the approvals channel.`)],
    });
  }
  return blocks;
}

function myRunLines(runs: Execution[]): KnownBlock[] {
  if (runs.length === 0) {
    return [
      { type: 'context', elements: [mrkdwnText('You have not run anything lately. *Run a runbook* starts one.')] },
    ];
  }
  return runs.slice(0, HOME_PERSONAL_ROWS).map((e) => ({
    type: 'section',
    text: mrkdwnText(
      `${STATUS_EMOJI[e.executionStatus]} *${escapeMrkdwn(truncate(e.workflowName || e.id, 120))}* ${STATUS_WORD[e.executionStatus]} · ${when(e.startTime ?? e.createTime, '—')} · ${inlineCode(e.id.slice(0, 8))}`,
    ),
    accessory: button('Details', ACTIONS.executionStatus, e.id),
  }));
}

function personalSections(input: AppHomeInput): KnownBlock[] {
  const blocks: KnownBlock[] = [];
  if (input.awaitingApproval !== undefined) {
    blocks.push({ type: 'header', text: plainText('Waiting for your approval', 150) });
    blocks.push(
      ...(Array.isArray(input.awaitingApproval)
        ? awaitingLines(input.awaitingApproval as AwaitingApproval[])
        : [failed('requests waiting for you', input.awaitingApproval)]),
    );
    blocks.push({ type: 'divider' });
  }
  if (input.myRuns !== undefined) {
    blocks.push({ type: 'header', text: plainText('Your recent runs', 150) });
    blocks.push(
      ...(Array.isArray(input.myRuns) ? myRunLines(input.myRuns as Execution[]) : [failed('your runs', input.myRuns)]),
    );
    blocks.push({ type: 'divider' });
  }
  return blocks;
}

function aliasLines(aliases: RunAlias[]): KnownBlock[] {
  const lines = aliases
    .slice(0, 15)
    .map(
      (a) =>
        `• \`${escapeMrkdwn(a.name)}\` in ${channelMention(a.channel)} — ${escapeMrkdwn(truncate(a.runbookName, 100))}`,
    );
  return [
    { type: 'header', text: plainText('Your saved runs', 150) },
    {
      type: 'section',
      text: mrkdwnText(
        `${lines.join('\n')}\nUse one in its channel: \`/runbook &lt;alias&gt; [key=value …] [--now]\` · \`/runbook alias list\``,
      ),
    },
    { type: 'divider' },
  ];
}

function failed(what: string, err: unknown): KnownBlock {
  return {
    type: 'context',
    elements: [mrkdwnText(`:warning: ${escapeMrkdwn(`Could not load ${what}. ${describeFailure(err)}`)}`)],
  };
}

function executionLines(executions: Execution[], people?: PeopleByEmail): KnownBlock[] {
  if (executions.length === 0) return [{ type: 'context', elements: [mrkdwnText('No executions yet.')] }];
  return executions.slice(0, 8).map((e) => ({
    type: 'section',
    text: mrkdwnText(
      `${STATUS_EMOJI[e.executionStatus]} *${escapeMrkdwn(truncate(e.workflowName || e.id, 120))}* ${STATUS_WORD[e.executionStatus]} · ${when(e.startTime ?? e.createTime, '—')} · ${e.executor ? personText(emailPerson(e.executor, people)) : 'unknown'}`,
    ),
    accessory: button('Details', ACTIONS.executionStatus, e.id),
  }));
}

function scheduleLines(schedules: Schedule[], pauses?: ReadonlyMap<string, SchedulePause>): KnownBlock[] {
  if (schedules.length === 0) return [{ type: 'context', elements: [mrkdwnText('No schedules yet.')] }];
  return schedules.slice(0, 8).map((listed) => {
    const pause = pauses?.get(listed.id);
    // A paused schedule's API copy never fires; its real expression is the pause's.
    const s = pause ? { ...listed, schedule: pause.cron } : listed;
    let english: string;
    try {
      english = describeCron(s.schedule);
    } catch {
      english = 'unreadable expression';
    }
    const paused = pause?.freeze
      ? `\n:snowflake: Paused by the change freeze *${escapeMrkdwn(truncate(pause.freeze, 80))}* ${when(new Date(pause.pausedAt).toISOString())} until it ends`
      : pause
        ? `\n:double_vertical_bar: Paused by ${userMention(pause.pausedBy)} ${when(new Date(pause.pausedAt).toISOString())}${pause.resumeAt === null ? '' : ' to skip one run; resumes by itself'}`
        : '';
    return {
      type: 'section',
      text: mrkdwnText(
        `*${escapeMrkdwn(truncate(s.runbookName || s.runbookId, 120))}* · \`${escapeMrkdwn(truncate(s.schedule, 60))}\` ${escapeMrkdwn(truncate(english, 150))}${paused}`,
      ),
      accessory: button('Edit', ACTIONS.scheduleEdit, s.id),
    };
  });
}

export function buildAppHome(input: AppHomeInput): HomeView {
  const blocks: KnownBlock[] = [
    ...(input.connection ?? []),
    { type: 'header', text: plainText('Runbooks', 150) },
    {
      type: 'actions',
      block_id: 'home_actions',
      elements: [
        button('Run a runbook', ACTIONS.homeRun, 'run', { style: 'primary' }),
        button('New schedule', ACTIONS.homeNewSchedule, 'schedule'),
        button('Refresh', ACTIONS.homeRefresh, 'refresh'),
      ],
    },
    { type: 'divider' },
    ...freezeLines(input.freezes),
    ...(input.aliases?.length ? aliasLines(input.aliases) : []),
    ...personalSections(input),
    ...outlookSections(input),
    { type: 'header', text: plainText('Recent executions', 150) },
    ...(Array.isArray(input.executions)
      ? executionLines(input.executions as Execution[], input.people)
      : [failed('executions', input.executions)]),
    { type: 'divider' },
    { type: 'header', text: plainText('Schedules', 150) },
    ...(Array.isArray(input.schedules)
      ? scheduleLines(input.schedules as Schedule[], input.pauses)
      : [failed('schedules', input.schedules)]),
    {
      type: 'context',
      elements: [
        mrkdwnText(`Updated ${when(new Date(input.now).toISOString())} · type \`/runbook help\` in any channel`),
      ],
    },
  ];
  return { type: 'home', blocks };
}
