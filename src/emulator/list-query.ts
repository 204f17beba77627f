// Query parameters shared by the list routes: page size and opaque page tokens, orderBy,
// timeRange and booleans. Every bad value is a 400 that names the parameter.
import type { OrderBy, TimeRange } from '../api/schemas.ts';
import { invalidArgument } from './rpc-error.ts';

export const DEFAULT_PAGE_SIZE = 25;
/** Larger pageSize values are clamped to this. */
export const MAX_PAGE_SIZE = 100;

const TOKEN_PREFIX = 'rbe1:';

export function encodePageToken(offset: number): string {
  return Buffer.from(`${TOKEN_PREFIX}${offset}`).toString('base64url');
}

export function parsePageToken(token: string | null): number {
  if (!token) return 0;
  const decoded = /^[A-Za-z0-9_-]+$/.test(token) ? Buffer.from(token, 'base64url').toString('utf8') : '';
  const match = decoded.startsWith(TOKEN_PREFIX) ? /^\d{1,9}$/.exec(decoded.slice(TOKEN_PREFIX.length)) : null;
  if (!match) throw invalidArgument('pageToken: invalid page token (use nextPageToken from a previous response)');
  return Number(match[0]);
}

export function parsePageSize(value: string | null): number {
  if (value === null || value === '') return DEFAULT_PAGE_SIZE;
  if (!/^-?\d+$/.test(value)) throw invalidArgument(`pageSize: must be an integer, got "${value}"`);
  const n = Number(value);
  if (n < 0) throw invalidArgument('pageSize: must not be negative');
  // 0 is proto3's "unset".
  if (n === 0) return DEFAULT_PAGE_SIZE;
  return Math.min(n, MAX_PAGE_SIZE);
}

export function parseOrderBy(value: string | null, fallback: OrderBy): OrderBy {
  if (value === null || value === '') return fallback;
  const v = value.trim().toLowerCase();
  if (v === 'ascending' || v === 'asc') return 'ascending';
  if (v === 'descending' || v === 'desc') return 'descending';
  throw invalidArgument(`orderBy: must be "ascending" or "descending", got "${value}"`);
}

export function parseTimeRange(value: string | null): TimeRange {
  if (value === null || value === '') return 'all';
  const v = value
    .trim()
    .toLowerCase()
    .replace(/^time_range_/, '');
  if (v === 'last_month' || v === 'month') return 'last_month';
  if (v === 'last_year' || v === 'year') return 'last_year';
  if (v === 'all' || v === 'unspecified') return 'all';
  throw invalidArgument(`timeRange: must be one of last_month, last_year, all; got "${value}"`);
}

export const MONTH_MS = 30 * 24 * 3600 * 1000;
export const YEAR_MS = 365 * 24 * 3600 * 1000;

/** Earliest createTime included by a time range (-Infinity for all). */
export function timeRangeStart(range: TimeRange, nowMs: number): number {
  if (range === 'last_month') return nowMs - MONTH_MS;
  if (range === 'last_year') return nowMs - YEAR_MS;
  return Number.NEGATIVE_INFINITY;
}

export function parseBoolean(name: string, value: string | null): boolean | undefined {
  if (value === null || value === '') return undefined;
  const v = value.toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw invalidArgument(`${name}: must be true or false, got "${value}"`);
}

export interface PageWindow {
  start: number;
  end: number;
  nextPageToken: string;
  pageCount: number;
}

/** Slices [offset, offset + pageSize) of `total` items. */
export function pageWindow(total: number, offset: number, pageSize: number): PageWindow {
  const start = Math.min(offset, total);
  const end = Math.min(start + pageSize, total);
  return {
    start,
    end,
    nextPageToken: end < total ? encodePageToken(end) : '',
    pageCount: Math.ceil(total / pageSize),
  };
}
