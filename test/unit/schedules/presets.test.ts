import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextRuns, validateCron } from '../../../src/schedules/cron.ts';
import {
  cronToPreset,
  EVERY_N_MINUTES_CHOICES,
  PRESET_KINDS,
  presetToCron,
  type SchedulePreset,
} from '../../../src/schedules/presets.ts';

const minute = fc.integer({ min: 0, max: 59 });
const hour = fc.integer({ min: 0, max: 23 });

const structuredPreset: fc.Arbitrary<SchedulePreset> = fc.oneof(
  fc.constantFrom(...EVERY_N_MINUTES_CHOICES).map((minutes) => ({ kind: 'every_n_minutes' as const, minutes })),
  minute.map((m) => ({ kind: 'hourly' as const, minute: m })),
  fc.record({ kind: fc.constant('daily' as const), hour, minute }),
  fc.record({ kind: fc.constant('weekdays' as const), hour, minute }),
  fc.record({ kind: fc.constant('weekly' as const), weekday: fc.integer({ min: 0, max: 6 }), hour, minute }),
  fc.record({ kind: fc.constant('monthly' as const), day: fc.integer({ min: 1, max: 31 }), hour, minute }),
);

/** Random valid-looking five-field expressions, many of which are not presets. */
const fieldOf = (min: number, max: number) =>
  fc.oneof(
    fc.constant('*'),
    fc.integer({ min, max }).map(String),
    fc.integer({ min: 1, max: max - min + 1 }).map((n) => `*/${n}`),
    fc.tuple(fc.integer({ min, max }), fc.integer({ min, max })).map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`),
    fc.uniqueArray(fc.integer({ min, max }), { minLength: 2, maxLength: 3 }).map((xs) => xs.join(',')),
  );
const anyExpression = fc
  .tuple(fieldOf(0, 59), fieldOf(0, 23), fieldOf(1, 31), fieldOf(1, 12), fieldOf(0, 6))
  .map((fields) => fields.join(' '));

describe('presetToCron', () => {
  it.each<[SchedulePreset, string]>([
    [{ kind: 'every_n_minutes', minutes: 15 }, '*/15 * * * *'],
    [{ kind: 'hourly', minute: 30 }, '30 * * * *'],
    [{ kind: 'daily', hour: 5, minute: 0 }, '0 5 * * *'],
    [{ kind: 'weekdays', hour: 9, minute: 30 }, '30 9 * * 1-5'],
    [{ kind: 'weekly', weekday: 0, hour: 22, minute: 15 }, '15 22 * * 0'],
    [{ kind: 'monthly', day: 31, hour: 1, minute: 0 }, '0 1 31 * *'],
    [{ kind: 'custom', expression: ' 0  5 1,15 * * ' }, '0 5 1,15 * *'],
  ])('%j → %s', (preset, expected) => {
    expect(presetToCron(preset)).toBe(expected);
  });

  it('rejects out-of-range numbers', () => {
    expect(() => presetToCron({ kind: 'every_n_minutes', minutes: 7 })).toThrow(RangeError);
    expect(() => presetToCron({ kind: 'daily', hour: 24, minute: 0 })).toThrow(RangeError);
    expect(() => presetToCron({ kind: 'weekly', weekday: 7, hour: 0, minute: 0 })).toThrow(RangeError);
    expect(() => presetToCron({ kind: 'monthly', day: 0, hour: 0, minute: 0 })).toThrow(RangeError);
    expect(() => presetToCron({ kind: 'hourly', minute: 1.5 })).toThrow(RangeError);
  });

  it('always produces a valid expression (property)', () => {
    fc.assert(
      fc.property(structuredPreset, (preset) => {
        expect(validateCron(presetToCron(preset)).ok).toBe(true);
      }),
    );
  });
});

describe('cronToPreset', () => {
  it.each<[string, SchedulePreset]>([
    ['*/10 * * * *', { kind: 'every_n_minutes', minutes: 10 }],
    ['5 * * * *', { kind: 'hourly', minute: 5 }],
    ['0 5 * * *', { kind: 'daily', hour: 5, minute: 0 }],
    ['0 9 * * MON-FRI', { kind: 'weekdays', hour: 9, minute: 0 }],
    ['0 9 * * sun', { kind: 'weekly', weekday: 0, hour: 9, minute: 0 }],
    ['0 9 * * 7', { kind: 'weekly', weekday: 0, hour: 9, minute: 0 }],
    ['0 3 15 * *', { kind: 'monthly', day: 15, hour: 3, minute: 0 }],
    ['*/7 * * * *', { kind: 'custom', expression: '*/7 * * * *' }],
    ['* 5 * * *', { kind: 'custom', expression: '* 5 * * *' }],
    ['0 5 1 * MON', { kind: 'custom', expression: '0 5 1 * MON' }],
    ['0 5 * 1 *', { kind: 'custom', expression: '0 5 * 1 *' }],
    ['00 05 * * *', { kind: 'custom', expression: '00 05 * * *' }],
    ['not   a cron', { kind: 'custom', expression: 'not a cron' }],
  ])('%s → %j', (expression, expected) => {
    expect(cronToPreset(expression)).toEqual(expected);
  });

  it('inverts presetToCron for every structured preset (property)', () => {
    fc.assert(
      fc.property(structuredPreset, (preset) => {
        expect(cronToPreset(presetToCron(preset))).toEqual(preset);
      }),
    );
  });

  it('never changes what an expression means (property)', () => {
    const from = new Date('2026-11-21T10:00:00Z');
    fc.assert(
      fc.property(anyExpression, (expression) => {
        const roundTripped = presetToCron(cronToPreset(expression));
        expect(nextRuns(roundTripped, 5, from)).toEqual(nextRuns(expression, 5, from));
      }),
      { numRuns: 200 },
    );
  });
});

describe('PRESET_KINDS', () => {
  it('lists every kind once with a label', () => {
    const kinds = PRESET_KINDS.map((p) => p.kind);
    expect(new Set(kinds).size).toBe(kinds.length);
    expect(kinds).toEqual(['every_n_minutes', 'hourly', 'daily', 'weekdays', 'weekly', 'monthly', 'custom']);
    for (const p of PRESET_KINDS) expect(p.label.length).toBeGreaterThan(0);
  });
});
