// The bot's preview and the emulator's scheduler build cron the same way, and that way is vixie
// cron's: checked on the example and against a day-by-day vixie matcher on random expressions.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextFireAfter, parseCron as parseEmulatorCron } from '../../../src/emulator/cron.ts';
import { nextRuns, type ParsedCron, parseCron } from '../../../src/schedules/cron.ts';
import { dayFieldsMustBothMatch } from '../../../src/schedules/cron-builder.ts';

const FROM = Date.UTC(2026, 0, 1, 0, 0);

function previewRuns(expression: string, count: number, from = FROM): string[] {
  return nextRuns(expression, count, new Date(from)).map((d) => d.toISOString());
}

function emulatorRuns(expression: string, count: number, from = FROM): string[] {
  const cron = parseEmulatorCron(expression);
  const out: string[] = [];
  let after = from;
  for (let i = 0; i < count; i++) {
    const next = nextFireAfter(cron, after);
    if (next === null) break;
    out.push(new Date(next).toISOString());
    after = next;
  }
  return out;
}

/** Vixie cron's matcher (cron.c), written out naively over the parsed value sets: the reference. */
function vixieRuns(cron: ParsedCron, count: number, from: number): string[] {
  const both = dayFieldsMustBothMatch(cron.raw[2], cron.raw[4]);
  const hours = [...cron.hours].sort((a, b) => a - b);
  const minutes = [...cron.minutes].sort((a, b) => a - b);
  const out: string[] = [];
  const firstDay = Date.UTC(new Date(from).getUTCFullYear(), new Date(from).getUTCMonth(), new Date(from).getUTCDate());
  for (let day = 0; day < 40 * 366 && out.length < count; day++) {
    const date = new Date(firstDay + day * 86_400_000);
    if (!cron.months.has(date.getUTCMonth() + 1)) continue;
    const dom = cron.daysOfMonth.has(date.getUTCDate());
    const dow = cron.daysOfWeek.has(date.getUTCDay());
    if (!(both ? dom && dow : dom || dow)) continue;
    for (const h of hours) {
      for (const m of minutes) {
        const at = date.getTime() + h * 3_600_000 + m * 60_000;
        if (at > from && out.length < count) out.push(new Date(at).toISOString());
      }
    }
  }
  return out;
}

describe('one cron builder for the preview and the emulator', () => {
  it('0 0 */2 * MON runs on odd days that are Mondays in both (vixie: */2 starts with *, so AND)', () => {
    const expected = [
      '2026-01-05T00:00:00.000Z',
      '2026-01-19T00:00:00.000Z',
      '2026-02-09T00:00:00.000Z',
      '2026-02-23T00:00:00.000Z',
    ];
    expect(previewRuns('0 0 */2 * MON', 4)).toEqual(expected);
    expect(emulatorRuns('0 0 */2 * MON', 4)).toEqual(expected);
  });

  it('ORs the day fields when both are restricted, in both', () => {
    // Strictly after midnight on 1 January, so the 1st itself is not among them.
    const expected = [
      '2026-01-05T00:00:00.000Z',
      '2026-01-12T00:00:00.000Z',
      '2026-01-15T00:00:00.000Z',
      '2026-01-19T00:00:00.000Z',
      '2026-01-26T00:00:00.000Z',
    ];
    expect(previewRuns('0 0 1,15 * MON', 5)).toEqual(expected);
    expect(emulatorRuns('0 0 1,15 * MON', 5)).toEqual(expected);
  });

  it.each([
    ['*', '*', true],
    ['*/2', 'MON', true],
    ['1-31/2', 'MON', false],
    ['1', '*/3', true],
    ['1,15', 'MON-FRI', false],
  ])('day-of-month %s and day-of-week %s must both match: %s', (dom, dow, both) => {
    expect(dayFieldsMustBothMatch(dom, dow)).toBe(both);
  });

  it('agrees with a vixie matcher, and the emulator with the preview, on random expressions', () => {
    const item = (min: number, max: number) =>
      fc.oneof(
        fc.constant('*'),
        fc.integer({ min: 1, max: 4 }).map((step) => `*/${step}`),
        fc.integer({ min, max }).map(String),
        fc
          .tuple(fc.integer({ min, max }), fc.integer({ min, max }), fc.integer({ min: 1, max: 3 }))
          .map(([a, b, step]) => `${Math.min(a, b)}-${Math.max(a, b)}/${step}`),
        fc.uniqueArray(fc.integer({ min, max }), { minLength: 2, maxLength: 3 }).map((v) => v.join(',')),
      );
    const expression = fc
      .tuple(
        fc.integer({ min: 0, max: 59 }).map(String),
        fc.integer({ min: 0, max: 23 }).map(String),
        item(1, 31),
        fc.oneof(fc.constant('*'), item(1, 12)),
        item(0, 6),
      )
      .map((fields) => fields.join(' '));
    fc.assert(
      fc.property(expression, fc.integer({ min: 0, max: 365 * 86_400 }), (expr, offsetSeconds) => {
        const parsed = parseCron(expr);
        if (!parsed.ok) return true;
        const from = FROM + offsetSeconds * 1000;
        const expected = vixieRuns(parsed.cron, 5, from);
        expect(previewRuns(expr, 5, from)).toEqual(expected);
        expect(emulatorRuns(expr, 5, from)).toEqual(expected);
        return true;
      }),
      { numRuns: 300 },
    );
  });
});
