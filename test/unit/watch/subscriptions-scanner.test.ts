// The SubscriptionScanner against a real SQLite store, an in-memory execution history (newest-first
// pages) and a recording Slack transport: baseline, one message per (channel, execution), the
// failures filter, long runs, refusals, digests and two scanners racing on one store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ExecutionPage, ListExecutionsParams, RunbookApi } from '../../../src/api/runbook-api.ts';
import { Execution } from '../../../src/api/schemas.ts';
import { createLogger } from '../../../src/logger.ts';
import { openStore } from '../../../src/store/open-store.ts';
import type { Store } from '../../../src/store/store.ts';
import { inInstallation } from '../../../src/tenants/tenant-scope.ts';
import type { OutgoingMessage, PacerTransport } from '../../../src/watch/slack-pacer.ts';
import {
  SUBSCRIPTIONS_CURSOR,
  SubscriptionScanner,
  type SubscriptionSettings,
} from '../../../src/watch/subscriptions.ts';

const logger = createLogger({
  level: 'silent',
  secrets: [],
  destination: new Writable({ write: (_c, _e, done) => done() }),
});

const T0 = Date.parse('2026-11-21T08:00:00Z');
const MIN = 60_000;
const VACUUM = 'Postgres Vacuum Analyze';

/** An execution history the fake API lists newest-first, in pages of `pageSize`. */
class History {
  readonly items: Execution[] = [];
  listCalls = 0;

  add(id: string, minute: number, status: 'ok' | 'fail' | 'running' = 'ok', name = VACUUM): void {
    this.items.push(
      Execution.parse({
        id,
        workflowName: name,
        createTime: new Date(T0 + minute * MIN).toISOString(),
        endTime: status === 'running' ? null : new Date(T0 + minute * MIN + 5_000).toISOString(),
        executionStatus:
          status === 'ok'
            ? 'EXECUTION_STATUS_SUCCEEDED'
            : status === 'fail'
              ? 'EXECUTION_STATUS_FAILED'
              : 'EXECUTION_STATUS_IN_PROGRESS',
        executor: 'scheduler@example.com',
        inputs: '{"password":"hunter2","db":"main"}',
      }),
    );
  }

  finish(id: string, status: 'ok' | 'fail'): void {
    const i = this.items.findIndex((e) => e.id === id);
    const e = this.items[i]!;
    this.items[i] = {
      ...e,
      executionStatus: status === 'ok' ? 'EXECUTION_STATUS_SUCCEEDED' : 'EXECUTION_STATUS_FAILED',
      endTime: new Date(Date.parse(e.createTime!) + 60_000).toISOString(),
    };
  }

  api(): Pick<RunbookApi, 'executions'> {
    const list = async (params: ListExecutionsParams = {}): Promise<ExecutionPage> => {
      this.listCalls++;
      const sorted = [...this.items].sort((a, b) => Date.parse(b.createTime!) - Date.parse(a.createTime!));
      const size = params.pageSize ?? 100;
      const start = Number(params.pageToken ?? '0');
      const items = sorted.slice(start, start + size);
      const next = start + size < sorted.length ? String(start + size) : '';
      return {
        items,
        nextPageToken: next,
        totalCount: sorted.length,
        statusTable: {},
        aggregateTotalTable: {},
      } as ExecutionPage;
    };
    return {
      executions: {
        list,
        iterate: () => {
          throw new Error('not used');
        },
        get: async (id: string) => {
          const e = this.items.find((x) => x.id === id);
          if (!e) throw new Error('not found');
          return e;
        },
      },
    };
  }
}

interface Posted {
  channel: string;
  message: OutgoingMessage;
}

/** Records posts; `refuse` makes Slack answer an error for a channel (like WebClient's platform error). */
class FakeSlackTransport implements PacerTransport {
  readonly posts: Posted[] = [];
  refuse = new Map<string, string>();
  async post(channel: string, message: OutgoingMessage): Promise<{ channel: string; ts: string }> {
    // Yield like a network call, so concurrent scanners really interleave.
    await new Promise((r) => setImmediate(r));
    const code = this.refuse.get(channel);
    if (code)
      throw Object.assign(new Error(code), { code: 'slack_webapi_platform_error', data: { ok: false, error: code } });
    this.posts.push({ channel, message });
    return { channel, ts: `${this.posts.length}.000` };
  }
  async update(): Promise<void> {}
  idsIn(channel: string): string[] {
    return this.posts
      .filter((p) => p.channel === channel)
      .flatMap((p) =>
        [...(p.message.text + JSON.stringify(p.message.blocks ?? [])).matchAll(/`?(ex-[\w-]+)/g)].map((m) => m[1]!),
      )
      .filter((id, i, all) => all.indexOf(id) === i);
  }
}

const FAST: Partial<SubscriptionSettings> = {
  intervalMs: 10,
  requestsPerSecond: 10_000,
  concurrency: 4,
  slackPostIntervalMs: 0,
  digestThreshold: 100,
};

let dir: string;
const stores: Store[] = [];
let history: History;
let slack: FakeSlackTransport;

async function openSharedStore(): Promise<Store> {
  const store = await openStore({ kind: 'sqlite', path: path.join(dir, 'store.sqlite') });
  stores.push(store);
  return store;
}

function scanner(store: Store, settings: Partial<SubscriptionSettings> = {}, transport: PacerTransport = slack) {
  return new SubscriptionScanner({ store, api: history.api(), transport, logger, settings: { ...FAST, ...settings } });
}

async function subscribe(store: Store, channel: string, runbookId: string, runbookName: string, failuresOnly = false) {
  await store.subscriptions.add(
    { channel, runbookId, runbookName, failuresOnly, createdBy: 'U01ALICE', teamId: null },
    T0,
  );
}

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'subscriptions-unit-'));
  history = new History();
  slack = new FakeSlackTransport();
});
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('SubscriptionScanner', () => {
  it('lists nothing while nobody is subscribed, and forgets its position when the last subscription goes', async () => {
    const store = await openSharedStore();
    history.add('ex-old', 0);
    const s = scanner(store);
    expect((await s.scanOnce()).scanned).toBe(false);
    expect(history.listCalls).toBe(0);
    await subscribe(store, 'C01OPS', 'rb-vacuum', VACUUM);
    await s.scanOnce();
    expect(await store.cursors.get(SUBSCRIPTIONS_CURSOR)).not.toBe('');
    await store.subscriptions.remove('C01OPS', 'rb-vacuum');
    await s.scanOnce();
    expect(await store.cursors.get(SUBSCRIPTIONS_CURSOR)).toBe('');
  });

  it('starts from now, then posts one card per finished run, scheduled or not, masking secret-looking inputs', async () => {
    const store = await openSharedStore();
    await subscribe(store, 'C01OPS', 'rb-vacuum', VACUUM);
    history.add('ex-history-1', 0);
    history.add('ex-history-2', 1, 'fail');
    const s = scanner(store);
    const baseline = await s.scanOnce();
    expect(baseline.baseline).toBe(true);
    expect(slack.posts).toEqual([]);

    history.add('ex-sched-1', 10);
    history.add('ex-other', 11, 'ok', 'Drain Kubernetes Node');
    const result = await s.scanOnce();
    expect(result).toMatchObject({ sent: 1, failed: 0 });
    expect(slack.idsIn('C01OPS')).toEqual(['ex-sched-1']);
    const card = JSON.stringify(slack.posts[0]!.message.blocks);
    expect(card).toContain('scheduler@example.com');
    expect(card).not.toContain('hunter2');

    // Rescans (and a restart: a new scanner on the same store) never repeat it.
    await s.scanOnce();
    await scanner(store).scanOnce();
    expect(slack.posts).toHaveLength(1);
  });

  it('posts the notices of one scan in the order the runs finished, not newest first', async () => {
    const store = await openSharedStore();
    await subscribe(store, 'C01OPS', 'rb-vacuum', VACUUM);
    const s = scanner(store);
    await s.scanOnce();
    // Created first, finished last: a long run.
    history.add('ex-long', 10);
    history.add('ex-quick', 11);
    history.add('ex-newest', 12);
    const long = history.items.find((e) => e.id === 'ex-long')!;
    history.items[history.items.indexOf(long)] = { ...long, endTime: new Date(T0 + 20 * MIN).toISOString() };
    await s.scanOnce();
    expect(slack.idsIn('C01OPS')).toEqual(['ex-quick', 'ex-newest', 'ex-long']);
  });

  it('sends only failures to a --failures subscription and tells each channel once', async () => {
    const store = await openSharedStore();
    await subscribe(store, 'C01OPS', 'rb-vacuum', VACUUM, true);
    await subscribe(store, 'C02DBA', '*', '');
    await subscribe(store, 'C02DBA', 'rb-vacuum', VACUUM);
    const s = scanner(store);
    await s.scanOnce();
    history.add('ex-good', 5, 'ok');
    history.add('ex-bad', 6, 'fail');
    await s.scanOnce();
    expect(slack.idsIn('C01OPS')).toEqual(['ex-bad']);
    expect(slack.idsIn('C02DBA').sort()).toEqual(['ex-bad', 'ex-good']);
    expect(slack.posts).toHaveLength(3);
  });

  it('reports a run that was still running at scan time once it finishes, however many runs came after', async () => {
    const store = await openSharedStore();
    await subscribe(store, 'C01OPS', 'rb-vacuum', VACUUM);
    const s = scanner(store);
    await s.scanOnce();
    history.add('ex-long', 1, 'running');
    await s.scanOnce();
    expect(slack.posts).toEqual([]);
    // 250 newer runs (three pages) of another runbook, then the long one ends.
    for (let i = 0; i < 250; i++) history.add(`ex-n${i}`, 10 + i, 'ok', 'Other');
    await s.scanOnce();
    history.finish('ex-long', 'fail');
    const result = await s.scanOnce();
    expect(result.pages).toBe(3);
    expect(slack.idsIn('C01OPS')).toEqual(['ex-long']);
  });

  it('works off a backlog bigger than one scan: a long run behind 2,100 newer ones is reported', async () => {
    const store = await openSharedStore();
    await subscribe(store, 'C01OPS', 'rb-vacuum', VACUUM);
    history.add('ex-long', 0, 'running');
    const s = scanner(store, { maxPages: 20 });
    await s.scanOnce();
    for (let i = 0; i < 2_100; i++) history.add(`ex-n${i}`, 1 + i / 100, 'ok', 'Other Runbook');
    history.finish('ex-long', 'ok');
    const sizes: number[] = [];
    for (let scan = 0; scan < 4 && !slack.idsIn('C01OPS').includes('ex-long'); scan++) {
      await s.scanOnce();
      sizes.push((await store.cursors.get(SUBSCRIPTIONS_CURSOR))!.length);
    }
    expect(slack.idsIn('C01OPS')).toEqual(['ex-long']);
    // The cursor keeps only recent ids, not every run the backlog held.
    expect(Math.max(...sizes)).toBeLessThan(10_000);
  });

  it('two scanners racing on one SQLite store send every (channel, execution) exactly once', async () => {
    const a = await openSharedStore();
    const b = await openSharedStore();
    await subscribe(a, 'C01OPS', 'rb-vacuum', VACUUM);
    await subscribe(a, 'C02ALL', '*', '');
    const sa = scanner(a);
    const sb = scanner(b);
    await sa.scanOnce();
    for (let i = 0; i < 20; i++) history.add(`ex-r${i}`, 5 + i, i % 3 === 0 ? 'fail' : 'ok');
    await Promise.all([sa.scanOnce(), sb.scanOnce(), sa.scanOnce(), sb.scanOnce()]);
    await Promise.all([sb.scanOnce(), sa.scanOnce()]);
    // 20 runs × 2 channels, no message twice (each card names exactly one execution).
    expect(slack.posts).toHaveLength(40);
    expect(new Set(slack.posts.map((p) => `${p.channel} ${JSON.stringify(p.message.blocks)}`)).size).toBe(40);
    expect(slack.idsIn('C01OPS')).toHaveLength(20);
    expect(slack.idsIn('C02ALL')).toHaveLength(20);
  });

  it('releases the claim when Slack refuses, and sends it on a later scan', async () => {
    const store = await openSharedStore();
    await subscribe(store, 'C01OPS', 'rb-vacuum', VACUUM);
    const s = scanner(store);
    await s.scanOnce();
    history.add('ex-1', 5);
    slack.refuse.set('C01OPS', 'ratelimited_by_workspace_policy');
    const refused = await s.scanOnce();
    expect(refused.failed).toBe(1);
    expect(await store.notifications.has('sub:C01OPS:ex-1')).toBe(false);
    slack.refuse.clear();
    await s.scanOnce();
    expect(slack.idsIn('C01OPS')).toEqual(['ex-1']);
  });

  it('a claim the store could not take costs nothing: the rest of the digest goes out, that one next scan', async () => {
    const store = await openSharedStore();
    await subscribe(store, 'C01OPS', 'rb-vacuum', VACUUM);
    let failOnce = true;
    const flaky: Store = {
      ...store,
      notifications: {
        ...store.notifications,
        claim: async (key, now) => {
          if (key === 'sub:C01OPS:ex-2' && failOnce) {
            failOnce = false;
            throw new Error('Connection terminated unexpectedly');
          }
          return store.notifications.claim(key, now);
        },
      },
    };
    const s = scanner(flaky, { digestThreshold: 2 });
    await s.scanOnce();
    for (const [i, id] of ['ex-1', 'ex-2', 'ex-3', 'ex-4'].entries()) history.add(id, 5 + i);
    const first = await s.scanOnce();
    expect(first.sent).toBe(3);
    expect(slack.idsIn('C01OPS').sort()).toEqual(['ex-1', 'ex-3', 'ex-4']);
    await s.scanOnce();
    expect(slack.idsIn('C01OPS').sort()).toEqual(['ex-1', 'ex-2', 'ex-3', 'ex-4']);
    expect(slack.posts).toHaveLength(2);
  });

  it('leaves a run started from Slack into a subscribed channel to the watcher there', async () => {
    const store = await openSharedStore();
    await subscribe(store, 'C01OPS', 'rb-vacuum', VACUUM);
    await subscribe(store, 'C02DEPLOYS', 'rb-vacuum', VACUUM);
    const s = scanner(store);
    await s.scanOnce();
    history.add('ex-1', 5);
    await store.watches.insert(
      {
        executionId: 'ex-1',
        runbookId: 'rb-vacuum',
        runbookName: VACUUM,
        channel: 'C01OPS',
        proxyId: 'p1',
        inputsSummary: '{}',
        origin: 'slack',
      },
      T0,
    );
    await s.scanOnce();
    expect(slack.idsIn('C01OPS')).toEqual([]);
    expect(slack.idsIn('C02DEPLOYS')).toEqual(['ex-1']);
  });

  it('a replica that saw another hold the claim does not drop a notice that replica then gave back', async () => {
    const store = await openSharedStore();
    await subscribe(store, 'C01OPS', 'rb-vacuum', VACUUM);
    await scanner(store).scanOnce();
    history.add('ex-1', 5);
    // A's post is held until the test answers it; then Slack refuses it.
    let answer: (refuse: boolean) => void = () => {};
    let posting = false;
    const held: PacerTransport = {
      post: async (channel, message) => {
        posting = true;
        const refuse = await new Promise<boolean>((r) => {
          answer = r;
        });
        if (refuse) throw Object.assign(new Error('x'), { code: 'slack_webapi_platform_error', data: { error: 'x' } });
        return slack.post(channel, message);
      },
      update: async () => {},
    };
    const a = scanner(store, {}, held);
    const scanA = a.scanOnce();
    await vi.waitFor(() => expect(posting).toBe(true));
    // B scans while A holds the claim, and writes its cursor after A's.
    let reachedSet = false;
    let openGate: () => void = () => {};
    const gate = new Promise<void>((r) => {
      openGate = r;
    });
    const slowCursor: Store = {
      ...store,
      cursors: {
        ...store.cursors,
        set: async (name, value, now, installationId) => {
          reachedSet = true;
          await gate;
          return store.cursors.set(name, value, now, installationId);
        },
      },
    };
    const scanB = scanner(slowCursor).scanOnce();
    await vi.waitFor(() => expect(reachedSet).toBe(true));
    answer(true);
    await scanA;
    openGate();
    await scanB;
    expect(slack.idsIn('C01OPS')).toEqual([]);
    await scanner(store).scanOnce();
    expect(slack.idsIn('C01OPS')).toEqual(['ex-1']);
  });

  it('does not keep retrying a channel that is gone', async () => {
    const store = await openSharedStore();
    await subscribe(store, 'C0GONE', 'rb-vacuum', VACUUM);
    const s = scanner(store);
    await s.scanOnce();
    history.add('ex-1', 5);
    slack.refuse.set('C0GONE', 'channel_not_found');
    expect((await s.scanOnce()).failed).toBe(1);
    slack.refuse.clear();
    await s.scanOnce();
    expect(slack.posts).toEqual([]);
  });

  it('merges a burst for one channel into a digest through the pacer', async () => {
    const store = await openSharedStore();
    await subscribe(store, 'C01OPS', '*', '');
    const s = scanner(store, { digestThreshold: 3 });
    await s.scanOnce();
    for (let i = 0; i < 6; i++) history.add(`ex-b${i}`, 5 + i);
    const result = await s.scanOnce();
    expect(result.sent).toBe(6);
    expect(slack.posts).toHaveLength(1);
    expect(slack.posts[0]!.message.text).toMatch(/^6 runs finished/);
    expect(slack.idsIn('C01OPS')).toHaveLength(6);
  });

  it('many workspaces: notice claims are kept per installation, and one claimed before that counts as sent', async () => {
    const store = await openSharedStore();
    await store.subscriptions.add(
      {
        channel: 'C01OPS',
        runbookId: 'rb-vacuum',
        runbookName: VACUUM,
        failuresOnly: false,
        createdBy: 'U1',
        teamId: 'T0A',
      },
      T0,
      'T0A',
    );
    const s = new SubscriptionScanner({
      store,
      api: history.api(),
      transport: slack,
      logger,
      perWorkspace: true,
      inTenant: (teamId, work) => inInstallation(teamId, work),
      settings: FAST,
    });
    await s.scanOnce();
    history.add('ex-before', 10);
    history.add('ex-after', 11);
    // Announced just before the upgrade, under the key claims had then.
    await store.notifications.claim('sub:C01OPS:ex-before', T0);
    await s.scanOnce();
    expect(slack.idsIn('C01OPS')).toEqual(['ex-after']);
    expect(await store.notifications.has('sub:T0A:C01OPS:ex-after')).toBe(true);
    expect(await store.notifications.has('sub:C01OPS:ex-after')).toBe(false);
    await s.scanOnce();
    expect(slack.posts).toHaveLength(1);
  });

  it('scans on its own timer and stops cleanly', async () => {
    const store = await openSharedStore();
    await subscribe(store, 'C01OPS', 'rb-vacuum', VACUUM);
    const s = scanner(store);
    s.start();
    const deadline = Date.now() + 5_000;
    while ((await store.cursors.get(SUBSCRIPTIONS_CURSOR)) === null && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 10));
    }
    history.add('ex-timer', 5);
    while (slack.posts.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await s.stop();
    expect(slack.idsIn('C01OPS')).toEqual(['ex-timer']);
    const calls = history.listCalls;
    await new Promise((r) => setTimeout(r, 50));
    expect(history.listCalls).toBe(calls);
  });
});
