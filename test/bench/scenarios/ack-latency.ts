// Scenario 1: how fast a slash command is acknowledged under load (50 in flight), next to a bare
// Bolt app with an empty handler. Slack gives an app 3 s to answer; the ack is what it waits for.

import { startBareBolt } from '../bare-bolt.ts';
import { BOT_TOKEN, SIGNING_SECRET, startBenchStack } from '../bench-stack.ts';
import { ms, type ScenarioResult, times } from '../report.ts';
import { runConcurrent } from '../run-concurrent.ts';
import { SignedSender } from '../signed-sender.ts';
import { slashCommand } from '../slack-bodies.ts';
import { ratio, summarize } from '../stats.ts';
import { waitUntil } from '../wait-until.ts';

const TOTAL = 500;
const IN_FLIGHT = 50;
const WARM_UP = 50;

async function measure(url: string, makeBody: () => ReturnType<typeof slashCommand>): Promise<number[]> {
  const sender = new SignedSender(url, SIGNING_SECRET, IN_FLIGHT);
  try {
    await runConcurrent(WARM_UP, IN_FLIGHT, async () => {
      await sender.send(makeBody());
    });
    const samples: number[] = [];
    const result = await runConcurrent(TOTAL, IN_FLIGHT, async () => {
      const res = await sender.send(makeBody());
      if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
      samples.push(res.ms);
    });
    if (result.failed > 0) throw new Error(`${result.failed} requests failed: ${result.errors.join('; ')}`);
    return samples;
  } finally {
    await sender.close();
  }
}

export async function ackLatency(): Promise<ScenarioResult> {
  const stack = await startBenchStack();
  // Same Web API (the fake) as the bot: Bolt authorizes with auth.test before the first listener.
  const bare = await startBareBolt(
    SIGNING_SECRET,
    (app) => {
      app.command('/runbook', async ({ ack }) => {
        await ack();
      });
    },
    { botToken: BOT_TOKEN, slackApiUrl: stack.fake.url },
  );
  try {
    // Alternate the order so neither side always runs on a warmer process.
    const baseline1 = await measure(bare.url, () => slashCommand(null, 'help'));
    const ours = await measure(stack.botUrl, () => slashCommand(stack.fake, 'help'));
    const baseline2 = await measure(bare.url, () => slashCommand(null, 'help'));
    const o = summarize(ours);
    const b = summarize([...baseline1, ...baseline2]);
    // Replies go out after the ack; give the last ones a moment before counting.
    const expected = TOTAL + WARM_UP;
    await waitUntil(() => stack.fake.state.responseUrlPosts.length >= expected, 10_000);
    const helpReplies = stack.fake.state.responseUrlPosts.filter((p) => p.ok).length;
    return {
      id: 'ack-latency',
      rows: [
        {
          scenario: `1. /runbook help ack p50 (${TOTAL}, ${IN_FLIGHT} in flight)`,
          ours: ms(o.p50),
          baseline: ms(b.p50),
          ratio: times(ratio(o.p50, b.p50)),
        },
        {
          scenario: '1. /runbook help ack p99',
          ours: ms(o.p99),
          baseline: ms(b.p99),
          ratio: times(ratio(o.p99, b.p99)),
        },
      ],
      data: { ours: o, baseline: b, helpRepliesDelivered: helpReplies },
      notes: [`help replies delivered through response_url: ${helpReplies} of ${TOTAL + WARM_UP}`],
    };
  } finally {
    await bare.stop();
    await stack.stop();
  }
}
