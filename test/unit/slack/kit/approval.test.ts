import { describe, expect, it } from 'vitest';
import { evaluateQuorum, type Vote } from '../../../../src/policy/quorum.ts';
import {
  buildApprovalNotice,
  buildApprovalRequest,
  buildWaitingForApproval,
} from '../../../../src/slack/kit/approval.ts';
import { assertWithinLimits } from '../../../../src/slack/kit/limits.ts';
import { buildScheduleApprovalMessages } from '../../../../src/slack/kit/schedule-approval.ts';
import type { Approval } from '../../../../src/store/store.ts';
import { mrkdwnTexts } from '../../../support/block-texts.ts';

const T0 = Date.parse('2026-11-21T08:00:00Z');

function approval(over: Partial<Approval> = {}): Approval {
  return {
    id: 'a1',
    runbookId: 'r1',
    runbookName: 'Drop caches',
    proxyId: 'proxy-prod',
    params: '{"password":"hunter2"}',
    paramsMasked: JSON.stringify([
      { key: 'password', label: 'DB password', value: '••••••', secret: true },
      { key: 'db_name', label: 'Database', value: 'orders' },
    ]),
    requesterId: 'U01ALICE',
    requesterTeam: null,
    channel: 'C01OPS',
    state: 'pending',
    decidedBy: null,
    reason: null,
    createdAt: T0,
    expiresAt: T0 + 3_600_000,
    decidedAt: null,
    executionIds: [],
    error: null,
    ranAt: null,
    approversChannel: null,
    approversTs: null,
    requesterChannel: null,
    requesterTs: null,
    quorum: { count: 2, eachOf: [] },
    ...over,
  };
}

const vote = (userId: string, groups: string[] = [], at = T0): Vote => ({ userId, groups, at });
const text = (m: { blocks: unknown[] }) => mrkdwnTexts(m.blocks).join('\n');
const hasButtons = (m: { blocks: unknown[] }) => JSON.stringify(m.blocks).includes('approval_approve');

describe('approval request at each quorum state', () => {
  const twoOf = approval();

  it('nobody yet: asks for 2 approvals, with Approve / Reject', () => {
    const card = buildApprovalRequest(twoOf, '<@U02BOB> or <@U03CAROL>', {
      progress: evaluateQuorum(twoOf.quorum!, []),
    });
    expect(text(card)).toContain('*Approved so far:* nobody yet');
    expect(text(card)).toContain('*Still needed:* 2 more approvals · quorum: 2');
    expect(text(card)).toContain('*Database*: `orders`');
    expect(text(card)).toContain('*DB password*: `••••••`');
    expect(JSON.stringify(card)).not.toContain('hunter2');
    expect(hasButtons(card)).toBe(true);
    assertWithinLimits(card, 'message');
  });

  it('one of two: shows who approved and that one more is needed, buttons stay', () => {
    const card = buildApprovalRequest(twoOf, 'x', { progress: evaluateQuorum(twoOf.quorum!, [vote('U02BOB')]) });
    expect(text(card)).toContain('*Approved so far:* <@U02BOB>');
    expect(text(card)).toContain('*Still needed:* 1 more approval ·');
    expect(hasButtons(card)).toBe(true);
  });

  it('one from each group: names the groups still to cover', () => {
    const a = approval({ quorum: { count: 1, eachOf: ['S0DBA', 'S0SEC'] } });
    const card = buildApprovalRequest(a, 'x', { progress: evaluateQuorum(a.quorum!, [vote('U02BOB', ['S0DBA'])]) });
    expect(text(card)).toContain('*Still needed:* 1 more approval, one from each of <!subteam^S0SEC>');
    expect(text(card)).toContain('quorum: 2 (one from each of <!subteam^S0DBA>, <!subteam^S0SEC>)');
  });

  it('met: approved by everyone who approved, running, no buttons', () => {
    const done = approval({ state: 'approved', decidedBy: 'U03CAROL', executionIds: ['e-1'] });
    const progress = evaluateQuorum(done.quorum!, [vote('U02BOB', [], T0), vote('U03CAROL', [], T0 + 1)]);
    const card = buildApprovalRequest(done, 'x', { progress });
    expect(text(card)).toContain('Approved by <@U02BOB> and <@U03CAROL> — running as `e-1`');
    expect(text(card)).not.toContain('Still needed');
    expect(hasButtons(card)).toBe(false);
    expect(text(buildApprovalNotice(done, 'x', { progress }))).toContain('Approved by <@U02BOB> and <@U03CAROL>');
  });

  it('rejected and expired: said on the request, no buttons', () => {
    const rejected = buildApprovalRequest(approval({ state: 'rejected', decidedBy: 'U02BOB', reason: 'not now' }), 'x');
    expect(text(rejected)).toContain('Rejected by <@U02BOB>: “not now”');
    expect(hasButtons(rejected)).toBe(false);
    const expired = buildApprovalRequest(approval({ state: 'expired' }), 'x', {
      progress: evaluateQuorum({ count: 2, eachOf: [] }, [vote('U02BOB')]),
    });
    expect(text(expired)).toContain('without enough approvals');
    expect(text(expired)).toContain('*Approved so far:* <@U02BOB>');
    expect(hasButtons(expired)).toBe(false);
  });

  it('single-approver requests look as before: no quorum lines', () => {
    const single = buildApprovalRequest(approval({ quorum: null }), 'x', {
      progress: evaluateQuorum({ count: 1, eachOf: [] }, []),
    });
    expect(text(single)).not.toContain('Still needed');
    expect(text(single)).toContain('Waiting for approval until');
  });

  it('the requester is told where they submitted who it waits for', () => {
    const waiting = buildWaitingForApproval(approval(), 'it needs approval from both <@U02BOB> and <@U03CAROL>');
    expect(text(waiting)).toContain(
      'needs approval: your run is waiting for it; it needs approval from both <@U02BOB> and <@U03CAROL>. You will get a DM',
    );
    assertWithinLimits(waiting, 'message');
  });
});

describe('schedule request', () => {
  const ask = { cron: '0 9 * * 1-5', english: 'At 09:00, Monday through Friday (GMT)', edit: false };

  it('both copies are the run request headed as a schedule, with the cron in English', () => {
    const { request, notice } = buildScheduleApprovalMessages(approval({ quorum: null }), '<@U02BOB>', ask);
    expect(request.text).toBe('Approval requested to schedule Drop caches: At 09:00, Monday through Friday (GMT)');
    expect(text(request).split('\n')[0]).toBe(
      ':lock: *Approval requested* to schedule *Drop caches*: `0 9 * * 1-5` At 09:00, Monday through Friday (GMT)',
    );
    expect(hasButtons(request)).toBe(true);
    expect(text(request)).toContain('DB password');
    expect(text(request)).not.toContain('hunter2');
    expect(notice.text).toBe('Your request to schedule Drop caches: pending');
    expect(text(notice).split('\n')[0]).toMatch(/^Your request to schedule \*Drop caches\*: `0 9 \* \* 1-5`/);
    expect(hasButtons(notice)).toBe(false);
    assertWithinLimits(request, 'message');
    assertWithinLimits(notice, 'message');
  });

  it('an edit says so; once approved both copies say whether the schedule was saved', () => {
    const saved = buildScheduleApprovalMessages(approval({ state: 'approved', decidedBy: 'U02BOB' }), 'x', {
      ...ask,
      edit: true,
    });
    expect(text(saved.request)).toContain('to change the schedule of *Drop caches*');
    for (const copy of [saved.request, saved.notice]) {
      expect(text(copy)).toContain('Approved by <@U02BOB> — the schedule is saved');
    }
    const failed = buildScheduleApprovalMessages(
      approval({ state: 'approved', decidedBy: 'U02BOB', error: 'quota *exceeded*' }),
      'x',
      ask,
    );
    expect(text(failed.notice)).toContain('but the schedule was not saved: quota ∗exceeded∗');
  });
});

describe('App Home personal sections', () => {
  it('lists requests waiting for you with Approve / Reject, and your runs, within limits', async () => {
    const { buildAppHome } = await import('../../../../src/slack/home/app-home.ts');
    const { checkView } = await import('../../../../src/slack/kit/limits.ts');
    const waiting = Array.from({ length: 7 }, (_, i) => ({ approval: approval({ id: `a${i}` }), missingCount: 2 }));
    const home = buildAppHome({ executions: [], schedules: [], now: T0, awaitingApproval: waiting, myRuns: [] });
    const text = JSON.stringify(home.blocks);
    expect(text).toContain('Waiting for your approval');
    expect(text).toContain('2 approvals still needed');
    expect(text.match(/approval_approve/g)).toHaveLength(5);
    expect(text).toContain('…and 2 more in the approvals channel.');
    expect(text).toContain('Your recent runs');
    expect(checkView(home)).toEqual([]);
    const none = buildAppHome({ executions: [], schedules: [], now: T0 });
    expect(JSON.stringify(none.blocks)).not.toContain('Waiting for your approval');
  });
});
