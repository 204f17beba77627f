// A list `filter` is a hint, never a promise. The contract does not publish the grammar, so a server
// may apply it, ignore it (every row comes back), read it as plain terms (`workflowName:"Rotate Logs"`
// with its quotes matches nothing; a multi-word value is split) or reject it with a 400. Whatever it
// does, `listMatching` returns exactly the rows that satisfy `matches`:
// - every row is re-checked here, so a server that ignores or loosens the filter adds nothing;
// - the first time an expression of a given shape is sent, one page the server did not narrow is read
//   just before it: a matching row there that the filtered answer lacks proves the server drops rows, and
//   the process stops sending that shape; a filtered answer that kept every matching row (and only
//   those) is trusted from then on;
// - a 400 is retried once without the filter, and that shape is not sent again by this process;
// - where the server did not narrow, pages are read up to `maxPages` and the answer says it was cut,
//   so a caller can say "among the N most recent".
import { BadRequestError } from './errors.ts';
import type { Page } from './runbook-api.ts';

/** What this process has seen a server do with expressions of one shape. */
export type FilterBehaviour =
  /** Not tried yet: the next use is checked against an unfiltered page. */
  | 'unknown'
  /** Returned every matching row and only those: sent, with small pages. */
  | 'narrows'
  /** Returned every matching row but others too (ignored or loosened): sent, with large pages. */
  | 'loose'
  /** Left out matching rows: not sent again. */
  | 'drops-rows'
  /** Answered 400: not sent again. */
  | 'rejected';

/**
 * The shape of an expression: its field names and whether each value is quoted, not the values.
 * `workflowName:"Rotate Logs"` and `workflowName:"Drain Node"` share a shape; `workflowName:Cleanup`
 * does not (a plain-terms server reads the unquoted one fine).
 */
export function filterShape(expression: string): string {
  return expression
    .trim()
    .replace(/"[^"]*"?/g, '"…"')
    .replace(/:(?!")[^\s]+/g, ':…')
    .replace(/\s+/g, ' ');
}

/**
 * The executions-list term for one runbook, in the only published grammar (`field:value`): quoted
 * only when the name has a space, so a server that reads plain terms still narrows one-word names.
 * The grammar has no escape for a quote: a name holding one is narrowed to its longest quote-free
 * part (rows are re-checked by exact name anyway). '' when nothing is left to send.
 */
export function workflowNameTerm(name: string): string {
  const part = name.split('"').reduce((a, b) => (b.trim().length > a.length ? b.trim() : a), '');
  if (part === '') return '';
  return /\s/.test(part) ? `workflowName:"${part}"` : `workflowName:${part}`;
}

/** Per process (per API client): what each filter shape turned out to do. */
export class FilterHints {
  readonly #learned = new Map<string, FilterBehaviour>();

  behaviourOf(expression: string): FilterBehaviour {
    return this.#learned.get(filterShape(expression)) ?? 'unknown';
  }

  learn(expression: string, behaviour: FilterBehaviour): void {
    this.#learned.set(filterShape(expression), behaviour);
  }
}

const hintsByClient = new WeakMap<object, FilterHints>();

/** The hints of one API resource object (e.g. `api.executions`): one memory per client, per process. */
export function filterHintsFor(resource: object): FilterHints {
  let hints = hintsByClient.get(resource);
  if (!hints) {
    hints = new FilterHints();
    hintsByClient.set(resource, hints);
  }
  return hints;
}

/** Rows per page when the server is not narrowing (or not trusted to): fewer requests per row read. */
export const SCAN_PAGE_SIZE = 100;

/** The row type of a page type. */
type RowOf<P> = P extends Page<infer T> ? T : never;

export interface ListMatchingRequest<P extends Page<unknown>, T = RowOf<P>> {
  /** One page; `filter` is set only when the hint is sent. Other parameters are the caller's. */
  list(page: { filter?: string; pageSize: number; pageToken?: string }): Promise<P>;
  /** The hint ('' for none). */
  filter: string;
  /** What the filter asks, checked on every row whatever the server did. */
  matches(item: T): boolean;
  /** Identity of a row, to compare a filtered answer with an unfiltered one. */
  key(item: T): string;
  /** Rows wanted at most (Infinity: every match within `maxPages`). */
  want: number;
  /** Where to go on from (`next` of a previous answer); '' for the start. */
  cursor?: string;
  /** Pages read at most, the check included. */
  maxPages: number;
  /** Page size when the server is trusted to narrow (default SCAN_PAGE_SIZE). */
  narrowPageSize?: number;
  hints: FilterHints;
}

export interface ListMatchingResult<P extends Page<unknown>, T = RowOf<P>> {
  items: T[];
  /** Cursor for the rows after these; '' when the list ended. */
  next: string;
  /** Rows the server returned and we read (the ones before the cursor, on its page, excluded). */
  rowsRead: number;
  /** Stopped at `maxPages` before `want` rows or the end of the list: more matches may follow. */
  cut: boolean;
  /**
   * The first page as the server answered, when its counts describe exactly what was asked (no filter,
   * or the filter sent and every row read matched); null otherwise — its totals would be wrong.
   */
  exactPage: P | null;
  /** The filter was sent for the pages read (false: left out, rows narrowed here only). */
  filtered: boolean;
}

interface Cursor {
  filtered: boolean;
  pageSize: number;
  skip: number;
  token: string;
}

// A cursor carries the page size and whether the pages were filtered: page tokens may be page
// numbers, valid only for the same size and the same filter.
function encodeCursor(c: Cursor): string {
  return `${c.filtered ? 'f' : 'u'}${c.pageSize}.${c.skip}.${c.token}`;
}

function decodeCursor(text: string | undefined): Cursor | null {
  const m = /^([fu])(\d{1,3})\.(\d{1,6})\.(.*)$/s.exec(text ?? '');
  // A cursor rides in a button value a person could edit: nothing larger than the pages we ask for.
  if (!m || Number(m[2]) < 1 || Number(m[2]) > SCAN_PAGE_SIZE) return null;
  return { filtered: m[1] === 'f', pageSize: Number(m[2]), skip: Number(m[3]), token: m[4]! };
}

/** Whether a cursor came from `listMatching` (anything else is a raw page token). */
export function isListCursor(text: string): boolean {
  return decodeCursor(text) !== null;
}

type Verdict = 'drops-rows' | 'narrows' | 'loose' | 'undecided';

/**
 * Compares the first filtered page with the first unfiltered one (same order and parameters). A
 * matching row of the unfiltered page that the filtered page should hold — it is complete, or the
 * row is at least as recent as its last row — and does not, means the server drops rows.
 */
function judge<T>(filtered: Page<T>, probe: Page<T>, matches: (item: T) => boolean, key: (item: T) => string): Verdict {
  const got = new Set(filtered.items.map(key));
  const expected = probe.items.filter(matches);
  const onlyMatches = filtered.items.every(matches);
  // Rows newer than the filtered page's last one sit before it in the unfiltered order too.
  // (A last row the unfiltered page does not reach is older than all of it.)
  const lastKept = filtered.items.at(-1);
  const lastIndex = lastKept ? probe.items.findIndex((e) => key(e) === key(lastKept)) : -1;
  const reach = filtered.nextPageToken === '' || lastIndex < 0 ? probe.items.length : lastIndex;
  for (const [index, item] of probe.items.entries()) {
    if (index < reach && matches(item) && !got.has(key(item))) return 'drops-rows';
  }
  if (!onlyMatches) return 'loose';
  return expected.length > 0 ? 'narrows' : 'undecided';
}

export async function listMatching<P extends Page<unknown>, T = RowOf<P>>(
  request: ListMatchingRequest<P, T>,
): Promise<ListMatchingResult<P, T>> {
  const { filter, hints, matches } = request;
  const narrowSize = request.narrowPageSize ?? SCAN_PAGE_SIZE;
  const behaviour = filter ? hints.behaviourOf(filter) : 'narrows';
  const sendable = filter !== '' && (behaviour === 'unknown' || behaviour === 'narrows' || behaviour === 'loose');
  let cursor = decodeCursor(request.cursor);
  // A filtered cursor is no use once the filter is not sent: start again.
  if (cursor?.filtered && !sendable) cursor = null;
  let filtered = cursor ? cursor.filtered : sendable;
  // Small pages only where the server narrows; large ones where rows are sifted here.
  let pageSize =
    cursor?.pageSize ?? (filter === '' || (filtered && behaviour === 'narrows') ? narrowSize : SCAN_PAGE_SIZE);
  let token = cursor?.token ?? '';
  let skip = cursor?.skip ?? 0;
  let pagesRead = 0;
  const read = (withFilter: boolean, size: number, pageToken: string) => {
    pagesRead++;
    return request.list({
      ...(withFilter ? { filter } : {}),
      pageSize: size,
      ...(pageToken ? { pageToken } : {}),
    });
  };

  let page: P;
  let trusted = filter === '' || behaviour === 'narrows';
  // First use of this shape: an unfiltered page to judge the answer by, read first so that a run
  // started in between shows up in the filtered answer (harmless) rather than only in the check.
  const probe = filtered && !cursor && behaviour === 'unknown' ? await read(false, SCAN_PAGE_SIZE, '') : null;
  const unfilteredFromStart = (first: P | null) => {
    filtered = false;
    trusted = false;
    pageSize = SCAN_PAGE_SIZE;
    token = '';
    skip = 0;
    return first ?? read(false, SCAN_PAGE_SIZE, '');
  };
  if (filtered) {
    try {
      page = await read(true, pageSize, token);
    } catch (err) {
      if (!(err instanceof BadRequestError)) throw err;
      // A 400 for a page token (an old cursor) says nothing about the filter: only a first page counts.
      const blameFilter = token === '';
      // Once, without the filter, from the start (a token of the filtered list means nothing here).
      page = await unfilteredFromStart(probe);
      if (blameFilter) hints.learn(filter, 'rejected');
    }
    if (probe && filtered) {
      const verdict = judge(page as Page<T>, probe as Page<T>, matches, request.key);
      if (verdict !== 'undecided') hints.learn(filter, verdict);
      trusted = verdict === 'narrows';
      // Rows are missing, or nothing was found and nothing proves the filter works: look ourselves.
      if (verdict === 'drops-rows' || (verdict === 'undecided' && !(page.items as T[]).some(matches))) {
        page = await unfilteredFromStart(probe);
      }
    }
  } else {
    page = await read(false, pageSize, token);
  }

  const first = page;
  const items: T[] = [];
  let rowsRead = 0;
  let allMatched = true;
  const result = (next: string, cut: boolean): ListMatchingResult<P, T> => ({
    items,
    next,
    rowsRead,
    cut,
    exactPage: (filter === '' || (filtered && trusted)) && allMatched ? first : null,
    filtered,
  });
  for (;;) {
    const rows = page.items as T[];
    for (let i = skip; i < rows.length; i++) {
      rowsRead++;
      const row = rows[i]!;
      if (!matches(row)) {
        allMatched = false;
        continue;
      }
      items.push(row);
      if (items.length >= request.want) {
        if (i + 1 < rows.length) return result(encodeCursor({ filtered, pageSize, skip: i + 1, token }), false);
        const after = page.nextPageToken;
        return result(after ? encodeCursor({ filtered, pageSize, skip: 0, token: after }) : '', false);
      }
    }
    if (!page.nextPageToken) return result('', false);
    const nextCursor = encodeCursor({ filtered, pageSize, skip: 0, token: page.nextPageToken });
    if (pagesRead >= request.maxPages) return result(nextCursor, true);
    token = page.nextPageToken;
    skip = 0;
    page = await read(filtered, pageSize, token);
  }
}
