import type { KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import type { Execution } from '../../../../src/api/schemas.ts';
import {
  buildExecutionList,
  decodeExecutionsQuery,
  type ExecutionListInput,
  type ExecutionsQuery,
  encodeExecutionsQuery,
  nextQuery,
  previousQuery,
  summarizeStatusTable,
} from '../../../../src/slack/executions/execution-list.ts';
import { ACTIONS } from '../../../../src/slack/kit/ids.ts';
import { assertWithinLimits } from '../../../../src/slack/kit/limits.ts';

function execution(overrides: Partial<Execution> = {}): Execution {
  return {
    id: '3f2b9c1e-0d4a-4c1b-9a57-8f1e2d3c4b5a',
    workflowName: 'Restart Pod',
    createTime: '2026-03-01T10:00:00Z',
    startTime: '2026-03-01T10:00:05Z',
    endTime: '2026-03-01T10:03:17Z',
    duration: '',
    version: '1.0.0',
    executionStatus: 'EXECUTION_STATUS_SUCCEEDED',
    inputs: '{}',
    output: '',
    executor: 'alice@example.com',
    approver: '',
    reason: '',
    executionType: 'EXECUTION_TYPE_RUNBOOK',
    ...overrides,
  };
}

const firstPage: ExecutionsQuery = { runbookQuery: null, status: null, last: null, tokens: [] };

function input(overrides: Partial<ExecutionListInput> = {}): ExecutionListInput {
  return {
    page: { items: [execution()], nextPageToken: '', pageCount: 1, statusTable: {} },
    query: firstPage,
    runbookName: null,
    ...overrides,
  };
}

/** Every mrkdwn/plain text in the blocks, joined, to search in. */
function allText(blocks: KnownBlock[]): string {
  const texts: string[] = [];
  const walk = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') {
      const obj = value as Record<string, unknown>;
      if ((obj.type === 'mrkdwn' || obj.type === 'plain_text') && typeof obj.text === 'string') texts.push(obj.text);
      Object.values(obj).forEach(walk);
    }
  };
  walk(blocks);
  return texts.join('\n');
}

interface ButtonLike {
  type: string;
  action_id?: string;
  value?: string;
  text?: { text: string };
}

function pagingButtons(blocks: KnownBlock[]): ButtonLike[] {
  const actions = blocks.find((b) => b.type === 'actions') as { elements: ButtonLike[] } | undefined;
  return actions?.elements ?? [];
}

function pagingButton(blocks: KnownBlock[], suffix: 'next' | 'prev'): ButtonLike | undefined {
  return pagingButtons(blocks).find((b) => b.action_id === `${ACTIONS.executionsPage}_${suffix}`);
}

describe('buildExecutionList', () => {
  it('shows one row per execution with status, name, executor, start, duration, type, id and a Details button', () => {
    const message = buildExecutionList(input());
    assertWithinLimits(message, 'message');
    const row = message.blocks.find((b) => b.type === 'section' && 'accessory' in b) as {
      text: { text: string };
      accessory: ButtonLike;
    };
    expect(row.text.text).toContain(':white_check_mark: *Restart Pod*');
    expect(row.text.text).toContain('runbook');
    expect(row.text.text).toContain('alice@example.com');
    expect(row.text.text).toContain('<!date^1772359205^');
    expect(row.text.text).toContain('3m 12s');
    expect(row.text.text).toContain('`3f2b9c1e-0d4a-4c1b-9a57-8f1e2d3c4b5a`');
    expect(row.accessory).toMatchObject({
      type: 'button',
      action_id: ACTIONS.executionStatus,
      value: '3f2b9c1e-0d4a-4c1b-9a57-8f1e2d3c4b5a',
    });
  });

  it('escapes names and executors from the API so they cannot ping or link', () => {
    const message = buildExecutionList(
      input({
        page: {
          items: [execution({ workflowName: '<!channel> & co', executor: '<@U123|boss> <http://evil|x>' })],
          nextPageToken: '',
          pageCount: 1,
          statusTable: {},
        },
        runbookName: '<!channel> & co',
      }),
    );
    assertWithinLimits(message, 'message');
    const mrkdwn = message.blocks
      .flatMap((b) => {
        if (b.type === 'section') return [b.text?.text ?? ''];
        if (b.type === 'context') return b.elements.map((e) => ('text' in e ? e.text : ''));
        return [];
      })
      .join('\n');
    expect(mrkdwn).toContain('*&lt;!channel&gt; &amp; co*');
    expect(mrkdwn).toContain('&lt;@U123|boss&gt; &lt;http://evil|x&gt;');
    expect(mrkdwn).not.toContain('<!channel>');
    expect(mrkdwn).not.toContain('<@U123');
    expect(mrkdwn).not.toContain('<http');
  });

  it('marks failed, running and action executions, and counts a running one up to now', () => {
    const message = buildExecutionList(
      input({
        page: {
          items: [
            execution({ id: 'a', executionStatus: 'EXECUTION_STATUS_FAILED' }),
            execution({
              id: 'b',
              executionStatus: 'EXECUTION_STATUS_IN_PROGRESS',
              endTime: null,
              executionType: 'EXECUTION_TYPE_ACTION',
            }),
          ],
          nextPageToken: '',
          pageCount: 1,
          statusTable: {},
        },
        nowMs: Date.parse('2026-03-01T10:01:05Z'),
      }),
    );
    const text = allText(message.blocks);
    expect(text).toContain(':x: *Restart Pod* · runbook · failed');
    expect(text).toContain(':hourglass_flowing_sand: *Restart Pod* · action · running');
    expect(text).toContain('running for 1m');
  });

  it('summarises the status table and the filters in the context line', () => {
    const message = buildExecutionList(
      input({
        page: {
          items: [execution()],
          nextPageToken: 'tok2',
          pageCount: 4,
          statusTable: {
            EXECUTION_STATUS_SUCCEEDED: 12,
            EXECUTION_STATUS_FAILED: 3,
            EXECUTION_STATUS_IN_PROGRESS: 1,
            EXECUTION_STATUS_UNSPECIFIED: 0,
          },
        },
        query: { ...firstPage, runbookQuery: 'restart', status: 'failed', last: 'month' },
        runbookName: 'Restart Pod',
      }),
    );
    const context = message.blocks.find((b) => b.type === 'context') as { elements: { text: string }[] };
    expect(context.elements[0]!.text).toBe(
      ':white_check_mark: 12 succeeded · :x: 3 failed · :hourglass_flowing_sand: 1 running · runbook *Restart Pod* · status *failed* · last month · page 1 of 4',
    );
    expect(message.blocks[0]).toMatchObject({ type: 'header', text: { text: 'Executions of Restart Pod' } });
  });

  it('offers only Next on the first page, both in the middle, only Previous on the last, none on a single page', () => {
    const page = (nextPageToken: string) => ({ items: [execution()], nextPageToken, pageCount: 3, statusTable: {} });

    const first = buildExecutionList(input({ page: page('t2') }));
    expect(pagingButtons(first.blocks).map((b) => b.text?.text)).toEqual(['Next']);

    const middle = buildExecutionList(input({ page: page('t3'), query: { ...firstPage, tokens: ['t2'] } }));
    expect(pagingButtons(middle.blocks).map((b) => b.text?.text)).toEqual(['Previous', 'Next']);

    const last = buildExecutionList(input({ page: page(''), query: { ...firstPage, tokens: ['t2', 't3'] } }));
    expect(pagingButtons(last.blocks).map((b) => b.text?.text)).toEqual(['Previous']);

    const single = buildExecutionList(input());
    expect(single.blocks.some((b) => b.type === 'actions' && b.block_id === 'executions_paging')).toBe(false);

    for (const message of [first, middle, last, single]) assertWithinLimits(message, 'message');
  });

  it('carries the query state and token stack in the paging values, with the resolved name', () => {
    const message = buildExecutionList(
      input({
        page: { items: [execution()], nextPageToken: 't3', pageCount: 3, statusTable: {} },
        query: { runbookQuery: 'restart', status: 'running', last: 'year', tokens: ['t2'] },
        runbookName: 'Restart Pod',
      }),
    );
    const next = decodeExecutionsQuery(pagingButton(message.blocks, 'next')?.value);
    expect(next).toEqual({
      runbookQuery: 'Restart Pod',
      runbookName: 'Restart Pod',
      status: 'running',
      last: 'year',
      tokens: ['t2', 't3'],
    });
    const previous = decodeExecutionsQuery(pagingButton(message.blocks, 'prev')?.value);
    expect(previous.tokens).toEqual([]);
    expect(previous.runbookName).toBe('Restart Pod');
  });

  it('keeps paging values under 2000 characters by dropping old tokens, and then drops Previous where it would lie', () => {
    const longToken = (i: number) => `${i}:${'x'.repeat(400)}`;
    let query: ExecutionsQuery = { ...firstPage };
    let cutSeen = false;
    for (let i = 0; i < 12; i++) {
      const message = buildExecutionList(
        input({ page: { items: [execution()], nextPageToken: longToken(i), pageCount: 0, statusTable: {} }, query }),
      );
      assertWithinLimits(message, 'message');
      for (const b of pagingButtons(message.blocks)) expect(b.value!.length).toBeLessThanOrEqual(2000);
      const next = pagingButton(message.blocks, 'next');
      expect(next).toBeDefined();
      query = decodeExecutionsQuery(next!.value);
      expect(query.tokens.at(-1)).toBe(longToken(i));
      if (query.historyCut) cutSeen = true;
    }
    expect(cutSeen).toBe(true);
    expect(query.tokens.length).toBeGreaterThan(1);
    // Walk back with Previous until it disappears: it must stop before pretending the first page is the previous one.
    let steps = 0;
    for (;;) {
      const message = buildExecutionList(
        input({ page: { items: [execution()], nextPageToken: 'more', pageCount: 0, statusTable: {} }, query }),
      );
      const prev = pagingButton(message.blocks, 'prev');
      if (!prev) break;
      query = decodeExecutionsQuery(prev.value);
      steps++;
    }
    expect(query.tokens).toHaveLength(1);
    expect(steps).toBeGreaterThan(0);
  });

  it('says so in a friendly sentence when nothing matches', () => {
    const message = buildExecutionList(
      input({
        page: { items: [], nextPageToken: '', pageCount: 0, statusTable: {} },
        query: { ...firstPage, status: 'failed', last: 'month' },
        runbookName: 'Restart <Pod>',
      }),
    );
    assertWithinLimits(message, 'message');
    expect(allText(message.blocks)).toContain(
      ':mag: No executions of *Restart &lt;Pod&gt;* that failed in the last month. Pick *All* to see every status; type the command without `--last` to see all time.',
    );
    expect(message.blocks.some((b) => b.type === 'actions' && b.block_id === 'executions_paging')).toBe(false);
  });

  it('an empty filter picked with a button names the button, never a flag nobody typed', () => {
    const message = buildExecutionList(
      input({
        page: { items: [], nextPageToken: '', pageCount: 0, statusTable: {} },
        query: { ...firstPage, status: 'running', mine: true },
        runbookName: null,
      }),
    );
    const text = allText(message.blocks);
    expect(text).toContain(
      ':mag: No executions of yours that are running. Pick *All* to see every status; pick *Everyone’s runs* to see all.',
    );
    expect(text).not.toContain('--status');
  });

  it('says when "only mine" looked at the latest runs only', () => {
    const message = buildExecutionList(
      input({
        page: { items: [execution()], nextPageToken: '', pageCount: 1, statusTable: { EXECUTION_STATUS_SUCCEEDED: 1 } },
        query: { ...firstPage, mine: true },
        runbookName: null,
        scannedLatest: 1000,
      }),
    );
    expect(allText(message.blocks)).toContain('*only yours* · all time · among the latest 1,000 runs · page 1');
  });

  it('shows at most 10 rows and stays within Block Kit limits with long values everywhere', () => {
    const long = 'ü'.repeat(5000);
    const items = Array.from({ length: 12 }, (_, i) =>
      execution({ id: `${i}-${long}`, workflowName: long, executor: long, duration: long, endTime: null }),
    );
    const message = buildExecutionList(
      input({
        page: { items, nextPageToken: long, pageCount: 99, statusTable: { [long]: 5 } },
        query: { runbookQuery: long, status: 'succeeded', last: 'year', tokens: [long] },
        runbookName: long,
      }),
    );
    assertWithinLimits(message, 'message');
    expect(message.blocks.filter((b) => b.type === 'section' && 'accessory' in b)).toHaveLength(10);
  });
});

describe('summarizeStatusTable', () => {
  it('reads enum and short keys, skips zeros, and groups unknown statuses', () => {
    expect(summarizeStatusTable({ SUCCEEDED: 2, failed: 0, RUNNING: 1, EXECUTION_STATUS_UNSPECIFIED: 4 })).toBe(
      ':white_check_mark: 2 succeeded · :hourglass_flowing_sand: 1 running · :grey_question: 4 other',
    );
    expect(summarizeStatusTable({})).toBe('');
  });
});

describe('execution query values', () => {
  it('round-trips through a button value', () => {
    const query: ExecutionsQuery = {
      runbookQuery: 'restart',
      status: 'failed',
      last: 'month',
      tokens: ['a', 'b'],
    };
    expect(decodeExecutionsQuery(encodeExecutionsQuery(query))).toEqual(query);
  });

  it('reads garbage as the first page of everything', () => {
    const empty = { runbookQuery: null, status: null, last: null, tokens: [] };
    expect(decodeExecutionsQuery('not json')).toEqual(empty);
    expect(decodeExecutionsQuery('[1]')).toEqual(empty);
    expect(decodeExecutionsQuery('{"s":"exploded","l":"week","t":[1,"x"]}')).toEqual({ ...empty, tokens: ['x'] });
  });

  it('has no Previous on the first page and no Next when even one token cannot fit', () => {
    expect(previousQuery(firstPage)).toBeNull();
    expect(nextQuery(firstPage, 'x'.repeat(2500))).toBeNull();
  });
});

describe('filter controls', () => {
  it('offer status and "mine" filters that restart from the first page, the current one highlighted', () => {
    const message = buildExecutionList(
      input({ query: { runbookQuery: null, status: 'failed', last: null, tokens: ['t1'], mine: true } }),
    );
    const filters = message.blocks.find((b) => b.type === 'actions' && b.block_id === 'executions_filters') as {
      elements: Array<{ action_id: string; value: string; style?: string; text: { text: string } }>;
    };
    expect(filters.elements.map((e) => e.text.text)).toEqual([
      'All',
      'Succeeded',
      'Failed',
      'Running',
      'Everyone’s runs',
    ]);
    expect(filters.elements.filter((e) => e.style === 'primary').map((e) => e.text.text)).toEqual([
      'Failed',
      'Everyone’s runs',
    ]);
    const succeeded = decodeExecutionsQuery(filters.elements[1]!.value);
    expect(succeeded).toMatchObject({ status: 'succeeded', mine: true, tokens: [] });
    expect(decodeExecutionsQuery(filters.elements[4]!.value).mine).toBeUndefined();
    expect(allText(message.blocks)).toContain('*only yours*');
    for (const e of filters.elements) expect(e.action_id.startsWith('executions_page_')).toBe(true);
    assertWithinLimits(message, 'message');
  });
});
