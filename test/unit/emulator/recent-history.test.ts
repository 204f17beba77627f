// The month of history behind health: every profiled runbook runs over the 30 days before the start, at
// its rate, with varied durations and its own failure reasons; off by default; the same on every start.
import { afterEach, describe, expect, it } from 'vitest';
import { RECENT_HISTORY } from '../../../src/emulator/seed-recent-history.ts';
import { type Harness, START_MS, startHarness } from './harness.ts';

const DAY = 24 * 3600_000;
let h: Harness | null = null;
afterEach(async () => {
  await h?.emulator.close();
  h = null;
});

function recentOf(harness: Harness, name: string) {
  return harness.emulator.state.executions.ordered.filter(
    (e) => e.workflowName === name && e.startMs >= START_MS - 30 * DAY,
  );
}

describe('recent history', () => {
  it('is off by default: the base history has about ten runs in the last month', async () => {
    h = await startHarness();
    const recent = h.emulator.state.executions.ordered.filter((e) => e.startMs >= START_MS - 30 * DAY);
    expect(recent.length).toBeLessThan(15);
  });

  it('spreads each profile over 30 days, finished, with varied durations and its failure reasons', async () => {
    h = await startHarness({ recentHistory: true });
    for (const profile of RECENT_HISTORY) {
      const runs = recentOf(h, profile.name);
      expect(runs.length, profile.name).toBeGreaterThanOrEqual(Math.round(profile.perDay * 30));
      expect(runs.every((e) => e.status !== 'EXECUTION_STATUS_IN_PROGRESS')).toBe(true);
      const days = new Set(runs.map((e) => Math.floor((START_MS - e.startMs) / DAY)));
      expect(days.size, profile.name).toBeGreaterThan(profile.perDay >= 1 ? 15 : 5);
      const durations = new Set(runs.map((e) => e.durationMs));
      expect(durations.size).toBeGreaterThan(runs.length / 2);
      const failed = runs.filter((e) => e.status === 'EXECUTION_STATUS_FAILED');
      // Its own reasons (the base history's few runs fail with the runbook's usual one).
      const usual = [...h.emulator.state.workflows.byId.values()].find((w) => w.workflow.name === profile.name)!.seed
        .failure;
      for (const e of failed) expect([...profile.failures, usual].some((f) => e.reason.endsWith(f))).toBe(true);
      if (profile.failureRate > 0) {
        const own = failed.filter((e) => profile.failures.some((f) => e.reason.endsWith(f)));
        expect(own.length).toBeGreaterThan(failed.length / 2);
      }
    }
    const iam = recentOf(h, 'Rotate IAM Access Keys');
    const reasons = new Set(iam.filter((e) => e.status === 'EXECUTION_STATUS_FAILED').map((e) => e.reason));
    expect(reasons.size).toBeGreaterThan(1);
  });

  it('is the same on every start', async () => {
    h = await startHarness({ recentHistory: true });
    const first = recentOf(h, 'Restart Kubernetes Deployment').map((e) => [e.startMs, e.durationMs, e.status]);
    await h.emulator.close();
    h = await startHarness({ recentHistory: true });
    expect(recentOf(h, 'Restart Kubernetes Deployment').map((e) => [e.startMs, e.durationMs, e.status])).toEqual(first);
  });
});
