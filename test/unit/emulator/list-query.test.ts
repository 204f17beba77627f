import { describe, expect, it } from 'vitest';
import {
  encodePageToken,
  MAX_PAGE_SIZE,
  pageWindow,
  parseOrderBy,
  parsePageSize,
  parsePageToken,
  parseTimeRange,
} from '../../../src/emulator/list-query.ts';

describe('list query parameters', () => {
  it('round-trips opaque page tokens and rejects forged ones', () => {
    expect(parsePageToken(encodePageToken(75))).toBe(75);
    expect(parsePageToken('')).toBe(0);
    expect(parsePageToken(null)).toBe(0);
    expect(() => parsePageToken('2')).toThrow(/pageToken/);
    expect(() => parsePageToken('not a token!')).toThrow(/pageToken/);
  });

  it('defaults pageSize to 25, treats 0 as unset and clamps large values', () => {
    expect(parsePageSize(null)).toBe(25);
    expect(parsePageSize('0')).toBe(25);
    expect(parsePageSize('7')).toBe(7);
    expect(parsePageSize('5000')).toBe(MAX_PAGE_SIZE);
    expect(() => parsePageSize('-1')).toThrow(/pageSize/);
    expect(() => parsePageSize('ten')).toThrow(/pageSize/);
  });

  it('accepts orderBy spellings case-insensitively', () => {
    expect(parseOrderBy('ASC', 'descending')).toBe('ascending');
    expect(parseOrderBy('Descending', 'ascending')).toBe('descending');
    expect(parseOrderBy(null, 'ascending')).toBe('ascending');
    expect(() => parseOrderBy('newest', 'ascending')).toThrow(/orderBy/);
  });

  it('accepts timeRange spellings case-insensitively', () => {
    expect(parseTimeRange('LAST_MONTH')).toBe('last_month');
    expect(parseTimeRange('month')).toBe('last_month');
    expect(parseTimeRange('TIME_RANGE_LAST_MONTH')).toBe('last_month');
    expect(parseTimeRange('year')).toBe('last_year');
    expect(parseTimeRange('All')).toBe('all');
    expect(parseTimeRange(null)).toBe('all');
    expect(() => parseTimeRange('week')).toThrow(/timeRange/);
  });

  it('windows pages with an empty token on the last page', () => {
    expect(pageWindow(60, 0, 25)).toMatchObject({ start: 0, end: 25, pageCount: 3 });
    expect(pageWindow(60, 50, 25)).toMatchObject({ start: 50, end: 60, nextPageToken: '' });
    expect(pageWindow(0, 0, 25)).toMatchObject({ start: 0, end: 0, nextPageToken: '', pageCount: 0 });
  });
});
