// Health statistics on known data: counts, success rate, median and p95, the strip, failure reasons,
// the ETA, coverage, and the per-day series a chart is drawn from.
import { describe, expect, it } from 'vitest';
import { type Execution, Execution as ExecutionSchema } from '../../../src/api/schemas.ts';
import {
  commonFailureReasons,
  computeHealth,
  DAY_MS,
  dailyHealth,
  durationMsOf,
  isLongerThanUsual,
  median,
  parseDuration,
  percentile,
  rankFailing,
} from '../../../src/health/runbook-health.ts';

const NOW = Date.parse('2026-11-21T12:00:00Z');
const STATUS = {
  ok: 'EXECUTION_STATUS_SUCCEEDED',
  failed: 'EXECUTION_STATUS_FAILED',
  running: 'EXECUTION_STATUS_IN_PROGRESS',
} as const;

let n = 0;
/** An execution that started `agoMs` before NOW and took `seconds`. */
function run(agoMs: number, status: keyof typeof STATUS, seconds: number, reason = ''): Execution {
  const start = NOW - agoMs;
  n++;
  return ExecutionSchema.parse({
    id: `e${n}`,
    workflowName: 'Restart Pods',
    createTime: new Date(start).toISOString(),
    startTime: new Date(start).toISOString(),
    endTime: status === 'running' ? null : new Date(start + seconds * 1000).toISOString(),
    executionStatus: STATUS[status],
    reason,
  });
}

describe('percentile and median', () => {
  it('nearest rank, and the median of an even count is the mean of the middle two', () => {
    const values = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100];
    expect(percentile(values, 95)).toBe(100);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile([...values, 110, 120, 130, 140, 150, 160, 170, 180, 190, 200], 95)).toBe(190);
    expect(median([4, 1, 3])).toBe(3);
    expect(median([1000, 2000, 3000, 10_000])).toBe(2500);
    expect(median([])).toBeNull();
    expect(percentile([], 95)).toBeNull();
  });
});

describe('durations', () => {
  it('reads end − start, else the duration field in its usual shapes', () => {
    expect(durationMsOf(run(DAY_MS, 'ok', 65))).toBe(65_000);
    const noTimes = { startTime: null, endTime: null };
    expect(durationMsOf({ ...noTimes, duration: '65s' })).toBe(65_000);
    expect(durationMsOf({ ...noTimes, duration: '1m 5s' })).toBe(65_000);
    expect(durationMsOf({ ...noTimes, duration: '00:01:05' })).toBe(65_000);
    expect(durationMsOf({ ...noTimes, duration: '1.5' })).toBe(1500);
    expect(parseDuration('1h2m')).toBe(3_720_000);
    expect(parseDuration('soon')).toBeNull();
    expect(parseDuration('')).toBeNull();
  });
});

describe('computeHealth', () => {
  // 12 runs in the window, newest first: 9 succeeded, 2 failed, 1 running; one run older than 30 days.
  const history = [
    run(1 * 3600_000, 'running', 0),
    run(2 * 3600_000, 'ok', 240),
    run(1 * DAY_MS, 'failed', 30, 'Step 3 (drain) exited with code 1: node not ready'),
    run(2 * DAY_MS, 'ok', 250),
    run(3 * DAY_MS, 'ok', 230),
    run(4 * DAY_MS, 'failed', 20, 'step 3 (drain)   exited with code 1: NODE NOT READY'),
    run(5 * DAY_MS, 'ok', 260),
    run(6 * DAY_MS, 'ok', 600),
    run(7 * DAY_MS, 'ok', 240),
    run(8 * DAY_MS, 'ok', 220),
    run(9 * DAY_MS, 'ok', 245),
    run(10 * DAY_MS, 'ok', 235),
    run(31 * DAY_MS, 'failed', 10, 'too old to count'),
  ];

  it('counts, rates and durations over the window by each run’s own time', () => {
    // Given in any order: the statistics place each run by its timestamp.
    const report = computeHealth('Restart Pods', [...history].reverse(), { nowMs: NOW });
    expect(report).toMatchObject({ runs: 12, succeeded: 9, failed: 2, running: 1, daysCovered: 30 });
    expect(report.successRate).toBeCloseTo(9 / 11);
    // Finished durations sorted: 20 30 220 230 235 240 240 245 250 260 600 → median 240, p95 (rank 11) 600.
    expect(report.medianMs).toBe(240_000);
    expect(report.p95Ms).toBe(600_000);
    expect(report.lastOutcomes).toEqual([
      'running',
      'succeeded',
      'failed',
      'succeeded',
      'succeeded',
      'failed',
      'succeeded',
      'succeeded',
      'succeeded',
      'succeeded',
    ]);
    // One reason in two wordings (case and spacing): one group, the latest wording kept.
    expect(report.failureReasons).toEqual([{ reason: 'Step 3 (drain) exited with code 1: node not ready', count: 2 }]);
    expect(report.coverage).toEqual({ coveredFrom: NOW - 30 * DAY_MS, limitedBy: 'none' });
  });

  it('the ETA is the median of the latest finished runs, with the p95 past which a run is late', () => {
    const report = computeHealth('Restart Pods', history, { nowMs: NOW });
    expect(report.eta).toEqual({ medianMs: 240_000, runs: 11, p95Ms: 600_000 });
    expect(isLongerThanUsual(report.eta, 600_000)).toBe(false);
    expect(isLongerThanUsual(report.eta, 600_001)).toBe(true);
    // Only the last 20 finished runs count for the median: 20 fast recent ones hide 10 slow older ones.
    const many = [
      ...Array.from({ length: 20 }, (_, i) => run((i + 1) * 3600_000, 'ok', 60)),
      ...Array.from({ length: 10 }, (_, i) => run((i + 2) * DAY_MS, 'ok', 900)),
    ];
    const eta = computeHealth('Restart Pods', many, { nowMs: NOW }).eta!;
    expect(eta).toMatchObject({ medianMs: 60_000, runs: 20 });
    // Too few runs say nothing.
    expect(computeHealth('Restart Pods', history.slice(0, 3), { nowMs: NOW }).eta).toBeNull();
  });

  it('says what it is based on when the reading stopped short of 30 days', () => {
    const report = computeHealth('Restart Pods', history, {
      nowMs: NOW,
      coverage: { coveredFrom: NOW - 5.5 * DAY_MS, limitedBy: 'pages' },
    });
    // Runs 1 h, 2 h and 1–5 days ago fall after the coverage's start.
    expect(report).toMatchObject({ runs: 7, daysCovered: 5, coverage: { limitedBy: 'pages' } });
    const days = report.daily;
    expect(days).toHaveLength(30);
    expect(days.filter((d) => d.covered)).toHaveLength(6);
    expect(days.at(-1)!.covered).toBe(true);
    // A coverage at or before the window's start is the whole window.
    const whole = computeHealth('Restart Pods', history, {
      nowMs: NOW,
      coverage: { coveredFrom: NOW - 40 * DAY_MS, limitedBy: 'runs' },
    });
    expect(whole.coverage).toEqual({ coveredFrom: NOW - 30 * DAY_MS, limitedBy: 'none' });
  });

  it('no runs: nothing to rate', () => {
    const report = computeHealth('Quiet', [], { nowMs: NOW });
    expect(report).toMatchObject({ runs: 0, successRate: null, medianMs: null, p95Ms: null, eta: null });
    expect(report.lastOutcomes).toEqual([]);
  });
});

describe('dailyHealth', () => {
  it('counts each UTC day by outcome, with the median and longest duration, oldest day first', () => {
    const today = Math.floor(NOW / DAY_MS) * DAY_MS;
    const executions = [
      run(NOW - (today + 3600_000), 'ok', 100), // today 01:00
      run(NOW - (today + 7200_000), 'failed', 300), // today 02:00
      run(NOW - (today - 3600_000), 'ok', 50), // yesterday 23:00
      run(NOW - (today + 10 * 3600_000), 'running', 0), // today 10:00
    ];
    const days = dailyHealth(executions, { nowMs: NOW, days: 3 });
    expect(days.map((d) => d.day)).toEqual(['2026-11-19', '2026-11-20', '2026-11-21']);
    expect(days[2]).toMatchObject({ succeeded: 1, failed: 1, other: 1, medianMs: 200_000, maxMs: 300_000 });
    expect(days[1]).toMatchObject({ succeeded: 1, failed: 0, other: 0, medianMs: 50_000, maxMs: 50_000 });
    expect(days[0]).toMatchObject({ succeeded: 0, failed: 0, other: 0, medianMs: null, maxMs: null, covered: true });
  });
});

describe('failure reasons and ranking', () => {
  it('most common first, then the latest; an empty reason is named as such', () => {
    const reasons = commonFailureReasons([
      run(1000, 'failed', 1, 'b'),
      run(2000, 'failed', 1, 'a'),
      run(3000, 'failed', 1, 'a'),
      run(4000, 'failed', 1, ''),
      run(5000, 'failed', 1, 'c'),
      run(6000, 'ok', 1, 'not a failure'),
    ]);
    expect(reasons).toEqual([
      { reason: 'a', count: 2 },
      { reason: 'b', count: 1 },
      { reason: '(no reason given)', count: 1 },
    ]);
  });

  it('ranks by failures, then failure rate; runbooks that never failed are left out', () => {
    const report = (name: string, ok: number, failed: number) =>
      computeHealth(
        name,
        [
          ...Array.from({ length: ok }, (_, i) => run((i + 1) * 60_000, 'ok', 10)),
          ...Array.from({ length: failed }, (_, i) => run((i + 1) * 3600_000, 'failed', 10)),
        ],
        { nowMs: NOW },
      );
    const ranked = rankFailing([report('A', 10, 2), report('B', 1, 2), report('C', 5, 0), report('D', 0, 3)]);
    expect(ranked.map((r) => r.runbookName)).toEqual(['D', 'B', 'A']);
  });
});
