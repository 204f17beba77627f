// How health reads: the strip, the badge, the freshness and basis notes, the ETA and "longer than usual"
// on the running card, and the /runbook health builders within Block Kit's limits.
import { describe, expect, it } from 'vitest';
import { Execution } from '../../../../src/api/schemas.ts';
import { computeHealth, DAY_MS } from '../../../../src/health/runbook-health.ts';
import { buildFailingRunbooks, buildRunbookHealth } from '../../../../src/slack/health/health-view.ts';
import { buildRunningCard } from '../../../../src/slack/kit/execution-card.ts';
import {
  aboutDuration,
  coverageNote,
  freshness,
  healthBadge,
  outcomeStrip,
} from '../../../../src/slack/kit/health-summary.ts';
import { checkBlocks } from '../../../../src/slack/kit/limits.ts';

const NOW = Date.parse('2026-11-21T12:00:00Z');
let n = 0;
function run(agoMs: number, ok: boolean, seconds: number, name = 'Restart <!channel> Pods') {
  const start = NOW - agoMs;
  return Execution.parse({
    id: `e${++n}`,
    workflowName: name,
    startTime: new Date(start).toISOString(),
    endTime: new Date(start + seconds * 1000).toISOString(),
    executionStatus: ok ? 'EXECUTION_STATUS_SUCCEEDED' : 'EXECUTION_STATUS_FAILED',
    reason: ok ? '' : 'Step 2 failed: <@U0BOSS> *bold*',
  });
}
// 8 succeeded (240 s), 2 failed; the latest failed.
const history = Array.from({ length: 10 }, (_, i) => run((i + 1) * DAY_MS, i % 5 !== 0, 240));
const report = computeHealth('Restart <!channel> Pods', history, { nowMs: NOW });

describe('health summary', () => {
  it('strip: oldest left, latest right', () => {
    expect(outcomeStrip(['failed', 'succeeded', 'running'])).toBe(
      ':white_large_square::large_green_square::large_red_square:',
    );
  });

  it('badge, freshness, durations as people say them', () => {
    expect(healthBadge(report)).toBe(':large_yellow_square: 80% ok · 10 runs/30 d');
    expect(freshness(NOW - 30_000, NOW)).toBe('as of just now');
    expect(freshness(NOW - 150_000, NOW)).toBe('as of 2 min ago');
    expect(freshness(NOW - 3 * 3600_000, NOW)).toBe('as of 3 h ago');
    expect(aboutDuration(240_000)).toBe('about 4 min');
    expect(aboutDuration(4_900_000)).toBe('about 1 h 22 min');
    expect(aboutDuration(400)).toBe('about 1 s');
  });

  it('says what the numbers are based on when the reading stopped short', () => {
    expect(coverageNote(report)).toBe('');
    const cut = computeHealth('X', history, {
      nowMs: NOW,
      coverage: { coveredFrom: NOW - 4.5 * DAY_MS, limitedBy: 'runs' },
    });
    // The day is a date token (each reader's own zone), never a raw ISO date.
    const since = `<!date^${Math.floor((NOW - 4.5 * DAY_MS) / 1000)}^{date_short_pretty}|2026-11-17>`;
    expect(coverageNote(cut)).toBe(`based on the latest 4 runs only (4 of 30 days, since ${since})`);
    const pages = computeHealth('X', history, {
      nowMs: NOW,
      coverage: { coveredFrom: NOW - 4.5 * DAY_MS, limitedBy: 'pages' },
    });
    expect(coverageNote(pages, 600)).toBe(
      `based on the latest 600 executions read only (4 of 30 days, since ${since})`,
    );
  });
});

describe('running card', () => {
  const context = { runbookId: 'r1', runbookName: 'Restart Pods', proxyId: 'p', startedBy: 'U1', inputs: {} };

  it('shows the usual duration, and past the p95 that the run is longer than usual', () => {
    const plain = JSON.stringify(buildRunningCard(context, ['e1']).blocks);
    expect(plain).not.toContain('usually takes');
    const eta = { medianMs: 240_000, runs: 20, p95Ms: 480_000 };
    const usual = JSON.stringify(buildRunningCard(context, ['e1'], { eta }).blocks);
    expect(usual).toContain('usually takes about 4 min (median of the last 20 runs)');
    expect(usual).not.toContain('longer than usual');
    const few = JSON.stringify(buildRunningCard(context, ['e1'], { eta: { ...eta, runs: 7 } }).blocks);
    expect(few).toContain('(median of the last 7 runs)');
    const late = buildRunningCard(context, ['e1'], { eta, late: true });
    expect(JSON.stringify(late.blocks)).toContain(
      'running longer than usual*: 95% of recent runs finished within about 8 min',
    );
    expect(checkBlocks(late.blocks, 'message')).toEqual([]);
  });
});

describe('/runbook health builders', () => {
  it('one runbook: numbers, strip, reasons escaped, freshness; within limits', () => {
    const message = buildRunbookHealth({ id: 'r1', name: report.runbookName }, report, NOW - 120_000, NOW);
    const text = JSON.stringify(message);
    expect(text).toContain('10 (2 failed)');
    expect(text).toContain('80%');
    expect(text).toContain('Step 2 failed: &lt;@U0BOSS&gt;');
    expect(text).not.toContain('<!channel>');
    expect(text).toContain('as of 2 min ago');
    expect((text.match(/:large_(green|red)_square:/g) ?? []).length).toBe(10);
    expect(checkBlocks(message.blocks, 'message')).toEqual([]);
  });

  it('the failing list ranks, links each to its health, and says when none failed', () => {
    const other = computeHealth('Other', [run(DAY_MS, false, 1, 'Other'), run(2 * DAY_MS, false, 1, 'Other')], {
      nowMs: NOW,
    });
    const failing = {
      reports: [other, report],
      seen: 3,
      fetchedAt: NOW,
      rowsRead: 120,
      coverage: { coveredFrom: NOW - 30 * DAY_MS, limitedBy: 'none' as const },
    };
    const ids = new Map([['other', 'id-other']]);
    const message = buildFailingRunbooks(failing, ids, NOW);
    const text = JSON.stringify(message.blocks);
    expect(text.indexOf('*Other*')).toBeLessThan(text.indexOf('Restart'));
    expect(text).toContain('"value":"{\\"id\\":\\"id-other\\",\\"next\\":\\"health\\"}"');
    expect(text).toContain('2 of 2 failed');
    expect(checkBlocks(message.blocks, 'message')).toEqual([]);
    const none = buildFailingRunbooks({ ...failing, reports: [] }, ids, NOW);
    expect(JSON.stringify(none.blocks)).toContain('No failures: 3 runbooks you may view ran');
  });
});
