// The pure parts of the health chart's message: its file name, its words for screen readers, and the
// note that says where the chart went, placed before the buttons.
import { describe, expect, it } from 'vitest';
import type { DailyHealth } from '../../../../src/health/runbook-health.ts';
import { altTextOf, chartFileName } from '../../../../src/slack/health/health-chart.ts';
import { CHART_TO_DM, withNote } from '../../../../src/slack/health/health-view.ts';
import { checkBlocks } from '../../../../src/slack/kit/limits.ts';

function day(d: string, succeeded: number, failed: number, other = 0): DailyHealth {
  return { day: d, startMs: Date.parse(d), succeeded, failed, other, medianMs: null, maxMs: null, covered: true };
}

describe('chartFileName', () => {
  it('is a slug of the runbook name, never empty, never a path', () => {
    expect(chartFileName('Rotate IAM Access Keys')).toBe('rotate-iam-access-keys-health.png');
    expect(chartFileName('../../etc/passwd')).toBe('etc-passwd-health.png');
    expect(chartFileName('***')).toBe('runbook-health.png');
    expect(chartFileName('x'.repeat(200)).length).toBeLessThanOrEqual(60 + '-health.png'.length);
  });
});

describe('altTextOf', () => {
  it('says what the picture shows, with its busiest day', () => {
    const text = altTextOf('Restart Pods', {
      windowDays: 30,
      succeeded: 5,
      failed: 2,
      daily: [day('2026-11-01', 1, 0), day('2026-11-02', 3, 1, 1), day('2026-11-03', 1, 1)],
    });
    expect(text).toBe(
      'Bar chart of Restart Pods runs per day over the last 30 days by outcome (5 succeeded, 2 failed), with the median duration per day as a line; busiest day 2026-11-02 with 5 runs.',
    );
  });

  it('names no busiest day when nothing ran', () => {
    const text = altTextOf('Quiet', { windowDays: 30, succeeded: 0, failed: 0, daily: [day('2026-11-01', 0, 0)] });
    expect(text).not.toContain('busiest');
  });
});

describe('withNote', () => {
  it('adds one line of context before the buttons, leaving the rest as it was', () => {
    const message = {
      text: 'Health of X',
      blocks: [
        { type: 'section' as const, text: { type: 'mrkdwn' as const, text: 'numbers' } },
        { type: 'actions' as const, elements: [] },
      ],
    };
    const noted = withNote(message, CHART_TO_DM);
    expect(noted.text).toBe('Health of X');
    expect(noted.blocks.map((b) => b.type)).toEqual(['section', 'context', 'actions']);
    expect(JSON.stringify(noted.blocks[1])).toContain('on its way to your direct messages');
    expect(message.blocks).toHaveLength(2);
    expect(checkBlocks(withNote({ text: 'x', blocks: [message.blocks[0]!] }, 'note').blocks, 'message')).toEqual([]);
  });
});
