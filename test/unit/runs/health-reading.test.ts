// How health is read: people asking at once share one reading; the scan across runbooks is shared for
// five minutes; a running card waits for its ETA at most ETA_WAIT_MS, and the reading still fills the cache.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedRecentHistory } from '../../../src/emulator/seed-recent-history.ts';
import { HEALTH_FRESH_MS } from '../../../src/health/health-cache.ts';
import type { RunsDeps } from '../../../src/runs/deps.ts';
import { cachedHealth, ETA_WAIT_MS, failingRunbooks, healthForRun, runbookHealth } from '../../../src/runs/health.ts';
import { startUseCaseEnv, type UseCaseEnv } from './use-case-env.ts';

const NOW = Date.parse('2026-11-21T08:00:00Z');
let env: UseCaseEnv;
let now = NOW;
let deps: RunsDeps;
beforeAll(async () => {
  env = await startUseCaseEnv('rules: []\n');
  seedRecentHistory(env.emulator.state, NOW);
  env.emulator.state.catchUp();
  deps = { ...env.deps, now: () => now };
});
afterAll(async () => {
  await env.close();
});

const listCalls = () => env.emulator.state.requests.log.filter((r) => r.route === 'GET /v1alpha1/executions').length;

describe('reading health', () => {
  it('people asking at once share one reading; asking again while fresh reads nothing', async () => {
    const before = listCalls();
    const [a, b, c] = await Promise.all([
      runbookHealth(deps, 'Find Crashlooping Pods'),
      runbookHealth(deps, 'Find Crashlooping Pods'),
      runbookHealth(deps, 'find crashlooping pods'),
    ]);
    const one = listCalls() - before;
    expect(one).toBeGreaterThan(0);
    expect(b).toBe(a);
    expect(c).toBe(a);
    await runbookHealth(deps, 'Find Crashlooping Pods');
    expect(listCalls() - before).toBe(one);
    // Stale: read again.
    now += HEALTH_FRESH_MS + 1;
    const again = await runbookHealth(deps, 'Find Crashlooping Pods');
    expect(listCalls() - before).toBeGreaterThan(one);
    expect(again.fetchedAt).toBe(now);
  });

  it('the scan across runbooks is one reading for everyone while fresh, filtered per person', async () => {
    const before = listCalls();
    const [all, some] = await Promise.all([
      failingRunbooks(deps, () => true),
      failingRunbooks(deps, (name) => !name.startsWith('Rotate')),
    ]);
    const one = listCalls() - before;
    expect(all.reports.map((r) => r.runbookName)).toContain('Rotate IAM Access Keys');
    expect(some.reports.map((r) => r.runbookName)).not.toContain('Rotate IAM Access Keys');
    expect(some.reports.length).toBe(all.reports.length - 1);
    await failingRunbooks(deps, () => true);
    expect(listCalls() - before).toBe(one);
    // The scan filled the cache: a list badge has something to show for each runbook it saw.
    expect(cachedHealth(deps, 'Check Postgres Replication Lag')?.report.runs).toBeGreaterThan(0);
  });

  it('a running card waits at most ETA_WAIT_MS for its ETA; the reading goes on to fill the cache', async () => {
    env.emulator.setFaults({ latencyMs: ETA_WAIT_MS + 500, latencyJitterMs: 0 });
    try {
      expect(await healthForRun(deps, 'Scale Kubernetes Deployment')).toBeNull();
      // It did not wait for the reading: nothing is cached yet.
      expect(cachedHealth(deps, 'Scale Kubernetes Deployment')).toBeNull();
      const filled = await new Promise((resolve) => {
        const poll = setInterval(() => {
          const cached = cachedHealth(deps, 'Scale Kubernetes Deployment');
          if (cached) {
            clearInterval(poll);
            resolve(cached);
          }
        }, 50);
      });
      expect(filled).toMatchObject({ report: { runbookName: 'Scale Kubernetes Deployment' } });
      // Cached now: at once.
      expect(await healthForRun(deps, 'Scale Kubernetes Deployment')).toBe(filled);
    } finally {
      env.emulator.setFaults({ latencyMs: 0 });
    }
  });

  it('show waits for a slow reading only as long as it says; the reading goes on', async () => {
    now += HEALTH_FRESH_MS + 1;
    env.emulator.setFaults({ latencyMs: 1_000, latencyJitterMs: 0 });
    try {
      expect(await runbookHealth(deps, 'Find Crashlooping Pods', { waitMs: 100 })).toBeNull();
      const fresh = await runbookHealth(deps, 'Find Crashlooping Pods', { waitMs: 30_000 });
      expect(fresh?.fetchedAt).toBe(now);
    } finally {
      env.emulator.setFaults({ latencyMs: 0 });
    }
  });
});
