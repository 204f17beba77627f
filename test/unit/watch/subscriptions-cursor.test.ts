// The pure parts of subscription discovery: the scan window (what is owed a report, where the cursor
// goes next) and which channels want an execution.
import { describe, expect, it } from 'vitest';
import { Execution } from '../../../src/api/schemas.ts';
import { checkBlocks } from '../../../src/slack/kit/limits.ts';
import {
  type CursorState,
  DEFAULT_CURSOR_SETTINGS,
  decodeCursor,
  encodeCursor,
  ScanWindow,
} from '../../../src/watch/subscription-cursor.ts';
import {
  buildSubscriptionNotice,
  channelsFor,
  type SubscriptionRule,
  subscriptionDigestLine,
  subscriptionNoticeKey,
  wantsExecution,
} from '../../../src/watch/subscription-notice.ts';

const T0 = Date.parse('2026-11-21T08:00:00Z');
const MIN = 60_000;

function exec(id: string, minute: number, status: 'ok' | 'fail' | 'running' = 'ok', name = 'Postgres Vacuum Analyze') {
  return Execution.parse({
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
    executor: 'ops@example.com',
    inputs: '{"db":"main"}',
  });
}

/** Runs one scan over a newest-first listing (one page); returns the reported ids and the next state. */
function scan(previous: CursorState | null, listing: Execution[], complete = true) {
  const window = new ScanWindow(previous, DEFAULT_CURSOR_SETTINGS);
  const reported = listing.filter((e) => window.consider(e)).map((e) => e.id);
  return { reported, ...window.finish(complete), window };
}

describe('ScanWindow', () => {
  it('takes a baseline on the first scan: old results are not reported, running ones are followed', () => {
    const first = scan(null, [exec('b', 10, 'running'), exec('a', 5)]);
    expect(first.reported).toEqual([]);
    expect(first.state.pending.map(([id]) => id)).toEqual(['b']);
    // b finishes and c is new: both reported once; a stays history.
    const second = scan(first.state, [exec('c', 20), exec('b', 10), exec('a', 5)]);
    expect(second.reported).toEqual(['c', 'b']);
    expect(second.state.pending).toEqual([]);
    // Listing the same again reports nothing.
    expect(scan(second.state, [exec('c', 20), exec('b', 10), exec('a', 5)]).reported).toEqual([]);
  });

  it('keeps following a long-running execution across scans until it finishes', () => {
    let state = scan(null, [exec('old', 0)]).state;
    const runningScan = scan(state, [exec('long', 1, 'running'), exec('old', 0)]);
    expect(runningScan.reported).toEqual([]);
    state = runningScan.state;
    // Many newer runs later, the horizon has moved far past `long`, which is still pending.
    const listing = [exec('n2', 120), exec('n1', 90), exec('long', 1, 'running'), exec('old', 0)];
    const later = scan(state, listing);
    expect(later.reported).toEqual(['n2', 'n1']);
    expect(later.state.horizon).toBeGreaterThan(T0 + MIN);
    expect(later.state.pending.map(([id]) => id)).toEqual(['long']);
    // The listing must reach back to it: the boundary is its createTime.
    expect(new ScanWindow(later.state).boundary).toBe(T0 + MIN);
    const done = scan(later.state, [exec('n2', 120), exec('n1', 90), exec('long', 1, 'fail'), exec('old', 0)]);
    expect(done.reported).toEqual(['long']);
    expect(done.state.pending).toEqual([]);
  });

  it('reports an execution listed late with a createTime just below the newest (clock skew, ties)', () => {
    const base = scan(null, [exec('a', 10)]).state;
    const next = scan(base, [exec('b', 12)]);
    expect(next.reported).toEqual(['b']);
    // `c` shows up afterwards although it was created a minute before `b`.
    const late = scan(next.state, [exec('b', 12), exec('c', 11)]);
    expect(late.reported).toEqual(['c']);
  });

  it('does not move the horizon when the listing was cut short', () => {
    const base = scan(null, [exec('a', 0)]).state;
    const cut = scan(base, [exec('z', 100)], false);
    expect(cut.reported).toEqual(['z']);
    expect(cut.state.horizon).toBe(base.horizon);
    // The unread part (created between a and z) is still new next time, z is not reported again.
    const rest = scan(cut.state, [exec('z', 100), exec('m', 50), exec('a', 0)]);
    expect(rest.reported).toEqual(['m']);
  });

  it('gives up on executions running longer than the limit and on ones that vanished', () => {
    const base = scan(null, [exec('stuck', 0, 'running'), exec('gone', -1, 'running'), exec('x', -2)]).state;
    expect(base.pending.map(([id]) => id).sort()).toEqual(['gone', 'stuck']);
    const dayLater = 25 * 60;
    const result = scan(base, [exec('new', dayLater), exec('stuck', 0, 'running'), exec('x', -2)]);
    expect(result.abandoned.sort()).toEqual(['gone', 'stuck']);
    expect(result.state.pending).toEqual([]);
  });

  it('stops the listing once it is below the boundary', () => {
    const base = scan(null, [exec('a', 10)]).state;
    const window = new ScanWindow(base);
    window.consider(exec('b', 30));
    expect(window.reachedBoundary()).toBe(false);
    window.consider(exec('a', 10));
    expect(window.reachedBoundary()).toBe(false); // same minute as the horizon's source, still inside the skew
    window.consider(exec('older', 0));
    expect(window.reachedBoundary()).toBe(true);
  });

  it('puts a refused report back to pending so the next scan tries again', () => {
    const base = scan(null, [exec('a', 0)]).state;
    const window = new ScanWindow(base);
    const e = exec('b', 5);
    expect(window.consider(e)).toBe(true);
    window.retryLater(e);
    const { state } = window.finish(true);
    expect(scan(state, [e, exec('a', 0)]).reported).toEqual(['b']);
  });

  it('treats an empty history as "everything from now on is new"', () => {
    const empty = scan(null, []).state;
    expect(scan(empty, [exec('first', 0)]).reported).toEqual(['first']);
  });

  it('round-trips the cursor and reads junk, a reset or nothing as "no cursor"', () => {
    const state = scan(null, [exec('a', 1, 'running')]).state;
    expect(decodeCursor(encodeCursor(state))).toEqual(state);
    expect(decodeCursor(null)).toBeNull();
    expect(decodeCursor('')).toBeNull();
    expect(decodeCursor('{"v":2}')).toBeNull();
    expect(decodeCursor('not json')).toBeNull();
  });
});

describe('matching subscriptions', () => {
  const rule = (channel: string, runbookId: string, runbookName: string, failuresOnly = false): SubscriptionRule => ({
    channel,
    runbookId,
    runbookName,
    failuresOnly,
  });

  it('matches by runbook name (case-insensitive), all-runbooks, and the failures filter', () => {
    const ok = exec('e1', 0, 'ok');
    const failed = exec('e2', 0, 'fail');
    expect(wantsExecution(rule('C1', 'id1', 'postgres vacuum analyze'), ok)).toBe(true);
    expect(wantsExecution(rule('C1', 'id1', 'Drain Kubernetes Node'), ok)).toBe(false);
    expect(wantsExecution(rule('C1', '*', ''), ok)).toBe(true);
    expect(wantsExecution(rule('C1', '*', '', true), ok)).toBe(false);
    expect(wantsExecution(rule('C1', '*', '', true), failed)).toBe(true);
    expect(wantsExecution(rule('C1', 'id1', 'Postgres Vacuum Analyze', true), failed)).toBe(true);
  });

  it('follows a renamed runbook by its current name, and tells each channel once', () => {
    const e = exec('e1', 0, 'ok', 'PG Vacuum');
    const rules = [
      rule('C1', 'id1', 'Postgres Vacuum Analyze'),
      rule('C1', '*', ''),
      rule('C2', 'id1', 'Postgres Vacuum Analyze'),
      rule('C3', 'id2', 'Other'),
    ];
    expect(channelsFor(rules, e, (id) => (id === 'id1' ? 'PG Vacuum' : null))).toEqual(['C1', 'C2']);
    expect(channelsFor(rules, e)).toEqual(['C1']);
  });

  it('builds a result card within Block Kit limits, with the executor as who started it', () => {
    const message = buildSubscriptionNotice(
      exec('e1', 0, 'fail'),
      { id: 'id1', name: 'Postgres Vacuum Analyze' },
      {
        db: 'main',
      },
    );
    expect(checkBlocks(message.blocks ?? [], 'message')).toEqual([]);
    const json = JSON.stringify(message.blocks);
    expect(json).toContain('ops@example.com');
    expect(json).toContain('e1');
    expect(message.text).toContain('failed');
    expect(subscriptionDigestLine(exec('e9', 0))).toContain('`e9`');
    expect(subscriptionNoticeKey('C1', 'e1')).toBe('sub:C1:e1');
  });
});
