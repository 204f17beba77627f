// Scenario 4: what our API client (undici pool, tids, schema parsing, retries) costs next to a
// plain `fetch` + JSON.parse of the same requests, 32 in flight against the emulator.
import { createRunbookApi } from '../../../src/api/client.ts';
import { API_KEY_HEADER, startEmulator } from '../../../src/emulator/server.ts';
import { API_KEY } from '../bench-stack.ts';
import { ms, num, type ScenarioResult, times } from '../report.ts';
import { runConcurrent } from '../run-concurrent.ts';
import { ratio, summarize } from '../stats.ts';

const IN_FLIGHT = 32;
const GETS = 4000;
const LISTS = 1500;

interface Throughput {
  perSecond: number;
  p99: number;
  p50: number;
  failed: number;
}

async function drive(total: number, call: (i: number) => Promise<void>): Promise<Throughput> {
  const samples: number[] = [];
  const started = performance.now();
  const result = await runConcurrent(total, IN_FLIGHT, async (i) => {
    const t0 = performance.now();
    await call(i);
    samples.push(performance.now() - t0);
  });
  const seconds = (performance.now() - started) / 1000;
  const s = summarize(samples);
  return { perSecond: samples.length / seconds, p50: s.p50, p99: s.p99, failed: result.failed };
}

export async function clientThroughput(): Promise<ScenarioResult> {
  const emulator = await startEmulator({ port: 0, apiKey: API_KEY });
  const api = createRunbookApi({ baseUrl: emulator.url, apiKey: API_KEY });
  const ids = emulator.state.executions.ordered.slice(-200).map((e) => e.id);
  const headers = { [API_KEY_HEADER]: API_KEY, accept: 'application/json' };
  const plainGet = async (path: string) => {
    const res = await fetch(`${emulator.url}${path}`, { headers });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    await res.json();
  };
  try {
    const runs = {
      ours: {
        get: (i: number) => api.executions.get(ids[i % ids.length]!).then(() => {}),
        list: () => api.workflows.list({ pageSize: 25 }).then(() => {}),
      },
      fetch: {
        get: (i: number) => plainGet(`/v1alpha1/executions/${ids[i % ids.length]}`),
        list: () => plainGet('/v1alpha1/workflows?pageSize=25'),
      },
    };
    // Warm both paths (JIT, connection pools).
    await drive(300, runs.ours.get);
    await drive(300, runs.fetch.get);
    const oursGet = await drive(GETS, runs.ours.get);
    const fetchGet = await drive(GETS, runs.fetch.get);
    const oursList = await drive(LISTS, runs.ours.list);
    const fetchList = await drive(LISTS, runs.fetch.list);
    const row = (label: string, o: Throughput, b: Throughput) => [
      {
        scenario: `4. ${label} req/s (${IN_FLIGHT} in flight)`,
        ours: num(o.perSecond, 0),
        baseline: num(b.perSecond, 0),
        ratio: times(ratio(o.perSecond, b.perSecond)),
      },
      { scenario: `4. ${label} p99`, ours: ms(o.p99), baseline: ms(b.p99), ratio: times(ratio(o.p99, b.p99)) },
    ];
    return {
      id: 'client-throughput',
      rows: [...row('executions.get', oursGet, fetchGet), ...row('workflows.list', oursList, fetchList)],
      data: { executionsGet: { ours: oursGet, fetch: fetchGet }, workflowsList: { ours: oursList, fetch: fetchList } },
      notes: [
        `failures: ours ${oursGet.failed + oursList.failed}, fetch ${fetchGet.failed + fetchList.failed}; ratio > 1 on req/s means ours is faster`,
      ],
    };
  } finally {
    await api.close();
    await emulator.close();
  }
}
