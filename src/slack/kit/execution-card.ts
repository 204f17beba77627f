// The one live message per execution: posted as "running" when the run starts, edited in place
// into the compact result card when it finishes: a status line, who started and who approved it,
// duration, the first few inputs under their schema titles (secrets masked; the rest in Details)
// and a short output tail. Longer output goes into the thread as a file (see src/watch/output-upload.ts).
import type { KnownBlock } from '@slack/types';
import type { Execution, ExecutionStatus } from '../../api/schemas.ts';
import type { RunbookEta } from '../../health/runbook-health.ts';
import { button, type SlackMessage, when } from './common.ts';
import { etaText, lateText } from './health-summary.ts';
import { ACTIONS } from './ids.ts';
import { type CardInputs, inputLines, type LabelledInput, toLabelledInputs } from './input-summary.ts';
import {
  codeBlock,
  codePointLength,
  escapeMrkdwn,
  formatDuration,
  isSafeLink,
  mrkdwnText,
  slackLink,
  truncate,
} from './mrkdwn.ts';
import { emailPerson, type PeopleByEmail, type PersonRef, peopleText, personText, proxyText } from './people.ts';

export interface RunContext {
  runbookId: string;
  runbookName: string;
  proxyId: string;
  /** The proxy's display name, when the directory knows it. */
  proxyName?: string | null;
  /** Slack user id of the person who started it, if started from Slack. */
  startedBy: string | null;
  /** Email of whoever started it, when known (shown when Slack does not know them). */
  startedByEmail?: string | null;
  /** Inputs with secrets already masked: the labelled list (schema titles) or a plain object. */
  inputs: CardInputs;
  /** Slack user id(s) of the approver(s), when the run followed an approval. */
  approvedBy?: string | readonly string[];
  /** Permalink of the message the run was started from (message shortcut). */
  sourceLink?: string | null;
}

/** "Started from <message>" under a card, when the run came from a message shortcut. */
function sourceBlocks(run: RunContext): KnownBlock[] {
  if (!run.sourceLink || !isSafeLink(run.sourceLink)) return [];
  const link = slackLink(run.sourceLink, 'a message');
  return [{ type: 'context', block_id: 'card_source', elements: [mrkdwnText(`Started from ${link}`)] }];
}

/** Inputs shown on a card; the rest are counted and left to Details. */
export const CARD_INPUTS_SHOWN = 4;
/** Lines of output kept on the result card. */
export const OUTPUT_TAIL_LINES = 8;
/** Code points of output (fences included) kept on the result card. */
export const OUTPUT_TAIL_CHARS = 1000;
/** The file uploaded into the card's thread keeps at most the last this-many bytes of the output. */
export const OUTPUT_FILE_MAX_BYTES = 1024 * 1024;
/** The result card never has more blocks than this, however many inputs or lines of output. */
export const RESULT_CARD_MAX_BLOCKS = 8;

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

/** Every input, one line each, under its title (Details, approval requests). */
export function formatInputs(inputs: CardInputs, max = 1200): string {
  const list = toLabelledInputs(inputs);
  if (list.length === 0) return '_no inputs_';
  const lines = inputLines(list.slice(0, 20));
  if (list.length > 20) lines.push(`_…and ${list.length - 20} more_`);
  return truncate(lines.join('\n'), max);
}

/** The first few inputs and how many more there are (escaped mrkdwn). */
export function compactInputs(inputs: CardInputs, shown = CARD_INPUTS_SHOWN): string {
  const list: LabelledInput[] = toLabelledInputs(inputs);
  if (list.length === 0) return '_no inputs_';
  const lines = inputLines(list.slice(0, shown), 80);
  const rest = list.length - shown;
  if (rest > 0) lines.push(`_…and ${rest} more ${rest === 1 ? 'input' : 'inputs'} in *Details*_`);
  return lines.join('\n');
}

/** Who started it: the Slack user, else their email (a mention when `people` knows it), else the executor's. */
function starter(run: RunContext, execution?: Execution, people?: PeopleByEmail): PersonRef | null {
  if (run.startedBy) return { userId: run.startedBy, email: run.startedByEmail ?? null };
  const email = run.startedByEmail || execution?.executor;
  return email ? emailPerson(email, people) : null;
}

function approvers(run: RunContext): PersonRef[] {
  const ids = typeof run.approvedBy === 'string' ? [run.approvedBy] : (run.approvedBy ?? []);
  return ids.filter((id) => id !== '').map((userId) => ({ userId }));
}

function proxyOf(run: RunContext): string {
  return proxyText({ id: run.proxyId, name: run.proxyName ?? null });
}

/** How long a run of this runbook usually takes (from its health), and whether this one is past the p95. */
export interface RunningEta {
  eta: RunbookEta | null;
  /** Past the p95 of recent runs: "running longer than usual". */
  late?: boolean;
}

function etaBlocks(timing: RunningEta | undefined): KnownBlock[] {
  if (!timing?.eta) return [];
  const usual = `:stopwatch: ${etaText(timing.eta)}`;
  const text = timing.late && timing.eta.p95Ms !== null ? `${lateText(timing.eta)}\n${usual}` : usual;
  return [{ type: 'context', block_id: 'card_eta', elements: [mrkdwnText(text)] }];
}

export function buildRunningCard(run: RunContext, executionIds: string[], timing?: RunningEta): SlackMessage {
  const ids = executionIds.map((id) => `\`${escapeMrkdwn(id)}\``).join(', ') || '—';
  const approved = approvers(run);
  const blocks: KnownBlock[] = [
    {
      type: 'section',
      text: mrkdwnText(`:hourglass_flowing_sand: *${escapeMrkdwn(truncate(run.runbookName, 200))}* is running`),
    },
    ...etaBlocks(timing),
    {
      type: 'section',
      fields: [
        mrkdwnText(`*Started by*\n${personText(starter(run))}`, 2000),
        ...(approved.length ? [mrkdwnText(`*Approved by*\n${peopleText(approved)}`, 2000)] : []),
        mrkdwnText(`*Proxy*\n${proxyOf(run)}`, 2000),
        mrkdwnText(`*Execution*\n${ids}`, 2000),
      ],
    },
    { type: 'section', text: mrkdwnText(`*Inputs*\n${compactInputs(run.inputs)}`) },
    ...sourceBlocks(run),
  ];
  if (executionIds[0]) {
    blocks.push({
      type: 'actions',
      block_id: 'card_actions',
      elements: [button('Details', ACTIONS.executionStatus, executionIds[0])],
    });
  }
  return { text: `${escapeMrkdwn(truncate(run.runbookName, 200))} is running`, blocks };
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

/** Where the lines the card leaves out are: the file in the thread (whole, or only its end) and Full output. */
function whereTheRestIs(execution: Execution): string {
  if (!outputWorthAFile(execution.output)) return '*Full output* shows all of it.';
  const bytes = Buffer.byteLength(execution.output, 'utf8');
  if (bytes <= OUTPUT_FILE_MAX_BYTES)
    return 'The whole output is in the thread as a file; *Full output* pages through it.';
  const all =
    execution.outputTruncatedBytes === undefined
      ? '*Full output* pages through all of it and *Find in output* searches it.'
      : 'the Runbook API has all of it (see above).';
  return `The file in the thread holds only the end of the output (its last ${formatBytes(OUTPUT_FILE_MAX_BYTES)} of ${formatBytes(execution.outputTruncatedBytes ?? bytes)}); ${all}`;
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MiB`;
  return `${Math.ceil(bytes / 1024).toLocaleString('en-US')} KiB`;
}

function outputLines(output: string): string[] {
  return output.replace(/\r\n?/g, '\n').replace(/\n+$/, '').split('\n');
}

/** The output's last few lines as the card shows them. */
export function outputTail(output: string): { text: string; shownLines: number; totalLines: number } {
  const lines = outputLines(output);
  const tail = lines.slice(-OUTPUT_TAIL_LINES);
  return { text: codeBlock(tail.join('\n'), OUTPUT_TAIL_CHARS), shownLines: tail.length, totalLines: lines.length };
}

/** Whether the card shows less than the whole output (then the full output goes into the thread). */
export function outputExceedsCard(output: string | null | undefined): boolean {
  if (!output) return false;
  const lines = outputLines(output);
  if (lines.length > OUTPUT_TAIL_LINES) return true;
  return codePointLength(codeBlock(lines.join('\n'), Number.MAX_SAFE_INTEGER)) > OUTPUT_TAIL_CHARS;
}

/** An output longer than this many lines (or OUTPUT_FILE_MIN_CHARS) also goes into the thread as a file. */
export const OUTPUT_FILE_MIN_LINES = 40;
export const OUTPUT_FILE_MIN_CHARS = 5000;

/**
 * Whether the whole output is worth a file in the thread: only a long one. A short output the card cuts
 * (a dozen lines) is read with *Full output*; a file for it is noise.
 */
export function outputWorthAFile(output: string | null | undefined): boolean {
  if (!output || !outputExceedsCard(output)) return false;
  return outputLines(output).length > OUTPUT_FILE_MIN_LINES || codePointLength(output) > OUTPUT_FILE_MIN_CHARS;
}

/**
 * The finished card. `output` is decoded text (may be long); a short tail is shown. `people` (emails
 * Slack knows, looked up by the caller) makes an executor started outside Slack a mention.
 */
export function buildResultCard(
  run: RunContext,
  execution: Execution,
  options: { stale?: boolean; people?: PeopleByEmail } = {},
): SlackMessage {
  const status = execution.executionStatus;
  const emoji = options.stale ? ':warning:' : STATUS_EMOJI[status];
  const word = options.stale ? 'stopped reporting (stale)' : STATUS_WORD[status];
  const approved = approvers(run);
  const blocks: KnownBlock[] = [
    {
      type: 'section',
      text: mrkdwnText(`${emoji} *${escapeMrkdwn(truncate(run.runbookName, 200))}* ${word}`),
    },
    {
      type: 'section',
      fields: [
        mrkdwnText(`*Started by*\n${personText(starter(run, execution, options.people))}`, 2000),
        ...(approved.length ? [mrkdwnText(`*Approved by*\n${peopleText(approved)}`, 2000)] : []),
        mrkdwnText(`*Duration*\n${durationOf(execution)}`, 2000),
        mrkdwnText(`*Started*\n${when(execution.startTime ?? execution.createTime, '—')}`, 2000),
        mrkdwnText(`*Proxy*\n${proxyOf(run)}`, 2000),
        mrkdwnText(`*Execution*\n\`${escapeMrkdwn(execution.id)}\``, 2000),
      ],
    },
  ];
  if (status === 'EXECUTION_STATUS_FAILED' && execution.reason) {
    blocks.push({ type: 'section', text: mrkdwnText(`*Reason*\n${escapeMrkdwn(truncate(execution.reason, 1000))}`) });
  }
  if (options.stale) {
    blocks.push({
      type: 'section',
      text: mrkdwnText('No result arrived in time, so the bot stopped checking. Use *Details* to look again.'),
    });
  }
  blocks.push({ type: 'section', text: mrkdwnText(`*Inputs*\n${compactInputs(run.inputs)}`) });
  blocks.push(...sourceBlocks(run));
  if (execution.output) {
    const tail = outputTail(execution.output);
    blocks.push({ type: 'section', text: mrkdwnText(`*Output*\n${tail.text}`) });
    blocks.push(...truncatedOutputNotice(execution));
    if (outputExceedsCard(execution.output)) {
      blocks.push({
        type: 'context',
        elements: [
          mrkdwnText(
            `Last ${tail.shownLines} of ${tail.totalLines} ${tail.totalLines === 1 ? 'line' : 'lines'} (earlier lines not shown). ${whereTheRestIs(execution)}`,
          ),
        ],
      });
    }
  }
  blocks.push({
    type: 'actions',
    block_id: 'card_actions',
    elements: [
      ...(execution.output
        ? [
            button('Full output', ACTIONS.executionOutput, execution.id),
            button('Find in output', ACTIONS.executionFind, execution.id),
          ]
        : []),
      button('Re-run', ACTIONS.executionRerun, JSON.stringify({ e: execution.id, r: run.runbookId })),
      button('Details', ACTIONS.executionStatus, execution.id),
    ],
  });
  return { text: `${escapeMrkdwn(truncate(run.runbookName, 200))} ${word}`, blocks };
}
