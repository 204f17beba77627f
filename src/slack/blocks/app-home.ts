// The App Home tab: quick buttons, recent executions, schedules. A list that failed to load shows
// one sentence instead of blanking the whole tab.
import type { HomeView, KnownBlock } from '@slack/types';
import type { Execution, Schedule } from '../../api/schemas.ts';
import { describeCron } from '../../schedules/cron.ts';
import { describeFailure } from '../describe-failure.ts';
import { ACTIONS } from '../ids.ts';
import { button, when } from './common.ts';
import { STATUS_EMOJI, STATUS_WORD } from './execution-card.ts';
import { escapeMrkdwn, mrkdwnText, plainText, truncate } from './mrkdwn.ts';

export interface AppHomeInput {
  executions: Execution[] | unknown;
  schedules: Schedule[] | unknown;
  now: number;
}

function failed(what: string, err: unknown): KnownBlock {
  return {
    type: 'context',
    elements: [mrkdwnText(`:warning: ${escapeMrkdwn(`Could not load ${what}. ${describeFailure(err)}`)}`)],
  };
}

function executionLines(executions: Execution[]): KnownBlock[] {
  if (executions.length === 0) return [{ type: 'context', elements: [mrkdwnText('No executions yet.')] }];
  return executions.slice(0, 8).map((e) => ({
    type: 'section',
    text: mrkdwnText(
      `${STATUS_EMOJI[e.executionStatus]} *${escapeMrkdwn(truncate(e.workflowName || e.id, 120))}* ${STATUS_WORD[e.executionStatus]} · ${when(e.startTime ?? e.createTime, '—')} · ${escapeMrkdwn(truncate(e.executor || 'unknown', 80))}`,
    ),
    accessory: button('Details', ACTIONS.executionStatus, e.id),
  }));
}

function scheduleLines(schedules: Schedule[]): KnownBlock[] {
  if (schedules.length === 0) return [{ type: 'context', elements: [mrkdwnText('No schedules yet.')] }];
  return schedules.slice(0, 8).map((s) => {
    let english: string;
    try {
      english = describeCron(s.schedule);
    } catch {
      english = 'unreadable expression';
    }
    return {
      type: 'section',
      text: mrkdwnText(
        `*${escapeMrkdwn(truncate(s.runbookName || s.runbookId, 120))}* · \`${escapeMrkdwn(truncate(s.schedule, 60))}\` ${escapeMrkdwn(truncate(english, 150))}`,
      ),
      accessory: button('Edit', ACTIONS.scheduleEdit, s.id),
    };
  });
}

export function buildAppHome(input: AppHomeInput): HomeView {
  const blocks: KnownBlock[] = [
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
    { type: 'header', text: plainText('Recent executions', 150) },
    ...(Array.isArray(input.executions)
      ? executionLines(input.executions as Execution[])
      : [failed('executions', input.executions)]),
    { type: 'divider' },
    { type: 'header', text: plainText('Schedules', 150) },
    ...(Array.isArray(input.schedules)
      ? scheduleLines(input.schedules as Schedule[])
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
