// The sandbox shows times as Slack does: in the viewer's Slack time zone (users.info tz), not the
// computer's — message times, and what a datetimepicker shows and sends.
import { describe, expect, it } from 'vitest';
import { formatMessageTime, instantOfWallTime, wallTimeOf } from '../../../src/sandbox/ui/mrkdwn.js';

const ONE_AM_UTC = Date.parse('2026-12-01T01:00:00Z') / 1000;

describe('times in the viewer’s zone', () => {
  it('message times follow the viewer, like the date tokens on cards', () => {
    expect(formatMessageTime(ONE_AM_UTC, 'Europe/Berlin')).toBe('02:00');
    expect(formatMessageTime(`${ONE_AM_UTC}.000200`, 'Asia/Tokyo')).toBe('10:00');
    expect(formatMessageTime(ONE_AM_UTC, 'America/New_York')).toBe('20:00');
  });

  it('a datetimepicker shows and reads wall time in the viewer’s zone, daylight saving included', () => {
    expect(wallTimeOf(ONE_AM_UTC, 'Europe/Berlin')).toBe('2026-12-01T02:00');
    expect(instantOfWallTime('2026-12-01T02:00', 'Europe/Berlin')).toBe(ONE_AM_UTC);
    const summer = Date.parse('2026-07-01T00:00:00Z') / 1000;
    expect(wallTimeOf(summer, 'Europe/Berlin')).toBe('2026-07-01T02:00');
    expect(instantOfWallTime('2026-07-01T02:00', 'Europe/Berlin')).toBe(summer);
    expect(instantOfWallTime('2026-11-30T20:00', 'America/New_York')).toBe(ONE_AM_UTC);
    expect(instantOfWallTime('not a time', 'Europe/Berlin')).toBeNull();
  });
});
