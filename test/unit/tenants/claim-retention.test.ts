// The claims pass (pruneClaims, src/tenants/retention.ts) over a real store, with the keys the code itself
// claims: each kind goes once past its horizon and not before; clicks of buttons that stay on screen are
// kept; a subscription notice a scan could still read again stays however old; a `--now` confirmation's
// claim outlives its draft; one replica prunes at a time, in batches. The ended-watches pass (pruneEndedWatches)
// alike: an ended watch goes WATCH_HORIZON_MS after its last change, and only below every scan's reach (a scan
// skips the channel that has the run's card); active watches stay however old. The run records pass
// (pruneRunRecords) alike, each table past its horizon: settled intents, upload claims of runs no longer watched,
// ended workflow steps, decided approval requests; open, watched and pending ones stay however old.
import { afterEach, describe, expect, it } from 'vitest';
import { Execution } from '../../../src/api/schemas.ts';
import { parseInputSchema } from '../../../src/forms/input-schema.ts';
import { createLogger } from '../../../src/logger.ts';
import type { RunsDeps } from '../../../src/runs/deps.ts';
import { type Click, claimClick } from '../../../src/runs/once.ts';
import { RunDrafts } from '../../../src/slack/kit/run-drafts.ts';
import { openStore } from '../../../src/store/open-store.ts';
import type { Store } from '../../../src/store/store.ts';
import {
  CLAIM_HORIZON_MS,
  pruneClaims,
  pruneEndedWatches,
  pruneRunRecords,
  RUN_RECORD_HORIZON_MS,
  WATCH_HORIZON_MS,
} from '../../../src/tenants/retention.ts';
import { inInstallation } from '../../../src/tenants/tenant-scope.ts';
import { type CursorState, decodeCursor, encodeCursor, ScanWindow } from '../../../src/watch/subscription-cursor.ts';
import { subscriptionNoticeKey } from '../../../src/watch/subscription-notice.ts';
import { noticeClaimsReach, SUBSCRIPTIONS_CURSOR } from '../../../src/watch/subscriptions.ts';
import { step } from '../store/saved-runs-contract.ts';
import { newApproval, newWatch } from '../store/store-contract.ts';

const T0 = 1_700_000_000_000;
const DAY = 24 * 60 * 60 * 1000;
const NONE = { card: 0, notice: 0, form: 0, confirmation: 0 };
const logger = createLogger({ level: 'silent' });

const stores: Store[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

async function memoryStore(): Promise<Store> {
  const store = await openStore({ kind: 'sqlite', path: ':memory:' });
  stores.push(store);
  return store;
}

type Replica = { owner?: string; batch?: number };

/** A pass's options, run at `at` by one replica (`replica-a` unless told). */
function passOptions(store: Store, at: number, extra: Replica) {
  const batch = extra.batch ? { batch: extra.batch } : {};
  return { store, owner: extra.owner ?? 'replica-a', leaseMs: 60_000, now: () => at, logger, ...batch };
}

function pass(store: Store, at: number, extra: Replica = {}) {
  return pruneClaims({ ...passOptions(store, at, extra), noticeReach: () => noticeClaimsReach(store) });
}

function watchPass(store: Store, at: number, extra: Replica = {}) {
  return pruneEndedWatches({ ...passOptions(store, at, extra), scanReach: () => noticeClaimsReach(store) });
}

function recordsPass(store: Store, at: number, extra: Replica = {}) {
  return pruneRunRecords(passOptions(store, at, extra));
}

/** A click claimed the way its button claims it (src/runs/once.ts), in `installation`'s scope ('' = one workspace). */
async function click(store: Store, installation: string, c: Omit<Click, 'who'>): Promise<void> {
  const deps = { access: { store }, now: () => T0 } as unknown as Pick<RunsDeps, 'access' | 'now'>;
  const claim = await inInstallation(installation || null, () => claimClick(deps, { ...c, who: 'U01ALICE' }));
  expect(claim.kind).toBe('first');
}

describe('pruneClaims', () => {
  it('each kind the code claims is kept until its horizon and gone after; clicks of lasting buttons stay', async () => {
    const store = await memoryStore();
    const has = (key: string) => store.notifications.has(key);
    // A card's (watch/watcher.ts: the installation leads it, '' has none), with no watch active.
    for (const key of ['message:e-1', 'message:T9:e-2']) expect(await store.notifications.claim(key, T0)).toBe(true);
    expect(await store.notifications.claim(subscriptionNoticeKey('C1', 'e-1'), T0)).toBe(true);
    expect(await store.notifications.claim(subscriptionNoticeKey('C1', 'e-2', 'T9'), T0)).toBe(true);
    // A run form's submission (runs/run.ts).
    expect(await store.notifications.claim('submission:V1:h1:abc', T0)).toBe(true);
    for (const installation of ['', 'T9']) {
      await click(store, installation, { action: 'schedule-save', target: 'U01ALICE:V2:h2:abc', where: '' });
      await click(store, installation, {
        action: 'confirmation',
        target: `d-${installation}`,
        where: '',
        legacy: [`confirm-run:d-${installation}`],
      });
      await click(store, installation, { action: 'run-now', target: 's-1', where: '171.1' });
      await click(store, installation, { action: 'schedule-pause', target: 's-1', where: '171.1/2' });
      await click(store, installation, { action: 'subscribe', target: 'C1:rb', where: '171.2' });
      await click(store, installation, { action: 'approve', target: 'a-1', where: '' });
    }

    // Up to the shortest horizon (a day) nothing goes; just past it, cards and confirmations (with the
    // older release's key of each) do.
    expect(await pass(store, T0 + DAY)).toEqual(NONE);
    expect(await pass(store, T0 + DAY + 1)).toEqual({ ...NONE, card: 2, confirmation: 4 });
    for (const key of ['message:T9:e-2', 'click:confirmation:d-:', 'confirm-run:d-', 'T9:confirm-run:d-T9']) {
      expect(await has(key), key).toBe(false);
    }
    expect(await has('submission:V1:h1:abc')).toBe(true);
    expect(await pass(store, T0 + 7 * DAY)).toEqual(NONE);
    expect(await pass(store, T0 + 7 * DAY + 1)).toEqual({ ...NONE, notice: 2, form: 3 });
    for (const key of [
      subscriptionNoticeKey('C1', 'e-2', 'T9'),
      'submission:V1:h1:abc',
      'click:schedule-save:U01ALICE:V2:h2:abc:',
      'click:T9:schedule-save:U01ALICE:V2:h2:abc:',
    ]) {
      expect(await has(key), key).toBe(false);
    }

    // Buttons that stay on screen (a schedule's Run now, Pause, Subscribe) and Approve: kept, however old.
    expect(await pass(store, T0 + 400 * DAY)).toEqual(NONE);
    for (const scope of ['', 'T9:']) {
      for (const key of [
        `click:${scope}run-now:s-1:171.1`,
        `click:${scope}schedule-pause:s-1:171.1/2`,
        `click:${scope}subscribe:C1:rb:171.2`,
        `click:${scope}approve:a-1::U01ALICE`,
      ]) {
        expect(await has(key), key).toBe(true);
      }
    }
  });

  it('a notice a scan would read again stays, however old, until the cursor has moved past its run', async () => {
    const store = await memoryStore();
    const MIN = 60_000;
    // A scan cut short left a gap below the run it read last (e-1, created at T0, its notice claimed a minute
    // later); the gap waited (a busy history) — when it is read, its top is read again, e-1 with it.
    const cut: CursorState = {
      v: 1,
      horizon: T0 + 40 * DAY,
      seen: [],
      pending: [],
      gap: { top: T0 + MIN, bottom: T0 - 10 * DAY, token: 'page-7' },
    };
    await store.cursors.set(SUBSCRIPTIONS_CURSOR, encodeCursor(cut), T0 + 40 * DAY, 'T9');
    const e1 = Execution.parse({
      id: 'e-1',
      workflowName: 'Vacuum',
      createTime: new Date(T0).toISOString(),
      endTime: new Date(T0 + 5_000).toISOString(),
      executionStatus: 'EXECUTION_STATUS_SUCCEEDED',
    });
    const window = new ScanWindow(decodeCursor(await store.cursors.get(SUBSCRIPTIONS_CURSOR, 'T9')));
    window.enterGap();
    expect(window.consider(e1)).toBe(true); // owed again: only its claim stops a second notice
    const key = subscriptionNoticeKey('C1', 'e-1', 'T9');
    expect(await store.notifications.claim(key, T0 + MIN)).toBe(true);
    // The single workspace's cursor, reaching less far back, does not lift it.
    const { gap: _read, ...moved } = cut;
    await store.cursors.set(SUBSCRIPTIONS_CURSOR, encodeCursor(moved), T0 + 40 * DAY);

    expect(await pass(store, T0 + 41 * DAY)).toEqual(NONE);
    expect(await store.notifications.claim(key, T0 + 41 * DAY)).toBe(false);
    // The gap was read: the cursor no longer reaches the run, and a day later (the clocks' margin) it goes.
    await store.cursors.set(SUBSCRIPTIONS_CURSOR, encodeCursor(moved), T0 + 41 * DAY, 'T9');
    expect(await noticeClaimsReach(store)).toBe(T0 + 39 * DAY);
    expect(await pass(store, T0 + 42 * DAY)).toEqual({ ...NONE, notice: 1 });
  });

  it('the reach of the subscription cursors: the oldest horizon, pending run or gap bottom, less a day', async () => {
    const store = await memoryStore();
    expect(await noticeClaimsReach(store)).toBeNull();
    await store.cursors.set(SUBSCRIPTIONS_CURSOR, '', T0); // reset: the next scan is a baseline
    await store.cursors.set(SUBSCRIPTIONS_CURSOR, 'not json', T0, 'T8');
    expect(await noticeClaimsReach(store)).toBeNull();
    const state = (over: Partial<CursorState>): string =>
      encodeCursor({ v: 1, horizon: T0 + 30 * DAY, seen: [], pending: [], ...over });
    await store.cursors.set(SUBSCRIPTIONS_CURSOR, state({}), T0, 'T9');
    expect(await noticeClaimsReach(store)).toBe(T0 + 29 * DAY);
    await store.cursors.set(SUBSCRIPTIONS_CURSOR, state({ pending: [['e-9', T0 + 20 * DAY]] }), T0, 'T7');
    expect(await noticeClaimsReach(store)).toBe(T0 + 19 * DAY);
    const gap = { top: T0 + 12 * DAY, bottom: T0 + 10 * DAY, token: 'p' };
    await store.cursors.set(SUBSCRIPTIONS_CURSOR, state({ gap }), T0, 'T6');
    expect(await noticeClaimsReach(store)).toBe(T0 + 9 * DAY);
    // Another cursor's name is not a subscription scan's.
    await store.cursors.set('elsewhere', state({ horizon: T0 }), T0, 'T6');
    expect(await noticeClaimsReach(store)).toBe(T0 + 9 * DAY);
  });

  it('a --now confirmation’s claim outlives its draft: a click after the claim is gone finds nothing to run', async () => {
    const store = await memoryStore();
    let now = T0;
    const drafts = new RunDrafts({ store: store.runDrafts, now: () => now });
    const id = await drafts.save(
      { runbookId: 'rb', proxyId: 'p', channel: 'C1', params: {} },
      parseInputSchema('{"type":"object"}'),
    );
    expect(await drafts.take(id)).not.toBeNull();
    now = T0 + CLAIM_HORIZON_MS.confirmation;
    expect(await drafts.take(id)).toBeNull();
  });

  it('one replica prunes at a time, in batches, oldest first', async () => {
    const store = await memoryStore();
    for (let i = 0; i < 5; i++) expect(await store.notifications.claim(`submission:V${i}`, T0 + i)).toBe(true);
    const at = T0 + 8 * DAY;
    expect(await pass(store, at, { batch: 2 })).toEqual({ ...NONE, form: 5 });
    expect(await pass(store, at, { owner: 'replica-b' })).toBeNull();
  });
});

/** `n` watches of installation `id`, stored at T0 and ended (stale) at `endedAt`. */
async function endedWatches(store: Store, id: string, n: number, endedAt: number): Promise<void> {
  for (let i = 0; i < n; i++) await store.watches.insert(newWatch(`e-${i}`, { installationId: id }), T0);
  expect(await store.watches.stopInstallation(id, endedAt)).toBe(n);
}

describe('pruneEndedWatches', () => {
  it('an ended watch stays until the horizon after it ended and goes after; an active one stays', async () => {
    const store = await memoryStore();
    await endedWatches(store, 'T8', 1, T0 + DAY);
    await store.watches.insert(newWatch('open'), T0);
    expect(await watchPass(store, T0 + DAY + WATCH_HORIZON_MS)).toBe(0);
    expect(await store.watches.get('e-0', 'T8')).not.toBeNull();
    expect(await watchPass(store, T0 + DAY + WATCH_HORIZON_MS + 1)).toBe(1);
    expect(await store.watches.get('e-0', 'T8')).toBeNull();
    expect(await watchPass(store, T0 + 400 * DAY)).toBe(0);
    expect((await store.watches.get('open'))?.state).toBe('active');
  });

  it('a run a subscription scan may still read keeps its watch, however old', async () => {
    const store = await memoryStore();
    await endedWatches(store, 'T9', 1, T0 + 1);
    // A scan cut short, its gap (down to 10 days before the run) left unread: it may still meet the run.
    const cursor = (over: Partial<CursorState>) =>
      encodeCursor({ v: 1, horizon: T0 + 40 * DAY, seen: [], pending: [], ...over });
    const gap = { top: T0 + DAY, bottom: T0 - 10 * DAY, token: 'page-7' };
    await store.cursors.set(SUBSCRIPTIONS_CURSOR, cursor({ gap }), T0 + 40 * DAY, 'T7');
    expect(await watchPass(store, T0 + 60 * DAY)).toBe(0);
    // The gap read: nothing created before the horizon is read again, and a day on (the clocks' margin) it goes.
    await store.cursors.set(SUBSCRIPTIONS_CURSOR, cursor({}), T0 + 60 * DAY, 'T7');
    expect(await watchPass(store, T0 + 60 * DAY)).toBe(1);
  });

  it('one replica prunes at a time, in batches', async () => {
    const store = await memoryStore();
    await endedWatches(store, 'T8', 5, T0);
    const at = T0 + WATCH_HORIZON_MS + DAY;
    expect(await watchPass(store, at, { batch: 2 })).toBe(5);
    expect(await store.watches.countByState()).toEqual({ active: 0, finished: 0, stale: 0 });
    expect(await watchPass(store, at, { owner: 'replica-b' })).toBeNull();
  });
});

/** One of each per-run record, settled at T0 (its upload claim's run unwatched), and one of each still open. */
async function runRecords(store: Store, n = 1): Promise<{ approvals: string[] }> {
  const approvals: string[] = [];
  for (let i = 0; i < n; i++) {
    const intent = {
      id: `done-${i}`,
      userId: 'U1',
      userEmail: null,
      teamId: null,
      runbookId: 'rb',
      runbookName: 'Restart',
      proxyId: 'p',
      paramsHash: 'h',
      channel: 'C1',
      inputsSummary: '{}',
      via: null,
    };
    await store.intents.record(intent, T0);
    expect(await store.intents.settle(intent.id, 'started', ['e'], T0)).toBe(true);
    expect(await store.outputUploads.claim(`done-${i}`, T0)).toBe(true);
    expect(await store.workflowSteps.begin(step(`done-${i}`), T0)).toBe(true);
    expect(await store.workflowSteps.finish(`done-${i}`, 'completed', { outputs: {} }, T0)).toBe(true);
    const approval = await store.approvals.create(newApproval(), T0);
    expect(await store.approvals.decide(approval.id, 'rejected', 'U2', 'no', T0)).toBe(true);
    approvals.push(approval.id);
  }
  return { approvals };
}

describe('pruneRunRecords', () => {
  it('each record stays until its horizon after it settled and goes after; open, watched, pending ones stay', async () => {
    const store = await memoryStore();
    const { approvals } = await runRecords(store);
    // Still open: an unanswered run, an upload of a run still watched, a waiting step, a request awaiting a decision.
    await store.intents.record({ ...(await store.intents.get('done-0'))!, id: 'open' }, T0);
    await store.watches.insert(newWatch('watched'), T0);
    expect(await store.outputUploads.claim('watched', T0)).toBe(true);
    expect(await store.workflowSteps.begin(step('waiting'), T0)).toBe(true);
    const pending = await store.approvals.create(newApproval(), T0);

    const at = (table: keyof typeof RUN_RECORD_HORIZON_MS) => T0 + RUN_RECORD_HORIZON_MS[table];
    expect(await recordsPass(store, at('intents'))).toEqual({ intents: 0, uploads: 0, steps: 0, approvals: 0 });
    expect(await recordsPass(store, at('intents') + 1)).toEqual({ intents: 1, uploads: 1, steps: 0, approvals: 0 });
    expect(await store.intents.get('done-0')).toBeNull();
    expect(await store.outputUploads.get('done-0')).toBeNull();
    expect(await recordsPass(store, at('steps'))).toEqual({ intents: 0, uploads: 0, steps: 0, approvals: 0 });
    expect(await recordsPass(store, at('steps') + 1)).toEqual({ intents: 0, uploads: 0, steps: 1, approvals: 0 });
    expect(await store.workflowSteps.get('done-0')).toBeNull();
    expect(await recordsPass(store, at('approvals'))).toEqual({ intents: 0, uploads: 0, steps: 0, approvals: 0 });
    expect(await recordsPass(store, at('approvals') + 1)).toEqual({ intents: 0, uploads: 0, steps: 0, approvals: 1 });
    expect(await store.approvals.get(approvals[0]!)).toBeNull();

    expect(await recordsPass(store, T0 + 400 * DAY)).toEqual({ intents: 0, uploads: 0, steps: 0, approvals: 0 });
    expect((await store.intents.get('open'))?.state).toBe('open');
    expect(await store.outputUploads.get('watched')).not.toBeNull();
    expect((await store.workflowSteps.get('waiting'))?.state).toBe('pending');
    expect((await store.approvals.get(pending.id))?.state).toBe('pending');
  });

  it('one replica prunes at a time, in batches', async () => {
    const store = await memoryStore();
    await runRecords(store, 5);
    const at = T0 + 400 * DAY;
    expect(await recordsPass(store, at, { batch: 2 })).toEqual({ intents: 5, uploads: 5, steps: 5, approvals: 5 });
    expect(await recordsPass(store, at, { owner: 'replica-b' })).toBeNull();
  });
});
