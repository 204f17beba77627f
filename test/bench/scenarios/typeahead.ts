// Scenario 3: the runbook picker's typeahead over a 10,000-runbook catalog. Ours answers from the
// in-memory catalog; the baseline is what a naive app does: list every workflow from the API on
// each keystroke and filter. Both are measured end to end as Slack sees them (signed
// block_suggestion → options JSON), after warm-up.

import { createRunbookApi } from '../../../src/api/client.ts';
import type { Workflow } from '../../../src/api/schemas.ts';
import { ACTIONS } from '../../../src/slack/kit/ids.ts';
import { runbookOption } from '../../../src/slack/kit/run-modal.ts';
import { startBareBolt } from '../bare-bolt.ts';
import { API_KEY, BOT_TOKEN, SIGNING_SECRET, startBenchStack } from '../bench-stack.ts';
import { ms, type ScenarioResult, times } from '../report.ts';
import { runConcurrent } from '../run-concurrent.ts';
import { SignedSender } from '../signed-sender.ts';
import { runbookSuggestion } from '../slack-bodies.ts';
import { ratio, summarize } from '../stats.ts';

const CATALOG = 10_000;
const OURS_TOTAL = 400;
const BASELINE_TOTAL = 12;
const IN_FLIGHT = 4;
// What people type, one keystroke at a time.
const WORDS = ['restart kubernetes', 'disk', 'aws ec2', 'postgres', 'rotate', 'zzz-none'];
const KEYSTROKES = WORDS.flatMap((w) => Array.from({ length: w.length }, (_, i) => w.slice(0, i + 1)));

async function timeSuggestions(
  url: string,
  total: number,
): Promise<{ samples: number[]; empty: number; failed: number }> {
  const sender = new SignedSender(url, SIGNING_SECRET, IN_FLIGHT);
  const samples: number[] = [];
  let empty = 0;
  try {
    const result = await runConcurrent(
      total,
      IN_FLIGHT,
      async (i) => {
        const res = await sender.send(runbookSuggestion(KEYSTROKES[i % KEYSTROKES.length]!));
        if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
        const options = (JSON.parse(res.body) as { options?: unknown[] }).options ?? [];
        if (options.length === 0) empty++;
        samples.push(res.ms);
      },
      90_000,
    );
    return { samples, empty, failed: result.failed };
  } finally {
    await sender.close();
  }
}

export async function typeahead(): Promise<ScenarioResult> {
  const stack = await startBenchStack({ extraRunbooks: CATALOG });
  const api = createRunbookApi({ baseUrl: stack.emulator.url, apiKey: API_KEY });
  // Baseline: every keystroke lists the whole catalog (100 per page, the API's maximum) and filters.
  const bare = await startBareBolt(
    SIGNING_SECRET,
    (app) => {
      app.options<'block_suggestion'>({ action_id: ACTIONS.runbookPicker }, async ({ ack, payload }) => {
        const q = (payload.value ?? '').toLowerCase();
        const found: Workflow[] = [];
        for await (const w of api.workflows.iterate({ isService: true, pageSize: 100 })) {
          if (w.name.toLowerCase().includes(q)) found.push(w);
        }
        await ack({ options: found.slice(0, 100).map(runbookOption) });
      });
    },
    // A listing of 10,000 takes longer than Bolt's default 3 s; let it finish so we measure it.
    { unhandledRequestTimeoutMillis: 120_000, botToken: BOT_TOKEN, slackApiUrl: stack.fake.url },
  );
  try {
    const loadStart = performance.now();
    await stack.runtime.deps.catalog.search('');
    const catalogLoadMs = performance.now() - loadStart;
    const catalogSize = (await stack.runtime.deps.catalog.all()).length;
    await timeSuggestions(stack.botUrl, 40); // warm-up
    const ours = await timeSuggestions(stack.botUrl, OURS_TOTAL);
    await timeSuggestions(bare.url, 1); // warm-up
    const base = await timeSuggestions(bare.url, BASELINE_TOTAL);
    const o = summarize(ours.samples);
    const b = summarize(base.samples);
    return {
      id: 'typeahead',
      rows: [
        {
          scenario: `3. typeahead p50 (${catalogSize} runbooks, ${OURS_TOTAL} vs ${BASELINE_TOTAL} keystrokes)`,
          ours: ms(o.p50),
          baseline: ms(b.p50),
          ratio: times(ratio(o.p50, b.p50)),
        },
        { scenario: '3. typeahead p99', ours: ms(o.p99), baseline: ms(b.p99), ratio: times(ratio(o.p99, b.p99)) },
        {
          scenario: '3. catalog load (once, then background refresh)',
          ours: ms(catalogLoadMs),
          baseline: 'every keystroke',
          ratio: '—',
        },
      ],
      data: {
        ours: { ...o, empty: ours.empty, failed: ours.failed },
        baseline: { ...b, empty: base.empty, failed: base.failed },
        catalogSize,
        catalogLoadMs,
      },
      notes: [
        `typeahead failures: ours ${ours.failed}, baseline ${base.failed}; answers over Slack's 3 s: baseline ${base.samples.filter((s) => s > 3000).length} of ${base.samples.length}`,
      ],
    };
  } finally {
    await bare.stop();
    await api.close();
    await stack.stop();
  }
}
