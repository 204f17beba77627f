// Scenario 5a: 20 and 200 executions that have been running for 4 minutes end at random moments
// within 20 s. Measured per run: detection (end → the first API answer showing it finished) and
// completion → message (end → its message edited or a reply naming it), p50 / p99, next to the
// bound computed for the budget (one sweep over every watch / budget), and the API request rate
// while the runs are still quiet. Baseline: the same watcher with the fixed backoff it had before
// (2 s, ×1.5, capped at 60 s), on its own emulator, at the same time. Slack pacing is off on both
// sides (scenario 5c measures Slack); the budget is 20 requests/s.
import { nextCheckDelay } from '../../../src/watch/backoff.ts';
import { nextLookIn, planChecks } from '../../../src/watch/check-plan.ts';
import { ms, num, type Row, type ScenarioResult, times } from '../report.ts';
import { ratio, summarize } from '../stats.ts';
import { delays, newWatcher, openRigStore, prepareRig, rateBetween, seedWatches, untilTold } from '../watch-rig.ts';

const BUDGET = 20;
const AGE_MS = 4 * 60_000;
const END_FROM_MS = 10_000;
const END_TO_MS = 30_000;
/** The baseline may check a run up to 60 s after it ended. */
const GRACE_MS = 65_000;

export interface LongRunFigures {
  runs: number;
  schedule: 'budget' | 'backoff';
  detection: ReturnType<typeof summarize>;
  told: ReturnType<typeof summarize>;
  untold: number;
  quietRate: number;
  boundMs: number;
  intervalMs: number;
}

async function oneCase(runs: number, schedule: 'budget' | 'backoff', seed: number): Promise<LongRunFigures> {
  const rig = await prepareRig({
    runs,
    ageMs: AGE_MS,
    endFromMs: END_FROM_MS,
    endToMs: END_TO_MS,
    channels: Math.min(20, runs),
    seed,
  });
  const rigStore = await openRigStore('sqlite');
  const plan = planChecks({ watches: runs, requestsPerSecond: BUDGET, listingPages: Math.ceil(runs / 100) });
  // The gap each scheduler has settled at after 4 minutes of checks.
  const settledGap = schedule === 'backoff' ? nextCheckDelay(10) : nextLookIn(plan, 10, 2_000);
  await seedWatches(rig, rigStore.store, AGE_MS, settledGap);
  const watcher = newWatcher(rig, rigStore.store, {
    requestsPerSecond: BUDGET,
    schedule,
    slackPostIntervalMs: 0,
    slackUpdateIntervalMs: 0,
  });
  try {
    const wait = rig.t0 - Date.now();
    if (wait < 0) throw new Error(`set-up overran the lead by ${-wait} ms`);
    await new Promise((r) => setTimeout(r, wait));
    watcher.start();
    await untilTold(rig, rig.t0 + END_TO_MS + GRACE_MS);
    const d = delays(rig);
    const live = watcher.plan;
    return {
      runs,
      schedule,
      detection: summarize(d.detection),
      told: summarize(d.told),
      untold: d.untold,
      // From the first second (start-up) to the first end: nothing has finished yet.
      quietRate: rateBetween(rig, rig.t0 + 2_000, rig.t0 + END_FROM_MS),
      boundMs: live.boundMs,
      intervalMs: live.intervalMs,
    };
  } finally {
    await watcher.stop().catch(() => {});
    await rigStore.close();
    await rig.close();
  }
}

export async function longRuns(): Promise<ScenarioResult> {
  // All four at once, each on its own emulator and fake Slack: the delays are seconds, far above
  // what sharing the CPU costs, and the scenario takes one window instead of four.
  const [o20, b20, o200, b200] = await Promise.all([
    oneCase(20, 'budget', 20),
    oneCase(20, 'backoff', 20),
    oneCase(200, 'budget', 200),
    oneCase(200, 'backoff', 200),
  ]);
  const rows: Row[] = [];
  for (const [ours, base] of [
    [o20, b20],
    [o200, b200],
  ] as const) {
    const n = ours.runs;
    rows.push(
      {
        scenario: `5a. ${n} runs, 4 min old, end within 20 s: bound (sweep / budget) · our interval`,
        ours: `${ms(ours.boundMs)} · ${ms(ours.intervalMs)}`,
        baseline: 'backoff to 60 s',
        ratio: '—',
      },
      {
        scenario: `5a. ${n} runs: detection p50 / p99`,
        ours: `${ms(ours.detection.p50)} / ${ms(ours.detection.p99)}`,
        baseline: `${ms(base.detection.p50)} / ${ms(base.detection.p99)}`,
        ratio: `${times(ratio(ours.detection.p50, base.detection.p50))} / ${times(ratio(ours.detection.p99, base.detection.p99))}`,
      },
      {
        scenario: `5a. ${n} runs: completion → message p50 / p99 (target p99 ≤ 5 s)`,
        ours: `${ms(ours.told.p50)} / ${ms(ours.told.p99)}`,
        baseline: `${ms(base.told.p50)} / ${ms(base.told.p99)}`,
        ratio: `${times(ratio(ours.told.p50, base.told.p50))} / ${times(ratio(ours.told.p99, base.told.p99))}`,
      },
      {
        scenario: `5a. ${n} runs: not told within ${(END_TO_MS + GRACE_MS) / 1000} s`,
        ours: String(ours.untold),
        baseline: String(base.untold),
        ratio: '—',
      },
      {
        scenario: `5a. ${n} runs: API requests/s while all are running (budget ${BUDGET})`,
        ours: num(ours.quietRate, 2),
        baseline: num(base.quietRate, 2),
        ratio: times(ratio(ours.quietRate, base.quietRate)),
      },
    );
  }
  return {
    id: 'long-runs',
    rows,
    data: { budget: BUDGET, ageMs: AGE_MS, cases: { o20, b20, o200, b200 } },
    notes: [
      'runs really started 4 minutes earlier (emulator clock set back while they started); each scheduler starts from the state it settles in after such a wait (10 checks made, next check spread over its steady gap)',
      'completion → message = end → its message edited or a reply naming it (Slack pacing off; see 5c)',
    ],
  };
}
