// Builders of `/runbook health`: one runbook's health over the last 30 days, or the runbooks failing most.
import type { KnownBlock } from '@slack/types';
import type { Workflow } from '../../api/schemas.ts';
import type { RunbookHealth } from '../../health/runbook-health.ts';
import type { FailingRunbooks } from '../../runs/health.ts';
import { button, type SlackMessage } from '../kit/common.ts';
import {
  coverageNote,
  etaText,
  freshness,
  healthNumbers,
  outcomeStrip,
  percentText,
  reasonLines,
} from '../kit/health-summary.ts';
import { ACTIONS } from '../kit/ids.ts';
import { escapeMrkdwn, formatDuration, mrkdwnText, truncate } from '../kit/mrkdwn.ts';
import { pickValue } from '../kit/runbook-choice.ts';

/** Runbooks listed by the overview. */
export const FAILING_SHOWN = 10;

function footer(parts: string[]): KnownBlock {
  return {
    type: 'context',
    elements: [mrkdwnText(parts.filter(Boolean).join(' · '))],
  };
}

export function buildRunbookHealth(
  runbook: Pick<Workflow, 'id' | 'name'>,
  report: RunbookHealth,
  fetchedAt: number,
  nowMs: number,
): SlackMessage {
  const name = escapeMrkdwn(truncate(runbook.name, 150));
  const blocks: KnownBlock[] = [
    {
      type: 'section',
      text: mrkdwnText(`:stethoscope: *${name}*: health over the last ${report.windowDays} days`),
    },
  ];
  if (report.runs === 0) {
    blocks.push({ type: 'section', text: mrkdwnText(`No runs in the last ${report.daysCovered} days.`) });
  } else {
    const failedOf = `${report.failed} failed${report.running ? `, ${report.running} running` : ''}`;
    blocks.push({
      type: 'section',
      fields: [
        mrkdwnText(`*Runs*\n${report.runs} (${failedOf})`),
        mrkdwnText(`*Success rate*\n${report.successRate === null ? '—' : percentText(report.successRate)}`),
        mrkdwnText(`*Median duration*\n${report.medianMs === null ? '—' : formatDuration(report.medianMs)}`),
        mrkdwnText(`*p95 duration*\n${report.p95Ms === null ? '—' : formatDuration(report.p95Ms)}`),
      ],
    });
    blocks.push({
      type: 'section',
      text: mrkdwnText(
        `*Last ${report.lastOutcomes.length} ${report.lastOutcomes.length === 1 ? 'outcome' : 'outcomes'}* (latest on the right)\n${outcomeStrip(report.lastOutcomes)}`,
      ),
    });
    const reasons = reasonLines(report, 3, 300);
    if (reasons.length) {
      blocks.push({ type: 'section', text: mrkdwnText(`*Most common failure reasons*\n${reasons.join('\n')}`) });
    }
    if (report.eta) blocks.push({ type: 'section', text: mrkdwnText(`*Duration*\nA run ${etaText(report.eta)}.`) });
  }
  blocks.push(
    footer([
      freshness(fetchedAt, nowMs),
      coverageNote(report),
      'each run placed by its own start time',
      '`/runbook health` lists the runbooks failing most',
    ]),
  );
  blocks.push({
    type: 'actions',
    block_id: 'health_actions',
    elements: [button('Details', ACTIONS.runbookDetails, runbook.id)],
  });
  return { text: `Health of ${escapeMrkdwn(truncate(runbook.name, 150))}: ${healthNumbers(report)}`, blocks };
}

/** The runbooks failing most, each with a button to its own health. `ids` maps a name (lower case) to its id. */
export function buildFailingRunbooks(
  failing: FailingRunbooks,
  ids: ReadonlyMap<string, string>,
  nowMs: number,
): SlackMessage {
  const days =
    failing.coverage.limitedBy === 'none' ? 30 : Math.floor((nowMs - failing.coverage.coveredFrom) / 86_400_000);
  const basis =
    failing.coverage.limitedBy === 'none'
      ? `${failing.rowsRead} executions of the last 30 days read`
      : `based on the latest ${failing.rowsRead} executions only (${days} of 30 days)`;
  const blocks: KnownBlock[] = [
    { type: 'section', text: mrkdwnText(':stethoscope: *Runbooks failing most*, last 30 days') },
  ];
  if (failing.reports.length === 0) {
    blocks.push({
      type: 'section',
      text: mrkdwnText(
        failing.seen === 0
          ? 'None of the runbooks you may view ran in that time.'
          : `No failures: ${failing.seen} ${failing.seen === 1 ? 'runbook' : 'runbooks'} you may view ran, every run succeeded.`,
      ),
    });
  }
  failing.reports.slice(0, FAILING_SHOWN).forEach((r, i) => {
    const id = ids.get(r.runbookName.trim().toLowerCase());
    const reason = r.failureReasons[0] ? `\n${reasonLines(r, 1, 150)[0]}` : '';
    const rate = r.successRate === null ? '' : ` (${percentText(r.successRate)} ok)`;
    blocks.push({
      type: 'section',
      block_id: `health_${i}`,
      text: mrkdwnText(
        `*${escapeMrkdwn(truncate(r.runbookName, 150))}*: ${r.failed} of ${r.runs} failed${rate} ${outcomeStrip(r.lastOutcomes)}${reason}`,
      ),
      ...(id ? { accessory: button('Health', `${ACTIONS.pickRunbook}_${i}`, pickValue(id, 'health')) } : {}),
    });
  });
  if (failing.reports.length > FAILING_SHOWN) {
    blocks.push(footer([`…and ${failing.reports.length - FAILING_SHOWN} more failing`]));
  }
  blocks.push(footer([freshness(failing.fetchedAt, nowMs), basis, '`/runbook health &lt;runbook&gt;` for one']));
  const top = failing.reports[0];
  return {
    text: top
      ? `Runbooks failing most: ${escapeMrkdwn(truncate(top.runbookName, 100))} first (${top.failed} failed)`
      : 'No runbook you may view failed in the last 30 days',
    blocks,
  };
}

/** Said under the private numbers: where the chart goes. */
export const CHART_TO_DM = ':bar_chart: A chart of these days is on its way to your direct messages with me.';

/** The message with one more line of context at the end (before its buttons). */
export function withNote(message: SlackMessage, note: string): SlackMessage {
  const blocks = [...message.blocks];
  const actionsAt = blocks.findIndex((b) => b.type === 'actions');
  blocks.splice(actionsAt < 0 ? blocks.length : actionsAt, 0, { type: 'context', elements: [mrkdwnText(note)] });
  return { ...message, blocks };
}
