// Many workspaces, each on its own Runbook API tenant and its own request budget: a workspace with a
// backlog of finished runs (150 watches on tenant A) does not hold back another workspace's 5 (tenant B).
// Through the real runtime (Bolt's OAuth installer, the fake Slack, the emulator serving both tenants by
// key). No timing is asserted: the order of the result cards in Slack tells whether B waited behind A.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorState } from '../../src/emulator/state.ts';
import { type OAuthHarness, startOAuthHarness, until } from '../support/oauth-harness.ts';

const KEY_B = 'tenant-b-fair-key-0123456789';
const SCALE = 'Scale Kubernetes Deployment';
const BIG = 150;
const SMALL = 5;
const RATE = 40;

let h: OAuthHarness;
beforeAll(async () => {
  h = await startOAuthHarness({
    tenants: { [KEY_B]: { name: 'beta', runbooks: [SCALE] } },
    env: { WATCH_REQUESTS_PER_SECOND: String(RATE), WATCH_GLOBAL_REQUESTS_PER_SECOND: '1000' },
  });
  expect((await h.install('T0SANDBOX')).status).toBe(200);
  expect((await h.install('T0SECOND', { connect: false })).status).toBe(200);
  expect((await h.runtime.tenants!.connections.connect('T0SECOND', { apiKey: KEY_B }, 'U11SAM')).ok).toBe(true);
});
afterAll(() => h?.stop());

function startRuns(state: EmulatorState, n: number): string[] {
  const runbook = [...state.workflows.byId.values()].find((r) => r.workflow.name === SCALE)!;
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const record = state.startExecutionAt(runbook, { proxyId: 'proxy-1' }, {}, h.clock.now(), {
      executor: 'ops@example.com',
      approver: '',
    });
    ids.push(record.id);
  }
  return ids;
}

async function watch(ids: string[], teamId: string, nextCheckAt: number): Promise<void> {
  for (const executionId of ids) {
    await h.runtime.store.watches.insert(
      {
        executionId,
        runbookId: 'rb',
        runbookName: SCALE,
        channel: 'C01OPS',
        startedBy: teamId === 'T0SANDBOX' ? 'U01ALICE' : 'U11SAM',
        teamId,
        proxyId: 'proxy-1',
        inputsSummary: '{}',
        origin: 'adopted',
        nextCheckAt,
      },
      Date.now(),
    );
  }
}

/** Index in Slack's calls of each execution's result card (posted, or its running card edited). */
function resultPosts(ids: string[]): Map<string, { at: number; installation: string | undefined }> {
  const wanted = new Set(ids);
  const found = new Map<string, { at: number; installation: string | undefined }>();
  h.fake.state.calls.forEach((call, at) => {
    // The result card: a top-level post, or the running card edited (the reply is in the thread).
    const card = (call.method === 'chat.postMessage' && !('thread_ts' in call.args)) || call.method === 'chat.update';
    if (!card || !call.ok) return;
    const args = JSON.stringify(call.args);
    if (!/succeeded|failed/i.test(args)) return;
    for (const id of wanted)
      if (args.includes(id) && !found.has(id)) found.set(id, { at, installation: call.installation });
  });
  return found;
}

describe('per-tenant budgets and fair claims', () => {
  it('a workspace with 150 finished runs waiting does not delay another workspace’s 5', async () => {
    const big = startRuns(h.emulator.state, BIG);
    const small = startRuns(h.emulator.tenant(KEY_B)!, SMALL);
    h.clock.advance(60 * 60_000);
    const now = Date.now();
    // The big backlog is older: a claim by next check alone would take all of it before the small one.
    await watch(big, 'T0SANDBOX', now - 60_000);
    await watch(small, 'T0SECOND', now);

    const smallDone = await until(async () => {
      const posts = resultPosts(small);
      return posts.size === SMALL ? posts : null;
    }, 'the small workspace’s results');
    for (const post of smallDone.values()) expect(post.installation).toBe('T0SECOND');
    const lastSmall = Math.max(...[...smallDone.values()].map((p) => p.at));
    const bigBefore = [...resultPosts(big).values()].filter((p) => p.at < lastSmall).length;
    // Each claim round takes a few of each workspace's due watches: B's five go in the first rounds,
    // beside A's first few, not after A's backlog.
    expect(bigBefore).toBeLessThan(BIG / 3);

    // The big workspace still gets every result, on its own budget.
    let bigDone = resultPosts(big);
    for (let i = 0; i < 600 && bigDone.size < BIG; i++) {
      await new Promise((r) => setTimeout(r, 100));
      bigDone = resultPosts(big);
    }
    expect(bigDone.size).toBe(BIG);
    for (const post of bigDone.values()) expect(post.installation).toBe('T0SANDBOX');
    // Tenant B was asked only about its own runs: a summary and a full read each, no more.
    expect(h.emulator.tenant(KEY_B)!.requests.snapshot().total).toBeLessThanOrEqual(SMALL * 2 + 2);
  }, 60_000);

  it('a workspace’s open watches are swept by a listing of its own tenant’s executions, not a get per watch', async () => {
    const b = h.emulator.tenant(KEY_B)!;
    // The listing reaches back to the oldest watch by the API's creation times: runs created now.
    if (h.clock.now() < Date.now()) h.clock.advance(Date.now() - h.clock.now());
    b.requests.reset();
    const running = startRuns(b, 40);
    // First looks a couple of seconds after the start, as for a run started from Slack.
    await watch(running, 'T0SECOND', Date.now() + 3_000);
    const GET = 'GET /v1alpha1/executions/{executionId}';
    const LIST = 'GET /v1alpha1/executions';
    // Three sweeps of B's 40 running watches: each one listing page of B's tenant (in B's scope, with B's
    // key), where a get per watch would have cost 40 requests a sweep.
    await until(async () => b.requests.count(LIST) >= 3, 'three listings of tenant B');
    expect(b.requests.count(GET)).toBeLessThan(running.length);
    const listed = b.requests.count(LIST);
    expect(b.requests.snapshot().total).toBeLessThan(listed + running.length);

    h.clock.advance(60 * 60_000);
    const done = await until(async () => {
      const posts = resultPosts(running);
      return posts.size === running.length ? posts : null;
    }, 'the results of B’s swept runs');
    for (const post of done.values()) expect(post.installation).toBe('T0SECOND');
    // The listing carries each finished run's output: no further request per run either.
    expect(b.requests.count(GET)).toBeLessThan(running.length);
  }, 60_000);

  it('a run its listing’s first page shows ended is told then, not once the listing’s last page is read', async () => {
    const b = h.emulator.tenant(KEY_B)!;
    if (h.clock.now() < Date.now()) h.clock.advance(Date.now() - h.clock.now());
    const LIST = 'GET /v1alpha1/executions';
    // 800 open runs: a listing of 8 pages, each answered after 200 ms.
    const runs = startRuns(b, 800);
    const newest = runs.at(-1)!;
    b.executions.retime(new Map([[newest, h.clock.now() - 1]]));
    h.emulator.setFaults({ latencyMs: 200 });
    try {
      let listedAtResult: number | null = null;
      h.fake.on('call', () => {
        if (listedAtResult === null && resultPosts([newest]).size === 1) listedAtResult = b.requests.count(LIST);
      });
      const listedBefore = b.requests.count(LIST);
      // Nothing of B's is watched before these, so the first listing of B to look for them starts after this;
      // no watch is due on its own (the listing is what looks at them).
      await watch(runs, 'T0SECOND', Date.now() + 10 * 60_000);
      await until(async () => (listedAtResult === null ? null : true), 'the newest run’s result');
      // Its page is the first of a listing of eight: told before that listing read its last page.
      expect(listedAtResult! - listedBefore).toBeGreaterThanOrEqual(1);
      expect(listedAtResult! - listedBefore).toBeLessThan(8);
    } finally {
      h.emulator.setFaults({ latencyMs: 0 });
      h.clock.advance(60 * 60_000);
      await until(
        async () => ((await h.runtime.store.watches.countByState()).active === 0 ? true : null),
        'B’s runs told',
      );
    }
  }, 60_000);
});
