// Change freezes through the real Bolt pipeline against the emulator, with the bot on the emulator's clock
// (moved by the test; `tick()` is the minute's work): a covered schedule is paused at the window's start
// and resumed at its end, said in the channel it was made in, while one a person paused stays paused;
// runs inside the window are refused with its name and its end in the person's zone, audited; an approver
// breaks the freeze for one run with a reason, audited.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actor } from '../../src/runs/actor.ts';
import { NEVER_FIRES } from '../../src/runs/schedule-pause-write.ts';
import { pauseSchedule, resumeSchedule, SKIP_MARGIN_MS, skipNextRun } from '../../src/runs/schedule-pauses.ts';
import { type Harness, modalContaining, startHarness, waitFor } from '../support/bot-harness.ts';
import { SCALE_RUNBOOK, scaleFormValues } from '../support/run-form.ts';

const POLICY = `
contact: "#platform"
approvers: { users: [U02BOB] }
freezes:
  - name: Year-end freeze
    start: "2026-11-21T09:00Z"
    end: "2026-11-23T09:00Z"
    runbooks: { names: ["Scale *", "Postgres Vacuum Analyze"] }
`;
const VACUUM = 'Postgres Vacuum Analyze';
const FREEZE = 'Year-end freeze';
const INSIDE = Date.parse('2026-11-21T09:30:00Z');
const AFTER = Date.parse('2026-11-23T09:30:00Z');

let h: Harness;
beforeAll(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'freeze-'));
  writeFileSync(path.join(dir, 'policy.yaml'), POLICY);
  h = await startHarness({ env: { POLICY_FILE: path.join(dir, 'policy.yaml') }, sharedClock: true });
});
afterAll(async () => {
  await h.stop();
});

function runbookId(name: string): string {
  return [...h.emulator.state.workflows.byId.values()].find((w) => w.workflow.name === name)!.workflow.id;
}

async function newSchedule(name: string, cron: string, database: string) {
  const schedule = h.emulator.state.createSchedule({
    runbookId: runbookId(name),
    runbookName: name,
    proxyId: 'proxy-prod',
    params: JSON.stringify({ database }),
    schedule: cron,
  }).schedule;
  // What the schedule form records when Alice saves it in #ops.
  await h.runtime.store.scheduleOwners.set(
    schedule.id,
    { userId: 'U01ALICE', teamId: null, channel: 'C01OPS' },
    h.clock.now(),
  );
  return schedule;
}

const cronOf = (id: string) => h.emulator.state.schedules.byId.get(id)!.schedule.schedule;

function runsWith(database: string): number {
  h.emulator.state.catchUp();
  return [...h.emulator.state.executions.byId.values()].filter(
    (e) => (e.params as { database?: string }).database === database,
  ).length;
}

/** What the person was told privately (an ephemeral or a response_url post) since `from`, containing `needle`. */
function toldPrivately(needle: string, from: { ephemerals: number; posts: number }): string | undefined {
  const texts = [
    ...h.fake.state.ephemerals.slice(from.ephemerals).map((e) => JSON.stringify(e)),
    ...h.fake.state.responseUrlPosts.slice(from.posts).map((p) => JSON.stringify(p.body)),
  ];
  return texts.find((t) => t.includes(needle));
}

const mark = () => ({ ephemerals: h.fake.state.ephemerals.length, posts: h.fake.state.responseUrlPosts.length });

async function audited(action: string, outcome: 'ok' | 'denied', userId: string) {
  return (await h.runtime.deps.access.audit.recent(100)).filter(
    (e) => e.action === action && e.outcome === outcome && e.userId === userId,
  );
}

describe('change freezes', () => {
  it('pauses covered schedules at the start and resumes them at the end, said where they were made', async () => {
    const seeded = [...h.emulator.state.schedules.byId.values()].filter(
      (s) => s.schedule.runbookName === VACUUM,
    ).length;
    const covered = await newSchedule(VACUUM, '0 5 * * *', 'frozen-db');
    const byHand = await newSchedule(VACUUM, '30 6 * * *', 'by-hand-db');
    const other = await newSchedule('Find Crashlooping Pods', '0 4 * * *', 'other-db');
    const takenOver = await newSchedule(VACUUM, '45 5 * * *', 'taken-over-db');
    const skipping = await newSchedule(VACUUM, '15 7 * * *', 'skipping-db');
    const alice = actor({ userId: 'U01ALICE', teamId: null, groups: [], channelId: 'C01OPS' });
    // #deploys gets every result of Vacuum, so it is told too; a channel subscribed to failures only is not.
    const subscription = { runbookId: runbookId(VACUUM), runbookName: VACUUM, createdBy: 'U01ALICE', teamId: null };
    await h.runtime.store.subscriptions.add(
      { ...subscription, channel: 'C02DEPLOYS', failuresOnly: false },
      h.clock.now(),
    );
    await h.runtime.store.subscriptions.add(
      { ...subscription, channel: 'C03APPROVALS', failuresOnly: true },
      h.clock.now(),
    );
    expect((await pauseSchedule(h.runtime.deps, alice, byHand.id)).kind).toBe('paused');
    // A skip whose timer comes due inside the window (its run at 07:15 the first day).
    expect((await skipNextRun(h.runtime.deps, alice, skipping.id)).kind).toBe('paused');

    // Before the window: nothing happens, but the forecast says its next run falls inside the freeze.
    await h.runtime.tick();
    expect(cronOf(covered.id)).toBe('0 5 * * *');
    const at = mark();
    await h.user().command('schedules --next 24h', 'C01OPS');
    const forecast = await waitFor(() => toldPrivately('Runs due in', at), 'the forecast');
    expect(forecast).toContain(`the change freeze *${FREEZE}* pauses it`);
    expect(forecast).toContain('Find Crashlooping Pods');

    h.clock.set(INSIDE);
    await h.runtime.tick();
    expect(cronOf(covered.id)).toBe(NEVER_FIRES);
    expect(await h.runtime.store.schedulePauses.get(covered.id)).toMatchObject({
      state: 'paused',
      cron: '0 5 * * *',
      freeze: FREEZE,
    });
    expect(cronOf(other.id)).toBe('0 4 * * *');
    expect(await h.runtime.store.schedulePauses.get(byHand.id)).toMatchObject({ pausedBy: 'U01ALICE', freeze: null });
    const paused = await waitFor(
      () => h.fake.state.messages.C01OPS?.find((m) => m.text.includes('Paused the schedule of Postgres Vacuum')),
      'the pause said in #ops',
    );
    expect(paused.text).toContain(FREEZE);
    // Pause on a schedule the freeze paused makes it the person's: it stays paused after the freeze.
    expect(await h.runtime.store.schedulePauses.get(takenOver.id)).toMatchObject({ freeze: FREEZE });
    expect((await pauseSchedule(h.runtime.deps, alice, takenOver.id)).kind).toBe('paused');
    expect(await h.runtime.store.schedulePauses.get(takenOver.id)).toMatchObject({
      freeze: null,
      pausedBy: 'U01ALICE',
    });
    // The skip comes due inside the window: the freeze holds it instead of resuming it.
    h.clock.set(Date.parse('2026-11-21T07:15:00Z') + 24 * 3_600_000 + SKIP_MARGIN_MS + 1);
    await h.runtime.tick();
    expect(cronOf(skipping.id)).toBe(NEVER_FIRES);
    expect(await h.runtime.store.schedulePauses.get(skipping.id)).toMatchObject({ freeze: FREEZE, resumeAt: null });
    h.clock.set(INSIDE);
    // Said once per schedule the freeze paused (the covered one and the one taken over since); a second
    // pass (another minute, another replica) changes nothing and says nothing.
    const saidPaused = () => h.fake.state.messages.C01OPS!.filter((m) => m.text.includes('Paused the schedule of'));
    expect(saidPaused()).toHaveLength(2);
    await h.runtime.tick();
    expect(saidPaused()).toHaveLength(2);
    // ... and the demo's own Vacuum schedules (made outside Slack: no channel of their own) are said there.
    expect(h.fake.state.messages.C02DEPLOYS?.filter((m) => m.text.includes('Paused the schedule of'))).toHaveLength(
      2 + seeded,
    );
    expect(h.fake.state.messages.C03APPROVALS?.some((m) => m.text.includes('Paused the schedule of')) ?? false).toBe(
      false,
    );

    // Inside the window it does not run, and resuming it by hand is refused with the window's end.
    const before = runsWith('frozen-db');
    h.clock.set(INSIDE + 24 * 3_600_000);
    expect(runsWith('frozen-db')).toBe(before);
    const resume = await resumeSchedule(h.runtime.deps, { ...alice, timeZone: 'Europe/Berlin' }, covered.id);
    expect(resume).toMatchObject({ kind: 'refused', reason: 'frozen' });
    expect(resume.kind === 'refused' && resume.sentence).toContain('until Mon 23 Nov 10:00');

    h.clock.set(AFTER);
    await h.runtime.tick();
    expect(cronOf(covered.id)).toBe('0 5 * * *');
    expect(await h.runtime.store.schedulePauses.get(covered.id)).toBeNull();
    await waitFor(
      () => h.fake.state.messages.C01OPS?.find((m) => m.text.includes('Resumed the schedule of Postgres Vacuum')),
      'the resume said in #ops',
    );
    // The one paused by hand stays paused, so does the one taken over; the held skip is resumed.
    expect(cronOf(byHand.id)).toBe(NEVER_FIRES);
    expect(cronOf(takenOver.id)).toBe(NEVER_FIRES);
    expect(cronOf(skipping.id)).toBe('15 7 * * *');
    expect(await h.runtime.store.schedulePauses.get(byHand.id)).toMatchObject({ state: 'paused', freeze: null });
    // And the resumed one runs again: once on the next 05:00.
    h.clock.set(Date.parse('2026-11-24T06:00:00Z'));
    expect(runsWith('frozen-db')).toBe(before + 1);
    const trail = (await h.runtime.deps.access.audit.recent(100)).filter((e) => e.target?.includes(covered.id));
    expect(trail.map((e) => e.action)).toEqual(expect.arrayContaining(['schedule.pause', 'schedule.resume']));
    const resumed = trail.find((e) => e.action === 'schedule.resume' && e.outcome === 'ok');
    expect(resumed?.detail).toContain(FREEZE);
    // The freeze acted, not a person: audited as the bot.
    expect(resumed?.userId).toBeNull();
  });

  it('refuses runs inside the window with its name and end in the person’s zone, audited', async () => {
    h.clock.set(INSIDE);
    const at = mark();
    await h.user().command(`run "${SCALE_RUNBOOK}" namespace=frozen-run deployment=web replicas=2 --now`, 'C01OPS');
    const told = await waitFor(() => toldPrivately('change freeze', at), 'the refusal');
    // Alice is in Europe/Berlin: the window ends at 09:00 GMT, 10:00 there.
    expect(told).toContain(`the change freeze “${FREEZE}” is on until Mon 23 Nov 10:00`);
    expect([...h.emulator.state.executions.byId.values()].some((e) => e.params.namespace === 'frozen-run')).toBe(false);
    // Refused before the confirmation (--now checks like opening the form), audited with the sentence.
    expect((await audited('run.open', 'denied', 'U01ALICE')).some((e) => e.detail?.includes(FREEZE))).toBe(true);

    // The form is refused before it is filled in.
    const open = mark();
    await h.user().command(`run "${SCALE_RUNBOOK}"`, 'C01OPS');
    await waitFor(
      () => toldPrivately('change freeze', open) ?? modalContaining(h, 'change freeze'),
      'the form refused',
    );
    expect(
      (await audited('run.open', 'denied', 'U01ALICE')).filter((e) => e.detail?.includes(FREEZE)).length,
    ).toBeGreaterThanOrEqual(2);

    // `/runbook freezes` says it is on.
    const listed = mark();
    await h.user().command('freezes', 'C01OPS');
    expect(await waitFor(() => toldPrivately(FREEZE, listed), 'the freezes')).toContain('on now');
  });

  it('lets an approver break the freeze for one run with a reason, audited', async () => {
    h.clock.set(INSIDE);
    const reason = 'INC-4711: checkout is down';
    // Alice is no approver: refused, audited.
    const refusedAt = mark();
    await h.user().command(`freezes break "${SCALE_RUNBOOK}" --reason "${reason}"`, 'C01OPS');
    expect(await waitFor(() => toldPrivately('You may not break', refusedAt), 'refused')).toContain(FREEZE);
    expect(await audited('freeze.break', 'denied', 'U01ALICE')).toHaveLength(1);

    // Bob (the approver) breaks it for himself, then runs it from the form.
    const bob = h.user('U02BOB');
    const grantedAt = mark();
    await bob.command(`freezes break "${SCALE_RUNBOOK}" --reason "${reason}"`, 'C01OPS');
    await waitFor(() => toldPrivately('Break-glass', grantedAt), 'granted');
    expect((await audited('freeze.break-glass', 'ok', 'U02BOB'))[0]?.detail).toContain(reason);

    await bob.command(`run "${SCALE_RUNBOOK}"`, 'C01OPS');
    const modal = await waitFor(() => modalContaining(h, 'meta_proxy', 'U02BOB'), 'the run form');
    await bob.submit(modal.id, scaleFormValues('glass-run', 'C01OPS'));
    await waitFor(
      () => [...h.emulator.state.executions.byId.values()].find((e) => e.params.namespace === 'glass-run'),
      'the break-glass run',
    );
    const broken = await audited('freeze.break', 'ok', 'U02BOB');
    expect(broken).toHaveLength(1);
    expect(broken[0]!.detail).toContain(reason);
    expect(broken[0]!.detail).toContain(FREEZE);

    // One run: the next one is refused again.
    const again = mark();
    await bob.command(`run "${SCALE_RUNBOOK}" namespace=glass-again deployment=web replicas=2 --now`, 'C01OPS');
    await waitFor(() => toldPrivately('change freeze', again), 'refused again');
    expect([...h.emulator.state.executions.byId.values()].some((e) => e.params.namespace === 'glass-again')).toBe(
      false,
    );
  });
});
