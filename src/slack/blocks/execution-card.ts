// The one live message per execution: posted as "running" when the run starts, edited in place
// into the result card when it finishes (status, duration, who ran it, reason, output excerpt).
import type { KnownBlock } from '@slack/types';
import type { Execution, ExecutionStatus } from '../../api/schemas.ts';
import { ACTIONS } from '../ids.ts';
import { button, type SlackMessage, when } from './common.ts';
import {
  codeBlock,
  escapeMrkdwn,
  formatDuration,
  isSafeLink,
  mrkdwnText,
  slackLink,
  truncate,
  userMention,
} from './mrkdwn.ts';

export interface RunContext {
  runbookId: string;
  runbookName: string;
  proxyId: string;
  /** Slack user id of the person who started it, if started from Slack. */
  startedBy: string | null;
  /** Inputs with secrets already masked. */
  inputs: Record<string, unknown>;
  /** Slack user id of the approver, when the run followed an approval. */
  approvedBy?: string;
  /** Permalink of the message the run was started from (message shortcut). */
  sourceLink?: string | null;
}

/** "Started from <message>" under a card, when the run came from a message shortcut. */
function sourceBlocks(run: RunContext): KnownBlock[] {
  if (!run.sourceLink || !isSafeLink(run.sourceLink)) return [];
  const link = slackLink(run.sourceLink, 'a message');
  return [{ type: 'context', block_id: 'card_source', elements: [mrkdwnText(`Started from ${link}`)] }];
}

export const STATUS_EMOJI: Record<ExecutionStatus, string> = {
  EXECUTION_STATUS_SUCCEEDED: ':white_check_mark:',
  EXECUTION_STATUS_FAILED: ':x:',
  EXECUTION_STATUS_IN_PROGRESS: ':hourglass_flowing_sand:',
  EXECUTION_STATUS_UNSPECIFIED: ':grey_question:',
  unknown: ':grey_question:',
};

export const STATUS_WORD: Record<ExecutionStatus, string> = {
  EXECUTION_STATUS_SUCCEEDED: 'succeeded',
  EXECUTION_STATUS_FAILED: 'failed',
  EXECUTION_STATUS_IN_PROGRESS: 'running',
  EXECUTION_STATUS_UNSPECIFIED: 'status unknown',
  unknown: 'status unknown',
};

export function formatInputs(inputs: Record<string, unknown>, max = 1200): string {
  const entries = Object.entries(inputs);
  if (entries.length === 0) return '_no inputs_';
  const lines = entries.slice(0, 20).map(([k, v]) => {
    const value = typeof v === 'string' ? v : JSON.stringify(v);
    return `• ${escapeMrkdwn(truncate(k, 60))}: \`${escapeMrkdwn(truncate(value ?? 'null', 120)).replace(/`/g, 'ˋ')}\``;
  });
  if (entries.length > 20) lines.push(`_…and ${entries.length - 20} more_`);
  return truncate(lines.join('\n'), max);
}

function who(run: RunContext, execution?: Execution): string {
  if (run.startedBy) return userMention(run.startedBy);
  return execution?.executor ? escapeMrkdwn(execution.executor) : 'someone outside Slack';
}

export function buildRunningCard(run: RunContext, executionIds: string[]): SlackMessage {
  const ids = executionIds.map((id) => `\`${escapeMrkdwn(id)}\``).join(', ') || '—';
  const blocks: KnownBlock[] = [
    {
      type: 'section',
      text: mrkdwnText(`:hourglass_flowing_sand: *${escapeMrkdwn(truncate(run.runbookName, 200))}* is running`),
    },
    {
      type: 'section',
      fields: [
        mrkdwnText(
          `*Started by*\n${who(run)}${run.approvedBy ? `, approved by ${userMention(run.approvedBy)}` : ''}`,
          2000,
        ),
        mrkdwnText(`*Proxy*\n${escapeMrkdwn(run.proxyId || '—')}`, 2000),
        mrkdwnText(`*Execution*\n${ids}`, 2000),
        mrkdwnText('*Status*\nrunning', 2000),
      ],
    },
    { type: 'section', text: mrkdwnText(`*Inputs*\n${formatInputs(run.inputs)}`) },
    ...sourceBlocks(run),
  ];
  if (executionIds[0]) {
    blocks.push({
      type: 'actions',
      block_id: 'card_actions',
      elements: [button('Details', ACTIONS.executionStatus, executionIds[0])],
    });
  }
  return { text: `${run.runbookName} is running`, blocks };
}

function durationOf(execution: Execution): string {
  if (execution.startTime && execution.endTime) {
    const ms = Date.parse(execution.endTime) - Date.parse(execution.startTime);
    if (Number.isFinite(ms) && ms >= 0) return formatDuration(ms);
  }
  return execution.duration ? escapeMrkdwn(execution.duration) : '—';
}

/**
 * The context line under an output the client could read only the end of (the response was over
 * RUNBOOK_API_MAX_BODY_BYTES): how big it was and where to get all of it. Empty when it was whole.
 */
export function truncatedOutputNotice(execution: Execution): KnownBlock[] {
  const bytes = execution.outputTruncatedBytes;
  if (bytes === undefined) return [];
  const size =
    bytes >= 1024 * 1024
      ? `${(bytes / (1024 * 1024)).toFixed(1)} MB`
      : `${Math.ceil(bytes / 1024).toLocaleString('en-US')} kB`;
  return [
    {
      type: 'context',
      elements: [
        mrkdwnText(
          `:scissors: The output is about ${size}, too large to read whole: the bot kept only its last part. Get all of it from the Runbook API (execution \`${escapeMrkdwn(truncate(execution.id, 200))}\`).`,
        ),
      ],
    },
  ];
}

/** The finished card. `output` is decoded text (may be long); an excerpt that fits is shown. */
export function buildResultCard(
  run: RunContext,
  execution: Execution,
  options: { stale?: boolean } = {},
): SlackMessage {
  const status = execution.executionStatus;
  const emoji = options.stale ? ':warning:' : STATUS_EMOJI[status];
  const word = options.stale ? 'stopped reporting (stale)' : STATUS_WORD[status];
  const blocks: KnownBlock[] = [
    {
      type: 'section',
      text: mrkdwnText(`${emoji} *${escapeMrkdwn(truncate(run.runbookName, 200))}* ${word}`),
    },
    {
      type: 'section',
      fields: [
        mrkdwnText(`*Started by*\n${who(run, execution)}`, 2000),
        mrkdwnText(`*Duration*\n${durationOf(execution)}`, 2000),
        mrkdwnText(`*Started*\n${when(execution.startTime ?? execution.createTime, '—')}`, 2000),
        mrkdwnText(`*Execution*\n\`${escapeMrkdwn(execution.id)}\``, 2000),
      ],
    },
  ];
  if (status === 'EXECUTION_STATUS_FAILED' && execution.reason) {
    blocks.push({ type: 'section', text: mrkdwnText(`*Reason*\n${escapeMrkdwn(truncate(execution.reason, 2800))}`) });
  }
  if (options.stale) {
    blocks.push({
      type: 'section',
      text: mrkdwnText('No result arrived in time, so the bot stopped checking. Use *Details* to look again.'),
    });
  }
  blocks.push({ type: 'section', text: mrkdwnText(`*Inputs*\n${formatInputs(run.inputs, 1000)}`) });
  blocks.push(...sourceBlocks(run));
  if (execution.output) {
    blocks.push({ type: 'section', text: mrkdwnText(`*Output*\n${codeBlock(execution.output, 2400)}`) });
    blocks.push(...truncatedOutputNotice(execution));
  }
  blocks.push({
    type: 'actions',
    block_id: 'card_actions',
    elements: [
      ...(execution.output ? [button('Full output', ACTIONS.executionOutput, execution.id)] : []),
      button('Re-run', ACTIONS.executionRerun, JSON.stringify({ e: execution.id, r: run.runbookId })),
      button('Details', ACTIONS.executionStatus, execution.id),
    ],
  });
  return { text: `${run.runbookName} ${word}`, blocks };
}
