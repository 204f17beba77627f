// One execution in detail (/runbook status, the Details button) and its full-output modal. Pure:
// the handler fetches the execution, parses and masks its inputs, and passes everything in.
import type { KnownBlock, ModalView } from '@slack/types';
import type { Execution, ExecutionType } from '../../api/schemas.ts';
import { type ExecutionInputs, parseExecutionInputs } from '../../runs/execution-facts.ts';
import type { LabelledExecutionInputs } from '../../runs/execution-secrets.ts';
import { button, noticeMessage, type SlackMessage, when } from './common.ts';
import { formatInputs, STATUS_EMOJI, STATUS_WORD, truncatedOutputNotice } from './execution-card.ts';
import { ACTIONS, VIEWS } from './ids.ts';
import {
  codeBlock,
  codePointLength,
  escapeCode,
  escapeMrkdwn,
  formatDuration,
  inlineCode,
  mrkdwnText,
  plainText,
  truncate,
} from './mrkdwn.ts';
import { emailPerson, type PeopleByEmail, personText } from './people.ts';

/** An execution's `inputs` string, read: a JSON object, or text to show as it is. */
export type { ExecutionInputs };
export { parseExecutionInputs };

/** "runbook" / "action", or null when the API did not say. */
export function executionTypeWord(type: ExecutionType): string | null {
  if (type === 'EXECUTION_TYPE_RUNBOOK') return 'runbook';
  if (type === 'EXECUTION_TYPE_ACTION') return 'action';
  return null;
}

/**
 * How long it took, as mrkdwn. Computed from start and end when both are known (the API's `duration`
 * string has no published format); a running execution counts up to `nowMs` when given.
 */
export function executionDuration(execution: Execution, nowMs?: number): string {
  const start = execution.startTime ? Date.parse(execution.startTime) : Number.NaN;
  const end = execution.endTime ? Date.parse(execution.endTime) : Number.NaN;
  if (Number.isFinite(start) && Number.isFinite(end) && end >= start) return formatDuration(end - start);
  if (execution.executionStatus === 'EXECUTION_STATUS_IN_PROGRESS') {
    if (Number.isFinite(start) && nowMs !== undefined && nowMs >= start) {
      return `running for ${formatDuration(nowMs - start)}`;
    }
    return 'still running';
  }
  return execution.duration ? escapeMrkdwn(truncate(execution.duration, 40)) : '—';
}

/** The Re-run button's value: the execution, and the runbook when the caller already knows it. */
export function rerunValue(executionId: string, runbookId: string | null): string {
  return JSON.stringify({ e: executionId, r: runbookId ?? '' });
}

/** Reads a Re-run value; a bare execution id (no JSON) is accepted too. */
export function decodeRerunValue(value: string | undefined): { executionId: string; runbookId: string | null } | null {
  const raw = (value ?? '').trim();
  if (raw === '') return null;
  if (!raw.startsWith('{')) return { executionId: raw, runbookId: null };
  try {
    const v = JSON.parse(raw) as { e?: unknown; r?: unknown };
    if (typeof v.e !== 'string' || v.e === '') return null;
    return { executionId: v.e, runbookId: typeof v.r === 'string' && v.r !== '' ? v.r : null };
  } catch {
    return null;
  }
}

export interface ExecutionStatusInput {
  execution: Execution;
  /** Parsed inputs with secret values already masked (under their titles: labelExecutionInputs). */
  inputs: ExecutionInputs | LabelledExecutionInputs;
  /** The runbook's id when the catalog knows it (makes Re-run skip a name lookup). */
  runbookId: string | null;
  /** Epoch ms, for "running for …". */
  nowMs?: number;
  /** Emails Slack knows → user ids (Identity.peopleByEmail): the executor and approver as mentions. */
  people?: PeopleByEmail;
}

function runbookTitle(execution: Execution): string {
  return execution.workflowName ? escapeMrkdwn(truncate(execution.workflowName, 200)) : '_unnamed runbook_';
}

function field(label: string, value: string) {
  return mrkdwnText(`*${label}*\n${value}`, 2000);
}

function inputsText(inputs: ExecutionInputs | LabelledExecutionInputs): string {
  if (inputs.kind === 'object') return formatInputs(inputs.values, 2800);
  return escapeMrkdwn(truncate(inputs.text.replace(/\s+/g, ' ').trim(), 1200)) || '_no inputs_';
}

/** The status message: who, when, how long, inputs, reason, the tail of the output, and what to do next. */
export function buildExecutionStatus(input: ExecutionStatusInput): SlackMessage {
  const { execution } = input;
  const status = execution.executionStatus;
  const type = executionTypeWord(execution.executionType);
  // At most 10 fields per section (Slack's limit); optional ones are left out when empty.
  const fields = [
    field('Status', `${STATUS_EMOJI[status]} ${STATUS_WORD[status]}`),
    field('Run by', personText(emailPerson(execution.executor, input.people), '_unknown_')),
    ...(execution.approver ? [field('Approved by', personText(emailPerson(execution.approver, input.people)))] : []),
    ...(type ? [field('Type', type)] : []),
    ...(execution.version ? [field('Version', escapeMrkdwn(truncate(execution.version, 60)))] : []),
    field('Created', when(execution.createTime, '—')),
    field('Started', when(execution.startTime, '—')),
    field('Ended', when(execution.endTime, status === 'EXECUTION_STATUS_IN_PROGRESS' ? 'not yet' : '—')),
    field('Duration', executionDuration(execution, input.nowMs)),
    field('Execution', inlineCode(execution.id, 1900)),
  ];
  const blocks: KnownBlock[] = [
    {
      type: 'section',
      text: mrkdwnText(`${STATUS_EMOJI[status]} *${runbookTitle(execution)}* ${STATUS_WORD[status]}`),
    },
    { type: 'section', fields },
  ];
  if (execution.reason) {
    blocks.push({ type: 'section', text: mrkdwnText(`*Reason*\n${escapeMrkdwn(truncate(execution.reason, 2800))}`) });
  }
  blocks.push({ type: 'section', text: mrkdwnText(`*Inputs*\n${inputsText(input.inputs)}`) });
  const noOutput = status === 'EXECUTION_STATUS_IN_PROGRESS' ? '_No output yet._' : '_No output._';
  blocks.push({
    type: 'section',
    text: mrkdwnText(`*Output*\n${execution.output ? codeBlock(execution.output, 2900) : noOutput}`),
  });
  blocks.push(...truncatedOutputNotice(execution));
  blocks.push({
    type: 'actions',
    block_id: 'execution_actions',
    elements: [
      ...(execution.output
        ? [
            button('Full output', ACTIONS.executionOutput, execution.id),
            button('Find in output', ACTIONS.executionFind, execution.id),
          ]
        : []),
      button('Re-run', ACTIONS.executionRerun, rerunValue(execution.id, input.runbookId)),
      button('Refresh', ACTIONS.executionRefresh, execution.id),
    ],
  });
  const name = execution.workflowName || 'Execution';
  return { text: escapeMrkdwn(truncate(`${name} ${STATUS_WORD[status]}`, 3000)), blocks };
}

/** What `/runbook status <id>` says when the API has no such execution. */
export function buildExecutionNotFound(executionId: string): SlackMessage {
  const sentence = `No execution has the id ${inlineCode(executionId, 120)}. Check the id in \`/runbook executions\`.`;
  return noticeMessage(`:mag: ${sentence}`, `No execution has the id ${truncate(executionId, 120)}.`);
}

// ---- full output modal ----

/** Code points per output block, fences included (a section's text may hold 3000). */
export const OUTPUT_CHUNK_SIZE = 2900;
/** Output blocks per modal (Slack allows 100 blocks; a few are kept for the header and notes). */
export const MAX_OUTPUT_CHUNKS = 30;

const FENCE_OPEN = '```\n';
const FENCE_CLOSE = '\n```';
const ZERO_WIDTH_SPACE = '\u200b';

/** Escapes one line for a ``` block and breaks any ``` run inside it so it cannot close the fence early. */
function renderCodeLine(line: string): string {
  return escapeCode(line).replace(/`{3,}/g, (run) => Array.from(run).join(ZERO_WIDTH_SPACE));
}

interface Piece {
  text: string;
  size: number;
  /** Index of the original line this piece belongs to. */
  line: number;
}

/** A rendered line cut into pieces of at most `max` code points, never inside an &amp; entity. */
function splitRendered(rendered: string, max: number, line: number): Piece[] {
  const size = codePointLength(rendered);
  if (size <= max) return [{ text: rendered, size, line }];
  const pieces: Piece[] = [];
  let text = '';
  let used = 0;
  for (const match of rendered.matchAll(/&(?:amp|lt|gt);|[\s\S]/gu)) {
    const token = match[0];
    const tokenSize = codePointLength(token);
    if (used + tokenSize > max) {
      pieces.push({ text, size: used, line });
      text = '';
      used = 0;
    }
    text += token;
    used += tokenSize;
  }
  if (used > 0) pieces.push({ text, size: used, line });
  return pieces;
}

export interface OutputChunks {
  /** Fenced code blocks, each ≤ OUTPUT_CHUNK_SIZE code points including the fences. */
  chunks: string[];
  totalLines: number;
  /** True when the beginning of the output was left out. */
  cut: boolean;
  /** Whole lines before the first chunk shown (0 when everything fits). */
  omittedLines: number;
  /** Characters (as rendered) left out at the beginning. */
  omittedChars: number;
}

/** Splits raw output into fenced blocks; when there are too many, the LAST ones are kept (the failure is at the end). */
export function chunkOutput(
  output: string,
  maxChunks = MAX_OUTPUT_CHUNKS,
  chunkSize = OUTPUT_CHUNK_SIZE,
): OutputChunks {
  const lines = output.replace(/\r\n?/g, '\n').replace(/\n+$/, '').split('\n');
  const budget = Math.max(1, chunkSize - codePointLength(FENCE_OPEN) - codePointLength(FENCE_CLOSE));
  const pieces = lines.flatMap((line, i) => splitRendered(renderCodeLine(line), budget, i));
  const packed: { pieces: Piece[]; size: number }[] = [];
  for (const piece of pieces) {
    const current = packed.at(-1);
    if (current && current.size + 1 + piece.size <= budget) {
      current.pieces.push(piece);
      current.size += 1 + piece.size;
    } else {
      packed.push({ pieces: [piece], size: piece.size });
    }
  }
  const dropped = Math.max(0, packed.length - Math.max(1, maxChunks));
  const kept = packed.slice(dropped);
  const firstPiece = kept[0]?.pieces[0];
  // A chunk that starts in the middle of a line shows that line only in part: count it as left out.
  let omittedLines = 0;
  if (dropped > 0 && firstPiece) {
    const startsMidLine = pieces[pieces.indexOf(firstPiece) - 1]?.line === firstPiece.line;
    omittedLines = firstPiece.line + (startsMidLine ? 1 : 0);
  }
  const omittedChars = packed.slice(0, dropped).reduce((sum, chunk) => sum + chunk.size, 0);
  const chunks = kept.map((chunk) => {
    const body = chunk.pieces.map((p) => p.text).join('\n');
    return FENCE_OPEN + (body.trim() === '' ? ' ' : body) + FENCE_CLOSE;
  });
  return { chunks, totalLines: lines.length, cut: dropped > 0, omittedLines, omittedChars };
}

/** The "Full output" modal: the whole output over several blocks, or its last part when it is very long. */
export function buildOutputModal(execution: Execution): ModalView {
  const status = execution.executionStatus;
  const blocks: KnownBlock[] = [
    {
      type: 'section',
      text: mrkdwnText(
        `${STATUS_EMOJI[status]} *${runbookTitle(execution)}* ${STATUS_WORD[status]}\nExecution ${inlineCode(execution.id, 200)}`,
      ),
    },
  ];
  if (!execution.output) {
    blocks.push({ type: 'section', text: mrkdwnText('_This execution has no output._') });
  } else {
    const { chunks, totalLines, cut, omittedLines, omittedChars } = chunkOutput(execution.output);
    if (cut) {
      const what =
        omittedLines === 0
          ? 'the beginning'
          : omittedLines === 1
            ? 'the first line'
            : `the first ${omittedLines} of ${totalLines} lines`;
      blocks.push({
        type: 'context',
        elements: [
          mrkdwnText(
            `:scissors: The output is too long to show whole, so this is its last part: ${what} (about ${omittedChars.toLocaleString('en-US')} characters) ${omittedLines === 1 || omittedLines === 0 ? 'is' : 'are'} left out.`,
          ),
        ],
      });
    }
    blocks.push(...truncatedOutputNotice(execution));
    for (const chunk of chunks) blocks.push({ type: 'section', text: mrkdwnText(chunk) });
  }
  return outputModalView(blocks);
}

/** The output modal's frame (title, Close) around `blocks`. */
export function outputModalView(blocks: KnownBlock[]): ModalView {
  return {
    type: 'modal',
    callback_id: VIEWS.output,
    title: plainText('Execution output', 24),
    close: plainText('Close', 24),
    blocks,
  };
}
