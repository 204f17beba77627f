// Builder: the forecast (/runbook schedules --next 24h|7d): every run due in the window, grouped by day in
// the person's time zone, overlapping runs of one runbook flagged. Times are computed in GMT by
// src/schedules/forecast.ts; here they are only shown.
import type { KnownBlock } from '@slack/types';
import type { HeldFrequent, HeldRun } from '../../runs/forecast.ts';
import { describeCron, formatRunTime } from '../../schedules/cron.ts';
import type { ForecastWindow } from '../../schedules/forecast.ts';
import type { SlackMessage } from '../kit/common.ts';
import { escapeMrkdwn, mrkdwnText, plainText, truncate } from '../kit/mrkdwn.ts';

/** Runs listed per section (a section's text stays well under 3,000 characters). */
const RUNS_PER_SECTION = 15;
/** Sections at most, so the message stays under 50 blocks. */
const MAX_SECTIONS = 40;

export interface ForecastInput {
  window: ForecastWindow;
  runs: readonly HeldRun[];
  /** Schedules firing more often than hourly: one line each (absent: none). */
  frequent?: readonly HeldFrequent[];
  truncated: boolean;
  /** The person's IANA zone (UTC when unknown). */
  timeZone: string;
  /** Schedules skipped while paused, and those whose expression could not be read. */
  pausedCount: number;
  unreadableCount: number;
  /** The runbook the forecast is narrowed to, or null for every schedule the person may view. */
  runbookName?: string | null;
}

function runLine(run: HeldRun, timeZone: string): string {
  const name = escapeMrkdwn(truncate(run.runbookName || run.runbookId, 120));
  const when = escapeMrkdwn(formatRunTime(new Date(run.at), timeZone));
  const overlap = run.overlaps ? '  :warning: _overlaps another run of this runbook_' : '';
  const held = run.frozenBy
    ? `  :snowflake: _held: the change freeze *${escapeMrkdwn(truncate(run.frozenBy, 80))}* pauses it_`
    : '';
  return `${when} · *${name}*${overlap}${held}`;
}

const SPAN_SHORT: Record<ForecastWindow, string> = { '24h': '24 h', '7d': '7 days' };

/** "*Heartbeat* every minute: 1,440 runs in 24 h, from 09:01 …": one line for a schedule firing more than hourly. */
function frequentLine(f: HeldFrequent, window: ForecastWindow, timeZone: string): string {
  const name = escapeMrkdwn(truncate(f.runbookName || f.runbookId, 120));
  const count = `${f.count.toLocaleString('en-US')}${f.countCut ? '+' : ''} run${f.count === 1 ? '' : 's'}`;
  const from = escapeMrkdwn(formatRunTime(new Date(f.firstAt), timeZone));
  const held = f.frozenBy
    ? `  :snowflake: _held: the change freeze *${escapeMrkdwn(truncate(f.frozenBy, 80))}* pauses it_`
    : '';
  return `:repeat: *${name}* · ${escapeMrkdwn(truncate(describeCron(f.cron), 120))}: ${count} in ${SPAN_SHORT[window]}, from ${from}${held}`;
}

export function buildForecast(input: ForecastInput): SlackMessage {
  const span = input.window === '24h' ? 'the next 24 hours' : 'the next 7 days';
  const frequent = input.frequent ?? [];
  const total = input.runs.length + frequent.reduce((sum, f) => sum + f.count, 0);
  const of = input.runbookName ? ` of ${truncate(input.runbookName, 100)}` : '';
  const overlapping = input.runs.filter((r) => r.overlaps).length;
  const frozen = input.runs.filter((r) => r.frozenBy).length;
  const count = `${total.toLocaleString('en-US')}${input.truncated || frequent.some((f) => f.countCut) ? '+' : ''} run${total === 1 ? '' : 's'}${of} due in ${span}`;
  const notes = [
    count,
    overlapping > 0 ? `${overlapping} overlapping` : null,
    frequent.length > 0
      ? `${frequent.length} schedule${frequent.length === 1 ? '' : 's'} firing more often than hourly summed up`
      : null,
    frozen > 0 ? `${frozen} held by a change freeze` : null,
    input.pausedCount > 0 ? `${input.pausedCount} paused schedule${input.pausedCount === 1 ? '' : 's'} left out` : null,
    input.unreadableCount > 0
      ? `${input.unreadableCount} unreadable expression${input.unreadableCount === 1 ? '' : 's'} left out`
      : null,
    input.truncated ? 'only the earliest are listed' : null,
    'computed in GMT as the API fires them, shown in your time zone',
  ].filter((n): n is string => n !== null);
  const blocks: KnownBlock[] = [
    { type: 'header', text: plainText(`Runs${of} due in ${span}`, 150) },
    { type: 'context', elements: [mrkdwnText(escapeMrkdwn(notes.join(' · ')))] },
  ];
  if (frequent.length > 0) {
    const lines = frequent.slice(0, 30).map((f) => frequentLine(f, input.window, input.timeZone));
    if (frequent.length > 30) lines.push(`…and ${frequent.length - 30} more firing more often than hourly.`);
    blocks.push({ type: 'section', text: mrkdwnText(lines.join('\n')) });
  }
  if (total === 0) {
    blocks.push({ type: 'section', text: mrkdwnText(`Nothing is scheduled to run in ${span}.`) });
  }
  const sections: string[][] = [];
  for (let i = 0; i < input.runs.length && sections.length < MAX_SECTIONS - 1; i += RUNS_PER_SECTION) {
    sections.push(input.runs.slice(i, i + RUNS_PER_SECTION).map((r) => runLine(r, input.timeZone)));
  }
  for (const lines of sections) blocks.push({ type: 'section', text: mrkdwnText(lines.join('\n')) });
  return { text: escapeMrkdwn(truncate(count, 3000)), blocks };
}
