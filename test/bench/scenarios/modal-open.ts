// Scenario 2: from `/runbook run "<name>"` leaving the client to the fake Slack receiving
// views.open. The bot opens a loading view before it talks to the API, so the time must not
// depend on the API: measured with the API answering in 50 ms and in 10 s (trigger ids expire
// after 3 s, so the 10 s case must still open well inside that). Baseline: a bare Bolt app whose
// handler calls views.open at once.
import type { FakeSlack } from '../../../src/sandbox/fake-slack-api.ts';
import { loadingModal } from '../../../src/slack/kit/common.ts';
import { startBareBolt } from '../bare-bolt.ts';
import { BOT_TOKEN, SIGNING_SECRET, startBenchStack } from '../bench-stack.ts';
import { ms, type ScenarioResult, times } from '../report.ts';
import { runConcurrent } from '../run-concurrent.ts';
import { SignedSender } from '../signed-sender.ts';
import { slashCommand, triggerIdOf } from '../slack-bodies.ts';
import { ratio, summarize } from '../stats.ts';
import { waitUntil } from '../wait-until.ts';

const FAST_TOTAL = 200;
const FAST_IN_FLIGHT = 20;
const SLOW_TOTAL = 8;
const RUNBOOK = 'Restart Kubernetes Deployment';

interface OpenTimes {
  samples: number[];
  failed: number;
}

/** Sends `total` commands and times each to the views.open carrying its trigger id. */
async function timeViewsOpen(
  fake: FakeSlack,
  url: string,
  total: number,
  inFlight: number,
  text: string,
): Promise<OpenTimes> {
  const sentAt = new Map<string, number>();
  const openedAt = new Map<string, { at: number; ok: boolean }>();
  const listener = (call: { method: string; args: Record<string, unknown>; ok: boolean }) => {
    if (call.method !== 'views.open') return;
    const trigger = String(call.args.trigger_id ?? '');
    if (sentAt.has(trigger) && !openedAt.has(trigger)) openedAt.set(trigger, { at: performance.now(), ok: call.ok });
  };
  fake.on('call', listener);
  const sender = new SignedSender(url, SIGNING_SECRET, inFlight);
  try {
    await runConcurrent(total, inFlight, async () => {
      const body = slashCommand(fake, text);
      const trigger = triggerIdOf(body);
      const res = await sender.send(body, (t) => sentAt.set(trigger, t));
      if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
      // The next command goes when this one's modal is open (or clearly never will be).
      await waitUntil(() => openedAt.has(trigger), 15_000, 2);
    });
  } finally {
    await sender.close();
  }
  const samples: number[] = [];
  let failed = 0;
  for (const [trigger, t0] of sentAt) {
    const opened = openedAt.get(trigger);
    if (opened?.ok) samples.push(opened.at - t0);
    else failed++;
  }
  return { samples, failed };
}

export async function modalOpen(): Promise<ScenarioResult> {
  const fastStack = await startBenchStack({ faults: { latencyMs: 50 } });
  const bare = await startBareBolt(
    SIGNING_SECRET,
    (app) => {
      app.command('/runbook', async ({ ack, client, command }) => {
        await ack();
        await client.views.open({ trigger_id: command.trigger_id, view: loadingModal('Run a runbook', 'Loading…') });
      });
    },
    { botToken: BOT_TOKEN, slackApiUrl: fastStack.fake.url },
  );
  let fast: OpenTimes;
  let base: OpenTimes;
  try {
    // Warm the catalog and connection pools first; the first command is not what we measure.
    await timeViewsOpen(fastStack.fake, fastStack.botUrl, 10, 5, `run "${RUNBOOK}"`);
    await timeViewsOpen(fastStack.fake, bare.url, 10, 5, `run "${RUNBOOK}"`);
    fast = await timeViewsOpen(fastStack.fake, fastStack.botUrl, FAST_TOTAL, FAST_IN_FLIGHT, `run "${RUNBOOK}"`);
    base = await timeViewsOpen(fastStack.fake, bare.url, FAST_TOTAL, FAST_IN_FLIGHT, `run "${RUNBOOK}"`);
  } finally {
    await bare.stop();
    await fastStack.stop();
  }

  // 10 s API: a fresh bot whose catalog has never loaded, so nothing can be served from memory.
  const slowStack = await startBenchStack({ faults: { latencyMs: 10_000 } });
  let slow: OpenTimes;
  try {
    slow = await timeViewsOpen(slowStack.fake, slowStack.botUrl, SLOW_TOTAL, SLOW_TOTAL, `run "${RUNBOOK}"`);
  } finally {
    await slowStack.stop();
  }

  const f = summarize(fast.samples);
  const b = summarize(base.samples);
  const s = summarize(slow.samples);
  return {
    id: 'modal-open',
    rows: [
      {
        scenario: `2. run → views.open p50 (API 50 ms, ${FAST_TOTAL}, ${FAST_IN_FLIGHT} in flight)`,
        ours: ms(f.p50),
        baseline: ms(b.p50),
        ratio: times(ratio(f.p50, b.p50)),
      },
      {
        scenario: '2. run → views.open p99 (API 50 ms)',
        ours: ms(f.p99),
        baseline: ms(b.p99),
        ratio: times(ratio(f.p99, b.p99)),
      },
      {
        scenario: `2. run → views.open p50 (API 10 s, ${SLOW_TOTAL} concurrent)`,
        ours: ms(s.p50),
        baseline: ms(b.p50),
        ratio: times(ratio(s.p50, b.p50)),
      },
      {
        scenario: '2. run → views.open p99 / max (API 10 s; must be < 3 s)',
        ours: `${ms(s.p99)} / ${ms(s.max)}`,
        baseline: ms(b.p99),
        ratio: times(ratio(s.max, b.p99)),
      },
    ],
    data: {
      api50ms: { ...f, failed: fast.failed },
      api10s: { ...s, failed: slow.failed },
      baseline: { ...b, failed: base.failed },
    },
    notes: [
      `views.open failures: ours(50 ms) ${fast.failed}, ours(10 s) ${slow.failed}, baseline ${base.failed}`,
      `10 s API: max ${ms(s.max)} — ${s.max < 3000 && slow.failed === 0 ? 'inside' : 'OUTSIDE'} the 3 s trigger window`,
    ],
  };
}
