// Follows nextPageToken until the server says "" — and refuses to loop forever. A server that
// hands back a token it already gave (a bug, or a cursor that wraps) would otherwise keep the bot
// listing the same page; so does a list far longer than any chat surface can show. Both end in a
// PaginationError rather than a silent stop, so a truncated list is never mistaken for a whole one.
import { PaginationError } from './errors.ts';
import type { CallOptions, Page } from './runbook-api.ts';

export const DEFAULT_MAX_PAGES = 1_000;

export interface PaginateOptions {
  /** Path of the list endpoint, for the error. */
  path: string;
  maxPages: number;
  call?: CallOptions;
}

/** Yields every item of every page; `fetchPage` gets the token ("" for the first page). */
export async function* paginate<T>(
  fetchPage: (pageToken: string, call: CallOptions) => Promise<Page<T>>,
  options: PaginateOptions,
): AsyncGenerator<T, void, undefined> {
  // A fixed tid would make every page look like one request; each page gets its own.
  const { tid: _ignored, ...call } = options.call ?? {};
  const seen = new Set<string>();
  let token = '';
  // The last page's transaction id: support can look up where the listing stopped.
  let lastTid = '';
  for (let pages = 0; ; pages++) {
    if (pages >= options.maxPages) {
      throw new PaginationError({
        tid: lastTid,
        method: 'GET',
        path: options.path,
        message: `stopped after ${options.maxPages} pages; the list did not end`,
      });
    }
    const page = await fetchPage(token, call);
    lastTid = page.tid;
    yield* page.items;
    if (page.nextPageToken === '') return;
    if (seen.has(page.nextPageToken) || page.nextPageToken === token) {
      throw new PaginationError({
        tid: page.tid,
        method: 'GET',
        path: options.path,
        message: `the server repeated page token ${JSON.stringify(page.nextPageToken.slice(0, 64))}`,
      });
    }
    seen.add(page.nextPageToken);
    token = page.nextPageToken;
  }
}

/** A resource's `iterate()`: every item its `list` returns, page after page. */
export function iterateList<P extends { pageToken?: string }, T>(
  list: (params: P, call?: CallOptions) => Promise<Page<T>>,
  params: Omit<P, 'pageToken'>,
  options: { path: string; maxPages: number; call: CallOptions | undefined },
): AsyncGenerator<T, void, undefined> {
  const { call, ...rest } = options;
  return paginate((pageToken, pageCall) => list({ ...params, pageToken } as P, pageCall), {
    ...rest,
    ...(call ? { call } : {}),
  });
}
