import { describe, expect, it } from 'vitest';
import { buildFormBlocks } from '../../../src/forms/form-blocks.ts';
import { parseInputSchema } from '../../../src/forms/input-schema.ts';
import { readFormValues } from '../../../src/forms/read-form-values.ts';
import { isoInTimeZone, offsetMinutes, wallTimeInZone } from '../../../src/forms/time-zone.ts';
import { typeValues, wallTimeNames } from '../../../src/forms/typed-values.ts';

const ONE_AM_UTC = Date.parse('2026-12-01T01:00:00Z') / 1000;
const spec = parseInputSchema(
  JSON.stringify({ type: 'object', properties: { at: { type: 'string', format: 'date-time', title: 'Start' } } }),
);

describe('date-times in the person’s time zone', () => {
  it('writes an instant with the zone’s offset, daylight saving included; UTC without a zone', () => {
    expect(isoInTimeZone(ONE_AM_UTC, 'Europe/Berlin')).toBe('2026-12-01T02:00:00+01:00');
    expect(isoInTimeZone(Date.parse('2026-07-01T01:00:00Z') / 1000, 'Europe/Berlin')).toBe('2026-07-01T03:00:00+02:00');
    expect(isoInTimeZone(ONE_AM_UTC, 'America/New_York')).toBe('2026-11-30T20:00:00-05:00');
    expect(isoInTimeZone(ONE_AM_UTC, 'Asia/Kolkata')).toBe('2026-12-01T06:30:00+05:30');
    expect(isoInTimeZone(ONE_AM_UTC, null)).toBe('2026-12-01T01:00:00Z');
    expect(isoInTimeZone(ONE_AM_UTC, 'Not/AZone')).toBe('2026-12-01T01:00:00Z');
    expect(offsetMinutes(ONE_AM_UTC * 1000, 'Not/AZone')).toBeNull();
  });

  it('the form reads a picked date-time in the person’s zone, the same instant', () => {
    const state = { field_at: { value: { type: 'datetimepicker', selected_date_time: ONE_AM_UTC } } };
    const read = readFormValues(spec, state, 'Europe/Berlin');
    expect(read).toEqual({ ok: true, params: { at: '2026-12-01T02:00:00+01:00' } });
    if (read.ok) expect(Date.parse(String(read.params.at)) / 1000).toBe(ONE_AM_UTC);
  });

  it('the picker says which zone it uses, and the prefill survives the round trip', () => {
    const blocks = buildFormBlocks(
      spec,
      { at: '2026-12-01T02:00:00+01:00' },
      {
        id: 'Europe/Berlin',
        label: 'Central European Time',
      },
    );
    const text = JSON.stringify(blocks);
    expect(text).toContain('The time is in your Slack time zone, Central European Time (Europe/Berlin).');
    expect(text).toContain(`"initial_date_time":${ONE_AM_UTC}`);
    expect(JSON.stringify(buildFormBlocks(spec))).toContain('The time is in your Slack time zone.');
  });
});

describe('a date-time typed on a line, read as the form reads a picked one', () => {
  it('without an offset: a wall time in the person’s zone, daylight saving included; UTC without a zone', () => {
    expect(wallTimeInZone('2026-12-01 02:00', 'Europe/Berlin')).toBe('2026-12-01T02:00:00+01:00');
    expect(wallTimeInZone('2026-07-01T03:00', 'Europe/Berlin')).toBe('2026-07-01T03:00:00+02:00');
    expect(wallTimeInZone('2026-11-30 20:00:15', 'America/New_York')).toBe('2026-11-30T20:00:15-05:00');
    expect(wallTimeInZone('2026-12-01 06:30', 'Asia/Kolkata')).toBe('2026-12-01T06:30:00+05:30');
    expect(wallTimeInZone('2026-12-01 01:00', null)).toBe('2026-12-01T01:00:00Z');
    expect(wallTimeInZone('2026-12-01 01:00', 'Not/AZone')).toBe('2026-12-01T01:00:00Z');
    // The days Berlin's clocks change: 02:30 happens twice (the later is read), or never (an hour on).
    expect(wallTimeInZone('2026-10-25 01:30', 'Europe/Berlin')).toBe('2026-10-25T01:30:00+02:00');
    expect(wallTimeInZone('2026-10-25 02:30', 'Europe/Berlin')).toBe('2026-10-25T02:30:00+01:00');
    expect(wallTimeInZone('2026-03-29 02:30', 'Europe/Berlin')).toBe('2026-03-29T03:30:00+02:00');
  });

  it('an offset, Z, a date alone or no time at all is left to the schema, as typed', () => {
    for (const text of ['2026-12-01T10:00:00Z', '2026-12-01T10:00+05:00', '2026-12-01', 'tomorrow', '2026-02-30 10:00'])
      expect(wallTimeInZone(text, 'Europe/Berlin')).toBeNull();
  });

  it('typed and picked give the same params; only the wall time is named as read in the zone', () => {
    const typed = typeValues(spec, { at: '2026-12-01 02:00' }, {}, 'Europe/Berlin');
    const state = { field_at: { value: { type: 'datetimepicker', selected_date_time: ONE_AM_UTC } } };
    expect(typed).toEqual(readFormValues(spec, state, 'Europe/Berlin'));
    expect(typeValues(spec, { at: '2026-12-01T01:00:00Z' }, {}, 'Europe/Berlin')).toEqual({
      ok: true,
      params: { at: '2026-12-01T01:00:00Z' },
    });
    expect(wallTimeNames(spec, { at: '2026-12-01 02:00' })).toEqual(['at']);
    expect(wallTimeNames(spec, { at: '2026-12-01T01:00:00Z' })).toEqual([]);
  });
});
