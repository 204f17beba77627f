// The Watcher against the real SQLite store (in memory), the emulator on a manual clock and the
// fake Slack: stale reporting, bulk discovery, two watchers on one store, graceful stop.
import { Writable } from 'node:stream';
import { WebClient } from '@slack/web-api';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRunbookApi } from '../../../src/api/client.ts';
import { ResponseValidationError } from '../../../src/api/errors.ts';
import type { RunbookApi } from '../../../src/api/runbook-api.ts';
import { type Emulator, ManualClock, startEmulator } from '../../../src/emulator/server.ts';
import { createLogger } from '../../../src/logger.ts';
import { type FakeSlack, startFakeSlack } from '../../../src/sandbox/fake-slack-api.ts';
import { openStore } from '../../../src/store/open-store.ts';
import type { Store } from '../../../src/store/store.ts';
import { DEFAULT_PLAN_SETTINGS } from '../../../src/watch/check-plan.ts';
import { createWatchMetrics } from '../../../src/watch/metrics.ts';
import { Watcher, type WatcherSettings } from '../../../src/watch/watcher.ts';
import { countReports, seedWatchedRuns } from '../../support/process-harness.ts';

const KEY = 'watcher-unit-key-0123456789';
const TOKEN = 'xoxb-watcher-unit';
const logger = createLogger({
  level: 'warn',
  secrets: [],
  destination: new Writable({ write: (_c, _e, done) => done() }),
});

let emulator: Emulator;
let clock: ManualClock;
let fake: FakeSlack;
let api: RunbookApi;
let store: Store;
const watchers: Watcher[] = [];

const FAST: Partial<WatcherSettings> = {
  backoff: { firstMs: 20, factor: 1.5, maxMs: 100 },
  tickMs: 10,
  leaseMs: 1_000,
  slackPostIntervalMs: 0,
  slackUpdateIntervalMs: 0,
  unpostedGraceMs: 60_000,
};

function watcher(owner: string, settings: Partial<WatcherSettings> = {}, registry?: Registry): Watcher {
  const w = new Watcher({
    store,
    api,
    slack: new WebClient(TOKEN, { slackApiUrl: fake.url, rejectRateLimitedCalls: true, retryConfig: { retries: 0 } }),
    owner,
    logger,
    settings: { ...FAST, ...settings },
    ...(registry ? { metrics: createWatchMetrics(registry) } : {}),
  });
  watchers.push(w);
  return w;
}

async function until(probe: () => Promise<boolean>, what: string, timeoutMs = 8_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
const allDone = async () => (await store.watches.countByState()).active === 0;

beforeEach(async () => {
  clock = new ManualClock(Date.now());
  emulator = await startEmulator({ port: 0, apiKey: KEY, clock, defaultDurationMs: 1_000 });
  fake = await startFakeSlack({ port: 0, botToken: TOKEN });
  api = createRunbookApi({ baseUrl: emulator.url, apiKey: KEY, timeoutMs: 5_000, maxRetries: 0 });
  store = await openStore({ kind: 'sqlite', path: ':memory:' });
});

afterEach(async () => {
  for (const w of watchers.splice(0)) await w.stop();
  await store.close();
  await api.close();
  await fake.close();
  await emulator.close();
});

describe('Watcher', () => {
  it('keeps checking a running execution and reports nothing until it ends', async () => {
    const [run] = await seedWatchedRuns({ api, store, fake, botToken: TOKEN }, 1, ['C01OPS']);
    watcher('w1').start();
    await until(async () => ((await store.watches.get(run!.executionId))?.attempts ?? 0) >= 3, 'a few checks');
    expect(countReports(fake, [run!]).get(run!.executionId)).toEqual({ resultEdits: 0, replies: 0 });
    clock.advance(5_000);
    await until(allDone, 'the result');
    expect(countReports(fake, [run!]).get(run!.executionId)).toEqual({ resultEdits: 1, replies: 1 });
    expect((await store.watches.get(run!.executionId))!.finalStatus).toBe('EXECUTION_STATUS_SUCCEEDED');
  });

  it('reports a watch older than staleAfterMs once as stale and stops polling it', async () => {
    const [run] = await seedWatchedRuns({ api, store, fake, botToken: TOKEN }, 1, ['C01OPS']);
    watcher('w1', { staleAfterMs: 1 }).start();
    await until(allDone, 'the stale report');
    const watch = (await store.watches.get(run!.executionId))!;
    expect(watch.state).toBe('stale');
    const card = fake.state.messages.C01OPS!.find((m) => m.ts === run!.ts)!;
    expect(card.text).toContain('stopped reporting (stale)');
    const gets = emulator.state.requests.count('GET /v1alpha1/executions/{executionId}');
    await new Promise((r) => setTimeout(r, 150));
    expect(emulator.state.requests.count('GET /v1alpha1/executions/{executionId}')).toBe(gets);
    const replies = fake.state.messages.C01OPS!.filter((m) => m.thread_ts === run!.ts && m.ts !== run!.ts);
    expect(replies.map((m) => m.text)).toEqual([
      `<@U01ALICE> your run of *${watch.runbookName}* stopped reporting (\`${run!.executionId}\`)`,
    ]);
  });

  it('discovers finished runs in bulk when many are watched, with far fewer requests than one per watch', async () => {
    const runs = await seedWatchedRuns({ api, store, fake, botToken: TOKEN }, 60, ['C01OPS', 'C02DEPLOYS']);
    clock.advance(5_000);
    const registry = new Registry();
    const gets = () => emulator.state.requests.count('GET /v1alpha1/executions/{executionId}');
    const lists = () => emulator.state.requests.count('GET /v1alpha1/executions');
    const getsBefore = gets();
    // 20 requests/s: 60 due status checks exceed 2 s of budget; one listing page answers them all.
    watcher('w1', { requestsPerSecond: 20, maxInFlight: 200 }, registry).start();
    // The listing carries status and output: neither status checks nor full fetches are needed.
    await until(allDone, 'every result', 15_000);
    expect(lists()).toBeGreaterThanOrEqual(1);
    expect(gets() - getsBefore).toBe(0);
    const reports = countReports(fake, runs);
    expect([...reports.values()].every((r) => r.resultEdits === 1 && r.replies === 1)).toBe(true);
    const metrics = await registry.getSingleMetricAsString('runbook_watch_checks_total');
    expect(metrics).toContain('how="bulk"');
  });

  it('with many runs open, looks at all of them with one listing per plan interval instead of a get each', async () => {
    const runs = await seedWatchedRuns({ api, store, fake, botToken: TOKEN }, 30, ['C01OPS']);
    const gets = () => emulator.state.requests.count('GET /v1alpha1/executions/{executionId}');
    const lists = () => emulator.state.requests.count('GET /v1alpha1/executions');
    const getsBefore = gets();
    const w = watcher('w1', { requestsPerSecond: 20, plan: { ...DEFAULT_PLAN_SETTINGS, minIntervalMs: 100 } });
    w.start();
    await until(async () => (await store.watches.listActive(100)).every((x) => x.attempts >= 1), 'first looks');
    expect(w.plan.mode).toBe('list');
    expect(w.plan.sweepCost).toBe(1);
    // While they run: listings every ~100 ms, and no watch checked on its own.
    const listsBefore = lists();
    await new Promise((r) => setTimeout(r, 600));
    expect(lists() - listsBefore).toBeGreaterThanOrEqual(2);
    expect(gets() - getsBefore).toBe(0);
    // They end: the next listing sees it and carries the output, so still no single request.
    clock.advance(5_000);
    await until(allDone, 'every result');
    expect(gets() - getsBefore).toBe(0);
    expect([...countReports(fake, runs).values()].every((r) => r.resultEdits === 1 && r.replies === 1)).toBe(true);
  });

  it('when the last runs of a batch leave list mode, the ones deferred to the listing are looked at at once', async () => {
    const runs = await seedWatchedRuns({ api, store, fake, botToken: TOKEN }, 30, ['C01OPS']);
    const w = watcher('w1', { requestsPerSecond: 20, plan: { ...DEFAULT_PLAN_SETTINGS, minIntervalMs: 100 } });
    w.start();
    await until(async () => (await store.watches.listActive(100)).every((x) => x.attempts >= 1), 'first looks');
    expect(w.plan.mode).toBe('list');
    // 29 of them end elsewhere (taken off the store as another replica would); one is left, deferred
    // to the listing's backstop, a minute or more away.
    const last = runs[0]!.executionId;
    const others = runs.slice(1).map((r) => r.executionId);
    await until(async () => {
      const claimed = await store.watches.claimIds('elsewhere', others, Date.now(), 60_000);
      for (const c of claimed) await store.watches.complete(c.executionId, 'elsewhere', 'finished', null, Date.now());
      return (await store.watches.countByState()).active === 1;
    }, 'the others taken off');
    expect((await store.watches.get(last))!.nextCheckAt).toBeGreaterThan(Date.now() + 30_000);
    await until(async () => w.plan.mode === 'single', 'single mode');
    // Its run ends: with one watch open it is looked at every plan interval, not after the backstop.
    clock.advance(5_000);
    await until(allDone, 'the last result', 5_000);
    const report = countReports(fake, [runs[0]!]).get(last);
    expect(report).toMatchObject({ resultEdits: 1, replies: 1 });
  });

  it('when the listing cannot see the watched runs (the API clock a day behind), checks them one by one', async () => {
    clock.set(Date.now() - 24 * 60 * 60_000);
    const runs = await seedWatchedRuns({ api, store, fake, botToken: TOKEN }, 20, ['C01OPS']);
    const w = watcher('w1', { requestsPerSecond: 50, plan: { ...DEFAULT_PLAN_SETTINGS, minIntervalMs: 100 } });
    w.start();
    // The listing finds none of them older than the oldest watch: it is no cheaper, so single mode.
    await until(async () => w.plan.mode === 'single', 'single mode', 8_000);
    clock.advance(5_000);
    await until(allDone, 'every result', 8_000);
    expect([...countReports(fake, runs).values()].every((r) => r.resultEdits === 1 && r.replies === 1)).toBe(true);
  });

  it('tells the oldest watch its run ended though thousands of newer ended runs lie before it in the listing', async () => {
    const lists = () => emulator.state.requests.count('GET /v1alpha1/executions');
    const gets = () => emulator.state.requests.count('GET /v1alpha1/executions/{executionId}');
    const deferred = async (ids: string[]) =>
      (await Promise.all(ids.map((id) => store.watches.get(id)))).every((x) => x!.nextCheckAt > Date.now() + 30_000);
    // Two old runs (they end in 30 s), looked at by listings and deferred to the backstop (a minute away).
    const old = await seedWatchedRuns({ api, store, fake, botToken: TOKEN }, 2, ['C01OPS'], {
      params: (i) => ({ n: i, simulate_duration_seconds: 30 }),
    });
    const w = watcher('w1', { requestsPerSecond: 200, plan: { ...DEFAULT_PLAN_SETTINGS, minIntervalMs: 100 } });
    w.start();
    const oldIds = old.map((r) => r.executionId);
    await until(() => deferred(oldIds), 'the old watches deferred to the backstop');
    // Then 59 newer watched runs, looked at by listings too.
    const between = clock.now() + 1_000;
    clock.advance(2_000);
    const fresh = await seedWatchedRuns({ api, store, fake, botToken: TOKEN }, 59, ['C02DEPLOYS'], {
      params: (i) => ({ n: i, simulate_duration_seconds: 3_600 }),
    });
    const freshIds = fresh.map((r) => r.executionId);
    await until(() => deferred(freshIds), 'the new watches deferred to the backstop', 15_000);
    // 5,000 runs (not watched here) that started between them have ended: newest first, the old watches
    // now lie past page 50 of the listing (the old cap: watches / 100 + 5, at least 50).
    const runbook = [...emulator.state.workflows.byId.values()][0]!;
    for (let i = 0; i < 5_000; i++) {
      emulator.state.startExecutionAt(
        runbook,
        { proxyId: 'proxy-dev' },
        {},
        between,
        { executor: 'ops@example.com', approver: '' },
        { outcome: 'succeeded', durationMs: 0 },
      );
    }
    await until(async () => (await deferred(oldIds)) && (await deferred(freshIds)), 'all deferred', 15_000);
    expect(w.plan.mode).toBe('list');
    // The old runs end: told within a few listings (one is at most a page per watch, 61), which carry
    // their output: no get at all.
    const listsBefore = lists();
    const getsBefore = gets();
    clock.advance(60_000);
    await until(
      async () => {
        const told = [...countReports(fake, old).values()].every((r) => r.resultEdits === 1 && r.replies === 1);
        if (!told && lists() - listsBefore > 4 * 61) throw new Error('the old runs were not told within 4 sweeps');
        return told;
      },
      'the old results',
      15_000,
    );
    expect(gets() - getsBefore).toBe(0);
    // With the listing reaching every watch, the 59 still running are not looked at one by one either.
    const listsAfter = lists();
    await until(async () => lists() - listsAfter > 51, 'one more listing', 15_000);
    expect(gets() - getsBefore).toBe(0);
    expect((await store.watches.countByState()).active).toBe(59);
  }, 60_000);

  it('a watch the listing no longer finds (its execution gone from the API) is looked at on its own, not left to the backstop', async () => {
    const lists = () => emulator.state.requests.count('GET /v1alpha1/executions');
    const gets = () => emulator.state.requests.count('GET /v1alpha1/executions/{executionId}');
    const runs = await seedWatchedRuns({ api, store, fake, botToken: TOKEN }, 60, ['C01OPS'], {
      params: (i) => ({ n: i, simulate_duration_seconds: 3_600 }),
    });
    const ids = runs.map((r) => r.executionId);
    const w = watcher('w1', { requestsPerSecond: 200, plan: { ...DEFAULT_PLAN_SETTINGS, minIntervalMs: 100 } });
    w.start();
    await until(
      async () =>
        (await Promise.all(ids.map((id) => store.watches.get(id)))).every((x) => x!.nextCheckAt > Date.now() + 30_000),
      'every watch deferred to the backstop',
    );
    expect(w.plan.mode).toBe('list');
    // One execution disappears from the API: the listing still sees the other 59 and stays in list mode.
    const gone = ids[0]!;
    const executions = emulator.state.executions;
    executions.ordered.splice(executions.ordered.indexOf(executions.byId.get(gone)!), 1);
    executions.byId.delete(gone);
    const listsBefore = lists();
    const getsBefore = gets();
    await until(async () => {
      const stale = (await store.watches.get(gone))!.state === 'stale';
      if (!stale && lists() - listsBefore > 4) throw new Error('not looked at within 4 listing pages');
      return stale;
    }, 'the gone execution reported stale');
    // A get or two for it alone, none for the 59 the listing still sees.
    expect(gets() - getsBefore).toBeLessThanOrEqual(2);
    expect((await store.watches.countByState()).active).toBe(59);
  });

  it('two watchers on one store report every run exactly once', async () => {
    const runs = await seedWatchedRuns({ api, store, fake, botToken: TOKEN }, 40, [
      'C01OPS',
      'C02DEPLOYS',
      'C03APPROVALS',
    ]);
    watcher('a').start();
    watcher('b').start();
    clock.advance(5_000);
    await until(allDone, 'every result');
    const reports = countReports(fake, runs);
    expect([...reports.values()].filter((r) => r.resultEdits !== 1 || r.replies !== 1)).toEqual([]);
  });

  it('stop() finishes in-flight work and releases its leases so another owner resumes at once', async () => {
    const runs = await seedWatchedRuns({ api, store, fake, botToken: TOKEN }, 10, ['C01OPS']);
    const first = watcher('first', { leaseMs: 600_000 });
    first.start();
    await until(async () => (await store.watches.listActive(100)).some((w) => w.attempts > 0), 'some checks');
    await first.stop();
    expect(
      (await store.watches.listActive(100)).filter((w) => w.leaseOwner === 'first' && (w.leaseUntil ?? 0) > Date.now()),
    ).toEqual([]);
    clock.advance(5_000);
    watcher('second').start();
    await until(allDone, 'the rest');
    expect([...countReports(fake, runs).values()].every((r) => r.resultEdits === 1 && r.replies === 1)).toBe(true);
  });
});

describe('a watch stopped while it is being read', () => {
  // Replace key with another account's, or Disconnect (src/runs/api-connection.ts), stops the workspace's
  // watches and then finishes their cards itself: a look already under way must not tell a result
  // afterwards (it may have been read with the new account's key).
  it('tells nothing of it, and its card stays as the stop left it', async () => {
    const [run] = await seedWatchedRuns({ api, store, fake, botToken: TOKEN }, 1, ['C01OPS']);
    clock.advance(5_000);
    const real = api;
    let stopped = false;
    api = {
      ...real,
      executions: {
        ...real.executions,
        get: async (...args: Parameters<RunbookApi['executions']['get']>) => {
          if (!stopped) {
            stopped = true;
            await store.watches.complete(run!.executionId, 'w1', 'stale', null, Date.now(), '');
          }
          return real.executions.get(...args);
        },
      },
    };
    try {
      watcher('w1').start();
      await until(async () => stopped && (await allDone()), 'the stop');
      await new Promise((r) => setTimeout(r, 200));
      expect(countReports(fake, [run!]).get(run!.executionId)).toEqual({ resultEdits: 0, replies: 0 });
    } finally {
      api = real;
    }
  });
});

describe('a run whose running message is still being posted when it ends', () => {
  it('waits for that message and edits it, instead of posting a second card', async () => {
    const runbook = [...emulator.state.workflows.byId.values()].find((r) => r.workflow.inputSchema === '')!.workflow;
    const { executionIds } = await api.workflows.run(runbook.id, { proxyId: 'p1' });
    const id = executionIds[0]!;
    const w = watcher('only');
    // startRun stored the watch; its chat.postMessage is still retrying when the run finishes.
    await w.started({
      runbookId: runbook.id,
      runbookName: runbook.name,
      proxyId: 'p1',
      startedBy: 'U01ALICE',
      teamId: null,
      inputs: {},
      executionIds: [id],
      channel: 'C01OPS',
    });
    clock.advance(60 * 60_000);
    w.start();
    await new Promise((r) => setTimeout(r, 300));
    expect(fake.state.messages.C01OPS ?? []).toHaveLength(0);
    // The running message lands late; the watcher turns exactly that message into the result.
    const slack = new WebClient(TOKEN, { slackApiUrl: fake.url });
    const running = await slack.chat.postMessage({ channel: 'C01OPS', text: `${runbook.name} is running` });
    await w.posted([id], 'C01OPS', running.ts!);
    await until(allDone, 'the result');
    const top = (fake.state.messages.C01OPS ?? []).filter((m) => !m.thread_ts || m.thread_ts === m.ts);
    expect(top).toHaveLength(1);
    expect(top[0]!.ts).toBe(running.ts);
    expect(top[0]!.text).toMatch(/succeeded|failed/);
  });
});

/** A watch stored as startRun would, for an execution id the caller picks. */
async function insertWatch(executionId: string, channel = 'C01OPS', createdAt = Date.now()): Promise<void> {
  await store.watches.insert(
    {
      executionId,
      runbookId: 'rb-1',
      runbookName: 'Restart Service',
      channel,
      startedBy: 'U01ALICE',
      teamId: null,
      proxyId: 'p1',
      inputsSummary: '{}',
      origin: 'slack',
      nextCheckAt: createdAt,
    },
    createdAt,
  );
}

describe('review fixes', () => {
  it('an execution that is gone after the watcher posted its running card gets that card edited, not a second one', async () => {
    await insertWatch('ex-vanished');
    const w = watcher('w1', { unpostedGraceMs: 0 });
    await w.runOnce();
    await w.idle();
    const top = (fake.state.messages.C01OPS ?? []).filter((m) => !m.thread_ts || m.thread_ts === m.ts);
    expect(top).toHaveLength(1);
    expect(top[0]!.text).toContain('stopped reporting (stale)');
    expect((await store.watches.get('ex-vanished'))!.state).toBe('stale');
  });

  it('keeps the leases of claimed watches while a long bulk listing runs', async () => {
    let t = Date.now();
    let release: () => void = () => {};
    let listing = false;
    const blocked = new Promise<void>((r) => {
      release = r;
    });
    const slowApi: RunbookApi = {
      ...api,
      executions: {
        ...api.executions,
        list: async (params) => {
          listing = true;
          await blocked;
          return api.executions.list(params);
        },
      },
    };
    for (let i = 0; i < 60; i++) await insertWatch(`ex-bulk-${i}`, 'C01OPS', t);
    const w = new Watcher({
      store,
      api: slowApi,
      slack: new WebClient(TOKEN, { slackApiUrl: fake.url, rejectRateLimitedCalls: true, retryConfig: { retries: 0 } }),
      owner: 'slow',
      logger,
      now: () => t,
      settings: { ...FAST, leaseMs: 300, requestsPerSecond: 20, maxInFlight: 200 },
    });
    watchers.push(w);
    w.start();
    try {
      await until(async () => listing, 'the bulk listing');
      // Far past the first lease; the renewal timer runs every 100 ms of real time.
      t += 10_000;
      await until(
        async () => (await store.watches.listActive(100)).every((x) => (x.leaseUntil ?? 0) > t),
        'the leases to be renewed',
        3_000,
      ).catch(() => undefined);
      expect(await store.watches.claimDue('other', t, 300, 100)).toEqual([]);
    } finally {
      release();
    }
  });

  it('a reply claim the store could not answer keeps the watch active instead of completing it', async () => {
    const [run] = await seedWatchedRuns({ api, store, fake, botToken: TOKEN }, 1, ['C01OPS']);
    clock.advance(5_000);
    let failures = 1;
    const flaky: Store = {
      ...store,
      watches: {
        ...store.watches,
        claimReply: async (id, now) => {
          if (failures-- > 0) throw new Error('Connection terminated unexpectedly');
          return store.watches.claimReply(id, now);
        },
      },
    };
    const w = new Watcher({
      store: flaky,
      api,
      slack: new WebClient(TOKEN, { slackApiUrl: fake.url, rejectRateLimitedCalls: true, retryConfig: { retries: 0 } }),
      owner: 'flaky',
      logger,
      settings: FAST,
    });
    watchers.push(w);
    w.start();
    await until(allDone, 'the result');
    expect(countReports(fake, [run!]).get(run!.executionId)).toEqual({ resultEdits: 1, replies: 1 });
  });
});

describe('an answer that cannot be read', () => {
  it('ends in a result card that says so, not a card stuck at running', async () => {
    const [run] = await seedWatchedRuns({ api, store, fake, botToken: TOKEN }, 1, ['C01OPS']);
    clock.advance(60_000);
    let fullReads = 0;
    const garbled: RunbookApi = {
      ...api,
      executions: {
        ...api.executions,
        get: async (id, params, call) => {
          if (params?.summary) return api.executions.get(id, params, call);
          fullReads++;
          throw new ResponseValidationError({
            tid: 't',
            method: 'GET',
            path: '/v1alpha1/executions',
            status: 200,
            message: 'HTTP 200 response is not JSON',
            issues: 'body is not JSON',
          });
        },
      },
    };
    const w = new Watcher({
      store,
      api: garbled,
      slack: new WebClient(TOKEN, { slackApiUrl: fake.url, rejectRateLimitedCalls: true, retryConfig: { retries: 0 } }),
      owner: 'garbled',
      logger,
      settings: FAST,
    });
    watchers.push(w);
    w.start();
    await until(allDone, 'the result');
    expect(countReports(fake, [run!]).get(run!.executionId)).toEqual({ resultEdits: 1, replies: 1 });
    const card = fake.state.messages.C01OPS!.find((m) => m.ts === run!.ts)!;
    expect(JSON.stringify(card.blocks)).toContain('could not be read');
    expect(fullReads).toBe(1);
  });
});

describe('the card claim', () => {
  async function startedRun(w: Watcher) {
    const runbook = [...emulator.state.workflows.byId.values()].find((r) => r.workflow.inputSchema === '')!.workflow;
    const { executionIds } = await api.workflows.run(runbook.id, { proxyId: 'p1' });
    await w.started({
      runbookId: runbook.id,
      runbookName: runbook.name,
      proxyId: 'p1',
      startedBy: 'U01ALICE',
      teamId: null,
      inputs: {},
      executionIds,
      channel: 'C01OPS',
    });
    return executionIds[0]!;
  }
  const topLevel = () => (fake.state.messages.C01OPS ?? []).filter((m) => !m.thread_ts || m.thread_ts === m.ts);

  it('when the watcher posted the card first, a late startRun does not post a second one', async () => {
    const w = watcher('only', { unpostedGraceMs: 0 });
    const id = await startedRun(w);
    w.start();
    await until(async () => (await store.watches.get(id))?.messageTs != null, 'the watcher posts the card');
    expect(await w.claimMessage(id)).toBe(false);
    clock.advance(60 * 60_000);
    await until(allDone, 'the result');
    expect(topLevel()).toHaveLength(1);
    expect(topLevel()[0]!.text).toMatch(/succeeded|failed/);
  });

  it('a claimant that died without posting is taken over after the takeover time, once', async () => {
    const w = watcher('only', { unpostedGraceMs: 0, messageTakeoverMs: 300 });
    const id = await startedRun(w);
    // startRun took the claim and then its process died before posting.
    expect(await w.claimMessage(id)).toBe(true);
    w.start();
    await new Promise((r) => setTimeout(r, 150));
    expect(topLevel()).toHaveLength(0);
    await until(async () => (await store.watches.get(id))?.messageTs != null, 'the takeover post', 5_000);
    clock.advance(60 * 60_000);
    await until(allDone, 'the result');
    expect(topLevel()).toHaveLength(1);
  });
});

describe('a watched run nobody in Slack started', () => {
  it('names its executor on the card as a mention when the lookup knows the email, and pings nobody in the thread', async () => {
    const runbook = (await api.workflows.list({ isService: true })).items[0]!;
    const start = async (userEmail: string) => {
      const { executionIds } = await api.workflows.run(runbook.id, { proxyId: 'proxy-dev', userEmail, params: {} });
      const executionId = executionIds[0]!;
      await store.watches.insert(
        {
          executionId,
          runbookId: runbook.id,
          runbookName: runbook.name,
          channel: 'C01OPS',
          startedBy: null,
          teamId: null,
          proxyId: 'proxy-dev',
          inputsSummary: '{}',
          origin: 'adopted',
          nextCheckAt: Date.now(),
        },
        Date.now(),
      );
      return executionId;
    };
    const known = await start('Alice@Example.com');
    const stranger = await start('stranger@example.com');
    const broken = await start('bob@example.com');
    clock.advance(60_000);
    const asked: string[] = [];
    const w = new Watcher({
      store,
      api,
      slack: new WebClient(TOKEN, { slackApiUrl: fake.url, rejectRateLimitedCalls: true, retryConfig: { retries: 0 } }),
      owner: 'people',
      logger,
      settings: { ...FAST, unpostedGraceMs: 0 },
      userIdByEmail: async (email) => {
        asked.push(email);
        if (email === 'bob@example.com') throw new Error('users.lookupByEmail failed');
        return email === 'alice@example.com' ? 'U01ALICE' : null;
      },
    });
    watchers.push(w);
    w.start();
    await until(allDone, 'the results');
    const messages = fake.state.messages.C01OPS ?? [];
    const cardOf = (id: string) =>
      JSON.stringify(
        messages.find(
          (m) =>
            (!m.thread_ts || m.thread_ts === m.ts) &&
            m.text.includes('succeeded') &&
            JSON.stringify(m.blocks).includes(id),
        )?.blocks,
      );
    expect(cardOf(known)).toContain('*Started by*\\n<@U01ALICE>');
    expect(cardOf(stranger)).toContain('*Started by*\\nstranger@example.com');
    // A failing lookup costs only the mention.
    expect(cardOf(broken)).toContain('*Started by*\\nbob@example.com');
    expect(asked).toEqual(expect.arrayContaining(['alice@example.com', 'stranger@example.com', 'bob@example.com']));
    const replies = messages.filter((m) => m.thread_ts && m.thread_ts !== m.ts);
    expect(replies.filter((m) => JSON.stringify([m.text, m.blocks ?? []]).includes('<@'))).toEqual([]);
  });
});
