// Pausing and resuming a schedule through the real Bolt pipeline against the emulator: the API keeps the
// schedule (id, params, proxy, owner) with an expression that never fires while the store keeps the real
// one; the list and App Home say who paused it and when; a click works once; editing a paused schedule is
// refused; a crash between the store and the API is finished by reconciliation; two resumes at once make
// one.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NEVER_FIRES } from '../../src/runs/schedule-pause-write.ts';
import { reconcilePauses, resumeDueSkips, resumeSchedule, SKIP_MARGIN_MS } from '../../src/runs/schedule-pauses.ts';
import { ACTIONS } from '../../src/slack/kit/ids.ts';
import { checkBlocks } from '../../src/slack/kit/limits.ts';
import { DAVE_MAY_NOT_SCHEDULE } from '../support/authorization-cases.ts';
import { type Harness, modalContaining, startHarness, waitFor } from '../support/bot-harness.ts';

let h: Harness;
beforeAll(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pause-'));
  writeFileSync(path.join(dir, 'policy.yaml'), DAVE_MAY_NOT_SCHEDULE);
  h = await startHarness({ env: { POLICY_FILE: path.join(dir, 'policy.yaml') } });
});
afterAll(async () => {
  await h.stop();
});

const VACUUM = 'Postgres Vacuum Analyze';
const DAY = 24 * 60 * 60_000;

function vacuumId(): string {
  return [...h.emulator.state.workflows.byId.values()].find((w) => w.workflow.name === VACUUM)!.workflow.id;
}

function newSchedule(cron: string, database: string) {
  return h.emulator.state.createSchedule({
    runbookId: vacuumId(),
    runbookName: VACUUM,
    proxyId: 'proxy-prod',
    params: JSON.stringify({ database }),
    schedule: cron,
  }).schedule;
}

/** Executions of Vacuum started with this database (scheduled runs included, once the emulator catches up). */
function runsWith(database: string): number {
  h.emulator.state.catchUp();
  return [...h.emulator.state.executions.byId.values()].filter(
    (e) => e.workflowName === VACUUM && (e.params as { database?: string }).database === database,
  ).length;
}

async function listShowing(needle: string) {
  const before = h.fake.state.ephemerals.length;
  await h.user().command(`schedules "${VACUUM}"`, 'C01OPS');
  return waitFor(() => {
    const e = h.fake.state.ephemerals.slice(before).find((m) => JSON.stringify(m.blocks).includes(needle));
    return e;
  }, 'schedule list');
}

const on = (id: string, actionId: string) => (el: { action_id?: string; value?: string }) =>
  el.action_id === actionId && Boolean(el.value?.includes(id));

describe('pause and resume', () => {
  it('pauses keeping cron, params, proxy and owner; shows who and when; the click works once; resumes', async () => {
    const schedule = newSchedule('0 5 * * *', 'pause-me');
    const list = await listShowing(schedule.id);
    // The list as first shown (the fake replaces the ephemeral in place when the bot redraws it).
    const surface = { kind: 'ephemeral' as const, ephemeral: structuredClone(list) };

    const posts = h.fake.state.responseUrlPosts.length;
    const click = { action_ts: '1763712000.000100' };
    await h.user().act(surface, on(schedule.id, ACTIONS.schedulePause), click);
    const redrawn = await waitFor(
      () => h.fake.state.responseUrlPosts.slice(posts).find((p) => p.body.replace_original),
      'list redrawn in place',
    );
    const api = h.emulator.state.schedules.byId.get(schedule.id)!.schedule;
    expect(api.schedule).toBe(NEVER_FIRES);
    expect(api).toMatchObject({ id: schedule.id, params: schedule.params, proxyId: 'proxy-prod' });
    expect(api.userEmail).toBe(schedule.userEmail);
    const pause = await h.runtime.store.schedulePauses.get(schedule.id);
    expect(pause).toMatchObject({ state: 'paused', cron: '0 5 * * *', pausedBy: 'U01ALICE' });
    // Nothing secret is in the store: the params stay in the API.
    expect(JSON.stringify(pause)).not.toContain('pause-me');

    const shown = JSON.stringify(redrawn.body.blocks);
    expect(shown).toContain('Paused');
    expect(shown).toContain('<@U01ALICE>');
    expect(shown).toContain('`0 5 * * *`');
    expect(shown).not.toContain(NEVER_FIRES);
    expect(shown).toContain(ACTIONS.scheduleResume);
    expect(checkBlocks(redrawn.body.blocks ?? [], 'message')).toEqual([]);

    // The same delivery again (Slack retries keep the action_ts): claimed once, nothing more happens, and
    // the person is told privately, the redrawn list left as it is.
    const audited = (await h.runtime.deps.access.audit.recent(50)).filter((e) => e.action === 'schedule.pause');
    const postsAfter = h.fake.state.responseUrlPosts.length;
    await h.user().act(surface, on(schedule.id, ACTIONS.schedulePause), click);
    const again = await waitFor(() => h.fake.state.responseUrlPosts[postsAfter], 'the already-done answer');
    expect(JSON.stringify(again.body)).toContain('already done');
    expect(again.body.replace_original).toBeUndefined();
    await new Promise((r) => setTimeout(r, 200));
    expect(h.fake.state.responseUrlPosts.length).toBe(postsAfter + 1);
    expect((await h.runtime.deps.access.audit.recent(50)).filter((e) => e.action === 'schedule.pause')).toHaveLength(
      audited.length,
    );
    expect(audited[0]).toMatchObject({ userId: 'U01ALICE', outcome: 'ok' });

    // Paused: two days pass without a run.
    const before = runsWith('pause-me');
    h.clock.advance(2 * DAY);
    expect(runsWith('pause-me')).toBe(before);

    // Editing a paused schedule is refused (the form would show and save the never-firing expression).
    await h.user().act(surface, on(schedule.id, ACTIONS.scheduleEdit));
    await waitFor(() => modalContaining(h, 'resume it'), 'edit refused');

    // App Home lists it with who paused it.
    await h.user().openHome();
    const home = await waitFor(() => {
      const v = h.fake.state.views[h.fake.state.homeViews.U01ALICE ?? ''];
      return v && JSON.stringify(v.view).includes('Paused by') ? v : undefined;
    }, 'App Home');
    expect(JSON.stringify(home.view.blocks)).toContain('0 5 * * *');

    // Resume from the redrawn list: the real expression is back and runs again.
    const resumePosts = h.fake.state.responseUrlPosts.length;
    await h
      .user()
      .act(
        { kind: 'ephemeral', ephemeral: { ...list, blocks: redrawn.body.blocks } },
        on(schedule.id, ACTIONS.scheduleResume),
      );
    await waitFor(
      () => h.fake.state.responseUrlPosts.slice(resumePosts).find((p) => JSON.stringify(p.body).includes('Resumed')),
      'resumed',
    );
    expect(h.emulator.state.schedules.byId.get(schedule.id)!.schedule.schedule).toBe('0 5 * * *');
    expect(await h.runtime.store.schedulePauses.get(schedule.id)).toBeNull();
    h.clock.advance(DAY);
    expect(runsWith('pause-me')).toBe(before + 1);
    expect((await h.runtime.deps.access.audit.recent(50)).map((e) => e.action)).toContain('schedule.resume');
  });

  it('a person without schedule rights is refused with a sentence and audited; nothing changes', async () => {
    const schedule = newSchedule('15 3 * * *', 'not-yours');
    const list = await listShowing(schedule.id);
    const posts = h.fake.state.responseUrlPosts.length;
    await h.user('U04DAVE').act({ kind: 'ephemeral', ephemeral: list }, on(schedule.id, ACTIONS.schedulePause));
    const told = await waitFor(
      () => h.fake.state.responseUrlPosts.slice(posts).find((p) => JSON.stringify(p.body).includes('#platform')),
      'refusal',
    );
    expect(told.body.replace_original).toBeFalsy();
    expect(h.emulator.state.schedules.byId.get(schedule.id)!.schedule.schedule).toBe('15 3 * * *');
    expect(await h.runtime.store.schedulePauses.get(schedule.id)).toBeNull();
    const denial = (await h.runtime.deps.access.audit.recent(20)).find((e) => e.action === 'schedule.pause');
    expect(denial).toMatchObject({ userId: 'U04DAVE', outcome: 'denied' });
  });
});

describe('skip the next run', () => {
  it('holds the schedule until its next run has passed, then resumes it by itself, once, across a restart', async () => {
    const schedule = newSchedule('0 5 * * *', 'skip-me');
    const list = await listShowing(schedule.id);
    const posts = h.fake.state.responseUrlPosts.length;
    const clickedAt = h.runtime.deps.now();
    await h.user().act({ kind: 'ephemeral', ephemeral: list }, on(schedule.id, ACTIONS.scheduleSkip));
    const redrawn = await waitFor(
      () => h.fake.state.responseUrlPosts.slice(posts).find((p) => JSON.stringify(p.body).includes('Skipping the run')),
      'skip notice',
    );
    expect(JSON.stringify(redrawn.body.blocks)).toContain('resumes by itself after it');
    expect(h.emulator.state.schedules.byId.get(schedule.id)!.schedule.schedule).toBe(NEVER_FIRES);
    // The timer is the next 05:00 GMT after the click, plus the margin.
    const pause = (await h.runtime.store.schedulePauses.get(schedule.id))!;
    const skipped = pause.resumeAt! - SKIP_MARGIN_MS;
    expect(new Date(skipped).toISOString().slice(11)).toBe('05:00:00.000Z');
    expect(skipped).toBeGreaterThan(clickedAt);
    expect(skipped - clickedAt).toBeLessThanOrEqual(DAY);
    expect((await h.runtime.deps.access.audit.recent(10)).find((e) => e.action === 'schedule.skip')).toMatchObject({
      userId: 'U01ALICE',
      outcome: 'ok',
    });

    // Before the run has passed nothing resumes; the timer survives a restart.
    const at = (now: number) => ({ ...h.runtime.deps, now: () => now });
    expect(await resumeDueSkips(at(skipped), { owner: 'replica-a', leaseMs: 50_000 })).toEqual([]);
    await h.restart();
    // Two replicas at once after the run: the lease lets one act; the schedule is resumed once.
    const after = pause.resumeAt! + 1;
    const [a, b] = await Promise.all([
      resumeDueSkips(at(after), { owner: 'replica-a', leaseMs: 50_000 }),
      resumeDueSkips(at(after), { owner: 'replica-b', leaseMs: 50_000 }),
    ]);
    expect([...a, ...b]).toEqual([schedule.id]);
    expect(h.emulator.state.schedules.byId.get(schedule.id)!.schedule.schedule).toBe('0 5 * * *');
    expect(await h.runtime.store.schedulePauses.get(schedule.id)).toBeNull();
    const resumes = (await h.runtime.deps.access.audit.recent(20)).filter(
      (e) => e.action === 'schedule.resume' && e.target?.includes(schedule.id),
    );
    expect(resumes).toHaveLength(1);
    expect(resumes[0]!.detail).toContain('after skipping the run at');
  });
});

describe('crashes and replicas', () => {
  /** A schedule with its pause recorded (`pausing`), or carried through to `paused` (the API holding NEVER_FIRES). */
  async function withPause(cron: string, database: string, paused: boolean) {
    const schedule = newSchedule(cron, database);
    const store = h.runtime.store.schedulePauses;
    const now = h.runtime.deps.now();
    const who = { pausedBy: 'U01ALICE', teamId: null, runbookName: VACUUM, runbookId: vacuumId() };
    await store.begin({ ...who, scheduleId: schedule.id, cron }, now);
    if (paused) {
      h.emulator.state.updateSchedule(schedule.id, { schedule: NEVER_FIRES });
      await store.move(schedule.id, 'pausing', 'paused', now);
    }
    return { schedule, store };
  }

  it('a pause recorded but never sent (killed before the API call) is finished at start, after a restart', async () => {
    const { schedule } = await withPause('0 6 * * *', 'killed-pausing', false);
    await h.restart();
    const report = await reconcilePauses(h.runtime.deps, { graceMs: -1 });
    expect(report.paused).toContain(schedule.id);
    expect(h.emulator.state.schedules.byId.get(schedule.id)!.schedule.schedule).toBe(NEVER_FIRES);
    expect(await h.runtime.store.schedulePauses.get(schedule.id)).toMatchObject({ state: 'paused', cron: '0 6 * * *' });
    // A second pass (another replica) changes nothing.
    expect(await reconcilePauses(h.runtime.deps, { graceMs: -1 })).toMatchObject({ paused: [], resumed: [] });
  });

  it('a resume whose answer was lost (killed after the API call) is settled without losing the expression', async () => {
    const { schedule, store } = await withPause('0 7 * * *', 'killed-resuming', true);
    await store.move(schedule.id, 'paused', 'resuming', h.runtime.deps.now());
    // Killed here: the API may or may not hold the real expression again; the store still has it.
    await h.restart();
    expect((await reconcilePauses(h.runtime.deps, { graceMs: -1 })).resumed).toContain(schedule.id);
    expect(h.emulator.state.schedules.byId.get(schedule.id)!.schedule.schedule).toBe('0 7 * * *');
    expect(await h.runtime.store.schedulePauses.get(schedule.id)).toBeNull();
  });

  it('a young intent is left alone (its call may still be in flight on another replica)', async () => {
    const { schedule } = await withPause('0 8 * * *', 'in-flight', false);
    expect((await reconcilePauses(h.runtime.deps, { graceMs: 30_000 })).paused).not.toContain(schedule.id);
    expect(h.emulator.state.schedules.byId.get(schedule.id)!.schedule.schedule).toBe('0 8 * * *');
  });

  it('two replicas resuming at once: one resumes, the other is told; the expression is restored once', async () => {
    const { schedule, store } = await withPause('0 9 * * *', 'two-resumes', true);
    const actor = {
      userId: 'U01ALICE',
      teamId: 'T01',
      email: 'alice@example.com',
      groups: [],
      channelId: 'C01OPS',
      destinationChannel: 'C01OPS',
    };
    const results = await Promise.all([
      resumeSchedule(h.runtime.deps, actor, schedule.id),
      resumeSchedule(h.runtime.deps, actor, schedule.id),
    ]);
    expect(results.map((r) => r.kind).sort()).toEqual(['refused', 'resumed']);
    expect(h.emulator.state.schedules.byId.get(schedule.id)!.schedule.schedule).toBe('0 9 * * *');
    expect(await store.get(schedule.id)).toBeNull();
  });
});

describe('forecast', () => {
  it('/runbook schedules --next 24h lists the runs due, overlapping runs of one runbook flagged, paused ones left out', async () => {
    newSchedule('0 5 * * *', 'forecast-a');
    newSchedule('5 5 * * *', 'forecast-b');
    const paused = newSchedule('0 4 * * *', 'forecast-paused');
    await h.runtime.store.schedulePauses.begin(
      {
        scheduleId: paused.id,
        cron: '0 4 * * *',
        runbookId: vacuumId(),
        runbookName: VACUUM,
        pausedBy: 'U01ALICE',
        teamId: null,
      },
      h.runtime.deps.now(),
    );
    const before = h.fake.state.ephemerals.length;
    await h.user().command('schedules --next 24h', 'C01OPS');
    const answer = await waitFor(
      () => h.fake.state.ephemerals.slice(before).find((e) => JSON.stringify(e.blocks).includes('Runs due in')),
      'forecast',
    );
    const text = JSON.stringify(answer.blocks);
    expect(text).toContain('the next 24 hours');
    expect(text).toContain(`*${VACUUM}*  :warning: _overlaps another run of this runbook_`);
    expect(text).toMatch(/\d+ paused schedules? left out/);
    expect(text).toMatch(/\d\d:\d\d [A-Z+0-9:-]+ · \*Postgres Vacuum Analyze\*/);
    expect(checkBlocks(answer.blocks ?? [], 'message')).toEqual([]);
  });
});
