// Health does not rest on the unpublished filter grammar: whether the API applies the runbook-name filter,
// ignores it, reads it as plain terms (a quoted name then matches nothing) or rejects it, the numbers are
// the emulator's own for the part of the 30 days that was read, within the request bound, and the report
// says how far back that is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedRecentHistory } from '../../../src/emulator/seed-recent-history.ts';
import { FILTER_MODES } from '../../../src/emulator/server.ts';
import { DAY_MS } from '../../../src/health/runbook-health.ts';
import type { RunsDeps } from '../../../src/runs/deps.ts';
import { failingRunbooks, HEALTH_PAGES, runbookHealth, SCAN_PAGES } from '../../../src/runs/health.ts';
import { startUseCaseEnv, type UseCaseEnv } from './use-case-env.ts';

const NOW = Date.parse('2026-11-21T08:00:00Z');

describe.each(FILTER_MODES)('health with the API filter mode %s', (mode) => {
  let env: UseCaseEnv;
  let deps: RunsDeps;
  beforeAll(async () => {
    env = await startUseCaseEnv('rules: []\n');
    seedRecentHistory(env.emulator.state, NOW);
    env.emulator.state.catchUp();
    env.emulator.setFilterMode(mode);
    deps = { ...env.deps, now: () => NOW };
  });
  afterAll(async () => {
    await env.close();
  });

  /** The emulator's runs of a runbook started since `from`. */
  const truth = (name: string, from: number) => {
    const runs = [...env.emulator.state.executions.byId.values()].filter(
      (e) => e.workflowName === name && e.startMs >= from && e.startMs <= NOW,
    );
    return { runs: runs.length, failed: runs.filter((e) => e.status === 'EXECUTION_STATUS_FAILED').length };
  };
  const listCalls = () => env.emulator.state.requests.log.filter((r) => r.route === 'GET /v1alpha1/executions').length;

  it.each(['Rotate IAM Access Keys', 'Check Disk Usage on Hosts'])(
    '%s: the emulator’s numbers, within the bound',
    async (name) => {
      const before = listCalls();
      const { report } = await runbookHealth(deps, name);
      expect(listCalls() - before).toBeLessThanOrEqual(HEALTH_PAGES);
      const from = report.coverage.coveredFrom;
      expect(from).toBeGreaterThanOrEqual(NOW - 30 * DAY_MS);
      expect({ runs: report.runs, failed: report.failed }).toEqual(truth(name, from));
      if (report.coverage.limitedBy === 'none') expect(from).toBe(NOW - 30 * DAY_MS);
      else expect(report.daysCovered).toBeLessThan(30);
      // Narrowed or not, a rare runbook's month is read whole.
      if (name === 'Rotate IAM Access Keys' && mode === 'apply') expect(report.coverage.limitedBy).toBe('none');
    },
  );

  it('the scan across runbooks ranks them as the emulator holds them, within its bound', async () => {
    const before = listCalls();
    const failing = await failingRunbooks(deps, () => true);
    expect(listCalls() - before).toBeLessThanOrEqual(SCAN_PAGES);
    const from = failing.coverage.coveredFrom;
    for (const r of failing.reports) expect({ runs: r.runs, failed: r.failed }).toEqual(truth(r.runbookName, from));
    const failed = failing.reports.map((r) => r.failed);
    expect([...failed].sort((a, b) => b - a)).toEqual(failed);
    expect(failing.reports.length).toBeGreaterThan(3);
  });
});
