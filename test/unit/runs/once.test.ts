// The once rule of acting clicks (src/runs/once.ts) over a real store: once in all or once per person as
// ONCE says, who and when told to a repeat, a claim an earlier release took under its own key counted, and
// a click that changed nothing given back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leftNoMark } from '../../../src/runs/approvals.ts';
import type { RunsDeps } from '../../../src/runs/deps.ts';
import { claimClick, clickTaken, ONCE } from '../../../src/runs/once.ts';
import { openStore } from '../../../src/store/open-store.ts';
import type { Store } from '../../../src/store/store.ts';
import { inInstallation } from '../../../src/tenants/tenant-scope.ts';

let store: Store;
let now = 1_700_000_000_000;
let deps: Pick<RunsDeps, 'access' | 'now'>;
beforeAll(async () => {
  store = await openStore({ kind: 'sqlite', path: ':memory:' });
  deps = { access: { store } as RunsDeps['access'], now: () => now };
});
afterAll(() => store.close());

describe('claimClick', () => {
  it('many workspaces: each installation claims its own click of the same id, an earlier release’s key too', async () => {
    const click = {
      action: 'confirmation',
      target: 'draft-shared',
      where: '',
      legacy: ['confirm-run:draft-shared'],
    } as const;
    // A click replayed from another workspace never uses up the owner's.
    expect((await inInstallation('T0OTHER', () => claimClick(deps, { ...click, who: 'U11SAM' }))).kind).toBe('first');
    expect((await inInstallation('T0OWN', () => claimClick(deps, { ...click, who: 'U01ALICE' }))).kind).toBe('first');
    expect(await inInstallation('T0OWN', () => claimClick(deps, { ...click, who: 'U01ALICE' }))).toMatchObject({
      kind: 'already',
      by: 'U01ALICE',
    });
    // Single workspace (no installation in scope): its own key, as before.
    expect((await claimClick(deps, { ...click, who: 'U01ALICE' })).kind).toBe('first');
  });

  it('a confirmation works once in all: whoever clicks next is told who did it and when', async () => {
    const click = { action: 'confirmation', target: 'draft-1', where: '' } as const;
    expect(await claimClick(deps, { ...click, who: 'U01ALICE' })).toMatchObject({ kind: 'first' });
    now += 1000;
    expect(await claimClick(deps, { ...click, who: 'U02BOB' })).toEqual({
      kind: 'already',
      by: 'U01ALICE',
      at: now - 1000,
    });
    expect(await claimClick(deps, { ...click, who: 'U01ALICE' })).toMatchObject({ kind: 'already', by: 'U01ALICE' });
  });

  it('Approve works once per approver: another approver still counts', async () => {
    expect(ONCE.approve).toBe('per-person');
    const click = { action: 'approve', target: 'approval-1', where: '' } as const;
    expect((await claimClick(deps, { ...click, who: 'U02BOB' })).kind).toBe('first');
    expect((await claimClick(deps, { ...click, who: 'U03CAROL' })).kind).toBe('first');
    expect(await claimClick(deps, { ...click, who: 'U02BOB' })).toMatchObject({ kind: 'already', by: 'U02BOB' });
    expect(await clickTaken(deps, { ...click, who: 'U03CAROL' })).toMatchObject({ kind: 'already' });
    expect(await clickTaken(deps, { ...click, who: 'U04DAVE' })).toBeNull();
  });

  it('the same button in another message is a click of its own', async () => {
    const click = { action: 'schedule-delete', target: 'sch-1', who: 'U01ALICE' } as const;
    expect((await claimClick(deps, { ...click, where: '1.1' })).kind).toBe('first');
    expect((await claimClick(deps, { ...click, where: '2.2' })).kind).toBe('first');
    expect((await claimClick(deps, { ...click, where: '1.1' })).kind).toBe('already');
  });

  it('a click the previous release took under its own key is done here too (who unknown), and keeps its claim', async () => {
    expect(await store.notifications.claim('confirm-run:draft-old', now - 5000)).toBe(true);
    const click = {
      action: 'confirmation',
      target: 'draft-old',
      where: '',
      who: 'U01ALICE',
      legacy: ['confirm-run:draft-old'],
    } as const;
    expect(await claimClick(deps, click)).toEqual({ kind: 'already', by: null, at: now - 5000 });
    // ...and a new release's first click also takes the old key, so an old replica finds it used.
    const fresh = { ...click, target: 'draft-new', legacy: ['confirm-run:draft-new'] };
    expect((await claimClick(deps, fresh)).kind).toBe('first');
    expect(await store.notifications.claim('confirm-run:draft-new', now)).toBe(false);
  });

  it('release gives a click that changed nothing back, old keys included', async () => {
    const click = {
      action: 'unsubscribe',
      target: 'C1:rb',
      where: '3.3',
      who: 'U01ALICE',
      legacy: ['old:key'],
    } as const;
    const first = await claimClick(deps, click);
    if (first.kind !== 'first') throw new Error('expected the first claim');
    await first.release();
    expect(await store.notifications.has('old:key')).toBe(false);
    expect((await claimClick(deps, click)).kind).toBe('first');
  });

  it('an approver whose click failed half-way may try again only if it left no mark on the request', async () => {
    const approval = await store.approvals.create(
      {
        runbookId: 'rb',
        runbookName: 'Drain',
        proxyId: 'p',
        params: '{}',
        paramsMasked: '{}',
        requesterId: 'U01ALICE',
        requesterTeam: null,
        channel: 'C1',
        expiresAt: now + 60_000,
      },
      now,
    );
    const asDeps = deps as RunsDeps;
    expect(await leftNoMark(asDeps, approval.id, 'U02BOB')).toBe(true);
    await store.approvals.vote(approval.id, 'U02BOB', [], now);
    expect(await leftNoMark(asDeps, approval.id, 'U02BOB')).toBe(false);
    expect(await leftNoMark(asDeps, approval.id, 'U03CAROL')).toBe(true);
    await store.approvals.decide(approval.id, 'rejected', 'U03CAROL', 'no', now);
    expect(await leftNoMark(asDeps, approval.id, 'U03CAROL')).toBe(false);
    expect(await leftNoMark(asDeps, 'no-such-request', 'U03CAROL')).toBe(false);
  });
});
