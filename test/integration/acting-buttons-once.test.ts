// Every button that makes something happen works once per person who may use it. The buttons are taken from
// the features' registrations (every block action marked `acting`), not from a list written here: each is
// clicked on replica A, clicked again there (a double click), and its first payload replayed on replica B
// (the same click delivered to another replica, both on one Postgres schema). One effect (one run, one
// audit record, one opened form, one replaced confirmation), and each repeat is told privately that it was
// already done; Approve under a two-approver quorum still counts the other approver. An acting button with
// no scenario below fails the coverage test (a button only a many-workspace deployment shows is clicked the
// same way in its listener's unit test, named below).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formRequest, interactivityBody, sendToBot, viewSubmissionPayload } from '../../src/sandbox/slack-requests.ts';
import { blocksOf, findElement, type Surface } from '../../src/sandbox/slack-user.ts';
import { FEATURE_LISTENERS } from '../../src/slack/app.ts';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import {
  ephemeralContaining,
  type Harness,
  modalContaining,
  SIGNING_SECRET,
  startHarness,
  waitFor,
} from '../support/bot-harness.ts';
import { pgAdmin } from '../support/process-harness.ts';
import { createScaleSchedule, SCALE_RUNBOOK, scaleFormValues } from '../support/run-form.ts';
import { TEST_DATABASE_URL } from '../support/test-database.ts';

const SCHEMA = `test_${randomBytes(6).toString('hex')}`;
// Two approvers must approve: Approve is once per approver, and the other approver still counts.
const POLICY = `
approvers: { users: [U02BOB, U03CAROL] }
quorum: { approvals: 2 }
rules: []
`;

let a: Harness;
let b: Harness;

beforeAll(async () => {
  await pgAdmin(TEST_DATABASE_URL, `CREATE SCHEMA ${SCHEMA}`);
  const dir = mkdtempSync(path.join(tmpdir(), 'once-policy-'));
  writeFileSync(path.join(dir, 'policy.yaml'), POLICY);
  const env = {
    DATABASE_URL: TEST_DATABASE_URL,
    DATABASE_SCHEMA: SCHEMA,
    POLICY_FILE: path.join(dir, 'policy.yaml'),
    APPROVALS_CHANNEL: 'C03APPROVALS',
  };
  a = await startHarness({ env });
  // Replica B: the same Runbook API and database; Slack reaches it separately.
  b = await startHarness({ env, apiUrl: a.emulator.url });
}, 60_000);

afterAll(async () => {
  await b?.stop();
  await a?.stop();
  await pgAdmin(TEST_DATABASE_URL, `DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
});

/** Every block action registered as `acting`: its action constraint and its callback's name. */
function actingButtons(): { constraint: string | RegExp; callback: string }[] {
  return Object.values(FEATURE_LISTENERS)
    .flat()
    .flatMap((r) =>
      r.kind === 'action' && r.effect === 'acting'
        ? [{ constraint: r.constraint.action_id as string | RegExp, callback: r.listener.name }]
        : [],
    );
}

/**
 * Acting buttons only a many-workspace deployment shows (this rig serves one workspace): each is clicked
 * twice and delivered again at the listener level in the named test, which must call its callback so.
 */
const CLICKED_IN_UNIT_TESTS: Record<string, string> = {
  [ACTIONS.connectRemove]: 'test/unit/slack/connect/disconnect-once.test.ts',
};

function clickedInUnitTest(button: { constraint: string | RegExp; callback: string }): boolean {
  const file = typeof button.constraint === 'string' ? CLICKED_IN_UNIT_TESTS[button.constraint] : undefined;
  if (!file || !existsSync(path.join(import.meta.dirname, '../..', file))) return false;
  const text = readFileSync(path.join(import.meta.dirname, '../..', file), 'utf8');
  return text.split(`${button.callback}(`).length - 1 >= 2;
}

const matches = (constraint: string | RegExp, actionId: string) =>
  typeof constraint === 'string' ? constraint === actionId : constraint.test(actionId);

type Element = Parameters<Extract<Parameters<typeof findElement>[1], (...args: never[]) => unknown>>[0];

interface OnScreen {
  surface: Surface;
  match: (el: Element) => boolean;
  /** Who may use it. */
  user: string;
}

interface Scenario {
  /** The action id of the button as posted (a registration's pattern must match it). */
  actionId: string;
  /** Puts the button on screen through replica A. */
  setup(): Promise<OnScreen>;
  /** How many times its effect happened. */
  effects(): Promise<number>;
  /** Clicks it (and finishes what the click opens: Reject's reason form). */
  press?(h: Harness, on: OnScreen, extra: { action_ts?: string }): Promise<void>;
  /** What must still work after the repeats (another approver's vote). */
  afterwards?(on: OnScreen): Promise<void>;
}

const tag = () => `once-${randomBytes(3).toString('hex')}`;
const scaleRuns = (deployment: string) =>
  [...a.emulator.state.executions.byId.values()].filter((e) => e.params.deployment === deployment).length;
async function audited(action: string, target: string): Promise<number> {
  const entries = await a.runtime.store.audit.recent(1000);
  return entries.filter((e) => e.action === action && e.outcome === 'ok' && e.target?.includes(target)).length;
}
const byId = (actionId: string) => (el: Element) => el.action_id === actionId;
const byValue = (actionId: string, needle: string) => (el: Element) =>
  el.action_id === actionId && String(el.value).includes(needle);

/** A `--now` confirmation for a run of Scale with `deployment`, shown to Alice. */
async function nowConfirmation(deployment: string): Promise<Surface> {
  await a.user().command(`run "${SCALE_RUNBOOK}" namespace=once deployment=${deployment} replicas=2 --now`, 'C01OPS');
  const shown = await waitFor(
    () => ephemeralContaining(a.fake, ACTIONS.confirmRun) && ephemeralContaining(a.fake, deployment),
    'the --now confirmation',
  );
  return { kind: 'ephemeral', ephemeral: structuredClone(shown) };
}

async function newSchedule(deployment: string): Promise<string> {
  return (await createScaleSchedule(a, { namespace: 'once', deployment, replicas: 2 }, '0 3 * * *')).schedule.id;
}

/** The schedules list with `scheduleId`'s `actionId` button on it. */
async function scheduleList(scheduleId: string, actionId: string): Promise<Surface> {
  const mark = a.fake.state.ephemerals.length;
  await a.user().command('schedules', 'C01OPS');
  const list = await waitFor(
    () =>
      a.fake.state.ephemerals
        .slice(mark)
        .find((e) => e.user === 'U01ALICE' && JSON.stringify(e.blocks ?? []).includes(scheduleId)),
    'the schedules list',
  );
  const surface: Surface = { kind: 'ephemeral', ephemeral: structuredClone(list) };
  expect(JSON.stringify(list.blocks)).toContain(actionId);
  return surface;
}

function scheduleButton(actionId: string, auditAction: string, before?: (id: string) => Promise<void>): Scenario {
  let scheduleId = '';
  return {
    actionId,
    async setup() {
      scheduleId = await newSchedule(tag());
      await before?.(scheduleId);
      return {
        surface: await scheduleList(scheduleId, actionId),
        match: byValue(actionId, scheduleId),
        user: 'U01ALICE',
      };
    },
    effects: () => audited(auditAction, scheduleId),
  };
}

/** Pauses the schedule through its list (so the Resume scenario finds a paused one). */
async function pauseFirst(scheduleId: string): Promise<void> {
  const list = await scheduleList(scheduleId, ACTIONS.schedulePause);
  await a.user().act(list, byValue(ACTIONS.schedulePause, scheduleId));
  await until(async () => (await a.runtime.store.schedulePauses.get(scheduleId))?.state === 'paused', 'paused');
}

interface Marks {
  a: number;
  b: number;
  aCalls: number;
  bCalls: number;
}
const marks = (): Marks => ({
  a: a.fake.state.responseUrlPosts.length,
  b: b.fake.state.responseUrlPosts.length,
  aCalls: a.fake.state.calls.length,
  bCalls: b.fake.state.calls.length,
});
const postsSince = (m: Marks) => [
  ...a.fake.state.responseUrlPosts.slice(m.a),
  ...b.fake.state.responseUrlPosts.slice(m.b),
];
const callsSince = (m: Marks, method: string) =>
  [...a.fake.state.calls.slice(m.aCalls), ...b.fake.state.calls.slice(m.bCalls)].filter((c) => c.method === method);

/** A confirmation's button (`show` puts the confirmation for a run of `deployment` on screen). */
function confirmationButton(
  actionId: string,
  show: (deployment: string) => Promise<Surface>,
  effects: (deployment: string, since: Marks) => number,
): Scenario {
  let deployment = '';
  let since: Marks = { a: 0, b: 0, aCalls: 0, bCalls: 0 };
  return {
    actionId,
    async setup() {
      deployment = tag();
      const surface = await show(deployment);
      since = marks();
      return { surface, match: byId(actionId), user: 'U01ALICE' };
    },
    effects: async () => effects(deployment, since),
  };
}

/** A schedule's Run now confirmation, for a schedule of Scale with `deployment`. */
async function runNowConfirmation(deployment: string): Promise<Surface> {
  const scheduleId = await newSchedule(deployment);
  const list = await scheduleList(scheduleId, ACTIONS.scheduleRunNow);
  const mark = a.fake.state.ephemerals.length;
  await a.user().act(list, byValue(ACTIONS.scheduleRunNow, scheduleId));
  const confirmation = await waitFor(
    () =>
      a.fake.state.ephemerals
        .slice(mark)
        .find((e) => JSON.stringify(e.blocks ?? []).includes(ACTIONS.scheduleRunNowConfirmed)),
    'the Run now confirmation',
  );
  return { kind: 'ephemeral', ephemeral: structuredClone(confirmation) };
}

function approvalButton(actionId: string, effects: (approvalId: string) => Promise<number>): Scenario {
  let approvalId = '';
  return {
    actionId,
    async setup() {
      const node = tag();
      await a.user('U01ALICE').command('run "Drain Kubernetes Node"', 'C01OPS');
      const modal = await waitFor(() => modalContaining(a, 'field_node_name'), 'run modal');
      await a.user('U01ALICE').submit(modal.id, {
        [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
        [BLOCKS.channel]: {
          [ACTIONS.channelSelect]: { type: 'conversations_select', selected_conversation: 'C01OPS' },
        },
        field_node_name: { value: { type: 'plain_text_input', value: node } },
      });
      const message = await waitFor(
        () => a.fake.state.messages.C03APPROVALS?.find((m) => JSON.stringify(m.blocks).includes(node)),
        'the approval request',
      );
      approvalId = JSON.stringify(message.blocks).match(/"action_id":"approval_approve","value":"([^"]+)"/)![1]!;
      return { surface: { kind: 'message', message: structuredClone(message) }, match: byId(actionId), user: 'U02BOB' };
    },
    effects: () => effects(approvalId),
  };
}

const SCENARIOS: Scenario[] = [
  confirmationButton(ACTIONS.confirmRun, nowConfirmation, (deployment) => scaleRuns(deployment)),
  confirmationButton(ACTIONS.confirmEdit, nowConfirmation, (_d, since) => callsSince(since, 'views.open').length),
  confirmationButton(
    ACTIONS.confirmCancel,
    nowConfirmation,
    (_d, since) => postsSince(since).filter((p) => p.body.text === 'Cancelled').length,
  ),
  confirmationButton(ACTIONS.scheduleRunNowConfirmed, runNowConfirmation, (deployment) => scaleRuns(deployment)),
  confirmationButton(
    ACTIONS.scheduleRunNowCancel,
    runNowConfirmation,
    (_d, since) => postsSince(since).filter((p) => p.body.text === 'Not run').length,
  ),
  scheduleButton(ACTIONS.scheduleDelete, 'schedule.delete'),
  scheduleButton(ACTIONS.schedulePause, 'schedule.pause'),
  scheduleButton(ACTIONS.scheduleSkip, 'schedule.skip'),
  scheduleButton(ACTIONS.scheduleResume, 'schedule.resume', pauseFirst),
  (() => {
    let runbookId = '';
    return {
      actionId: ACTIONS.subscriptionRemove,
      async setup() {
        const runbook = (await a.runtime.deps.catalog.all()).find((r) => r.name === SCALE_RUNBOOK)!;
        runbookId = runbook.id;
        await a.user().command(`subscribe "${SCALE_RUNBOOK}"`, 'C02DEPLOYS');
        await until(
          async () => (await a.runtime.store.subscriptions.listForChannel('C02DEPLOYS')).length === 1,
          'subscribed',
        );
        await a.user().command('subscriptions', 'C02DEPLOYS');
        const list = await waitFor(
          () => ephemeralContaining(a.fake, ACTIONS.subscriptionRemove) && ephemeralContaining(a.fake, runbookId),
          'the subscriptions list',
        );
        return {
          surface: { kind: 'ephemeral', ephemeral: structuredClone(list) },
          match: byValue(ACTIONS.subscriptionRemove, runbookId),
          user: 'U01ALICE',
        };
      },
      effects: () => audited('subscription.remove', runbookId),
    } satisfies Scenario;
  })(),
  (() => {
    let runbookId = '';
    let before = 0;
    return {
      actionId: `${ACTIONS.subscriptionPick}_0`,
      async setup() {
        const mark = a.fake.state.ephemerals.length;
        await a.user().command('subscribe postgres', 'C01OPS');
        const pick = await waitFor(
          () => a.fake.state.ephemerals.slice(mark).find((e) => e.text.includes('Several runbooks match')),
          'the pick list',
        );
        const surface: Surface = { kind: 'ephemeral', ephemeral: structuredClone(pick) };
        runbookId = JSON.parse(findElement(blocksOf(surface), `${ACTIONS.subscriptionPick}_0`)!.element.value!).id;
        before = await audited('subscription.add', runbookId);
        return {
          surface,
          match: byId(`${ACTIONS.subscriptionPick}_0`),
          user: 'U01ALICE',
        };
      },
      effects: async () => (await audited('subscription.add', runbookId)) - before,
    } satisfies Scenario;
  })(),
  (() => {
    let requestId = '';
    const runs = () =>
      [...a.emulator.state.executions.byId.values()].filter((e) => e.received.requestId === requestId).length;
    const scenario = approvalButton(ACTIONS.approvalApprove, async (approvalId) => {
      requestId = approvalId;
      return audited('approval.vote', approvalId);
    });
    return {
      ...scenario,
      // Bob's vote counted once and ran nothing; Carol's, on the other replica, completes the quorum: one run.
      async afterwards(on: OnScreen) {
        expect(runs()).toBe(0);
        await b.user('U03CAROL').act(on.surface, on.match);
        await waitFor(() => runs() === 1, 'the run once the quorum is met');
        await new Promise((r) => setTimeout(r, 300));
        expect(runs()).toBe(1);
      },
    } satisfies Scenario;
  })(),
  {
    ...approvalButton(ACTIONS.approvalReject, (approvalId) => audited('approval.reject', approvalId)),
    // Reject opens the reason form; its submission decides. A repeat finds it done and opens no form.
    async press(h, on, extra) {
      const user = h.user(on.user);
      for (let top = user.topModal(); top; top = user.topModal()) await user.close(top.id);
      const mark = h.fake.state.ephemerals.length;
      await user.act(on.surface, on.match, extra);
      const next = await waitFor(
        () => modalContaining(h, BLOCKS.rejectReason, on.user) ?? alreadyDoneSince(h, mark, on.user),
        'the reason form or "already done"',
      );
      if ('view' in next) {
        await user.submit(next.id, {
          [BLOCKS.rejectReason]: { [ACTIONS.rejectReason]: { type: 'plain_text_input', value: 'not today' } },
        });
      }
    },
  },
];

function alreadyDoneSince(h: Harness, mark: number, user: string) {
  return h.fake.state.ephemerals
    .slice(mark)
    .find((e) => e.user === user && JSON.stringify([e.text, e.blocks]).includes('already done'));
}

/** Polls an async probe until it holds. */
async function until(probe: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('acting buttons, taken from the registrations', () => {
  it('every acting button has a scenario here, and every scenario is an acting button', () => {
    const acting = actingButtons();
    expect(acting.length).toBeGreaterThan(0);
    const uncovered = acting
      .filter((button) => !SCENARIOS.some((s) => matches(button.constraint, s.actionId)) && !clickedInUnitTest(button))
      .map((button) => String(button.constraint));
    expect(uncovered).toEqual([]);
    const notActing = [...SCENARIOS.map((s) => s.actionId), ...Object.keys(CLICKED_IN_UNIT_TESTS)].filter(
      (id) => !acting.some((button) => matches(button.constraint, id)),
    );
    expect(notActing).toEqual([]);
  });

  it.each(SCENARIOS.map((s) => [s.actionId, s] as const))(
    '%s: clicked twice and replayed on another replica, it acts once and says so',
    { timeout: 60_000 },
    async (_id, scenario) => {
      const on = await scenario.setup();
      const press =
        scenario.press ??
        ((h, o, extra) =>
          h
            .user(o.user)
            .act(o.surface, o.match, extra)
            .then(() => {}));
      const actionTs = `${(Date.now() / 1000).toFixed(6)}`;
      await press(a, on, { action_ts: actionTs });
      await until(async () => (await scenario.effects()) === 1, `${scenario.actionId}'s effect`);

      // A double click on A (a new action_ts), then the first payload again on replica B.
      for (const [h, extra] of [
        [a, {}],
        [b, { action_ts: actionTs }],
      ] as const) {
        const mark = h.fake.state.ephemerals.length;
        await press(h, on, extra);
        const told = await waitFor(
          () => alreadyDoneSince(h, mark, on.user),
          `"already done" on ${h === a ? 'A' : 'B'}`,
        );
        expect(JSON.stringify(told.blocks)).toContain('(by you');
      }
      await new Promise((r) => setTimeout(r, 300));
      expect(await scenario.effects()).toBe(1);
      await scenario.afterwards?.(on);
    },
  );

  /**
   * Submits the form `viewId` (on A's Slack) as `user`, then replays the very same request on B and on A:
   * `effects` is 1 after the first and still 1 after the replays, each told in `channel` it was already done.
   */
  async function submitThenReplay(
    viewId: string,
    user: string,
    channel: string,
    values: Record<string, Record<string, unknown>>,
    effects: () => Promise<number>,
  ): Promise<void> {
    const payload = viewSubmissionPayload({
      userId: user,
      teamId: a.fake.state.teamId,
      triggerId: 'replayed.trigger',
      view: a.fake.viewOutput(viewId) as { id: string },
      values: values as never,
    });
    const request = formRequest(interactivityBody(payload));
    await sendToBot(a.botUrl, SIGNING_SECRET, request);
    await until(async () => (await effects()) === 1, 'the effect');
    for (const h of [b, a]) {
      const mark = h.fake.state.ephemerals.length;
      await sendToBot(h.botUrl, SIGNING_SECRET, request);
      const told = await waitFor(() => alreadyDoneSince(h, mark, user), 'already done');
      expect(told.channel).toBe(channel);
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(await effects()).toBe(1);
  }

  it('a schedule form submitted again, here or on the other replica, saves one schedule and says so', async () => {
    const deployment = tag();
    await a.user().command(`schedule "${SCALE_RUNBOOK}"`, 'C01OPS');
    const modal = await waitFor(() => modalContaining(a, BLOCKS.cron), 'the schedule form');
    const values = {
      ...scaleFormValues('once', 'C01OPS', deployment),
      [BLOCKS.preset]: { [ACTIONS.presetSelect]: { type: 'static_select', selected_option: { value: 'custom' } } },
      [BLOCKS.cron]: { [ACTIONS.cronInput]: { type: 'plain_text_input', value: '23 4 * * *' } },
    };
    await submitThenReplay(modal.id, 'U01ALICE', 'C01OPS', values, async () => {
      return [...a.emulator.state.schedules.byId.values()].filter((s) => s.schedule.params.includes(deployment)).length;
    });
  });

  it('a reject reason form submitted again, on either replica, rejects once', async () => {
    const scenario = approvalButton(ACTIONS.approvalReject, (approvalId) => audited('approval.reject', approvalId));
    const on = await scenario.setup();
    const bob = a.user('U02BOB');
    // Forms left open by the earlier scenarios first: the reason form looked for is this request's.
    for (let top = bob.topModal(); top; top = bob.topModal()) await bob.close(top.id);
    await bob.act(on.surface, on.match);
    const modal = await waitFor(() => modalContaining(a, BLOCKS.rejectReason, 'U02BOB'), 'the reason form');
    const reason = { [BLOCKS.rejectReason]: { [ACTIONS.rejectReason]: { type: 'plain_text_input', value: 'no' } } };
    await submitThenReplay(modal.id, 'U02BOB', 'C03APPROVALS', reason, scenario.effects);
  });
});
