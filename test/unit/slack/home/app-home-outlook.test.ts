// App Home's outlook: the runs due in the next 24 hours (overlaps flagged) and the runbooks failing most,
// each degrading to one sentence when it could not be read.
import { describe, expect, it } from 'vitest';
import { Execution, Schedule } from '../../../../src/api/schemas.ts';
import { computeHealth, DAY_MS } from '../../../../src/health/runbook-health.ts';
import { buildAppHome } from '../../../../src/slack/home/app-home.ts';
import { checkBlocks } from '../../../../src/slack/kit/limits.ts';

const NOW = Date.parse('2026-11-21T12:00:00Z');
const base = { executions: [], schedules: [], now: NOW };
const run = (at: number, overlaps = false, runbookName = 'Postgres Vacuum Analyze', scheduleId = 's1') => ({
  scheduleId,
  runbookId: 'r1',
  runbookName,
  at,
  overlaps,
});
const failedRun = (agoMs: number) =>
  Execution.parse({
    id: `e${agoMs}`,
    workflowName: 'Rotate <keys>',
    startTime: new Date(NOW - agoMs).toISOString(),
    endTime: new Date(NOW - agoMs + 1000).toISOString(),
    executionStatus: 'EXECUTION_STATUS_FAILED',
  });
const text = (home: ReturnType<typeof buildAppHome>) => JSON.stringify(home.blocks);

describe('App Home outlook', () => {
  it('lists the next 24 hours with overlaps, and the failing runbooks with how fresh they are', () => {
    const report = computeHealth('Rotate <keys>', [failedRun(DAY_MS), failedRun(2 * DAY_MS)], { nowMs: NOW });
    const home = buildAppHome({
      ...base,
      forecast: {
        runs: [
          run(NOW + 3600_000, true),
          run(NOW + 3700_000, true),
          run(NOW + 3900_000, false, 'Check <disk>', 's2'),
          run(NOW + 7200_000, false),
        ],
        truncated: false,
        pausedCount: 1,
        unreadableCount: 0,
      },
      failing: {
        reports: [report],
        seen: 4,
        fetchedAt: NOW - 120_000,
        rowsRead: 300,
        coverage: report.coverage,
      },
    });
    const all = text(home);
    expect(all).toContain('Next 24 hours');
    // One line per schedule, in the order of their next runs: Vacuum (then 2 more), then Check.
    expect(all).toMatch(
      /\*Postgres Vacuum Analyze\*, then 2 more {2}:warning: _overlapping runs_\\n[^"]*\*Check &lt;disk&gt;\*"/,
    );
    expect(all).toContain('4 runs due from 2 schedules · 2 overlapping · 1 paused left out');
    expect(all).toContain('*Rotate &lt;keys&gt;*: 2 of 2 failed (0% ok) :large_red_square::large_red_square:');
    expect(all).toContain('as of 2 min ago');
    expect(checkBlocks(home.blocks, 'home')).toEqual([]);
  });

  it('shows a schedule firing more often than hourly (summed up by the forecast) as one line with its count', () => {
    const home = buildAppHome({
      ...base,
      forecast: {
        runs: [run(NOW + 7200_000)],
        frequent: [
          {
            scheduleId: 'm1',
            runbookId: 'r2',
            runbookName: 'Heartbeat',
            cron: '* * * * *',
            count: 1440,
            countCut: false,
            firstAt: NOW + 60_000,
            minGapMs: 60_000,
            frozenBy: null,
          },
        ],
        truncated: false,
        pausedCount: 0,
        unreadableCount: 0,
      },
      failing: new Error('boom'),
    });
    const all = text(home);
    expect(all).toContain('1441 runs due from 2 schedules');
    expect(all).toMatch(/\*Heartbeat\*, then 1439 more\\n[^"]*\*Postgres Vacuum Analyze\*/);
  });

  it('says when nothing is due or nothing failed, and when either could not be read', () => {
    const quiet = text(
      buildAppHome({
        ...base,
        forecast: { runs: [], truncated: false, pausedCount: 0, unreadableCount: 0 },
        failing: {
          reports: [],
          seen: 0,
          fetchedAt: NOW,
          rowsRead: 0,
          coverage: { coveredFrom: NOW - 30 * DAY_MS, limitedBy: 'none' },
        },
      }),
    );
    expect(quiet).toContain('Nothing is scheduled to run in the next 24 hours.');
    expect(quiet).toContain('No runbook you may view failed in the last 30 days.');
    const broken = text(buildAppHome({ ...base, forecast: new Error('boom'), failing: new Error('boom') }));
    expect(broken).toContain('Could not load the runs due.');
    expect(broken).toContain('Could not load the health of runbooks.');
    // Not asked for: not shown.
    expect(text(buildAppHome(base))).not.toContain('Next 24 hours');
  });
});

describe('App Home and change freezes', () => {
  it('says a freeze on now at the top and marks the runs it will hold', () => {
    const home = buildAppHome({
      ...base,
      freezes: [
        { name: 'Year <end>', activeUntil: NOW + DAY_MS, nextStart: null },
        { name: 'Weekend', activeUntil: null, nextStart: NOW + 2 * DAY_MS },
      ],
      forecast: {
        runs: [{ ...run(NOW + 3600_000), frozenBy: 'Year <end>' }, run(NOW + 3900_000, false, 'Check disk', 's2')],
        truncated: false,
        pausedCount: 0,
        unreadableCount: 0,
      },
    });
    const all = text(home);
    expect(all).toContain(':snowflake: Change freeze *Year &lt;end&gt;* is on until <!date^');
    expect(all).not.toContain('Change freeze *Weekend*');
    expect(all).toContain('*Postgres Vacuum Analyze*  :snowflake: _held by the change freeze Year &lt;end&gt;_');
    expect(all.split('held by the change freeze')).toHaveLength(2);
    expect(checkBlocks(home.blocks, 'home')).toEqual([]);
    expect(text(buildAppHome(base))).not.toContain(':snowflake:');
  });
});

describe('App Home outlook at its worst', () => {
  it('stays within Block Kit limits with the longest names, every one escaped, all held by a freeze', () => {
    // 120 characters that each escape to 4 or 5 (&lt; &amp;), on every row shown.
    const hostile = '<&'.repeat(200);
    const runs = Array.from({ length: 30 }, (_, i) => ({
      ...run(NOW + (i + 1) * 60_000, true, `${hostile}${i}`, `s${i}`),
      frozenBy: hostile,
    }));
    const reports = Array.from({ length: 8 }, (_, i) =>
      computeHealth(`${hostile}${i}`, [failedRun(DAY_MS)], { nowMs: NOW }),
    );
    const home = buildAppHome({
      ...base,
      forecast: { runs, truncated: true, pausedCount: 3, unreadableCount: 0 },
      failing: { reports, seen: 8, fetchedAt: NOW, rowsRead: 1000, coverage: reports[0]!.coverage },
    });
    expect(checkBlocks(home.blocks, 'home')).toEqual([]);
  });

  it('says who paused a schedule and when: a person, or a change freeze', () => {
    const schedule = (id: string) =>
      Schedule.parse({ id, runbookId: 'r1', runbookName: 'Postgres Vacuum Analyze', schedule: '0 0 30 2 *' });
    const pause = (scheduleId: string, freeze: string | null) => ({
      scheduleId,
      cron: '0 5 * * *',
      runbookId: 'r1',
      runbookName: 'Postgres Vacuum Analyze',
      pausedBy: freeze ? '' : 'U01ALICE',
      teamId: null,
      installationId: '',
      resumeAt: null,
      freeze,
      state: 'paused' as const,
      pausedAt: NOW - 3600_000,
      updatedAt: NOW - 3600_000,
    });
    const home = buildAppHome({
      ...base,
      schedules: [schedule('s1'), schedule('s2')],
      pauses: new Map([
        ['s1', pause('s1', null)],
        ['s2', pause('s2', 'Year-end <freeze>')],
      ]),
    });
    const all = text(home);
    const at = Math.floor((NOW - 3600_000) / 1000);
    expect(all).toContain(`Paused by <@U01ALICE> <!date^${at}^`);
    expect(all).toContain(`Paused by the change freeze *Year-end &lt;freeze&gt;* <!date^${at}^`);
    // The real expression, not the placeholder the API holds.
    expect(all).toContain('`0 5 * * *`');
    expect(all).not.toContain('0 0 30 2 *');
  });
});
