// The authorization table end to end: the same cases as test/unit/runs/authorization-table.test.ts,
// driven through the real Bolt pipeline (signed requests from simulated people, the fake Slack Web API,
// the emulator) for run, schedule create, schedule edit, Run now, a line with --now, the Workflow step,
// subscribe all, and the seeing-only actions (show, status, output, executions, audit). Each cell asserts
// what the person is shown, the audit record of a refusal (a run's naming its entry point), and that no
// Runbook API call that changes anything was made when the answer is no.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Workflow } from '../../src/api/schemas.ts';
import type { FakeMessage } from '../../src/sandbox/fake-slack-state.ts';
import type { ViewStateValues } from '../../src/sandbox/slack-requests.ts';
import type { Surface } from '../../src/sandbox/slack-user.ts';
import { stepDefinition } from '../../src/sandbox/workflow-steps.ts';
import { ACTIONS, BLOCKS, FUNCTIONS } from '../../src/slack/kit/ids.ts';
import {
  AUDIT_ONLY,
  CASES,
  type Case,
  type CaseName,
  NEEDS_APPROVAL,
  type Outcome,
  PARAMS,
  SAME_AS_RUN,
  TABLE_POLICY,
  VIEW_ONLY,
} from '../support/authorization-cases.ts';
import { ephemeralContaining, type Harness, startHarness, waitFor } from '../support/bot-harness.ts';
import { buttonIn } from '../support/button-message.ts';

let h: Harness;
beforeAll(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'authz-'));
  writeFileSync(path.join(dir, 'policy.yaml'), TABLE_POLICY);
  h = await startHarness({
    env: {
      POLICY_FILE: path.join(dir, 'policy.yaml'),
      APPROVALS_CHANNEL: 'C03APPROVALS',
      SUBSCRIPTIONS_POLL_SECONDS: '1',
    },
  });
});
afterAll(async () => {
  await h.stop();
});

const settle = (ms = 30) => new Promise((r) => setTimeout(r, ms));

async function runbookNamed(name: string): Promise<Workflow> {
  const found = (await h.runtime.deps.catalog.all()).find((r) => r.name === name);
  if (!found) throw new Error(`no runbook ${name}`);
  return found;
}

function formValues(runbook: Workflow, destination: string | null): ViewStateValues {
  const fields = Object.fromEntries(
    Object.entries(PARAMS[runbook.name]!).map(([key, value]) => [
      `field_${key}`,
      { value: { type: 'plain_text_input', value } },
    ]),
  );
  return {
    [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
    ...(destination
      ? {
          [BLOCKS.channel]: {
            [ACTIONS.channelSelect]: { type: 'conversations_select', selected_conversation: destination },
          },
        }
      : {}),
    ...fields,
  };
}

function scheduleValues(runbook: Workflow, cron: string) {
  return {
    ...formValues(runbook, null),
    [BLOCKS.preset]: { [ACTIONS.presetSelect]: { type: 'static_select', selected_option: { value: 'custom' } } },
    [BLOCKS.cron]: { [ACTIONS.cronInput]: { type: 'plain_text_input', value: cron } },
  };
}

/** Messages in `channel` whose text or blocks contain `needle`. */
function messagesWith(channel: string, needle: string): FakeMessage[] {
  return (h.fake.state.messages[channel] ?? []).filter((m) => JSON.stringify([m.text, m.blocks]).includes(needle));
}

/** The first ephemeral to `userId` after the first `since` ones whose text or blocks contain one of `needles`. */
function answerAfter(since: number, userId: string, needles: string[]): string | undefined {
  for (const e of h.fake.state.ephemerals.slice(since)) {
    if (e.user !== userId) continue;
    const text = JSON.stringify([e.text, e.blocks]);
    if (needles.some((n) => text.includes(n))) return text;
  }
  return undefined;
}

let mark = 0;
async function markRequests() {
  await settle();
  mark = h.emulator.state.requests.total;
}
async function mutations(): Promise<string[]> {
  await settle();
  const count = h.emulator.state.requests.total - mark;
  const fresh = count === 0 ? [] : h.emulator.state.requests.log.slice(-count);
  return fresh.filter((e) => e.method !== 'GET').map((e) => e.route);
}

/** The modal the user now sees, once it is no longer the loading view. */
async function settledModal(userId: string, previousId: string | null) {
  return waitFor(() => {
    const top = h.user(userId).topModal();
    if (!top || top.id === previousId) return undefined;
    return JSON.stringify(top.view).includes('Loading') ? undefined : top;
  }, 'the modal');
}

/** Clicks a button and returns the modal it opens (not one left open by an earlier case). */
async function clickForModal(userId: string, surface: Surface, actionId: string) {
  const previous = h.user(userId).topModal()?.id ?? null;
  await h.user(userId).act(surface, actionId);
  return settledModal(userId, previous);
}

function modalSays(view: unknown): Outcome | null {
  const text = JSON.stringify(view) ?? '';
  if (text.includes('You may not view that runbook')) return 'hidden';
  if (text.includes('You may not')) return 'denied';
  return null;
}

async function schedulesOf(runbook: Workflow, cron: string) {
  return [...h.emulator.state.schedules.byId.values()].filter(
    (s) => s.schedule.runbookId === runbook.id && s.schedule.schedule === cron,
  );
}

const running = (c: Case, runbook: Workflow) => messagesWith(c.destinationChannel, `${runbook.name} is running`);
const asked = (runbook: Workflow) => messagesWith('C03APPROVALS', runbook.name);

/** Does `action` as the case's person; what they were told: a refusal (hidden when it is `view`), or else ok. */
async function answerTo(c: Case, action: () => Promise<unknown>): Promise<Outcome> {
  const since = h.fake.state.ephemerals.length;
  await action();
  const text = await waitFor(() => answerAfter(since, c.userId, ['']), 'the answer');
  if (text.includes('You may not view that runbook')) return 'hidden';
  return text.includes('You may not') ? 'denied' : 'ok';
}

/** An execution of `runbook` to look at (started on the API directly). */
async function executionOf(runbook: Workflow): Promise<string> {
  const { executionIds } = await h.runtime.api.workflows.run(runbook.id, {
    proxyId: 'proxy-dev',
    params: PARAMS[runbook.name]!,
  });
  await markRequests();
  return executionIds[0]!;
}

/** Clicks `actionId` on the newest ephemeral of the case's person that carries it (a confirmation). */
async function confirm(c: Case, actionId: string): Promise<void> {
  const confirmation = [...h.fake.state.ephemerals]
    .reverse()
    .find((e) => e.user === c.userId && JSON.stringify(e.blocks ?? []).includes(actionId));
  if (confirmation) await h.user(c.userId).act({ kind: 'ephemeral', ephemeral: confirmation }, actionId);
}

/** Whether a run of `runbook` started (more than `before` running cards), or what refused it after `since`. */
async function ranOrRefused(
  c: Case,
  runbook: Workflow,
  at: { before: number; since: number; refusals: string[] },
): Promise<Outcome> {
  const told = await waitFor(
    () => (running(c, runbook).length > at.before ? 'is running' : answerAfter(at.since, c.userId, at.refusals)),
    'the answer',
  );
  if (told.includes('is running')) return 'ok';
  if (told.includes('needs approval')) return 'approval';
  return told.includes('You may not view that runbook') ? 'hidden' : 'denied';
}

interface Row {
  name: string;
  auditAction: string | null;
  /** For a run: the entry point its refusal's record names last (`; via …`), as a started run's does. */
  via?: string;
  /** Seeing only: success changes nothing on the Runbook API either. */
  seesOnly?: boolean;
  act(c: Case, runbook: Workflow): Promise<Outcome>;
  expect: Record<CaseName, Outcome>;
}

/** A seeing-only row: its refusals are audited, and nothing on the Runbook API changes either way. */
function seeing(name: string, auditAction: string, act: Row['act'], expect = VIEW_ONLY): Row {
  return { name, auditAction, seesOnly: true, act, expect };
}

let seq = 0;

const ROWS: Row[] = [
  {
    name: 'run (Run button → form → submit)',
    auditAction: 'run.open|run.start',
    via: 'form',
    async act(c, runbook) {
      const user = h.user(c.userId);
      const before = { running: running(c, runbook).length, asked: asked(runbook).length };
      const modal = await clickForModal(
        c.userId,
        buttonIn(c.channelId, ACTIONS.runbookRun, runbook.id),
        ACTIONS.runbookRun,
      );
      const refused = modalSays(modal.view);
      if (refused) return refused;
      const res = await user.submit(modal.id, formValues(runbook, c.destinationChannel));
      const answer = modalSays(res.json);
      if (answer) return answer;
      return waitFor(
        () =>
          running(c, runbook).length > before.running ? 'ok' : asked(runbook).length > before.asked ? 'approval' : null,
        'run or approval request',
      );
    },
    expect: SAME_AS_RUN,
  },
  {
    name: 'schedule create (Schedule button → form → submit)',
    auditAction: 'schedule.open|schedule.create',
    async act(c, runbook) {
      const user = h.user(c.userId);
      const modal = await clickForModal(
        c.userId,
        buttonIn(c.channelId, ACTIONS.runbookSchedule, runbook.id),
        ACTIONS.runbookSchedule,
      );
      const refused = modalSays(modal.view);
      if (refused) return refused;
      const cron = `${++seq % 60} 3 * * *`;
      const since = h.fake.state.ephemerals.length;
      await user.submit(modal.id, scheduleValues(runbook, cron));
      const told = await waitFor(
        () => answerAfter(since, c.userId, ['Scheduled', 'needs approval', 'You may not']),
        'the answer',
      );
      if (told.includes('needs approval')) {
        expect(await schedulesOf(runbook, cron)).toHaveLength(0);
        return 'approval';
      }
      return (await schedulesOf(runbook, cron)).length === 1 ? 'ok' : 'denied';
    },
    expect: { ...SAME_AS_RUN, 'denied in destination only': 'ok' },
  },
  {
    name: 'schedule edit (Edit on the schedules list → form → submit)',
    auditAction: 'schedule.open|schedule.update',
    async act(c, runbook) {
      const schedule = await h.runtime.api.schedules.create({
        proxyId: 'proxy-dev',
        runbookId: runbook.id,
        runbookName: runbook.name,
        inputSchema: runbook.inputSchema,
        params: JSON.stringify(PARAMS[runbook.name]),
        schedule: '0 1 * * *',
      });
      await markRequests();
      const user = h.user(c.userId);
      const modal = await clickForModal(
        c.userId,
        buttonIn(c.channelId, ACTIONS.scheduleEdit, JSON.stringify({ id: schedule.id, r: runbook.id })),
        ACTIONS.scheduleEdit,
      );
      const refused = modalSays(modal.view);
      if (refused) return refused;
      const cron = `${++seq % 60} 4 * * *`;
      const since = h.fake.state.ephemerals.length;
      await user.submit(modal.id, scheduleValues(runbook, cron));
      const told = await waitFor(
        () => answerAfter(since, c.userId, ['Updated the schedule', 'needs approval', 'You may not']),
        'the answer',
      );
      const saved = h.emulator.state.schedules.byId.get(schedule.id)?.schedule.schedule;
      if (told.includes('needs approval')) {
        expect(saved).toBe('0 1 * * *');
        return 'approval';
      }
      return saved === cron ? 'ok' : 'denied';
    },
    expect: { ...SAME_AS_RUN, 'denied in destination only': 'ok' },
  },
  {
    name: 'Run now (on the schedules list)',
    // Refused at its confirmation (`run.open`) or when confirmed (`run.start`), like every run.
    auditAction: 'run.open|run.start',
    via: 'schedule-run-now',
    async act(c, runbook) {
      const schedule = await h.runtime.api.schedules.create({
        proxyId: 'proxy-dev',
        runbookId: runbook.id,
        runbookName: runbook.name,
        inputSchema: runbook.inputSchema,
        params: JSON.stringify(PARAMS[runbook.name]),
        schedule: '0 2 * * *',
      });
      await markRequests();
      // Run now posts where the button was clicked: that channel is the destination.
      const since = h.fake.state.ephemerals.length;
      const before = running(c, runbook).length;
      await h
        .user(c.userId)
        .act(
          buttonIn(c.destinationChannel, ACTIONS.scheduleRunNow, JSON.stringify({ id: schedule.id, r: runbook.id })),
          ACTIONS.scheduleRunNow,
        );
      // Run now asks first: confirm it (a refusal comes instead of the confirmation).
      const asked = await waitFor(() => answerAfter(since, c.userId, ['outside its schedule', 'You may not']), 'ask');
      if (asked.includes('outside its schedule')) await confirm(c, ACTIONS.scheduleRunNowConfirmed);
      return ranOrRefused(c, runbook, { before, since, refusals: ['needs approval', 'You may not'] });
    },
    expect: SAME_AS_RUN,
  },
  {
    name: 'one line with --now (its confirmation → Run)',
    // Refused at the confirmation (`run.open`) or when Run is clicked (`run.start`), naming `one-line`.
    auditAction: 'run.open|run.start',
    via: 'one-line',
    async act(c, runbook) {
      const values = Object.entries(PARAMS[runbook.name]!).map(([k, v]) => `${k}=${v}`);
      const since = h.fake.state.ephemerals.length;
      const before = running(c, runbook).length;
      // A line names no result channel: elsewhere is the channel's default result channel, saved by the person.
      const defaults = h.runtime.store.channelDefaults;
      if (c.destinationChannel !== c.channelId) {
        await defaults.set(c.channelId, { resultChannel: c.destinationChannel }, c.userId, Date.now());
      }
      try {
        await h.user(c.userId).command(`run "${runbook.name}" ${values.join(' ')} --now`, c.channelId);
        await waitFor(() => answerAfter(since, c.userId, [ACTIONS.confirmRun, 'Nothing ran']), 'ask');
      } finally {
        await defaults.clear(c.channelId);
      }
      const asked = answerAfter(since, c.userId, [ACTIONS.confirmRun, 'Nothing ran'])!;
      if (asked.includes('needs approval')) return 'approval';
      // A runbook the person may not view is unknown to them (the refusal is still audited).
      if (!asked.includes(ACTIONS.confirmRun)) return asked.includes('that you may see') ? 'hidden' : 'denied';
      const clicked = h.fake.state.ephemerals.length;
      await confirm(c, ACTIONS.confirmRun);
      return ranOrRefused(c, runbook, { before, since: clicked, refusals: ['Nothing ran', 'You may not'] });
    },
    expect: SAME_AS_RUN,
  },
  {
    name: 'Workflow Builder step "Run a runbook" (card to the chosen channel)',
    auditAction: 'run.start',
    via: 'workflow-step',
    async act(c, runbook) {
      const res = await h.user(c.userId).runWorkflowStep(FUNCTIONS.runRunbook, stepDefinition(FUNCTIONS.runRunbook), {
        runbook: runbook.name,
        inputs: JSON.stringify(PARAMS[runbook.name]),
        channel: c.destinationChannel,
        invoking_user: c.userId,
      });
      const id = res.started.execution.id;
      const step = await waitFor(() => {
        const s = h.fake.state.functionExecutions[id];
        return s && s.state !== 'running' ? s : null;
      }, 'the step to end');
      if (step.state === 'completed') return 'ok';
      if (step.error?.includes('needs approval')) return 'approval';
      return step.error?.includes('may see') ? 'hidden' : 'denied';
    },
    // A workflow acts in the channel it posts to: the destination is where it acts.
    expect: SAME_AS_RUN,
  },
  {
    name: 'subscribe all (a finished run, posted or not)',
    auditAction: null,
    async act(c, runbook) {
      // The channel holds one `all` subscription, made by this case's person.
      const channel = 'C02DEPLOYS';
      await h.runtime.store.subscriptions.remove(channel, '*');
      await h.user(c.userId).command('subscribe all', channel);
      await waitFor(() => ephemeralContaining(h.fake, 'any runbook you may see', c.userId), 'subscribed');
      await settle(1200); // the scanner's baseline
      const { executionIds } = await h.runtime.api.workflows.run(runbook.id, {
        proxyId: 'proxy-dev',
        params: PARAMS[runbook.name]!,
      });
      await markRequests();
      h.emulator.advance(10 * 60_000);
      const id = executionIds[0]!;
      const posted = () =>
        (h.fake.state.messages[channel] ?? []).some((m) => JSON.stringify([m.text, m.blocks]).includes(id));
      // The scanner runs every second: give it a few scans; a hidden runbook's result must never come.
      const deadline = Date.now() + 4000;
      while (Date.now() < deadline && !posted()) await settle(100);
      return posted() ? 'ok' : 'hidden';
    },
    expect: VIEW_ONLY,
  },
  seeing('show (Details on a runbook)', 'runbook.show', (c, runbook) =>
    answerTo(c, () =>
      h.user(c.userId).act(buttonIn(c.channelId, ACTIONS.runbookDetails, runbook.id), ACTIONS.runbookDetails),
    ),
  ),
  seeing('status (/runbook status <id>)', 'execution.status', async (c, runbook) => {
    const id = await executionOf(runbook);
    return answerTo(c, () => h.user(c.userId).command(`status ${id}`, c.channelId));
  }),
  seeing('output (Full output on a card)', 'execution.output', async (c, runbook) => {
    const id = await executionOf(runbook);
    const button = buttonIn(c.channelId, ACTIONS.executionOutput, id);
    return modalSays((await clickForModal(c.userId, button, ACTIONS.executionOutput)).view) ?? 'ok';
  }),
  seeing('executions (a list of one runbook, paged)', 'executions.list', (c, runbook) => {
    const actionId = `${ACTIONS.executionsPage}_next`;
    const value = JSON.stringify({ n: runbook.name, t: [] });
    return answerTo(c, () => h.user(c.userId).act(buttonIn(c.channelId, actionId, value), actionId));
  }),
  seeing(
    'audit (/runbook audit)',
    'audit.read',
    async (c) => {
      const since = h.fake.state.ephemerals.length;
      await h.user(c.userId).command('audit', c.channelId);
      // The trail itself quotes earlier refusals: only its header says it was shown.
      const told = await waitFor(() => answerAfter(since, c.userId, ['Audit trail (latest', 'You may not']), 'answer');
      return told.includes('Audit trail (latest') ? 'ok' : 'denied';
    },
    AUDIT_ONLY,
  ),
];

describe.each(ROWS)('$name', (row) => {
  it.each(Object.keys(CASES) as CaseName[])('%s', async (caseName) => {
    const c = CASES[caseName];
    const runbook = await runbookNamed(c.runbook);
    // Each case starts with no modal open (a refusal leaves the previous form on screen).
    for (let top = h.user(c.userId).topModal(); top; top = h.user(c.userId).topModal())
      await h.user(c.userId).close(top.id);
    await markRequests();
    let outcome: Outcome;
    try {
      outcome = await row.act(c, runbook);
    } catch (err) {
      if (process.env.DEBUG_AUTHZ) {
        console.log(
          JSON.stringify(
            { messages: h.fake.state.messages, eph: h.fake.state.ephemerals.slice(-5), logs: h.logs.slice(-15) },
            null,
            1,
          ).slice(-6000),
        );
      }
      throw err;
    }
    expect(outcome).toBe(row.expect[caseName]);
    const changed = await mutations();
    if (outcome === 'denied' || outcome === 'hidden' || outcome === 'approval') expect(changed).toEqual([]);
    else if (row.seesOnly) expect(changed).toEqual([]);
    else if (row.auditAction !== null) expect(changed.length).toBeGreaterThan(0);
    if ((outcome === 'denied' || outcome === 'hidden') && row.auditAction) {
      const entries = await h.runtime.deps.access.audit.recent(10);
      const denial = entries.find((e) => e.userId === c.userId && e.outcome === 'denied');
      expect(denial?.action).toMatch(new RegExp(`^(${row.auditAction})$`));
      if (row.via) expect(denial?.detail).toMatch(new RegExp(`; via ${row.via}$`));
      if (outcome === 'hidden') expect(denial?.detail).not.toContain(runbook.name);
    }
  });
});

it('the needs-approval runbook really needs approval', async () => {
  expect((await runbookNamed(NEEDS_APPROVAL)).requiresApproval).toBe(true);
});
