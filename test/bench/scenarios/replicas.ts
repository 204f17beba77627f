// Scenario 5b: two replicas on Postgres sharing one request budget. 200 runs, 4 minutes old, end
// within 20 s while the budget is small (5 requests/s), so the work wants more than the budget:
// the sum of both replicas' request rates (the emulator counts every request) over any 20 s
// window must stay ≤ 1.05 × the budget (20 s of refill plus a one-second burst is exactly 1.05×),
// and the delays must match one replica on the same budget (the baseline, measured at the same
// time on its own emulator and schema). Every run must be told exactly once.
import type { Watcher } from '../../../src/watch/watcher.ts';
import { ms, num, type Row, type ScenarioResult, times } from '../report.ts';
import { ratio, summarize } from '../stats.ts';
import {
  delays,
  newWatcher,
  openRigStore,
  peakRate,
  prepareRig,
  rateBetween,
  seedWatches,
  untilTold,
} from '../watch-rig.ts';

const BUDGET = 5;
const RUNS = 200;
const AGE_MS = 4 * 60_000;
const END_FROM_MS = 5_000;
const END_TO_MS = 25_000;
const WINDOW_MS = 20_000;

export interface ReplicaFigures {
  replicas: number;
  told: ReturnType<typeof summarize>;
  detection: ReturnType<typeof summarize>;
  untold: number;
  /** Runs whose notices (reply or digest line) were not exactly one. */
  notExactlyOnce: number;
  /** Requests/s from the first end until the last run was told (all replicas). */
  busyRate: number;
  /** Highest rate over any 20 s window while busy. */
  peakRate: number;
}

export async function replicaCase(replicas: number, seed: number): Promise<ReplicaFigures> {
  const rig = await prepareRig({
    runs: RUNS,
    ageMs: AGE_MS,
    endFromMs: END_FROM_MS,
    endToMs: END_TO_MS,
    channels: 10,
    seed,
  });
  const rigStore = await openRigStore('postgres');
  const watchers: Watcher[] = [];
  try {
    // Every watch due at once when the replicas start (as after a restart): the first looks want
    // far more than the budget, so the shared bucket, not the plan, is what holds the rate.
    await seedWatches(rig, rigStore.store, AGE_MS, 0);
    for (let i = 0; i < replicas; i++) {
      const store = i === 0 ? rigStore.store : await rigStore.replica();
      watchers.push(
        newWatcher(rig, store, { requestsPerSecond: BUDGET, slackPostIntervalMs: 0, slackUpdateIntervalMs: 0 }),
      );
    }
    const wait = rig.t0 - Date.now();
    if (wait < 0) throw new Error(`set-up overran the lead by ${-wait} ms`);
    await new Promise((r) => setTimeout(r, wait));
    for (const w of watchers) w.start();
    await untilTold(rig, rig.t0 + END_TO_MS + 120_000);
    // Let the last deliveries settle so a doubled notice would show.
    await new Promise((r) => setTimeout(r, 1_000));
    const d = delays(rig);
    const firstEnd = Math.min(...rig.runs.map((r) => r.endMs));
    const lastTold = Math.max(...rig.told.values());
    const notExactlyOnce = rig.runs.filter((r) => (rig.notices.get(r.id) ?? 0) !== 1).length;
    return {
      replicas,
      told: summarize(d.told),
      detection: summarize(d.detection),
      untold: d.untold,
      notExactlyOnce,
      busyRate: rateBetween(rig, firstEnd, lastTold),
      peakRate: peakRate(rig, rig.t0, Math.max(lastTold, rig.t0 + WINDOW_MS), WINDOW_MS),
    };
  } finally {
    for (const w of watchers) await w.stop().catch(() => {});
    await rigStore.close();
    await rig.close();
  }
}

export async function replicasScenario(): Promise<ScenarioResult> {
  const [two, one] = await Promise.all([replicaCase(2, 5), replicaCase(1, 5)]);
  const rows: Row[] = [
    {
      scenario: `5b. 2 replicas on Postgres, one budget of ${BUDGET} req/s, ${RUNS} runs all due at start, ending in 20 s: peak 20 s request rate (baseline: the budget; target ≤ 1.05×)`,
      ours: `${num(two.peakRate, 2)} req/s`,
      baseline: `${BUDGET} req/s`,
      ratio: times(ratio(two.peakRate, BUDGET)),
    },
    {
      scenario: '5b. request rate while busy, 2 replicas (baseline: 1 replica)',
      ours: `${num(two.busyRate, 2)} req/s`,
      baseline: `${num(one.busyRate, 2)} req/s`,
      ratio: times(ratio(two.busyRate, one.busyRate)),
    },
    {
      scenario: '5b. completion → message p50 / p99, 2 replicas (baseline: 1 replica, same budget)',
      ours: `${ms(two.told.p50)} / ${ms(two.told.p99)}`,
      baseline: `${ms(one.told.p50)} / ${ms(one.told.p99)}`,
      ratio: `${times(ratio(two.told.p50, one.told.p50))} / ${times(ratio(two.told.p99, one.told.p99))}`,
    },
    {
      scenario: '5b. runs not told exactly once (untold + doubled)',
      ours: String(two.notExactlyOnce),
      baseline: String(one.notExactlyOnce),
      ratio: '—',
    },
  ];
  return { id: 'replicas', rows, data: { budget: BUDGET, runs: RUNS, two, one }, notes: [] };
}
