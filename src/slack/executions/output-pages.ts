// The whole output, kept reachable: "Full output" pages through it (it opens on the last page, where
// a failure usually is), and "Find in output" shows the lines that contain a search text, with their
// line numbers. Pure; the listeners fetch the execution and call these.

import type { KnownBlock, ModalView } from '@slack/types';
import type { Execution } from '../../api/schemas.ts';
import { button } from '../kit/common.ts';
import { STATUS_EMOJI, STATUS_WORD, truncatedOutputNotice } from '../kit/execution-card.ts';
import { chunkOutput, outputModalView } from '../kit/execution-status.ts';
import { ACTIONS, VIEWS } from '../kit/ids.ts';
import { escapeMrkdwn, inlineCode, mrkdwnText, plainText, truncate } from '../kit/mrkdwn.ts';

/** Output blocks per page (a modal holds 100 blocks and 250 kB; this keeps well inside both). */
export const OUTPUT_PAGE_CHUNKS = 10;
/** Matching lines shown by Find. */
export const MAX_FIND_MATCHES = 100;
/** A matching line longer than this is cut (100 × 250 fits the modal many times over). */
const MAX_FIND_LINE = 250;
export const FIND_BLOCK = 'meta_find';
export const FIND_ACTION = 'find_text';

function header(execution: Execution): KnownBlock {
  const status = execution.executionStatus;
  return {
    type: 'section',
    text: mrkdwnText(
      `${STATUS_EMOJI[status]} *${escapeMrkdwn(truncate(execution.workflowName || 'Runbook', 150))}* ${STATUS_WORD[status]}\nExecution ${inlineCode(execution.id, 200)}`,
    ),
  };
}

export function encodeOutputPage(executionId: string, page: number): string {
  return JSON.stringify({ e: executionId, p: page });
}

export function decodeOutputPage(value: string | undefined): { executionId: string; page: number } | null {
  try {
    const v = JSON.parse(value ?? '') as { e?: unknown; p?: unknown };
    if (typeof v.e !== 'string' || typeof v.p !== 'number' || !Number.isInteger(v.p)) return null;
    return { executionId: v.e, page: v.p };
  } catch {
    return null;
  }
}

/** One page of the whole output; `page` null = the last page. Page numbers are 0-based, shown 1-based. */
export function buildOutputPage(execution: Execution, page: number | null = null): ModalView {
  // An output cut at RUNBOOK_API_MAX_BODY_BYTES says so on every page, with where to get all of it.
  const blocks: KnownBlock[] = [header(execution), ...truncatedOutputNotice(execution)];
  const all = execution.output ? chunkOutput(execution.output, Number.POSITIVE_INFINITY).chunks : [];
  const pages = Math.max(1, Math.ceil(all.length / OUTPUT_PAGE_CHUNKS));
  const current = Math.min(pages - 1, Math.max(0, page ?? pages - 1));
  if (all.length === 0) {
    blocks.push({ type: 'section', text: mrkdwnText('_This execution has no output._') });
  } else {
    const lines = execution.output.replace(/\n+$/, '').split('\n').length;
    blocks.push({
      type: 'context',
      elements: [
        mrkdwnText(
          `Page ${current + 1} of ${pages} · ${lines.toLocaleString('en-US')} lines in all${pages > 1 ? ' · *Find in output* searches all of it' : ''}`,
        ),
      ],
    });
    for (const chunk of all.slice(current * OUTPUT_PAGE_CHUNKS, (current + 1) * OUTPUT_PAGE_CHUNKS)) {
      blocks.push({ type: 'section', text: mrkdwnText(chunk) });
    }
    const nav = [
      ...(current > 0
        ? [button('Previous', `${ACTIONS.outputPage}_prev`, encodeOutputPage(execution.id, current - 1))]
        : []),
      ...(current < pages - 1
        ? [button('Next', `${ACTIONS.outputPage}_next`, encodeOutputPage(execution.id, current + 1))]
        : []),
      ...(current !== 0
        ? [button('First page', `${ACTIONS.outputPage}_first`, encodeOutputPage(execution.id, 0))]
        : []),
    ];
    if (nav.length > 0) blocks.push({ type: 'actions', block_id: 'output_paging', elements: nav });
  }
  return outputModalView(blocks);
}

/** The Find form; with `results`, what the last search found is shown under it. */
export function buildFindModal(executionId: string, results: KnownBlock[] = [], query = ''): ModalView {
  return {
    type: 'modal',
    callback_id: VIEWS.outputFind,
    private_metadata: executionId,
    title: plainText('Find in output', 24),
    submit: plainText('Find', 24),
    close: plainText('Close', 24),
    blocks: [
      {
        type: 'input',
        block_id: FIND_BLOCK,
        label: plainText('Lines containing', 2000),
        element: {
          type: 'plain_text_input',
          action_id: FIND_ACTION,
          max_length: 200,
          ...(query ? { initial_value: query } : {}),
          placeholder: plainText('e.g. ERROR, 500, pod name', 150),
        },
      },
      ...results,
    ],
  };
}

/** The lines of the output containing `query` (case-insensitive), numbered, as blocks for the Find modal. */
export function findInOutput(execution: Execution, query: string): KnownBlock[] {
  const needle = query.trim().toLowerCase();
  const lines = (execution.output ?? '').replace(/\r\n?/g, '\n').replace(/\n+$/, '').split('\n');
  const matches: string[] = [];
  let total = 0;
  for (const [i, line] of lines.entries()) {
    if (needle === '' || !line.toLowerCase().includes(needle)) continue;
    total++;
    if (matches.length < MAX_FIND_MATCHES)
      matches.push(`${String(i + 1).padStart(5)}: ${truncate(line, MAX_FIND_LINE)}`);
  }
  const blocks: KnownBlock[] = [header(execution)];
  if (total === 0) {
    blocks.push({
      type: 'section',
      text: mrkdwnText(`:mag: No line of the output contains ${inlineCode(query.trim() || ' ', 200)}.`),
    });
    return blocks;
  }
  const shown = chunkOutput(matches.join('\n'), Number.POSITIVE_INFINITY);
  blocks.push({
    type: 'context',
    elements: [
      mrkdwnText(
        `${total.toLocaleString('en-US')} ${total === 1 ? 'line contains' : 'lines contain'} ${inlineCode(query.trim(), 200)}${total > matches.length ? ` (the first ${matches.length} are shown)` : ''}.`,
      ),
    ],
  });
  for (const chunk of shown.chunks) blocks.push({ type: 'section', text: mrkdwnText(chunk) });
  return blocks;
}
