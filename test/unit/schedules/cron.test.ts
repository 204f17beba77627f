import { describe, expect, it } from 'vitest';
import {
  cronWarnings,
  describeCron,
  formatRunTime,
  nextRuns,
  resolveTimeZone,
  validateCron,
} from '../../../src/schedules/cron.ts';

const iso = (dates: Date[]) => dates.map((d) => d.toISOString());

describe('validateCron', () => {
  it.each([
    ['0 5 * * *', '0 5 * * *'],
    ['  0   5 *  * *  ', '0 5 * * *'],
    ['*/15 * * * *', '*/15 * * * *'],
    ['0 9 * * 1-5', '0 9 * * 1-5'],
    ['0 9 * * mon-fri', '0 9 * * mon-fri'],
    ['0 0 1 jan,Jul *', '0 0 1 jan,Jul *'],
    ['0 0 * * 7', '0 0 * * 7'],
    ['0-30/10 8-18/2 1,15 */3 SUN', '0-30/10 8-18/2 1,15 */3 SUN'],
    ['59 23 31 12 6', '59 23 31 12 6'],
  ])('accepts %j', (input, normalised) => {
    expect(validateCron(input)).toEqual({ ok: true, expression: normalised });
  });

  it.each([
    ['60 * * * *', "The minute field '60' must be between 0 and 59."],
    ['0 25 * * *', "The hour field '25' must be between 0 and 23."],
    ['0 0 0 * *', "The day-of-month field '0' must be between 1 and 31."],
    ['0 0 32 * *', "The day-of-month field '32' must be between 1 and 31."],
    ['0 0 * 13 *', "The month field '13' must be between 1 and 12."],
    ['0 0 * 0 *', "The month field '0' must be between 1 and 12."],
    ['0 0 * * 8', "The day-of-week field '8' must be between 0 and 7."],
    ['0 1-25 * * *', "The hour field '25' must be between 0 and 23."],
    ['0 5,24 * * *', "The hour field '24' must be between 0 and 23."],
  ])('rejects out-of-range %j', (input, error) => {
    expect(validateCron(input)).toEqual({ ok: false, error });
  });

  it('rejects six and seven fields, explaining seconds are not supported', () => {
    expect(validateCron('0 0 5 * * *')).toEqual({
      ok: false,
      error:
        'This schedule has 6 fields, but seconds are not supported; use five fields: minute hour day-of-month month day-of-week.',
    });
    expect(validateCron('0 0 5 * * * 2026')).toEqual({
      ok: false,
      error:
        'This schedule has 7 fields, but seconds and years are not supported; use five fields: minute hour day-of-month month day-of-week.',
    });
  });

  it('rejects too few fields', () => {
    expect(validateCron('0 5 *')).toEqual({
      ok: false,
      error: 'This schedule has 3 fields, but it needs exactly five: minute hour day-of-month month day-of-week.',
    });
  });

  it('rejects an empty expression', () => {
    expect(validateCron('   ')).toEqual({
      ok: false,
      error:
        'The schedule is empty; enter five fields (minute hour day-of-month month day-of-week), e.g. 0 5 * * * for 05:00 every day.',
    });
  });

  it('rejects @-shortcuts and offers the five-field equivalent', () => {
    expect(validateCron('@daily')).toEqual({
      ok: false,
      error: "Shortcuts like '@daily' are not supported; write the five fields instead, e.g. 0 0 * * *.",
    });
    expect(validateCron('@reboot')).toEqual({
      ok: false,
      error:
        "Shortcuts like '@reboot' are not supported; write five fields (minute hour day-of-month month day-of-week), e.g. 0 5 * * *.",
    });
  });

  it('rejects letters where numbers belong, and unknown names', () => {
    expect(validateCron('abc 5 * * *')).toEqual({
      ok: false,
      error: "The minute field 'abc' must be a number between 0 and 59, not letters.",
    });
    expect(validateCron('0 0 * FOO *')).toEqual({
      ok: false,
      error: "The month field 'FOO' is not recognised; use 1-12 or JAN-DEC.",
    });
    expect(validateCron('0 0 * * FUNDAY')).toEqual({
      ok: false,
      error: "The day-of-week field 'FUNDAY' is not recognised; use 0-7 (0 and 7 are Sunday) or SUN-SAT.",
    });
    expect(validateCron('0 MON * * *')).toEqual({
      ok: false,
      error: "The hour field 'MON' must be a number between 0 and 23, not letters.",
    });
  });

  it('rejects bad steps', () => {
    expect(validateCron('*/0 * * * *')).toEqual({
      ok: false,
      error: "The minute field '*/0' has an invalid step; the number after '/' must be a whole number from 1 to 60.",
    });
    expect(validateCron('*/x * * * *')).toEqual({
      ok: false,
      error: "The minute field '*/x' has an invalid step; the number after '/' must be a whole number from 1 to 60.",
    });
    expect(validateCron('0 */25 * * *')).toEqual({
      ok: false,
      error: "The hour field '*/25' has an invalid step; the number after '/' must be a whole number from 1 to 24.",
    });
    expect(validateCron('5/10 * * * *')).toEqual({
      ok: false,
      error: "The minute field '5/10' is not valid; a step needs * or a range before the '/', e.g. */15 or 0-30/15.",
    });
  });

  it('rejects backwards ranges, empty list entries and non-standard characters', () => {
    expect(validateCron('0 17-9 * * *')).toEqual({
      ok: false,
      error: "The hour field '17-9' is a backwards range; put the smaller value first.",
    });
    expect(validateCron('0 1,,2 * * *')).toEqual({
      ok: false,
      error: "The hour field '1,,2' has an empty list entry; separate values with single commas, e.g. 1,15.",
    });
    expect(validateCron('0 0 ? * *')).toEqual({
      ok: false,
      error:
        "The day-of-month field '?' is not valid; use numbers, *, ranges like 1-5, steps like */15, or lists like 1,15,30.",
    });
    expect(validateCron('0 0 * * 5#3').ok).toBe(false);
  });
});

describe('describeCron', () => {
  it.each([
    ['0 5 * * *', 'At 05:00, every day (GMT)'],
    ['*/15 * * * *', 'Every 15 minutes, every hour, every day (GMT)'],
    ['0 9 * * 1-5', 'At 09:00, Monday through Friday (GMT)'],
    ['30 14 * * 7', 'At 14:30, only on Sunday (GMT)'],
    ['* 5 * * *', 'Every minute, between 05:00 and 05:59, every day (GMT)'],
  ])('%s → %s', (expression, expected) => {
    expect(describeCron(expression)).toBe(expected);
  });

  it('throws the validation sentence for an invalid expression', () => {
    expect(() => describeCron('0 25 * * *')).toThrow("The hour field '25' must be between 0 and 23.");
  });
});

describe('nextRuns (UTC)', () => {
  it('daily at 05:00', () => {
    expect(iso(nextRuns('0 5 * * *', 3, new Date('2026-11-21T10:00:00Z')))).toEqual([
      '2026-11-22T05:00:00.000Z',
      '2026-11-23T05:00:00.000Z',
      '2026-11-24T05:00:00.000Z',
    ]);
  });

  it('is strictly after from', () => {
    expect(iso(nextRuns('0 5 * * *', 1, new Date('2026-11-22T05:00:00Z')))).toEqual(['2026-11-23T05:00:00.000Z']);
  });

  it('every 15 minutes', () => {
    expect(iso(nextRuns('*/15 * * * *', 4, new Date('2026-11-21T10:07:30Z')))).toEqual([
      '2026-11-21T10:15:00.000Z',
      '2026-11-21T10:30:00.000Z',
      '2026-11-21T10:45:00.000Z',
      '2026-11-21T11:00:00.000Z',
    ]);
  });

  it('weekdays skip the weekend (Fri 20 Nov 2026 → Mon 23 Nov)', () => {
    expect(iso(nextRuns('0 9 * * 1-5', 2, new Date('2026-11-20T10:00:00Z')))).toEqual([
      '2026-11-23T09:00:00.000Z',
      '2026-11-24T09:00:00.000Z',
    ]);
    expect(iso(nextRuns('0 9 * * MON-FRI', 1, new Date('2026-11-20T10:00:00Z')))).toEqual(['2026-11-23T09:00:00.000Z']);
  });

  it('day 31 skips short months', () => {
    expect(iso(nextRuns('0 0 31 * *', 4, new Date('2026-01-15T00:00:00Z')))).toEqual([
      '2026-01-31T00:00:00.000Z',
      '2026-03-31T00:00:00.000Z',
      '2026-05-31T00:00:00.000Z',
      '2026-07-31T00:00:00.000Z',
    ]);
  });

  it('ORs day-of-month and day-of-week when both are restricted, like vixie cron', () => {
    expect(iso(nextRuns('0 0 1 * MON', 4, new Date('2026-11-21T10:00:00Z')))).toEqual([
      '2026-11-23T00:00:00.000Z',
      '2026-11-30T00:00:00.000Z',
      '2026-12-01T00:00:00.000Z',
      '2026-12-07T00:00:00.000Z',
    ]);
  });

  it('ANDs them when one starts with *, like vixie cron', () => {
    // Odd days of the month that are also Mondays.
    expect(iso(nextRuns('0 0 */2 * 1', 3, new Date('2026-11-21T10:00:00Z')))).toEqual([
      '2026-11-23T00:00:00.000Z',
      '2026-12-07T00:00:00.000Z',
      '2026-12-21T00:00:00.000Z',
    ]);
  });

  it('treats 7 as Sunday', () => {
    expect(iso(nextRuns('0 0 * * 7', 1, new Date('2026-11-21T10:00:00Z')))).toEqual(['2026-11-22T00:00:00.000Z']);
    expect(iso(nextRuns('0 0 * * 5-7', 3, new Date('2026-11-19T10:00:00Z')))).toEqual([
      '2026-11-20T00:00:00.000Z',
      '2026-11-21T00:00:00.000Z',
      '2026-11-22T00:00:00.000Z',
    ]);
  });

  it('returns nothing for a date that never exists', () => {
    expect(nextRuns('0 0 30 2 *', 3, new Date('2026-01-01T00:00:00Z'))).toEqual([]);
  });

  it('throws on invalid input', () => {
    expect(() => nextRuns('@daily', 1, new Date())).toThrow(RangeError);
  });
});

describe('formatRunTime', () => {
  const run = new Date('2026-11-24T05:00:00Z');

  it('shows GMT for UTC', () => {
    expect(formatRunTime(run, 'UTC')).toBe('Tue 24 Nov 05:00 GMT');
  });

  it('shows local time with the zone abbreviation', () => {
    expect(formatRunTime(run, 'Europe/Paris')).toBe('Tue 24 Nov 06:00 CET');
    expect(formatRunTime(run, 'America/New_York')).toBe('Tue 24 Nov 00:00 EST');
    expect(formatRunTime(run, 'Asia/Kolkata')).toBe('Tue 24 Nov 10:30 GMT+5:30');
  });

  it('follows a DST change: the same GMT time moves an hour locally', () => {
    const runs = nextRuns('0 5 * * *', 2, new Date('2026-10-24T00:00:00Z'));
    expect(runs.map((r) => formatRunTime(r, 'Europe/Paris'))).toEqual([
      'Sat 24 Oct 07:00 CEST',
      'Sun 25 Oct 06:00 CET',
    ]);
    expect(runs.map((r) => formatRunTime(r, 'Europe/London'))).toEqual([
      'Sat 24 Oct 06:00 BST',
      'Sun 25 Oct 05:00 GMT',
    ]);
  });

  it('falls back to UTC for an unknown zone', () => {
    expect(formatRunTime(run, 'Mars/Olympus')).toBe('Tue 24 Nov 05:00 GMT');
    expect(resolveTimeZone('Mars/Olympus')).toBe('UTC');
    expect(resolveTimeZone(undefined)).toBe('UTC');
  });
});

describe('cronWarnings', () => {
  it('flags the API example * 5 * * * and suggests 0 5 * * *', () => {
    expect(cronWarnings('* 5 * * *')).toEqual([
      'This runs every minute from 05:00 to 05:59. Did you mean 0 5 * * * (once at 05:00)?',
    ]);
  });

  it('flags every minute during several hours', () => {
    expect(cronWarnings('* 9-17 * * 1-5')).toEqual([
      'This runs every minute of each matching hour (60 times an hour). Did you mean 0 9-17 * * 1-5 (once at the start of each hour)?',
    ]);
  });

  it('flags every minute of every day', () => {
    expect(cronWarnings('* * * * *')).toEqual([
      'This runs every minute, 1440 times a day. If that is not intended, pick an interval such as */15 * * * * (every 15 minutes).',
    ]);
    expect(cronWarnings('*/1 * * * *')).toHaveLength(1);
  });

  it('explains the day-of-month OR day-of-week rule', () => {
    expect(cronWarnings('0 0 1 * MON')).toEqual([
      'Both day-of-month and day-of-week are set, so this runs on days that match either one, not only on days that match both.',
    ]);
  });

  it('warns about short months, leap days and dates that never exist', () => {
    expect(cronWarnings('0 0 31 * *')).toEqual(['Months that have no day 31 are skipped.']);
    expect(cronWarnings('0 0 29 2 *')).toEqual(['This only runs in leap years, because 29 February exists only then.']);
    expect(cronWarnings('0 0 30 2 *')).toEqual(['This never runs: none of the selected months has day 30.']);
    expect(cronWarnings('0 0 31 1,3 *')).toEqual([]);
  });

  it('warns about minute steps that do not divide the hour', () => {
    expect(cronWarnings('*/7 * * * *')).toEqual([
      "The step in '*/7' does not divide 60, so runs restart at :00 every hour and the last gap of each hour is shorter.",
    ]);
  });

  it('is quiet for ordinary schedules and invalid input', () => {
    expect(cronWarnings('0 5 * * *')).toEqual([]);
    expect(cronWarnings('*/15 * * * *')).toEqual([]);
    expect(cronWarnings('0 9 * * 1-5')).toEqual([]);
    expect(cronWarnings('not a cron')).toEqual([]);
  });
});
