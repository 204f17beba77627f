// listMatching against an in-memory list that treats the filter as each kind of server does: the
// same rows come back whatever the server does with the hint, a 400 is paid once per process, and
// an answer read from pages the server did not narrow says when it was cut.
import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../../src/api/errors.ts';
import { FilterHints, filterShape, listMatching } from '../../../src/api/filter-hint.ts';
import type { Page } from '../../../src/api/runbook-api.ts';

type Mode = 'apply' | 'ignore' | 'plain-terms' | 'reject';
interface Row {
  id: string;
  name: string;
}

/** 1000 rows, newest first; every 7th is "Rotate Logs", every 50th "Rotate Logs Daily". */
const ROWS: Row[] = Array.from({ length: 1000 }, (_, i) => ({
  id: `e${String(i).padStart(4, '0')}`,
  name: i % 50 === 3 ? 'Rotate Logs Daily' : i % 7 === 0 ? 'Rotate Logs' : `Other ${i % 5}`,
}));

function server(mode: Mode, rows: Row[] = ROWS) {
  const calls: Array<{ filter?: string; pageSize: number; pageToken?: string }> = [];
  const list = async (q: { filter?: string; pageSize: number; pageToken?: string }): Promise<Page<Row>> => {
    calls.push(q);
    let selected = rows;
    if (q.filter) {
      if (mode === 'reject')
        throw new BadRequestError({ tid: 't', method: 'GET', path: '/x', message: 'filter: not supported' });
      const value = /^workflowName:(.*)$/.exec(q.filter)?.[1] ?? '';
      if (mode === 'apply') {
        const wanted = value.replace(/^"|"$/g, '').toLowerCase();
        selected = rows.filter((r) => r.name.toLowerCase().includes(wanted));
      } else if (mode === 'plain-terms') {
        // Quotes are part of the value: nothing is named with them.
        selected = rows.filter((r) => r.name.toLowerCase().includes(value.split(/\s+/)[0]!.toLowerCase()));
      }
    }
    const offset = Number(q.pageToken ?? '0');
    const end = offset + q.pageSize;
    return {
      items: selected.slice(offset, end),
      nextPageToken: end < selected.length ? String(end) : '',
      pageCount: Math.ceil(selected.length / q.pageSize),
      totalCount: selected.length,
      tid: 't',
    };
  };
  return { list, calls };
}

const isRotate = (r: Row) => r.name === 'Rotate Logs';
const expected = ROWS.filter(isRotate);

/** "Rotate Logs", ten rows a page where the server narrows, at most five requests. */
function ask(
  list: ReturnType<typeof server>['list'],
  hints: FilterHints,
  more: { filter?: string; cursor?: string; want?: number } = {},
) {
  return listMatching({
    list,
    filter: more.filter ?? 'workflowName:"Rotate Logs"',
    matches: isRotate,
    key: (r) => r.id,
    want: more.want ?? 10,
    cursor: more.cursor ?? '',
    maxPages: 5,
    narrowPageSize: 10,
    hints,
  });
}

describe.each<Mode>(['apply', 'ignore', 'plain-terms', 'reject'])('listMatching, server mode %s', (mode) => {
  it('returns exactly the matching rows, page after page, whatever the server does with the hint', async () => {
    const { list } = server(mode);
    const hints = new FilterHints();
    const seen: Row[] = [];
    let cursor = '';
    let cut = false;
    for (let round = 0; round < 40; round++) {
      const res = await ask(list, hints, { cursor });
      expect(res.items.every(isRotate)).toBe(true);
      seen.push(...res.items);
      cut ||= res.cut;
      cursor = res.next;
      if (!cursor) break;
    }
    expect(seen.map((r) => r.id)).toEqual(expected.map((r) => r.id));
    // 1000 rows in pages of 100 hold 10 matches per page: no page read ends without its 10 rows.
    expect(cut).toBe(false);
  });

  it('says when it stopped at the page bound on pages the server did not narrow', async () => {
    // Only the oldest row matches.
    const rows = ROWS.map((r, i) => ({ ...r, name: i === 999 ? 'Rotate Logs' : 'Other' }));
    const { list } = server(mode, rows);
    const res = await ask(list, new FilterHints());
    if (mode === 'apply') {
      expect(res.items.map((r) => r.id)).toEqual(['e0999']);
      expect(res.cut).toBe(false);
      expect(res.next).toBe('');
    } else {
      expect(res.items).toEqual([]);
      expect(res.cut).toBe(true);
      // Five requests, the first use's check included: four pages of 100 rows read.
      expect(res.rowsRead).toBe(400);
      expect(res.next).not.toBe('');
    }
  });
});

describe('what the process remembers', () => {
  it('pays a 400 once: the next request of that shape goes without the filter', async () => {
    const { list, calls } = server('reject');
    const hints = new FilterHints();
    await ask(list, hints);
    expect(calls.filter((c) => c.filter)).toHaveLength(1);
    const before = calls.length;
    const res = await ask(list, hints, { filter: 'workflowName:"Drain Node"' });
    expect(calls.slice(before).every((c) => !c.filter)).toBe(true);
    expect(hints.behaviourOf('workflowName:"Anything"')).toBe('rejected');
    expect(res.filtered).toBe(false);
  });

  it('does not take a 400 for a later page (an old cursor) as the server refusing the filter', async () => {
    const { list } = server('apply');
    const hints = new FilterHints();
    hints.learn('workflowName:"Rotate Logs"', 'narrows');
    const refusing: typeof list = async (q) => {
      if (q.pageToken === 'stale')
        throw new BadRequestError({ tid: 't', method: 'GET', path: '/x', message: 'pageToken: invalid' });
      return list(q);
    };
    const res = await ask(refusing, hints, { cursor: 'f10.0.stale' });
    expect(res.items.map((r) => r.id)).toEqual(expected.slice(0, 10).map((r) => r.id));
    expect(hints.behaviourOf('workflowName:"Rotate Logs"')).toBe('narrows');
  });

  it('starts again from the first page on a cursor asking for pages larger than it ever asks for', async () => {
    const { list, calls } = server('apply');
    const hints = new FilterHints();
    hints.learn('workflowName:"Rotate Logs"', 'narrows');
    const res = await ask(list, hints, { cursor: 'f999.0.500' });
    expect(calls[0]).toEqual({ filter: 'workflowName:"Rotate Logs"', pageSize: 10 });
    expect(calls.every((c) => c.pageSize === 10)).toBe(true);
    expect(res.items[0]?.id).toBe(expected[0]!.id);
  });

  it('trusts a filter that kept every matching row and only those: small pages, no second look', async () => {
    const { list, calls } = server(
      'apply',
      ROWS.map((r) => ({ ...r, name: r.name === 'Rotate Logs Daily' ? 'X' : r.name })),
    );
    const hints = new FilterHints();
    const first = await ask(list, hints);
    expect(hints.behaviourOf('workflowName:"Rotate Logs"')).toBe('narrows');
    expect(first.exactPage).not.toBeNull();
    const before = calls.length;
    const second = await ask(list, hints);
    expect(calls.slice(before)).toEqual([{ filter: 'workflowName:"Rotate Logs"', pageSize: 10 }]);
    expect(second.exactPage?.totalCount).toBe(expected.length);
  });

  it('stops sending a shape whose answer left out matching rows', async () => {
    const { list, calls } = server('plain-terms');
    const hints = new FilterHints();
    await ask(list, hints, { want: 3 });
    expect(hints.behaviourOf('workflowName:"Rotate Logs"')).toBe('drops-rows');
    const before = calls.length;
    const res = await ask(list, hints, { want: 3 });
    expect(calls.slice(before).every((c) => !c.filter)).toBe(true);
    expect(res.items.map((r) => r.id)).toEqual(expected.slice(0, 3).map((r) => r.id));
    expect(res.exactPage).toBeNull();
  });

  it('knows shapes apart by field names and quoting, not values', () => {
    expect(filterShape('workflowName:"Rotate Logs" status:failed')).toBe(filterShape('workflowName:"A"  status:ok'));
    expect(filterShape('workflowName:Cleanup')).not.toBe(filterShape('workflowName:"Cleanup"'));
  });
});
