import { describe, expect, it } from 'vitest';
import { assertWithinLimits } from '../../../../src/slack/kit/limits.ts';
import { buildForecast } from '../../../../src/slack/schedules/forecast-list.ts';

const run = (at: string, overlaps = false, name = 'Restart <!here> Pods') => ({
  scheduleId: 's',
  runbookId: 'rb',
  runbookName: name,
  at: Date.parse(at),
  overlaps,
});

describe('buildForecast', () => {
  it('shows GMT runs in the person\u2019s zone, flags overlaps and escapes names', () => {
    const message = buildForecast({
      window: '24h',
      runs: [run('2026-01-05T05:00:00Z', true), run('2026-01-05T05:05:00Z', true)],
      truncated: false,
      timeZone: 'America/New_York',
      pausedCount: 2,
      unreadableCount: 0,
    });
    const text = JSON.stringify(message.blocks);
    expect(text).toContain('Mon 5 Jan 00:00 EST');
    expect(text).toContain(':warning: _overlaps another run of this runbook_');
    expect(text).toContain('2 overlapping');
    expect(text).toContain('2 paused schedules left out');
    expect(text).not.toContain('<!here>');
    assertWithinLimits(message, 'message');
  });

  it('marks a run a change freeze will hold, escaping its name', () => {
    const message = buildForecast({
      window: '24h',
      runs: [{ ...run('2026-01-05T05:00:00Z'), frozenBy: 'Year <end>' }, run('2026-01-05T06:00:00Z')],
      truncated: false,
      timeZone: 'UTC',
      pausedCount: 0,
      unreadableCount: 0,
    });
    const text = JSON.stringify(message.blocks);
    expect(text).toContain(':snowflake: _held: the change freeze *Year &lt;end&gt;* pauses it_');
    expect(text.split(':snowflake:')).toHaveLength(2);
    expect(text).toContain('1 held by a change freeze');
  });

  it('stays within Slack limits for a long week and says when it was cut', () => {
    const runs = Array.from({ length: 500 }, (_, i) => run(new Date(Date.UTC(2026, 0, 5) + i * 60_000).toISOString()));
    const message = buildForecast({
      window: '7d',
      runs,
      truncated: true,
      timeZone: 'UTC',
      pausedCount: 0,
      unreadableCount: 1,
    });
    expect(message.text).toContain('500+ runs due in the next 7 days');
    expect(JSON.stringify(message.blocks)).toContain('only the earliest are listed');
    assertWithinLimits(message, 'message');
  });

  it('an empty window says so', () => {
    const message = buildForecast({
      window: '24h',
      runs: [],
      truncated: false,
      timeZone: 'UTC',
      pausedCount: 0,
      unreadableCount: 0,
    });
    expect(JSON.stringify(message.blocks)).toContain('Nothing is scheduled to run in the next 24 hours.');
  });
});
