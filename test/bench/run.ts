// `npm run bench`: every scenario against its baseline in one run, printed as a table and written
// to test/bench/results.json. Plain TypeScript for Node 24 (no vitest). Scenarios run one after
// another so they do not disturb each other; each cleans up what it started.
// Pick scenarios with BENCH_ONLY=ack-latency,typeahead (ids as printed in results.json).
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { renderTable, type ScenarioResult } from './report.ts';
import { ackLatency } from './scenarios/ack-latency.ts';
import { clientThroughput } from './scenarios/client-throughput.ts';
import { longRuns } from './scenarios/long-runs.ts';
import { memory } from './scenarios/memory.ts';
import { modalOpen } from './scenarios/modal-open.ts';
import { replicasScenario } from './scenarios/replicas.ts';
import { slackBurst } from './scenarios/slack-burst.ts';
import { tenantAcks } from './scenarios/tenant-acks.ts';
import { tenantsScenario } from './scenarios/tenants.ts';
import { typeahead } from './scenarios/typeahead.ts';
import { watcherScenario } from './scenarios/watcher.ts';

const RESULTS = fileURLToPath(new URL('./results.json', import.meta.url));
const only = new Set((process.env.BENCH_ONLY ?? '').split(',').filter(Boolean));
const wanted = (id: string) => only.size === 0 || only.has(id);

// A collection between scenarios keeps one scenario's garbage out of the next one's figures.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

async function main(): Promise<void> {
  const startedAt = performance.now();
  const results: ScenarioResult[] = [];
  let watch10k: { peakRss: number; baselineRss: number } | null = null;
  const steps: Array<[string, () => Promise<ScenarioResult>]> = [
    ['ack-latency', ackLatency],
    ['modal-open', modalOpen],
    ['typeahead', typeahead],
    ['client-throughput', clientThroughput],
    ['long-runs', longRuns],
    ['replicas', replicasScenario],
    [
      'watcher',
      async () => {
        const out = await watcherScenario();
        watch10k = out.watch10k;
        return out.result;
      },
    ],
    ['memory', () => memory(watch10k)],
    ['tenants', tenantsScenario],
    ['tenant-acks', tenantAcks],
    // Last: it leaves a watcher behind with edits still queued (see the scenario).
    ['slack-burst', slackBurst],
  ];
  for (const [id, run] of steps) {
    if (!wanted(id)) continue;
    gc();
    const t0 = performance.now();
    process.stderr.write(`bench: ${id}…\n`);
    try {
      const result = await run();
      results.push(result);
      process.stderr.write(`bench: ${id} done in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      process.stderr.write(`bench: ${id} FAILED: ${message}\n`);
      results.push({
        id,
        rows: [{ scenario: id, ours: `failed: ${message.slice(0, 60)}`, baseline: '—', ratio: '—' }],
        data: { error: message },
        notes: [],
      });
    }
  }
  const totalSeconds = (performance.now() - startedAt) / 1000;
  const rows = results.flatMap((r) => r.rows);
  const notes = results.flatMap((r) => r.notes.map((n) => `- ${r.id}: ${n}`));
  process.stdout.write(
    `\n${renderTable(rows)}\n\n${notes.join('\n')}\n\nratio = ours / baseline; total ${totalSeconds.toFixed(0)} s\n`,
  );
  writeFileSync(
    RESULTS,
    `${JSON.stringify(
      {
        at: new Date().toISOString(),
        node: process.version,
        cpus: os.cpus().length,
        totalSeconds,
        scenarios: Object.fromEntries(results.map((r) => [r.id, { rows: r.rows, data: r.data, notes: r.notes }])),
      },
      null,
      2,
    )}\n`,
  );
  process.stderr.write(`bench: wrote ${RESULTS}\n`);
  const failed = results.some((r) => 'error' in r.data);
  process.exit(failed ? 1 : 0);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
