// Scenario 5c: the Slack side. 1,000 runs in ONE channel end within a minute, with production
// pacing (posts ~1/s per channel, edits ~1/s for the workspace, digests past 3 waiting) while the
// fake Slack answers 10% of chat.* calls `ratelimited` (Retry-After 1 s). Measured: `ratelimited`
// answers Slack gave, how many reached a person (must be 0), runs told exactly once (a reply or a
// digest line), the busiest second of posts in the channel, and the time from the last run's end
// until it was told. Baseline, at the same time on its own emulator and fake Slack: the same
// watcher with digests off (one reply per run), which Slack's per-channel rate holds to ~1/s.
import { ms, num, type Row, type ScenarioResult, times } from '../report.ts';
import { ratio } from '../stats.ts';
import { newWatcher, openRigStore, prepareRig, seedWatches, untilTold } from '../watch-rig.ts';

const RUNS = Number(process.env.BENCH_BURST_RUNS ?? 1_000);
const END_FROM_MS = 5_000;
const END_TO_MS = 65_000;
const GRACE_MS = 60_000;

export interface BurstFigures {
  told: number;
  /** Runs told more than once. */
  doubled: number;
  ratelimitedAnswers: number;
  surfaced: number;
  /** Last run's end → the moment the last run was told (NaN if not all were). */
  lastToldAfterMs: number;
  /** Runs told within GRACE_MS of the last end. */
  toldInWindow: number;
  peakPostsPerSecond: number;
  updatesPerMinute: number;
}

async function burstCase(digests: boolean): Promise<BurstFigures> {
  const rig = await prepareRig({
    runs: RUNS,
    ageMs: 60_000,
    endFromMs: END_FROM_MS,
    endToMs: END_TO_MS,
    channels: 1,
    seed: 1000,
  });
  const rigStore = await openRigStore('sqlite');
  await seedWatches(rig, rigStore.store, 60_000, 1_000);
  rig.fake.setFaults({ ratelimitedRate: 0.1, retryAfterSeconds: 1, methods: ['chat.postMessage', 'chat.update'] });
  const watcher = newWatcher(rig, rigStore.store, {
    requestsPerSecond: 20,
    slackPostIntervalMs: 1_000,
    slackUpdateIntervalMs: 1_000,
    digestThreshold: digests ? 3 : 1_000_000,
  });
  try {
    const wait = rig.t0 - Date.now();
    if (wait < 0) throw new Error(`set-up overran the lead by ${-wait} ms`);
    await new Promise((r) => setTimeout(r, wait));
    watcher.start();
    const lastEnd = Math.max(...rig.runs.map((r) => r.endMs));
    await untilTold(rig, lastEnd + GRACE_MS);
    await new Promise((r) => setTimeout(r, 1_000));
    const doubled = rig.runs.filter((r) => (rig.notices.get(r.id) ?? 0) > 1).length;
    const posts = rig.chatCalls.filter(([, m]) => m === 'chat.postMessage').map(([t]) => t);
    let peak = 0;
    for (const t of posts) peak = Math.max(peak, posts.filter((u) => u >= t && u < t + 1_000).length);
    const updates = rig.chatCalls.filter(([, m]) => m === 'chat.update').map(([t]) => t);
    const spanMin = updates.length > 1 ? (Math.max(...updates) - Math.min(...updates)) / 60_000 : Number.NaN;
    return {
      told: rig.told.size,
      doubled,
      ratelimitedAnswers: rig.ratelimited,
      surfaced: rig.surfacedRateLimits,
      lastToldAfterMs: rig.told.size === RUNS ? Math.max(...rig.told.values()) - lastEnd : Number.NaN,
      toldInWindow: [...rig.told.values()].filter((t) => t <= lastEnd + GRACE_MS).length,
      peakPostsPerSecond: peak,
      updatesPerMinute: updates.length / spanMin,
    };
  } finally {
    // Not awaited: with a thousand edits queued at ~1/s, draining would take many minutes. The
    // servers close under it; its remaining calls fail and are dropped with the process.
    void watcher.stop().catch(() => {});
    await rig.close();
    await rigStore.close().catch(() => {});
  }
}

export async function slackBurst(): Promise<ScenarioResult> {
  const [ours, base] = await Promise.all([burstCase(true), burstCase(false)]);
  const rows: Row[] = [
    {
      scenario: `5c. Slack: ${RUNS} runs in one channel end within a minute, 10% of chat.* answered ratelimited: answers surfaced to a person`,
      ours: `${ours.surfaced} of ${ours.ratelimitedAnswers}`,
      baseline: `${base.surfaced} of ${base.ratelimitedAnswers}`,
      ratio: '—',
    },
    {
      scenario: `5c. runs told within ${GRACE_MS / 1000} s of the last end (baseline: one reply per run, no digests)`,
      ours: String(ours.toldInWindow),
      baseline: String(base.toldInWindow),
      ratio: times(ratio(ours.toldInWindow, base.toldInWindow)),
    },
    {
      scenario: "5c. last run's end → the last run told",
      ours: ms(ours.lastToldAfterMs),
      baseline: Number.isFinite(base.lastToldAfterMs) ? ms(base.lastToldAfterMs) : `not all told (${base.told})`,
      ratio: '—',
    },
    {
      scenario: '5c. runs told more than once',
      ours: String(ours.doubled),
      baseline: String(base.doubled),
      ratio: '—',
    },
    {
      scenario: '5c. busiest second of posts in the channel · chat.update per minute (Slack: ~1/s · ~50/min)',
      ours: `${ours.peakPostsPerSecond} · ${num(ours.updatesPerMinute, 0)}`,
      baseline: `${base.peakPostsPerSecond} · ${num(base.updatesPerMinute, 0)}`,
      ratio: '—',
    },
  ];
  return {
    id: 'slack-burst',
    rows,
    data: { runs: RUNS, ours, base },
    notes: [
      "told = a thread reply or a digest line naming the run; the result cards (edits) follow at the edit lane's ~1/s, after the people were told",
    ],
  };
}
