// The paged executions list (/runbook executions): a header, one summary line (status counts and
// filters), one row per execution with a Details button, and Previous/Next. The whole query state
// rides in the paging buttons' values, so paging needs no server-side session.
import type { Button, KnownBlock } from '@slack/types';
import type { ExecutionPage } from '../../api/runbook-api.ts';
import type { Execution } from '../../api/schemas.ts';
import { button, type SlackMessage, when } from '../kit/common.ts';
import { STATUS_EMOJI, STATUS_WORD } from '../kit/execution-card.ts';
import { executionDuration, executionTypeWord } from '../kit/execution-status.ts';
import { ACTIONS } from '../kit/ids.ts';
import { escapeMrkdwn, inlineCode, mrkdwnText, plainText, truncate } from '../kit/mrkdwn.ts';
import { emailPerson, type PeopleByEmail, personText } from '../kit/people.ts';

export const EXECUTIONS_PAGE_SIZE = 10;

export type ExecutionStatusFilter = 'succeeded' | 'failed' | 'running';
export type ExecutionPeriod = 'month' | 'year';

/** What `/runbook executions` asked for, and where in the pages we are. */
export interface ExecutionsQuery {
  /** The `[runbook]` argument as typed (an id or a name), or null for all runbooks. */
  runbookQuery: string | null;
  status: ExecutionStatusFilter | null;
  last: ExecutionPeriod | null;
  /** Only runs the person started (the executor is their email). */
  mine?: boolean;
  /**
   * The page tokens that led to the current page, oldest first: the last one fetched it, so
   * Previous drops one and Next pushes the response's nextPageToken. [] = the first page.
   */
  tokens: string[];
  /** The resolved runbook name, set once resolved so paging does not resolve again. */
  runbookName?: string;
  /** The oldest tokens were dropped to keep a button value under Slack's 2000 characters. */
  historyCut?: boolean;
}

/** Slack's limit on a button value. */
const MAX_VALUE = 2000;

/** Query state → button value (short keys; the typed query is dropped once the name is resolved). */
export function encodeExecutionsQuery(query: ExecutionsQuery): string {
  return JSON.stringify({
    ...(query.runbookName ? { n: query.runbookName } : query.runbookQuery ? { q: query.runbookQuery } : {}),
    ...(query.status ? { s: query.status } : {}),
    ...(query.last ? { l: query.last } : {}),
    ...(query.mine ? { m: 1 } : {}),
    t: query.tokens,
    ...(query.historyCut ? { c: 1 } : {}),
  });
}

/** Button value → query state; anything malformed reads as "the first page of everything". */
export function decodeExecutionsQuery(value: string | undefined): ExecutionsQuery {
  const query: ExecutionsQuery = { runbookQuery: null, status: null, last: null, tokens: [] };
  let v: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(value ?? '');
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return query;
    v = parsed as Record<string, unknown>;
  } catch {
    return query;
  }
  if (typeof v.n === 'string' && v.n !== '') {
    query.runbookName = v.n;
    query.runbookQuery = v.n;
  } else if (typeof v.q === 'string' && v.q !== '') {
    query.runbookQuery = v.q;
  }
  if (v.s === 'succeeded' || v.s === 'failed' || v.s === 'running') query.status = v.s;
  if (v.l === 'month' || v.l === 'year') query.last = v.l;
  if (v.m === 1) query.mine = true;
  if (Array.isArray(v.t)) query.tokens = v.t.filter((t): t is string => typeof t === 'string');
  if (v.c === 1) query.historyCut = true;
  return query;
}

/** The Next button's query, keeping as much Previous history as fits in a button value; null if nothing fits. */
export function nextQuery(query: ExecutionsQuery, nextPageToken: string): ExecutionsQuery | null {
  const tokens = [...query.tokens, nextPageToken];
  let next: ExecutionsQuery = { ...query, tokens };
  if (encodeExecutionsQuery(next).length <= MAX_VALUE) return next;
  // Drop the oldest tokens: Previous then works back as far as the kept ones reach.
  for (let drop = 1; drop < tokens.length; drop++) {
    next = { ...query, tokens: tokens.slice(drop), historyCut: true };
    if (encodeExecutionsQuery(next).length <= MAX_VALUE) return next;
  }
  return null;
}

/** The Previous button's query, or null on the first page or where the history was cut. */
export function previousQuery(query: ExecutionsQuery): ExecutionsQuery | null {
  if (query.tokens.length === 0) return null;
  // With a cut history, an empty stack would mean "first page", which is not the page before.
  if (query.historyCut && query.tokens.length === 1) return null;
  const previous = { ...query, tokens: query.tokens.slice(0, -1) };
  return encodeExecutionsQuery(previous).length <= MAX_VALUE ? previous : null;
}

/** Status-table keys may be the enum names or short forms; both are read, case-insensitively. */
function statusKey(key: string): 'succeeded' | 'failed' | 'running' | 'other' {
  const k = key.toUpperCase().replace(/^EXECUTION_STATUS_/, '');
  if (k === 'SUCCEEDED' || k === 'SUCCESS') return 'succeeded';
  if (k === 'FAILED' || k === 'FAILURE') return 'failed';
  if (k === 'IN_PROGRESS' || k === 'RUNNING') return 'running';
  return 'other';
}

/** ":white_check_mark: 12 succeeded · :x: 3 failed · :hourglass_flowing_sand: 1 running"; "" when all are 0. */
export function summarizeStatusTable(statusTable: Record<string, number>): string {
  const totals = { succeeded: 0, failed: 0, running: 0, other: 0 };
  for (const [key, count] of Object.entries(statusTable)) {
    if (Number.isFinite(count) && count > 0) totals[statusKey(key)] += count;
  }
  const parts: string[] = [];
  if (totals.succeeded) parts.push(`${STATUS_EMOJI.EXECUTION_STATUS_SUCCEEDED} ${totals.succeeded} succeeded`);
  if (totals.failed) parts.push(`${STATUS_EMOJI.EXECUTION_STATUS_FAILED} ${totals.failed} failed`);
  if (totals.running) parts.push(`${STATUS_EMOJI.EXECUTION_STATUS_IN_PROGRESS} ${totals.running} running`);
  if (totals.other) parts.push(`${STATUS_EMOJI.unknown} ${totals.other} other`);
  return parts.join(' · ');
}

function describeFilters(query: ExecutionsQuery, runbookName: string | null): string[] {
  const parts: string[] = [];
  if (runbookName) parts.push(`runbook *${escapeMrkdwn(truncate(runbookName, 150))}*`);
  if (query.status) parts.push(`status *${query.status}*`);
  if (query.mine) parts.push('*only yours*');
  parts.push(query.last ? `last ${query.last}` : 'all time');
  return parts;
}

function executionRow(execution: Execution, nowMs: number | undefined, people?: PeopleByEmail): KnownBlock {
  const status = execution.executionStatus;
  const name = execution.workflowName ? escapeMrkdwn(truncate(execution.workflowName, 150)) : '_unnamed runbook_';
  const type = executionTypeWord(execution.executionType);
  const who = execution.executor ? personText(emailPerson(execution.executor, people)) : '_unknown_';
  const lines = [
    `${STATUS_EMOJI[status]} *${name}*${type ? ` · ${type}` : ''} · ${STATUS_WORD[status]}`,
    `by ${who} · started ${when(execution.startTime ?? execution.createTime, '—')} · ${executionDuration(execution, nowMs)}`,
    inlineCode(execution.id, 200),
  ];
  return {
    type: 'section',
    text: mrkdwnText(lines.join('\n')),
    accessory: button('Details', ACTIONS.executionStatus, execution.id),
  };
}

function emptySentence(query: ExecutionsQuery, runbookName: string | null, morePages: boolean): string {
  if (morePages) return ':mag: Nothing to show on this page. Use *Next* to look further.';
  if (query.tokens.length > 0) return ':mag: No more executions. Use *Previous* to go back.';
  const of = runbookName ? ` of *${escapeMrkdwn(truncate(runbookName, 150))}*` : '';
  const yours = query.mine ? ' of yours' : '';
  const status = query.status ? ` that ${query.status === 'running' ? 'are running' : query.status}` : '';
  const period = query.last ? ` in the last ${query.last}` : '';
  // The status and "only mine" filters are buttons here (also when typed), so the hint names the button;
  // only --last exists as a typed flag alone.
  const hints = [
    ...(query.status ? ['pick *All* to see every status'] : []),
    ...(query.mine ? ['pick *Everyone’s runs* to see all'] : []),
    ...(query.last ? ['type the command without `--last` to see all time'] : []),
  ];
  const hint = hints.length
    ? ` ${hints.join('; ').replace(/^./, (c) => c.toUpperCase())}.`
    : ' Runs started with `/runbook run` show up here.';
  return `:mag: No executions${yours}${of}${status}${period}.${hint}`;
}

const STATUS_CHOICES: Array<[ExecutionStatusFilter | null, string]> = [
  [null, 'All'],
  ['succeeded', 'Succeeded'],
  ['failed', 'Failed'],
  ['running', 'Running'],
];

/**
 * Status and "mine" filters as buttons (a button value carries the whole query; a select option's
 * 150 characters would not). Changing a filter starts again from the first page. They share the paging
 * action prefix, so the same listener serves them.
 */
function filterControls(query: ExecutionsQuery): KnownBlock {
  const first = (q: ExecutionsQuery) => encodeExecutionsQuery({ ...q, tokens: [], historyCut: false });
  const status = STATUS_CHOICES.map(([value, label]) =>
    button(
      label,
      `${ACTIONS.executionsPage}_status_${value ?? 'all'}`,
      first({ ...query, status: value }),
      query.status === value ? { style: 'primary' } : {},
    ),
  );
  const mine = button(
    query.mine ? 'Everyone’s runs' : 'Only mine',
    `${ACTIONS.executionsPage}_mine`,
    first({ ...query, mine: !query.mine }),
    query.mine ? { style: 'primary' } : {},
  );
  return { type: 'actions', block_id: 'executions_filters', elements: [...status, mine] };
}

export interface ExecutionListInput {
  page: Pick<ExecutionPage, 'items' | 'nextPageToken' | 'pageCount' | 'statusTable'>;
  query: ExecutionsQuery;
  /** The resolved runbook name when the list is filtered to one runbook. */
  runbookName: string | null;
  /** Epoch ms, for "running for …". */
  nowMs?: number;
  /** Executors Slack knows by email, shown as mentions. */
  people?: PeopleByEmail;
  /** "Only mine" read only this many of the latest executions (there were more). */
  scannedLatest?: number;
  /**
   * Executions read from pages the API did not narrow when the reading stopped at its bound (the
   * matches shown may not be all): said under the rows. null/absent: the answer is complete.
   */
  searched?: number | null;
}

/** "Showing matches among the 500 most recent executions." (later pages: "500 more"). */
export function searchedNote(searched: number, laterPage: boolean): string {
  const among = laterPage ? `${searched} more executions` : `the ${searched} most recent executions`;
  return `:information_source: Showing matches among ${among}; the Runbook API did not narrow the list. *Next* looks further.`;
}

export function buildExecutionList(input: ExecutionListInput): SlackMessage {
  const { page, query, runbookName } = input;
  const pageNumber = query.tokens.length + 1;
  const blocks: KnownBlock[] = [
    {
      type: 'header',
      text: plainText(runbookName ? `Executions of ${runbookName}` : 'Executions', 150),
    },
  ];
  const summary = summarizeStatusTable(page.statusTable);
  const pageLabel =
    page.pageCount > 1 && !query.historyCut ? `page ${pageNumber} of ${page.pageCount}` : `page ${pageNumber}`;
  const scanned = input.scannedLatest ? [`among the latest ${input.scannedLatest.toLocaleString('en-US')} runs`] : [];
  const context = [...(summary ? [summary] : []), ...describeFilters(query, runbookName), ...scanned, pageLabel];
  blocks.push({ type: 'context', elements: [mrkdwnText(context.join(' · '))] });

  const rows = page.items.slice(0, EXECUTIONS_PAGE_SIZE);
  if (rows.length === 0) {
    blocks.push({ type: 'section', text: mrkdwnText(emptySentence(query, runbookName, page.nextPageToken !== '')) });
  } else {
    for (const execution of rows) blocks.push(executionRow(execution, input.nowMs, input.people));
  }
  if (input.searched) {
    blocks.push({ type: 'context', elements: [mrkdwnText(searchedNote(input.searched, query.tokens.length > 0))] });
  }

  // Paging carries the resolved name so the next page does not resolve the typed query again.
  const state: ExecutionsQuery = runbookName ? { ...query, runbookName } : query;
  const paging: Button[] = [];
  const previous = previousQuery(state);
  if (previous) paging.push(button('Previous', `${ACTIONS.executionsPage}_prev`, encodeExecutionsQuery(previous)));
  const next = page.nextPageToken ? nextQuery(state, page.nextPageToken) : null;
  if (next) paging.push(button('Next', `${ACTIONS.executionsPage}_next`, encodeExecutionsQuery(next)));
  if (paging.length > 0) blocks.push({ type: 'actions', block_id: 'executions_paging', elements: paging });
  blocks.push(filterControls(state));

  const title = runbookName ? `Executions of ${runbookName}` : 'Executions';
  const among = input.searched ? ` among ${input.searched} read` : '';
  return { text: escapeMrkdwn(truncate(`${title}: ${rows.length} shown${among}`, 3000)), blocks };
}
