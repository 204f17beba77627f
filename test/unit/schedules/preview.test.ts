import { describe, expect, it } from 'vitest';
import { previewCron } from '../../../src/schedules/preview.ts';

const now = new Date('2026-11-21T10:00:00Z');

describe('previewCron', () => {
  it('describes a valid expression with runs in GMT and the viewer’s zone', () => {
    expect(previewCron('0 5 * * *', { now, timeZone: 'Europe/Paris', count: 2 })).toEqual({
      ok: true,
      description: 'At 05:00, every day (GMT)',
      warnings: [],
      nextRunsGmt: ['Sun 22 Nov 05:00 GMT', 'Mon 23 Nov 05:00 GMT'],
      nextRunsLocal: ['Sun 22 Nov 06:00 CET', 'Mon 23 Nov 06:00 CET'],
      timeZone: 'Europe/Paris',
    });
  });

  it('shows five runs by default and includes warnings', () => {
    const preview = previewCron('* 5 * * *', { now });
    expect(preview.ok).toBe(true);
    expect(preview.nextRunsGmt).toEqual([
      'Sun 22 Nov 05:00 GMT',
      'Sun 22 Nov 05:01 GMT',
      'Sun 22 Nov 05:02 GMT',
      'Sun 22 Nov 05:03 GMT',
      'Sun 22 Nov 05:04 GMT',
    ]);
    expect(preview.warnings).toEqual([
      'This runs every minute from 05:00 to 05:59. Did you mean 0 5 * * * (once at 05:00)?',
    ]);
    expect(preview.timeZone).toBe('UTC');
  });

  it('returns the validation error instead of throwing', () => {
    expect(previewCron('0 25 * * *', { now, timeZone: 'Nowhere/Else' })).toEqual({
      ok: false,
      error: "The hour field '25' must be between 0 and 23.",
      warnings: [],
      nextRunsGmt: [],
      nextRunsLocal: [],
      timeZone: 'UTC',
    });
  });

  it('shows no runs for a date that never exists, with the warning', () => {
    const preview = previewCron('0 0 30 2 *', { now });
    expect(preview.ok).toBe(true);
    expect(preview.nextRunsGmt).toEqual([]);
    expect(preview.warnings).toEqual(['This never runs: none of the selected months has day 30.']);
  });
});
