// What a scenario hands back (table rows plus the raw figures for results.json) and how the
// table is printed. Ratio is always ours / baseline: for latencies lower is better, for
// throughput higher is better; each row says which.

export interface Row {
  scenario: string;
  ours: string;
  baseline: string;
  /** ours / baseline, formatted; '—' when there is nothing to compare. */
  ratio: string;
}

export interface ScenarioResult {
  id: string;
  rows: Row[];
  /** Raw figures (summaries, counts) for results.json. */
  data: Record<string, unknown>;
  notes: string[];
}

export const ms = (n: number) => (Number.isFinite(n) ? `${n < 10 ? n.toFixed(2) : n.toFixed(0)} ms` : 'n/a');
export const mb = (bytes: number) => (Number.isFinite(bytes) ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : 'n/a');
export const num = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
export const times = (n: number) => (Number.isFinite(n) ? `${n < 0.1 ? n.toPrecision(2) : n.toFixed(2)}×` : '—');

export function renderTable(rows: Row[]): string {
  const header: Row = { scenario: 'scenario', ours: 'ours', baseline: 'baseline', ratio: 'ratio' };
  const all = [header, ...rows];
  const width = (key: keyof Row) => Math.max(...all.map((r) => r[key].length));
  const w = { scenario: width('scenario'), ours: width('ours'), baseline: width('baseline'), ratio: width('ratio') };
  const line = (r: Row) =>
    `| ${r.scenario.padEnd(w.scenario)} | ${r.ours.padStart(w.ours)} | ${r.baseline.padStart(w.baseline)} | ${r.ratio.padStart(w.ratio)} |`;
  const rule = `|${'-'.repeat(w.scenario + 2)}|${'-'.repeat(w.ours + 1)}:|${'-'.repeat(w.baseline + 1)}:|${'-'.repeat(w.ratio + 1)}:|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}
