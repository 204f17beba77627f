// Every path starts the same run: one runbook, the same typed values (`deployment` only — `namespace` and
// `replicas` are left to the schema's defaults), in a channel whose run defaults name a proxy, started
// through every entry point that can start it, through the real Bolt pipeline: the run form, `run … --now`,
// an alias with --now, Re-run from a result card, a schedule's Run now (the schedule made and edited with the
// schedule form), the Workflow Builder step and, where the runbook needs approval, the request → Approve.
// The API must receive identical run bodies (params with the schema defaults, the channel's proxy), the live
// card must go to the same place, every confirmation must list the same inputs, and the `run.start` audit
// records may differ only in the entry point they name.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { KnownBlock } from '@slack/types';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ExecutionRecord } from '../../src/emulator/execution-store.ts';
import type { FakeEphemeral, FakeMessage } from '../../src/sandbox/fake-slack-state.ts';
import { stepDefinition } from '../../src/sandbox/workflow-steps.ts';
import { ACTIONS, BLOCKS, FUNCTIONS } from '../../src/slack/kit/ids.ts';
import type { AuditEntry } from '../../src/store/store.ts';
import {
  ephemeralContaining,
  type Harness,
  modalContaining,
  QUICK_WATCH_ENV,
  startHarness,
  waitFor,
} from '../support/bot-harness.ts';
import { SCALE_RUNBOOK } from '../support/run-form.ts';
import { submit as stateOf } from '../unit/forms/slack-state.ts';

const POLICY = `
approvals:
  - name: scaling needs a second pair of eyes
    runbooks: { names: ["${SCALE_RUNBOOK}"] }
    approvers: { users: [U02BOB] }
`;

/** What the person types: one value; the rest is left as the schema's defaults fill it. */
const TYPED = { field_deployment: { value: 'parity' } };

let h: Harness;
/** The same bot whose policy makes the runbook need approval. */
let approving: Harness;

beforeAll(async () => {
  // One person starts more runs here than the default limit of 10 a minute allows.
  h = await startHarness({ env: { ...QUICK_WATCH_ENV, RUN_RATE_LIMIT_PER_MINUTE: '100' } });
  const dir = mkdtempSync(path.join(tmpdir(), 'parity-policy-'));
  writeFileSync(path.join(dir, 'policy.yaml'), POLICY);
  approving = await startHarness({
    env: { ...QUICK_WATCH_ENV, POLICY_FILE: path.join(dir, 'policy.yaml'), APPROVALS_CHANNEL: 'C03APPROVALS' },
  });
  // A channel default proxy that is not the bot's default: every path must pick it up.
  for (const bot of [h, approving]) {
    await bot.user().command('defaults --proxy proxy-prod', 'C01OPS');
    await waitFor(() => ephemeralContaining(bot.fake, 'proxy Prod proxy'), 'defaults saved');
  }
});
afterAll(async () => {
  await approving?.stop();
  await h?.stop();
});

/** Runs started by a person through the bot (not the emulator's own scheduled firings). */
const started = (bot: Harness, runbook = SCALE_RUNBOOK) =>
  [...bot.emulator.state.executions.byId.values()].filter(
    (e) => e.workflowName === runbook && e.received.userId && !e.received.scheduleId,
  );

/** The emulator's schedules as the API holds them. */
const schedules = () => [...h.emulator.state.schedules.byId.values()].map((r) => r.schedule);

/** Does `act`, then returns the one run it started. */
async function runOf(bot: Harness, act: () => Promise<unknown>, runbook = SCALE_RUNBOOK): Promise<ExecutionRecord> {
  const before = new Set(started(bot, runbook).map((e) => e.id));
  await act();
  return waitFor(() => started(bot, runbook).find((e) => !before.has(e.id)), 'the run');
}

/** "Title=value" for every input a message lists ("• *Title*: `value`"). */
function listedInputs(blocks: unknown): string[] {
  return [...JSON.stringify(blocks).matchAll(/• \*([^*]+)\*: `([^`]*)`/g)].map((m) => `${m[1]}=${m[2]}`).sort();
}

/** "Title=value" for every input a form shows filled in, with `typed` (by field name) typed over it. */
function shownInputs(blocks: unknown, typed: Record<string, string> = {}): string[] {
  return (blocks as Array<{ type?: string; block_id?: string; label?: { text?: string }; element?: unknown }>)
    .filter((b) => b.type === 'input' && b.block_id?.startsWith('field_'))
    .map((b) => {
      const el = b.element as { initial_value?: string; initial_option?: { text?: { text?: string } } };
      const shown = el.initial_value ?? el.initial_option?.text?.text ?? '';
      return `${b.label?.text}=${typed[b.block_id!.slice('field_'.length)] ?? shown}`;
    })
    .sort();
}

/** The proxy a form preselects. */
const proxyShown = (blocks: unknown) =>
  (blocks as Array<{ block_id?: string; element?: { initial_option?: { value?: string } } }>).find(
    (b) => b.block_id === BLOCKS.proxy,
  )?.element?.initial_option?.value;

/**
 * Submits a form as Slack would: everything as shown, with `edits` typed over it (by block id) and `added`
 * (state of blocks a change in the form would have shown).
 */
function submitAsShown(
  bot: Harness,
  viewId: string,
  edits: Record<string, Record<string, unknown>>,
  added: Record<string, Record<string, Record<string, unknown>>> = {},
) {
  const view = bot.fake.state.views[viewId]!;
  const values = { ...stateOf(view.view.blocks as KnownBlock[], edits), ...added };
  return bot.user().submit(viewId, values as Record<string, Record<string, Record<string, unknown>>>);
}

/** The newest ephemeral whose blocks hold `needle`, posted after `after`. */
const newEphemeral = (bot: Harness, after: number, needle: string) =>
  bot.fake.state.ephemerals.slice(after).find((e) => JSON.stringify(e.blocks ?? []).includes(needle));

/** `command` with --now: returns the inputs its confirmation listed (it is replaced after) and the run its Run started. */
async function confirmAndRun(command: string): Promise<{ listed: string[]; run: ExecutionRecord }> {
  const before = h.fake.state.ephemerals.length;
  await h.user().command(command, 'C01OPS');
  const shown = await waitFor(() => newEphemeral(h, before, ACTIONS.confirmRun), `the confirmation of ${command}`);
  const listed = listedInputs(shown.blocks);
  const run = await runOf(h, () => h.user().act({ kind: 'ephemeral', ephemeral: shown }, ACTIONS.confirmRun));
  return { listed, run };
}

/** A schedule's Run now clicked in `/runbook schedules`: its confirmation (nothing has run yet). */
async function runNowConfirmation(scheduleId: string): Promise<FakeEphemeral> {
  let before = h.fake.state.ephemerals.length;
  await h.user().command(`schedules "${SCALE_RUNBOOK}"`, 'C01OPS');
  const list = await waitFor(() => newEphemeral(h, before, scheduleId), 'the schedules list');
  before = h.fake.state.ephemerals.length;
  const runNow = (el: { action_id?: string; value?: string }) =>
    el.action_id === ACTIONS.scheduleRunNow && String(el.value).includes(scheduleId);
  await h.user().act({ kind: 'ephemeral', ephemeral: list }, runNow);
  return waitFor(() => newEphemeral(h, before, ACTIONS.scheduleRunNowConfirmed), 'the Run now confirmation');
}

/** Opens a run form with `open` and returns it once filled (the loading view replaced). */
async function formOpened(bot: Harness, open: () => Promise<unknown>, user?: string, field = 'field_replicas') {
  for (let top = bot.user(user).topModal(); top; top = bot.user(user).topModal()) await bot.user(user).close(top.id);
  await open();
  return waitFor(() => modalContaining(bot, field, user), 'the form');
}

/** The same for a form of another runbook, known by one of its fields. */
const waitForForm = (open: () => Promise<unknown>, field: string) => formOpened(h, open, undefined, field);

/** A finished run's result card in C01OPS, with its Re-run button. */
const resultCard = (executionId: string) =>
  waitFor(
    () =>
      (h.fake.state.messages.C01OPS ?? []).find(
        (m) =>
          JSON.stringify(m.blocks ?? []).includes(executionId) &&
          JSON.stringify(m.blocks).includes(ACTIONS.executionRerun),
      ),
    'the result card',
    20_000,
  );

/** What was sent to the API and where the card goes, without what makes one run another. */
async function runFacts(bot: Harness, run: ExecutionRecord) {
  const { params, requestId: _requestId, ...body } = run.received;
  // The watch is stored once the run call has answered, a moment after the emulator saw the run.
  let watch = await bot.runtime.store.watches.get(run.id);
  for (let tries = 0; !watch && tries < 200; tries++) {
    await new Promise((r) => setTimeout(r, 25));
    watch = await bot.runtime.store.watches.get(run.id);
  }
  if (!watch) throw new Error(`no watch for ${run.id}`);
  return {
    // The params as sent (one JSON string): the same values in the same order.
    body: { ...body, params },
    card: {
      channel: watch.channel,
      proxyId: watch.proxyId,
      inputs: watch.inputsSummary,
      startedBy: watch.startedBy,
      teamId: watch.teamId,
    },
  };
}

/** The run's `run.start` record, split into the entry point it names and everything else. */
async function auditOf(bot: Harness, run: ExecutionRecord) {
  const entries = await bot.runtime.store.audit.recent(200);
  const entry = entries.find((e) => e.action === 'run.start' && e.outcome === 'ok' && e.detail?.includes(run.id));
  expect(entry, `the run.start record of ${run.id}`).toBeDefined();
  const { at: _at, tid: _tid, detail, ...rest } = entry as AuditEntry;
  const via = detail?.match(/; via (.+)$/)?.[1];
  return { via, rest: { ...rest, detail: detail?.replace(/^executions [^;]+;/, '').replace(/; via .+$/, '') } };
}

it('the same typed values make the same run from every entry point, and the same schedule from the schedule form', {
  timeout: 120_000,
}, async () => {
  const runs: Record<string, { bot: Harness; run: ExecutionRecord }> = {};
  const confirmations: Record<string, string[]> = {};

  // The run form, as it opens with nothing but the runbook named.
  const form = await formOpened(h, () => h.user().command(`run "${SCALE_RUNBOOK}"`, 'C01OPS'));
  expect(proxyShown(form.view.blocks)).toBe('proxy-prod');
  confirmations.form = shownInputs(form.view.blocks, { deployment: 'parity' });
  runs.form = { bot: h, run: await runOf(h, () => submitAsShown(h, form.id, TYPED)) };

  // One line with --now, and an alias with --now.
  const line = await confirmAndRun(`run "${SCALE_RUNBOOK}" deployment=parity --now`);
  confirmations['one-line'] = line.listed;
  runs['one-line'] = { bot: h, run: line.run };
  await h.user().command(`alias add parity "${SCALE_RUNBOOK}" deployment=parity`, 'C01OPS');
  await waitFor(() => ephemeralContaining(h.fake, 'Alias `parity`'), 'alias saved');
  const alias = await confirmAndRun('parity --now');
  confirmations.alias = alias.listed;
  runs.alias = { bot: h, run: alias.run };

  // The Workflow Builder step, given the same values as its JSON input.
  runs['workflow-step'] = {
    bot: h,
    run: await runOf(h, () =>
      h.user().runWorkflowStep(FUNCTIONS.runRunbook, stepDefinition(FUNCTIONS.runRunbook), {
        runbook: SCALE_RUNBOOK,
        inputs: JSON.stringify({ deployment: 'parity' }),
        channel: 'C01OPS',
        invoking_user: 'U01ALICE',
      }),
    ),
  };

  // Re-run from the form run's result card: its form, submitted as it opens.
  h.clock.advance(60 * 60_000);
  const card: FakeMessage = await resultCard(runs.form.run.id);
  const rerun = await formOpened(h, () => h.user().act({ kind: 'message', message: card }, ACTIONS.executionRerun));
  expect(proxyShown(rerun.view.blocks)).toBe('proxy-prod');
  confirmations.rerun = shownInputs(rerun.view.blocks);
  runs.rerun = { bot: h, run: await runOf(h, () => submitAsShown(h, rerun.id, {})) };

  // A schedule made with the schedule form (the same typed value), then edited (only its time changed).
  const scheduleForm = await formOpened(h, () => h.user().command(`schedule "${SCALE_RUNBOOK}"`, 'C01OPS'));
  expect(proxyShown(scheduleForm.view.blocks)).toBe('proxy-prod');
  confirmations['schedule form'] = shownInputs(scheduleForm.view.blocks, { deployment: 'parity' });
  const existing = new Set(schedules().map((s) => s.id));
  await submitAsShown(h, scheduleForm.id, TYPED);
  const created = await waitFor(
    () => schedules().find((s) => !existing.has(s.id) && s.runbookName === SCALE_RUNBOOK),
    'the schedule',
  );
  const formParams = runs.form.run.received.params;
  expect({ proxyId: created.proxyId, params: created.params }).toEqual({
    proxyId: 'proxy-prod',
    params: formParams,
  });
  const before = h.fake.state.ephemerals.length;
  await h.user().command(`schedules "${SCALE_RUNBOOK}"`, 'C01OPS');
  const list = await waitFor(() => newEphemeral(h, before, created.id), 'the schedules list');
  const edit = await formOpened(h, () =>
    h
      .user()
      .act(
        { kind: 'ephemeral', ephemeral: list },
        (el) => el.action_id === ACTIONS.scheduleEdit && String(el.value).includes(created.id),
      ),
  );
  expect(proxyShown(edit.view.blocks)).toBe('proxy-prod');
  confirmations['schedule edit'] = shownInputs(edit.view.blocks);
  await submitAsShown(
    h,
    edit.id,
    { [BLOCKS.preset]: { selected_option: { value: 'custom' } } },
    { [BLOCKS.cron]: { [ACTIONS.cronInput]: { type: 'plain_text_input', value: '15 4 * * *' } } },
  );
  const edited = await waitFor(
    () => schedules().find((s) => s.id === created.id && s.schedule === '15 4 * * *'),
    'the edited schedule',
  );
  expect({ proxyId: edited.proxyId, params: edited.params }).toEqual({
    proxyId: 'proxy-prod',
    params: formParams,
  });

  // That schedule's Run now, from the list: the confirmation, then its Run now.
  const runNow = await runNowConfirmation(created.id);
  confirmations['schedule-run-now'] = listedInputs(runNow.blocks);
  runs['schedule-run-now'] = {
    bot: h,
    run: await runOf(h, () => h.user().act({ kind: 'ephemeral', ephemeral: runNow }, ACTIONS.scheduleRunNowConfirmed)),
  };

  // Where the runbook needs approval: the form asks, the approver approves, and that runs it.
  const asking = await formOpened(approving, () => approving.user().command(`run "${SCALE_RUNBOOK}"`, 'C01OPS'));
  expect(JSON.stringify(asking.view.blocks)).toContain('needs approval');
  expect(proxyShown(asking.view.blocks)).toBe('proxy-prod');
  confirmations['approval form'] = shownInputs(asking.view.blocks, { deployment: 'parity' });
  await submitAsShown(approving, asking.id, TYPED);
  const request = await waitFor(
    () =>
      approving.fake.state.messages.C03APPROVALS?.find((m) =>
        JSON.stringify(m.blocks ?? []).includes(ACTIONS.approvalApprove),
      ),
    'the approval request',
  );
  confirmations['approval request'] = listedInputs(request.blocks);
  const approvalId = JSON.stringify(request.blocks).match(/"action_id":"approval_approve","value":"([^"]+)"/)![1]!;
  const approved = await runOf(approving, () =>
    approving.user('U02BOB').act({ kind: 'message', message: request }, ACTIONS.approvalApprove),
  );
  expect(approved.received.requestId).toBe(approvalId);
  runs.approval = { bot: approving, run: approved };

  // Identical bodies (the schema's defaults and the channel's proxy included) and cards in the same place.
  const facts = Object.fromEntries(
    await Promise.all(Object.entries(runs).map(async ([via, r]) => [via, await runFacts(r.bot, r.run)] as const)),
  );
  expect(facts.form?.body).toEqual({
    proxyId: 'proxy-prod',
    params: JSON.stringify({ namespace: 'default', deployment: 'parity', replicas: 3, context: 'staging' }),
    userId: 'U01ALICE',
    userEmail: 'alice@example.com',
  });
  expect(facts.form?.card.channel).toBe('C01OPS');
  for (const [via, f] of Object.entries(facts)) expect({ via, ...f }).toEqual({ via, ...facts.form });

  // Every confirmation lists the same inputs, the defaults included.
  expect(confirmations.form).toEqual(['Cluster=staging', 'Deployment=parity', 'Namespace=default', 'Replicas=3']);
  for (const [where, shown] of Object.entries(confirmations))
    expect({ where, shown }).toEqual({ where, shown: confirmations.form });

  // Audit records that differ only in the entry point they name.
  const audits = Object.fromEntries(
    await Promise.all(Object.entries(runs).map(async ([via, r]) => [via, await auditOf(r.bot, r.run)] as const)),
  );
  for (const [via, a] of Object.entries(audits)) {
    expect(a.via).toBe(via === 'approval' ? 'approval (approved by U02BOB)' : via);
    expect({ via, ...a.rest }).toEqual({ via, ...audits.form?.rest });
  }
  expect(Object.keys(audits).sort()).toEqual(
    ['alias', 'approval', 'form', 'one-line', 'rerun', 'schedule-run-now', 'workflow-step'].sort(),
  );
});

it('with a default result channel, every path that names none posts the card there', { timeout: 60_000 }, async () => {
  await h.user().command('defaults --proxy proxy-prod --to C02DEPLOYS', 'C01OPS');
  await waitFor(() => ephemeralContaining(h.fake, 'results to'), 'defaults saved');
  const runs: Record<string, ExecutionRecord> = {};

  const form = await formOpened(h, () => h.user().command(`run "${SCALE_RUNBOOK}"`, 'C01OPS'));
  runs.form = await runOf(h, () => submitAsShown(h, form.id, { field_deployment: { value: 'to-deploys' } }));
  runs['one-line'] = (await confirmAndRun(`run "${SCALE_RUNBOOK}" deployment=to-deploys --now`)).run;
  await h.user().command(`alias add to-deploys "${SCALE_RUNBOOK}" deployment=to-deploys`, 'C01OPS');
  await waitFor(() => ephemeralContaining(h.fake, 'Alias `to-deploys`'), 'alias saved');
  runs.alias = (await confirmAndRun('to-deploys --now')).run;

  const runbook = (await h.runtime.deps.catalog.all()).find((r) => r.name === SCALE_RUNBOOK)!;
  const schedule = await h.runtime.api.schedules.create({
    proxyId: 'proxy-prod',
    runbookId: runbook.id,
    runbookName: runbook.name,
    inputSchema: runbook.inputSchema,
    params: runs.form.received.params ?? '',
    schedule: '0 3 * * *',
  });
  const confirmation = await runNowConfirmation(schedule.id);
  // The confirmation says where the result goes, as the --now one does.
  expect(JSON.stringify(confirmation.blocks)).toContain('*Result to*\\n<#C02DEPLOYS>');
  runs['schedule-run-now'] = await runOf(h, () =>
    h.user().act({ kind: 'ephemeral', ephemeral: confirmation }, ACTIONS.scheduleRunNowConfirmed),
  );

  const facts = Object.fromEntries(
    await Promise.all(Object.entries(runs).map(async ([via, run]) => [via, await runFacts(h, run)] as const)),
  );
  expect(facts.form?.card.channel).toBe('C02DEPLOYS');
  for (const [via, f] of Object.entries(facts)) expect({ via, ...f }).toEqual({ via, ...facts.form });
  const audits = Object.fromEntries(
    await Promise.all(Object.entries(runs).map(async ([via, run]) => [via, await auditOf(h, run)] as const)),
  );
  for (const [via, a] of Object.entries(audits)) {
    expect(a.via).toBe(via);
    expect({ via, ...a.rest }).toEqual({ via, ...audits.form?.rest, channel: 'C02DEPLOYS' });
  }
});

it('the schedule form writes the same params as the run form, a picked date-time and the channel default proxy included', {
  timeout: 60_000,
}, async () => {
  const LOGS = 'Collect Kubernetes Pod Logs';
  await h.user().command('defaults --proxy proxy-prod', 'C01OPS');
  await waitFor(() => ephemeralContaining(h.fake, 'proxy Prod proxy'), 'defaults saved');
  // 2026-11-21 09:30 UTC, picked in Alice's Slack time zone.
  const since = { field_since: { type: 'datetimepicker', selected_date_time: 1_795_253_400 } };
  const opened = await waitForForm(() => h.user().command(`run "${LOGS}"`, 'C01OPS'), 'field_since');
  const run = await runOf(h, () => submitAsShown(h, opened.id, since), LOGS);

  const form = await waitForForm(() => h.user().command(`schedule "${LOGS}"`, 'C01OPS'), 'field_since');
  const text = JSON.stringify(form.view.blocks);
  expect(proxyShown(form.view.blocks)).toBe('proxy-prod');
  expect(text).toContain("This channel's run defaults: proxy Prod proxy");
  // The picker names the zone it is read in, as the run form's does.
  const zoneHint = (blocks: unknown) =>
    JSON.stringify(blocks).match(/"block_id":"field_since".*?"hint":\{[^}]*"text":"([^"]*)"/)?.[1];
  expect(zoneHint(form.view.blocks)).toBeTruthy();
  expect(zoneHint(form.view.blocks)).toBe(zoneHint(opened.view.blocks));
  const existing = new Set(schedules().map((s) => s.id));
  await submitAsShown(h, form.id, since);
  const created = await waitFor(
    () => schedules().find((s) => !existing.has(s.id) && s.runbookName === LOGS),
    'the schedule',
  );
  expect(created.proxyId).toBe(run.received.proxyId);
  expect(created.params).toBe(run.received.params);
  expect(JSON.parse(created.params).since).toMatch(/^2026-11-21T\d\d:30:00[+-]\d\d:\d\d$/);
});
