import { describe, expect, it } from 'vitest';
import { FORECAST_WINDOWS, forecastRuns } from '../../../src/schedules/forecast.ts';

const FROM = Date.parse('2026-01-05T04:30:00Z'); // a Monday
const iso = (ms: number) => new Date(ms).toISOString();

const s = (id: string, runbookId: string, cron: string) => ({
  id,
  runbookId,
  runbookName: `Runbook ${runbookId}`,
  cron,
});

describe('forecastRuns', () => {
  it('lists every run due in the window, in GMT, earliest first', () => {
    const forecast = forecastRuns(
      [s('daily', 'a', '0 5 * * *'), s('hourly', 'b', '15 * * * *')],
      FROM,
      FORECAST_WINDOWS['24h'],
    );
    expect(forecast.runs.filter((r) => r.scheduleId === 'daily').map((r) => iso(r.at))).toEqual([
      '2026-01-05T05:00:00.000Z',
    ]);
    expect(forecast.runs.filter((r) => r.scheduleId === 'hourly')).toHaveLength(24);
    expect(iso(forecast.runs[1]!.at)).toBe('2026-01-05T05:15:00.000Z');
    expect(forecast.runs.map((r) => r.at)).toEqual([...forecast.runs.map((r) => r.at)].sort((x, y) => x - y));
    expect(forecast.truncated).toBe(false);
  });

  it('seven days of a weekday schedule: five runs, the window end included', () => {
    const forecast = forecastRuns([s('weekdays', 'a', '30 4 * * 1-5')], FROM, FORECAST_WINDOWS['7d']);
    expect(forecast.runs.map((r) => iso(r.at))).toEqual([
      '2026-01-06T04:30:00.000Z',
      '2026-01-07T04:30:00.000Z',
      '2026-01-08T04:30:00.000Z',
      '2026-01-09T04:30:00.000Z',
      '2026-01-12T04:30:00.000Z',
    ]);
  });

  it('flags runs of one runbook close together, not runs of different runbooks', () => {
    const forecast = forecastRuns(
      [
        s('one', 'a', '0 6 * * *'),
        s('two', 'a', '10 6 * * *'),
        s('other', 'b', '0 6 * * *'),
        s('far', 'a', '0 9 * * *'),
      ],
      FROM,
      FORECAST_WINDOWS['24h'],
    );
    const flags = Object.fromEntries(forecast.runs.map((r) => [r.scheduleId, r.overlaps]));
    expect(flags).toEqual({ one: true, two: true, other: false, far: false });
  });

  it('cuts a long list at the earliest runs and says so; unreadable and never-firing expressions', () => {
    const forecast = forecastRuns(
      [
        s('busy', 'a', '0 * * * *'),
        s('busier', 'd', '30 * * * *'),
        s('busiest', 'e', '15 * * * *'),
        s('bad', 'b', 'not cron'),
        s('never', 'c', '0 0 30 2 *'),
      ],
      FROM,
      FORECAST_WINDOWS['24h'],
      { maxRuns: 50 },
    );
    expect(forecast.runs).toHaveLength(50);
    expect(forecast.truncated).toBe(true);
    expect(forecast.unreadable).toEqual(['bad']);
    expect(forecast.runs.some((r) => r.scheduleId === 'never')).toBe(false);
  });

  it('sums up a schedule firing more often than hourly in one entry, and flags a listed run close to it', () => {
    const forecast = forecastRuns(
      [s('minutely', 'a', '* * * * *'), s('daily', 'a', '0 6 * * *'), s('hourly', 'b', '0 * * * *')],
      FROM,
      FORECAST_WINDOWS['7d'],
    );
    expect(forecast.frequent).toEqual([
      expect.objectContaining({ scheduleId: 'minutely', count: 7 * 24 * 60, countCut: false, minGapMs: 60_000 }),
    ]);
    expect(forecast.runs.some((r) => r.scheduleId === 'minutely')).toBe(false);
    // The daily run collides with the every-minute one of the same runbook; the hourly one of another does not.
    expect(forecast.runs.filter((r) => r.scheduleId === 'daily').every((r) => r.overlaps)).toBe(true);
    expect(forecast.runs.filter((r) => r.scheduleId === 'hourly').some((r) => r.overlaps)).toBe(false);
    expect(forecast.runs.filter((r) => r.scheduleId === 'hourly')).toHaveLength(7 * 24);
    expect(forecast.truncated).toBe(false);
  });

  it('stays bounded with many schedules firing every minute: each still summed up, late counts marked cut', () => {
    const many = Array.from({ length: 20 }, (_, i) => s(`m${String(i).padStart(2, '0')}`, `r${i}`, '* * * * *'));
    const forecast = forecastRuns(many, FROM, FORECAST_WINDOWS['24h']);
    expect(forecast.frequent).toHaveLength(20);
    expect(forecast.frequent.every((f) => f.count === 1440 || f.countCut)).toBe(true);
    expect(forecast.frequent.filter((f) => f.count === 1440 && !f.countCut).length).toBeGreaterThan(0);
    expect(forecast.frequent.some((f) => f.countCut)).toBe(true);
  }, 60_000);
});
