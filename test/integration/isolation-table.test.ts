// Issue 23's isolation table, end to end through the real Bolt pipeline: two workspaces (A, B) and one
// Enterprise Grid org installed org-wide (G), each connected to its own Runbook API tenant, each holding one
// of every stored record kind. Then every record kind (rows) × every surface that can show, change or post
// it (columns), each cell run with its owner's people (same installation) and with each other
// installation's people (other installation): nothing crosses — not listed, "not found" by id, not
// changed, nothing of it posted into the other workspace, the other's token never used for it.
//
// The table is data: each row names, for every column, its cell or why that surface cannot reach the
// record, so a missing cell fails `every row × every column is a cell or says why not`; the matrix and
// the number of cells are printed. Cross attempts run before the owner's own check, so an attempt that
// changed the record shows up in the owner's check too. Throughout, every record carries its
// installation's marker (`mkalpha`, `mkbeta`, `mkgamma`) in its inputs: after the table, the marker of one
// installation appears in no Slack call made with another's token, in nothing shown to another's people,
// and in nothing another's Runbook API tenant received.
// The policy lets people of another organisation use the bot, so a person of one installation typing in
// another's workspace (Slack Connect) is judged there on that installation's records alone (freeze passes).
// (The app has no link unfurls: no `link_shared` listener, asserted below, so that column does not exist.)

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorState } from '../../src/emulator/state.ts';
import type { FakeEphemeral, FakeMessage } from '../../src/sandbox/fake-slack-state.ts';
import { findElement } from '../../src/sandbox/slack-user.ts';
import { stepDefinition } from '../../src/sandbox/workflow-steps.ts';
import { ACTIONS, BLOCKS, FUNCTIONS, SHORTCUTS } from '../../src/slack/kit/ids.ts';
import { writePolicyFile } from '../support/bot-harness.ts';
import {
  addZed,
  connectFromHome,
  DRAIN,
  type OAuthHarness,
  requestDrainApproval,
  resultCardOf,
  SCALE,
  scheduleThroughForm,
  startOAuthHarness,
  until,
} from '../support/oauth-harness.ts';
import { answer as answerOf, type Person, personIn, textOf } from '../support/tenant-flows.ts';
import { INSTALLED, type Installed, installAndConnect, KEY_B, KEY_G, ONLY_IN } from '../support/three-installations.ts';

const LOGS = 'Collect Kubernetes Pod Logs';
const FROZEN = 'Rotate Nginx Logs';
const SHARED_RUNBOOKS = [SCALE, DRAIN, LOGS, FROZEN];
const KEY_A = 'tenant-a-key-0123456789';
const HOUR = 60 * 60_000;
const POLICY = `
contact: "#platform"
approvers: { users: [U02BOB, U12ZED, U22UMA], groups: [S0ISOA, S0ISOB, S0ISOG] }
externalUsers: allow
freezes:
  - name: Isolation freeze
    start: "${new Date(Date.now() - 24 * HOUR).toISOString()}"
    end: "${new Date(Date.now() + 24 * HOUR).toISOString()}"
    runbooks: { names: ["${FROZEN}"] }
`;

interface Inst extends Installed {
  apiKey: string;
  /** A runbook only this installation's tenant has. */
  own: string;
  /** Its approver group: a user group of its approver's workspace (the policy names all three). */
  group: string;
  /** In every record's inputs: must never reach another installation. */
  marker: string;
  /** Where its channel defaults are set (a channel no other record of the table uses). */
  defaultsTo: string;
  r: Records;
}

/** The records each installation makes in setup (ids and the Slack surfaces that carry them). */
interface Records {
  runId: string;
  runCard: FakeMessage;
  /** The --now confirmation its requester clicked (its draft used, its run intent recorded). */
  usedConfirm: FakeEphemeral;
  /** A --now confirmation left unclicked (a draft in the store). */
  draftConfirm: FakeEphemeral;
  logsId: string;
  logsCard: FakeMessage;
  scheduleId: string;
  /** The schedules list after its schedule was paused (Resume, Edit, Delete, Run now on it). */
  scheduleList: FakeEphemeral;
  pending: { message: FakeMessage; approvalId: string };
  approvedId: string;
  stepId: string;
  stepExecutionId: string;
  alias: string;
}

const A: Inst = {
  ...INSTALLED.A,
  apiKey: KEY_A,
  own: 'Restart Kubernetes Deployment',
  group: 'S0ISOA',
  marker: 'mkalpha',
  defaultsTo: 'C03APPROVALS',
  r: {} as Records,
};
const B: Inst = {
  ...INSTALLED.B,
  apiKey: KEY_B,
  own: ONLY_IN.B,
  group: 'S0ISOB',
  marker: 'mkbeta',
  defaultsTo: 'C01OPS',
  r: {} as Records,
};
const G: Inst = {
  ...INSTALLED.G,
  apiKey: KEY_G,
  own: ONLY_IN.G,
  group: 'S0ISOG',
  marker: 'mkgamma',
  defaultsTo: 'C02DEPLOYS',
  r: {} as Records,
};
const ALL = [A, B, G];
const people = (inst: Inst) => [inst.requester, inst.approver];

let h: OAuthHarness;
const tenantOf = (inst: Inst): EmulatorState => h.emulator.tenant(inst.apiKey)!;
const userOf = (p: Person) => personIn(h, p);
const runbookId = (inst: Inst, name: string) =>
  [...tenantOf(inst).workflows.byId.values()].find((w) => w.workflow.name === name)!.workflow.id;
const executionWith = (inst: Inst, needle: string) =>
  [...tenantOf(inst).executions.byId.values()].find((e) => String(e.received.params ?? '').includes(needle));
const executionCount = (inst: Inst) => tenantOf(inst).executions.byId.size;
const scheduleOf = (inst: Inst, id: string) => tenantOf(inst).schedules.byId.get(id);

const answer = (who: Person, command: string, needle?: string | RegExp, channel?: string) =>
  answerOf(h, who, command, needle, channel);
const answerText = async (who: Person, command: string, needle?: string | RegExp, channel?: string) =>
  textOf(await answer(who, command, needle, channel));

/** `@runbook-bot <text>` in C01OPS as `who`: the bot's answer in the thread or to them. */
async function mentionAnswer(who: Person, text: string) {
  const ephemerals = h.fake.state.ephemerals.length;
  const calls = h.fake.state.calls.length;
  await userOf(who).mention(text, 'C01OPS');
  const said = await until(async () => {
    const e = h.fake.state.ephemerals.slice(ephemerals).find((x) => x.user === who.id);
    if (e) return textOf(e);
    // The answer in the thread, or to them: with their installation's token (a DM posted meanwhile is not it).
    const by = ALL.find((inst) => people(inst).some((p) => p.id === who.id))!.installation;
    const c = h.fake.state.calls
      .slice(calls)
      .find(
        (x) =>
          x.ok &&
          x.installation === by &&
          (x.method === 'chat.postMessage' || x.method === 'chat.postEphemeral') &&
          x.args.channel === 'C01OPS',
      );
    return c ? JSON.stringify(c.args) : null;
  }, `${who.team}: @mention ${text}`);
  return said;
}

/** What Slack calls `fn` led to (settled: the calls stop coming), with the installation whose token made each. */
async function callsDuring(fn: () => Promise<unknown>) {
  const since = h.fake.state.calls.length;
  await fn();
  let seen = -1;
  while (seen !== h.fake.state.calls.length) {
    seen = h.fake.state.calls.length;
    await new Promise((r) => setTimeout(r, 40));
  }
  return h.fake.state.calls.slice(since);
}

/** Homes drawn in the current cell, by person (a cell draws each person's once; the next cell draws again). */
const homes = new Map<string, Promise<{ text: string; installation: string | undefined }>>();

/** The Home tab `who` is shown now (published with whose token). */
function homeOf(who: Person) {
  let home = homes.get(who.id);
  if (!home) {
    home = drawHome(who);
    homes.set(who.id, home);
  }
  return home;
}

async function drawHome(who: Person) {
  const since = h.fake.state.calls.length;
  await userOf(who).openHome();
  const publish = await until(
    async () =>
      h.fake.state.calls.slice(since).find((c) => c.method === 'views.publish' && c.ok && c.args.user_id === who.id),
    `${who.id}'s home`,
  );
  return { text: JSON.stringify(publish.args), installation: publish.installation };
}

const modalText = (who: Person) => JSON.stringify(userOf(who).topModal()?.view ?? null);
/** The top modal once it has loaded (a form that loads opens as "Loading…" and is updated in place). */
const settledModal = (who: Person) =>
  until(async () => {
    const text = modalText(who);
    return text.includes('"loading_modal"') ? null : text;
  }, `${who.id}'s modal to load`);
const topModalId = (who: Person) => userOf(who).topModal()?.id ?? null;

/** The ephemeral `who` got since `since` (the answer to a click), as text. */
const ephemeralsTo = (who: Person, since: number) =>
  h.fake.state.ephemerals
    .slice(since)
    .filter((e) => e.user === who.id)
    .map(textOf)
    .join('\n');

/** Clicks `actionId` on `surface` as `who`: what they were shown, and the Slack calls it made. */
async function click(who: Person, surface: Parameters<ReturnType<typeof userOf>['act']>[0], actionId: string) {
  const since = h.fake.state.ephemerals.length;
  const modalBefore = topModalId(who);
  const posts = h.fake.state.responseUrlPosts.length;
  const calls = await callsDuring(() => userOf(who).act(surface, actionId));
  const modal = topModalId(who) !== modalBefore ? await settledModal(who) : '';
  const shown = [
    ephemeralsTo(who, since),
    modal,
    JSON.stringify(h.fake.state.responseUrlPosts.slice(posts)),
    JSON.stringify(calls.map((c) => c.args)),
  ].join('\n');
  return { shown, calls };
}

// ---- setup: every record kind in each installation ----------------------------------------------------

async function confirmation(inst: Inst, line: string) {
  const since = h.fake.state.ephemerals.length;
  const who = inst.requester;
  await userOf(who).command(line, 'C01OPS');
  const shown = await until(
    async () =>
      h.fake.state.ephemerals.slice(since).find((e) => e.user === who.id && textOf(e).includes(ACTIONS.confirmRun)),
    `${inst.key}'s confirmation`,
  ).catch((err: Error) => {
    const got = h.fake.state.ephemerals
      .slice(since)
      .filter((e) => e.user === who.id)
      .map(textOf);
    throw new Error(`${err.message}; answered: ${got.join(' | ') || 'nothing'}`);
  });
  // As it was drawn: using it replaces it, and a replay is a click on the buttons it had.
  return structuredClone(shown);
}

async function runNow(inst: Inst, runbook: string, inputs: string, needle: string) {
  const confirm = await confirmation(inst, `run "${runbook}" ${inputs} --now`);
  await userOf(inst.requester).act({ kind: 'ephemeral', ephemeral: confirm }, ACTIONS.confirmRun);
  const run = await until(async () => executionWith(inst, needle), `${inst.key}'s run of ${runbook}`);
  const card = await until(
    async () => (h.fake.state.messages.C01OPS ?? []).find((m) => JSON.stringify(m.blocks ?? []).includes(run.id)),
    `${inst.key}'s card of ${runbook}`,
  );
  return { id: run.id, confirm, card };
}

async function scheduleMadeBy(inst: Inst): Promise<string> {
  await scheduleThroughForm(userOf(inst.requester), SCALE, '15 4 * * *', {
    field_namespace: { value: { type: 'plain_text_input', value: 'prod' } },
    field_deployment: { value: { type: 'plain_text_input', value: `${inst.marker}-nightly` } },
    field_replicas: { value: { type: 'number_input', value: '3' } },
  });
  const schedule = await until(
    async () =>
      [...tenantOf(inst).schedules.byId.values()].find((s) => JSON.stringify(s).includes(`${inst.marker}-nightly`)),
    `${inst.key}'s schedule`,
  );
  return (schedule as unknown as { schedule: { id: string } }).schedule.id;
}

async function makeRecords(inst: Inst): Promise<void> {
  const r = inst.r;
  // Watches, run intents, drafts: a run through --now and Run; a confirmation left unclicked.
  const run = await runNow(
    inst,
    SCALE,
    `namespace=prod deployment=${inst.marker}-web replicas=2`,
    `${inst.marker}-web`,
  );
  r.runId = run.id;
  r.runCard = run.card;
  r.usedConfirm = run.confirm;
  r.draftConfirm = await confirmation(
    inst,
    `run "${SCALE}" namespace=prod deployment=${inst.marker}-draft replicas=2 --now`,
  );
  // Uploads: a long output, kept as a file in the card's thread.
  const logs = await runNow(inst, LOGS, `namespace=${inst.marker}-logs`, `${inst.marker}-logs`);
  r.logsId = logs.id;
  r.logsCard = logs.card;
  // Schedule owners and pauses: a schedule made through the form, paused from the list.
  r.scheduleId = await scheduleMadeBy(inst);
  const list = await answer(inst.requester, `schedules "${SCALE}"`, r.scheduleId);
  await userOf(inst.requester).act(
    { kind: 'ephemeral', ephemeral: list },
    (el) => el.action_id === ACTIONS.schedulePause && String(el.value).includes(r.scheduleId),
  );
  // The click is answered before the pause is written (and the API told): ask until the list shows it paused.
  let paused: Awaited<ReturnType<typeof answer>> | null = null;
  for (let attempt = 0; attempt < 40 && !paused; attempt++) {
    const got = await answer(inst.requester, `schedules "${SCALE}"`, r.scheduleId);
    if (textOf(got).includes(ACTIONS.scheduleResume)) paused = got;
    else await new Promise((resolve) => setTimeout(resolve, 250));
  }
  if (!paused) throw new Error(`${inst.key}: schedule ${r.scheduleId} was never listed as paused`);
  r.scheduleList = structuredClone(paused);
  // Subscriptions (A and B in the one channel they share), aliases, channel defaults.
  await answerText(inst.requester, `subscribe "${SCALE}"`, SCALE);
  r.alias = `al${inst.key.toLowerCase()}`;
  await answerText(inst.requester, `alias add ${r.alias} "${SCALE}" deployment=${inst.marker}-alias`, 'added');
  await answerText(inst.requester, `defaults --to <#${inst.defaultsTo}>`, /efault/, 'C02DEPLOYS');
  // Approvals and votes: one approved by its approver, one left pending.
  const approved = await requestDrainApproval(h, userOf(inst.requester), `${inst.marker}-node`);
  await userOf(inst.approver).act({ kind: 'message', message: approved.message }, ACTIONS.approvalApprove);
  r.approvedId = (await until(async () => executionWith(inst, `${inst.marker}-node`), `${inst.key}'s approved run`)).id;
  r.pending = await requestDrainApproval(h, userOf(inst.requester), `${inst.marker}-pending`);
  // Installation settings: its admin sets where approval requests go (after its requests above).
  const admin = userOf(ADMIN[inst.key]);
  await homeOf(ADMIN[inst.key]);
  const homeId = h.fake.state.homeViews[ADMIN[inst.key].id]!;
  await admin.act({ kind: 'view', view: h.fake.state.views[homeId]! }, ACTIONS.settingsOpen);
  const form = await until(async () => {
    const top = admin.topModal();
    return top && JSON.stringify(top.view).includes(BLOCKS.settingsChannel) ? top : null;
  }, `${inst.key}'s settings form`);
  const saved = await admin.submit(form.id, {
    [BLOCKS.settingsChannel]: {
      [ACTIONS.settingsChannel]: { type: 'conversations_select', selected_conversation: SETTINGS_CHANNEL[inst.key] },
    },
    [BLOCKS.settingsGroup]: { [ACTIONS.settingsGroup]: { type: 'plain_text_input', value: null } },
  });
  expect(saved.body).toContain('Saved');
  h.fake.closeModal(ADMIN[inst.key].id);
  // Workflow steps: the step, waiting for the run.
  const step = await userOf(inst.requester).runWorkflowStep(
    FUNCTIONS.runRunbook,
    stepDefinition(FUNCTIONS.runRunbook),
    {
      runbook: SCALE,
      inputs: JSON.stringify({ namespace: 'prod', deployment: `${inst.marker}-step`, replicas: 1 }),
      channel: 'C01OPS',
      wait_for_completion: true,
      invoking_user: inst.requester.id,
    },
  );
  r.stepId = step.started.execution.id;
  r.stepExecutionId = (
    await until(async () => executionWith(inst, `${inst.marker}-step`), `${inst.key}'s step run`)
  ).id;
  // Freeze passes: its approver breaks the freeze for one run.
  await answerText(inst.approver, `freezes break "${FROZEN}" --reason "isolation ${inst.key}"`, 'Break-glass');
}

beforeAll(async () => {
  h = await startOAuthHarness({
    tenants: {
      [KEY_A]: { name: 'alpha', runbooks: [...SHARED_RUNBOOKS, A.own] },
      [KEY_B]: { name: 'beta', runbooks: [...SHARED_RUNBOOKS, B.own] },
      [KEY_G]: { name: 'gamma', runbooks: [...SHARED_RUNBOOKS, G.own] },
    },
    env: {
      SUBSCRIPTIONS_POLL_SECONDS: '0.05',
      POLICY_FILE: writePolicyFile(POLICY),
      RUNBOOK_PROXIES: 'proxy-prod-us-east-1=Production (us-east-1)',
      RUN_RATE_LIMIT_PER_MINUTE: String(RUN_LIMIT),
    },
  });
  addZed(h);
  // Each installation's approver group, of its approver's workspace (Slack lists it with that one's token).
  for (const inst of ALL) {
    h.fake.state.usergroups[inst.group] = {
      handle: inst.group.toLowerCase(),
      users: [inst.approver.id],
      teamId: inst.approver.team,
    };
  }
  // Each installation's approver is its admin (Approval settings).
  for (const inst of ALL) {
    const admin = h.fake.state.users.find((u) => u.id === ADMIN[inst.key].id)!;
    admin.is_admin = true;
  }
  // Each connected by its requester: App Home names who connected it.
  for (const inst of ALL) await installAndConnect(h, inst.installation, inst.apiKey, inst.requester.id);
  for (const inst of ALL) await makeRecords(inst);
  // Every run ends: result cards, notices, the long output's file, the step's completion.
  h.clock.advance(HOUR);
  for (const inst of ALL) {
    await resultCardOf(h, inst.r.runId);
    await resultCardOf(h, inst.r.logsId);
    await until(
      async () => (await h.runtime.store.outputUploads.get(inst.r.logsId, inst.installation))?.fileId,
      `${inst.key}'s upload`,
    );
    await until(
      async () => h.fake.state.functionExecutions[inst.r.stepId]?.state !== 'running',
      `${inst.key}'s step to end`,
    );
  }
}, 60_000);
afterAll(() => h?.stop());

// ---- the table ----------------------------------------------------------------------------------------

/** Every surface that can show, change or post a record. */
const COLUMNS = [
  'list / search',
  'show',
  'run (one line, --now)',
  'status <id>',
  'watch <id>',
  'executions',
  'schedules',
  'subscriptions',
  'alias',
  'defaults',
  'audit',
  'health',
  'freezes',
  'App Home',
  'button (replayed)',
  'modal',
  'mention',
  'message shortcut',
  'typeahead',
  'Workflow step',
  'posts and calls',
] as const;
type Column = (typeof COLUMNS)[number];

/** One cell: run with `viewer` (the owner itself: same installation; another: other installation). */
type Probe = (owner: Inst, viewer: Inst) => Promise<void>;
/** A cell, or why that surface cannot reach the record (a sentence, so the gap is a decision on record). */
type Cell = Probe | string;
interface Row {
  kind: string;
  cells: Partial<Record<Column, Cell>>;
}

const NEVER_SHOWN = 'this surface never shows, takes or changes this record';

/** Nothing of `owner`'s marker in what `viewer`'s people were shown or what was sent with `viewer`'s token. */
function nothingOf(owner: Inst, viewer: Inst, shown: string, calls: { installation?: string; args: unknown }[]) {
  if (owner === viewer) return;
  expect(shown).not.toContain(owner.marker);
  for (const c of calls) {
    if (c.installation === viewer.installation) expect(JSON.stringify(c.args)).not.toContain(owner.marker);
    // The owner's token is never used for what another installation's person did.
    expect(c.installation).not.toBe(owner.installation);
  }
}

/** The value of the button `actionId` on a surface as it was drawn. */
const buttonValueIn = (surface: { blocks?: unknown }, actionId: string) =>
  findElement((surface.blocks ?? []) as Parameters<typeof findElement>[0], actionId)!.element.value!;
const messageNow = (m: FakeMessage) => h.fake.state.messages[m.channel]!.find((x) => x.ts === m.ts)!;

/** The columns listed, each with the same reason (written out, so the matrix shows every decision). */
const why = (reason: string, ...columns: Column[]): Partial<Record<Column, Cell>> =>
  Object.fromEntries(columns.map((c) => [c, reason]));

async function subscribeAgain(v: Inst) {
  await answerText(v.requester, `subscribe "${SCALE}"`, SCALE);
  expect((await h.runtime.store.subscriptions.listAll(v.installation)).map((x) => x.channel)).toContain('C01OPS');
}
async function subscribedIn(o: Inst) {
  return (await h.runtime.store.subscriptions.listAll(o.installation)).filter((x) => x.channel === 'C01OPS');
}
const freshList = (o: Inst) => answer(o.requester, `schedules "${SCALE}"`, o.r.scheduleId);
const refIn = (surface: FakeEphemeral, scheduleId: string) =>
  JSON.stringify(surface.blocks)
    .match(
      new RegExp(
        `"action_id":"${ACTIONS.scheduleRunNow}","value":"((?:[^"\\\\]|\\\\.)*${scheduleId}(?:[^"\\\\]|\\\\.)*)"`,
      ),
    )![1]!
    .replaceAll('\\"', '"');
const onSchedule = (action: string, scheduleId: string) => (el: { action_id?: string; value?: string }) =>
  el.action_id === action && String(el.value).includes(scheduleId);
const approvalLine = (home: string) => home.match(/Approval requests go to[^."]*(\(set by <@[A-Z0-9]+>\))?/)?.[0] ?? '';
/** RUN_RATE_LIMIT_PER_MINUTE of the bot here; whose window the run limits row has filled. */
const RUN_LIMIT = 10;
const limited = new Set<Inst['key']>();
const ADMIN: Record<Inst['key'], Person> = {
  A: A.approver,
  B: B.approver,
  G: G.approver,
};
const SETTINGS_CHANNEL: Record<Inst['key'], string> = { A: 'C03APPROVALS', B: 'C02DEPLOYS', G: 'C01OPS' };

const ROWS: Row[] = [
  {
    kind: 'watches (an execution and its live card)',
    cells: {
      'status <id>': async (o, v) => {
        const said = await answerText(v.requester, `status ${o.r.runId}`, o.r.runId);
        if (o === v) expect(said).toContain(`${o.marker}-web`);
        else expect(said).toMatch(/No execution has the id/);
        nothingOf(o, v, said, []);
      },
      'watch <id>': async (o, v) => {
        const before = await h.runtime.store.watches.get(o.r.runId, o.installation);
        expect(before).not.toBeNull();
        const said = await answerText(v.requester, `watch ${o.r.runId}`, o.r.runId);
        if (o === v) expect(said).not.toMatch(/No execution has the id/);
        else expect(said).toMatch(/No execution has the id/);
        nothingOf(o, v, said, []);
        // The owner's watch is as it was; the viewer's installation holds none of that id.
        expect((await h.runtime.store.watches.get(o.r.runId, o.installation))?.teamId).toBe(before?.teamId);
        if (o !== v) expect(await h.runtime.store.watches.get(o.r.runId, v.installation)).toBeNull();
      },
      executions: async (o, v) => {
        const said = await answerText(v.requester, `executions "${SCALE}"`, /xecution/);
        if (o === v) expect(said).toContain(o.r.runId);
        else expect(said).not.toContain(o.r.runId);
        nothingOf(o, v, said, []);
      },
      'App Home': async (o, v) => {
        const home = await homeOf(v.requester);
        expect(home.installation).toBe(v.installation);
        if (o !== v) expect(home.text).not.toContain(o.r.runId);
        nothingOf(o, v, home.text, []);
      },
      'button (replayed)': async (o, v) => {
        const before = executionCount(o);
        for (const action of [ACTIONS.executionStatus, ACTIONS.executionRerun]) {
          const { shown, calls } = await click(
            v.requester,
            { kind: 'message', message: messageNow(o.r.runCard) },
            action,
          );
          nothingOf(o, v, shown, calls);
          if (o !== v) expect(shown).not.toContain(`${o.marker}-web`);
        }
        if (o !== v) expect(executionCount(o)).toBe(before);
        h.fake.closeModal(v.requester.id);
      },
      mention: async (o, v) => {
        const said = await mentionAnswer(v.requester, `status ${o.r.runId}`);
        if (o === v) expect(said).toContain(`${o.marker}-web`);
        else expect(said).toMatch(/No execution has the id/);
        nothingOf(o, v, said, []);
      },
      'message shortcut': async (o, v) => {
        const before = h.fake.state.calls.length;
        await userOf(v.requester).messageShortcut(SHORTCUTS.runFromMessage, messageNow(o.r.runCard));
        const opened = await until(
          async () => h.fake.state.calls.slice(before).find((c) => c.method === 'views.open' && c.ok),
          'the run form',
        );
        expect(opened.installation).toBe(v.installation);
        nothingOf(o, v, JSON.stringify(opened.args), h.fake.state.calls.slice(before));
        h.fake.closeModal(v.requester.id);
      },
      'posts and calls': async (o, v) => {
        // Crossing shows in the marker check after the table; here: its card edited with its own token only.
        const card = await resultCardOf(h, o.r.runId);
        expect(card.installation).toBe(o.installation);
        const edits = h.fake.state.calls.filter(
          (c) => c.method === 'chat.update' && JSON.stringify(c.args).includes(o.r.runId),
        );
        expect(edits.filter((c) => c.installation === v.installation)).toHaveLength(o === v ? edits.length : 0);
      },
      ...why(
        NEVER_SHOWN,
        'list / search',
        'show',
        'run (one line, --now)',
        'schedules',
        'subscriptions',
        'alias',
        'defaults',
        'freezes',
        'typeahead',
      ),
      ...why('an execution is never a form input', 'modal'),
      ...why('runs, not executions, are audited: the audit row', 'audit'),
      ...why("health counts the tenant's executions of a runbook: the catalog row's health cell", 'health'),
      ...why('a step starts a run and takes no execution id: the workflow steps row', 'Workflow step'),
    },
  },
  {
    kind: 'run intents (a --now confirmation used once)',
    cells: {
      'button (replayed)': async (o, v) => {
        const { shown, calls } = await click(
          v.requester,
          { kind: 'ephemeral', ephemeral: o.r.usedConfirm },
          ACTIONS.confirmRun,
        );
        nothingOf(o, v, shown, calls);
        for (const inst of ALL) {
          const runs = [...tenantOf(inst).executions.byId.values()].filter((e) =>
            String(e.received.params ?? '').includes(`${o.marker}-web`),
          );
          expect(runs).toHaveLength(inst === o ? 1 : 0);
        }
      },
      ...why(
        'an intent is kept under the run being started and read only by its own start',
        'list / search',
        'show',
        'run (one line, --now)',
        'status <id>',
        'watch <id>',
        'executions',
        'schedules',
        'subscriptions',
        'alias',
        'defaults',
        'audit',
        'health',
        'freezes',
        'App Home',
        'modal',
        'mention',
        'message shortcut',
        'typeahead',
        'Workflow step',
        'posts and calls',
      ),
    },
  },
  {
    kind: 'drafts (an unclicked confirmation; Try again)',
    cells: {
      'button (replayed)': async (o, v) => {
        const surface = { kind: 'ephemeral' as const, ephemeral: o.r.draftConfirm };
        if (o !== v) {
          const run = await click(v.requester, surface, ACTIONS.confirmRun);
          nothingOf(o, v, run.shown, run.calls);
          const edit = await click(v.requester, surface, ACTIONS.confirmEdit);
          nothingOf(o, v, edit.shown, edit.calls);
          // "Try again" (a run's or a schedule's) carries a draft id too: the same id typed into it.
          const draftId = (JSON.parse(buttonValueIn(o.r.draftConfirm, ACTIONS.confirmRun)) as { d: string }).d;
          for (const action of [ACTIONS.retryRun, ACTIONS.scheduleRetry]) {
            const since = h.fake.state.ephemerals.length;
            const modalBefore = topModalId(v.requester);
            const calls = await callsDuring(() =>
              userOf(v.requester).act(surface, ACTIONS.confirmRun, { action_id: action, value: draftId }),
            );
            const opened = topModalId(v.requester) !== modalBefore ? await settledModal(v.requester) : '';
            nothingOf(o, v, `${ephemeralsTo(v.requester, since)}${opened}`, calls);
            h.fake.closeModal(v.requester.id);
          }
          for (const inst of ALL) expect(executionWith(inst, `${o.marker}-draft`)).toBeUndefined();
          h.fake.closeModal(v.requester.id);
        } else {
          // Still usable by its owner: nobody else's click used it up.
          await click(o.requester, surface, ACTIONS.confirmEdit);
          await until(async () => modalText(o.requester).includes(`${o.marker}-draft`), 'the form, filled in');
          h.fake.closeModal(o.requester.id);
        }
      },
      ...why(
        'a draft is reached only through the button that carries its id',
        'list / search',
        'show',
        'run (one line, --now)',
        'status <id>',
        'watch <id>',
        'executions',
        'schedules',
        'subscriptions',
        'alias',
        'defaults',
        'audit',
        'health',
        'freezes',
        'App Home',
        'mention',
        'message shortcut',
        'typeahead',
        'Workflow step',
        'posts and calls',
      ),
      ...why('the form a draft opens is the button cell (Edit)', 'modal'),
    },
  },
  {
    kind: 'subscriptions (A, B and G all in C01OPS)',
    cells: {
      subscriptions: async (o, v) => {
        const listed = await answerText(v.requester, 'subscriptions', /ubscri/);
        if (o === v) expect(listed).toContain(`<@${o.requester.id}>`);
        else expect(listed).not.toContain(`<@${o.requester.id}>`);
        if (o !== v) {
          // Unsubscribing there removes the viewer's own, never the owner's.
          await answerText(v.requester, `unsubscribe "${SCALE}"`, SCALE);
          expect(await subscribedIn(o)).toHaveLength(1);
          await subscribeAgain(v);
        }
      },
      'button (replayed)': async (o, v) => {
        if (o === v) return expect(await subscribedIn(o)).toHaveLength(1);
        const list = await answer(o.requester, 'subscriptions', ACTIONS.subscriptionRemove);
        const { shown, calls } = await click(
          v.requester,
          { kind: 'ephemeral', ephemeral: structuredClone(list) },
          ACTIONS.subscriptionRemove,
        );
        nothingOf(o, v, shown, calls);
        expect(await subscribedIn(o)).toHaveLength(1);
        await subscribeAgain(v);
      },
      'posts and calls': async (o, v) => {
        // Its tenant's runs are announced in the channel with its own token only.
        const notices = h.fake.state.calls.filter(
          (c) =>
            c.method === 'chat.postMessage' &&
            c.ok &&
            c.args.channel === 'C01OPS' &&
            JSON.stringify(c.args).includes(o.r.logsId) &&
            !JSON.stringify(c.args).includes(ACTIONS.executionOutput),
        );
        if (o === v) expect(notices.filter((c) => c.installation === o.installation).length).toBeGreaterThan(0);
        else expect(notices.filter((c) => c.installation === v.installation)).toEqual([]);
      },
      ...why(
        NEVER_SHOWN,
        'list / search',
        'show',
        'run (one line, --now)',
        'status <id>',
        'watch <id>',
        'executions',
        'schedules',
        'alias',
        'defaults',
        'health',
        'freezes',
        'App Home',
        'modal',
        'message shortcut',
        'typeahead',
        'Workflow step',
      ),
      ...why('subscribe and unsubscribe are audited: the audit row', 'audit'),
      ...why('a mention runs the same command line: the subscriptions cell', 'mention'),
    },
  },
  {
    kind: 'aliases (saved runs, same channel)',
    cells: {
      alias: async (o, v) => {
        const listed = await answerText(v.requester, 'alias list', /lias/);
        if (o === v) {
          expect(listed).toContain(o.r.alias);
          expect(listed).toContain(`${o.marker}-alias`);
          return;
        }
        expect(listed).not.toContain(o.r.alias);
        expect(await answerText(v.requester, `alias remove ${o.r.alias}`, o.r.alias)).toMatch(/has no alias/);
        const used = await answerText(v.requester, `${o.r.alias} --now`, /\S/);
        nothingOf(o, v, `${listed}${used}`, []);
        expect(await answerText(o.requester, 'alias list', o.r.alias)).toContain(`${o.marker}-alias`);
      },
      mention: async (o, v) => {
        const said = await mentionAnswer(v.requester, `${o.r.alias} --now`);
        if (o === v) expect(said).toContain(`${o.marker}-alias`);
        nothingOf(o, v, said, []);
      },
      ...why(
        NEVER_SHOWN,
        'list / search',
        'show',
        'status <id>',
        'watch <id>',
        'executions',
        'schedules',
        'subscriptions',
        'health',
        'freezes',
        'App Home',
        'modal',
        'message shortcut',
        'typeahead',
        'Workflow step',
        'posts and calls',
      ),
      ...why('`<alias> --now` is the run line: the alias cell', 'run (one line, --now)'),
      ...why("`defaults` shows the channel's defaults: the channel defaults row", 'defaults'),
      ...why('alias add and remove are audited: the audit row', 'audit'),
      ...why('an alias used in a mention needs no form: the mention cell', 'button (replayed)'),
    },
  },
  {
    kind: 'channel defaults (each its own in C02DEPLOYS)',
    cells: {
      defaults: async (o, v) => {
        const said = await answerText(v.requester, 'defaults', /efault/, 'C02DEPLOYS');
        if (o === v) expect(said).toContain(`<#${o.defaultsTo}>`);
        else expect(said).not.toContain(`<#${o.defaultsTo}>`);
      },
      modal: async (o, v) => {
        const who = userOf(v.requester);
        await who.command(`run "${SCALE}"`, 'C02DEPLOYS');
        const form = await until(async () => {
          const top = who.topModal();
          return top && JSON.stringify(top.view).includes(BLOCKS.channel) ? top : null;
        }, 'the run form');
        const preselected = JSON.stringify(form.view).match(/"initial_conversation":"([A-Z0-9]+)"/)?.[1];
        if (o === v) expect(preselected).toBe(o.defaultsTo);
        else expect(preselected).not.toBe(o.defaultsTo);
        h.fake.closeModal(v.requester.id);
      },
      ...why(
        NEVER_SHOWN,
        'list / search',
        'show',
        'status <id>',
        'watch <id>',
        'executions',
        'schedules',
        'subscriptions',
        'health',
        'freezes',
        'App Home',
        'button (replayed)',
        'mention',
        'message shortcut',
        'typeahead',
        'Workflow step',
        'posts and calls',
      ),
      ...why('a run line takes the same defaults as the form: the modal cell', 'run (one line, --now)'),
      ...why('`alias list` shows the defaults only beside aliases of the channel: the defaults cell', 'alias'),
      ...why('setting defaults is audited: the audit row', 'audit'),
    },
  },
  {
    kind: 'approvals and votes',
    cells: {
      'App Home': async (o, v) => {
        const home = await homeOf(v.approver);
        if (o === v) expect(home.text).toContain(o.r.pending.approvalId);
        else expect(home.text).not.toContain(o.r.pending.approvalId);
        nothingOf(o, v, home.text, []);
      },
      'button (replayed)': async (o, v) => {
        if (o !== v) {
          const { shown, calls } = await click(
            v.approver,
            { kind: 'message', message: messageNow(o.r.pending.message) },
            ACTIONS.approvalApprove,
          );
          nothingOf(o, v, shown, calls);
          for (const inst of ALL) expect(executionWith(inst, `${o.marker}-pending`)).toBeUndefined();
        }
        const approval = await h.runtime.store.approvals.get(o.r.pending.approvalId);
        expect(approval?.state).toBe('pending');
        expect(await h.runtime.store.approvals.votes(o.r.pending.approvalId)).toEqual([]);
      },
      modal: async (o, v) => {
        const { shown, calls } = await click(
          v.approver,
          { kind: 'message', message: messageNow(o.r.pending.message) },
          ACTIONS.approvalReject,
        );
        if (o === v) expect(shown).toContain(o.r.pending.approvalId);
        else expect(shown).not.toContain(o.r.pending.approvalId);
        nothingOf(o, v, shown, calls);
        h.fake.closeModal(v.approver.id);
        expect((await h.runtime.store.approvals.get(o.r.pending.approvalId))?.state).toBe('pending');
      },
      'posts and calls': async (o, v) => {
        const posts = h.fake.state.calls.filter((c) => c.ok && JSON.stringify(c.args).includes(o.r.pending.approvalId));
        expect(posts.length).toBeGreaterThan(0);
        if (o !== v) expect(posts.filter((c) => c.installation === v.installation)).toEqual([]);
      },
      ...why(
        NEVER_SHOWN,
        'list / search',
        'show',
        'run (one line, --now)',
        'status <id>',
        'watch <id>',
        'executions',
        'schedules',
        'subscriptions',
        'alias',
        'defaults',
        'health',
        'freezes',
        'message shortcut',
        'typeahead',
        'Workflow step',
      ),
      ...why('requests and decisions are audited: the audit row', 'audit'),
      ...why('a mention cannot approve: approvals are buttons only', 'mention'),
    },
  },
  {
    kind: 'audit trail',
    cells: {
      audit: async (o, v) => {
        const said = await answerText(v.requester, 'audit', 'udit');
        if (o === v) expect(said).toMatch(new RegExp(`<@${o.requester.id}>[^\\n"]*run\\.start`));
        else {
          expect(said).not.toMatch(new RegExp(`<@${o.requester.id}>[^\\n"]*(run|alias|approval|schedule|subscri)`));
          expect(said).not.toMatch(new RegExp(`<@${o.approver.id}>[^\\n"]*(run|approval|freeze)`));
        }
        nothingOf(o, v, said, []);
      },
      mention: async (o, v) => {
        const said = await mentionAnswer(v.requester, 'audit');
        if (o !== v) expect(said).not.toMatch(new RegExp(`<@${o.requester.id}>[^\\n"]*(run|alias|approval|schedule)`));
        nothingOf(o, v, said, []);
      },
      ...why(
        NEVER_SHOWN,
        'list / search',
        'show',
        'run (one line, --now)',
        'status <id>',
        'watch <id>',
        'executions',
        'schedules',
        'subscriptions',
        'alias',
        'defaults',
        'health',
        'freezes',
        'App Home',
        'button (replayed)',
        'modal',
        'message shortcut',
        'typeahead',
        'Workflow step',
        'posts and calls',
      ),
    },
  },
  {
    kind: 'schedule owners (a schedule made through the form)',
    cells: {
      schedules: async (o, v) => {
        const said = await answerText(v.requester, `schedules "${SCALE}"`, /chedule/);
        if (o === v) expect(said).toContain(o.r.scheduleId);
        else expect(said).not.toContain(o.r.scheduleId);
        nothingOf(o, v, said, []);
      },
      'App Home': async (o, v) => {
        const home = await homeOf(v.requester);
        if (o !== v) expect(home.text).not.toContain(o.r.scheduleId);
        nothingOf(o, v, home.text, []);
      },
      'button (replayed)': async (o, v) => {
        const list = await freshList(o);
        const surface = { kind: 'ephemeral' as const, ephemeral: structuredClone(list) };
        if (o !== v) {
          for (const action of [ACTIONS.scheduleRunNow, ACTIONS.scheduleDelete]) {
            const since = h.fake.state.ephemerals.length;
            const calls = await callsDuring(() => userOf(v.requester).act(surface, onSchedule(action, o.r.scheduleId)));
            nothingOf(o, v, ephemeralsTo(v.requester, since), calls);
          }
          expect(scheduleOf(o, o.r.scheduleId)).toBeDefined();
        } else {
          const since = h.fake.state.ephemerals.length;
          await userOf(o.requester).act(surface, onSchedule(ACTIONS.scheduleRunNow, o.r.scheduleId));
          await until(
            async () => ephemeralsTo(o.requester, since).includes(ACTIONS.scheduleRunNowConfirmed),
            'Run now’s confirmation',
          );
        }
      },
      modal: async (o, v) => {
        // Edit, with the schedule's reference as the list carries it.
        const list = await freshList(o);
        const ref = refIn(list, o.r.scheduleId);
        const before = topModalId(v.requester);
        const calls = await callsDuring(() =>
          userOf(v.requester).act(
            { kind: 'ephemeral', ephemeral: structuredClone(list) },
            onSchedule(ACTIONS.scheduleRunNow, o.r.scheduleId),
            {
              action_id: ACTIONS.scheduleEdit,
              value: ref,
            },
          ),
        );
        const opened = topModalId(v.requester) !== before ? await settledModal(v.requester) : '';
        // Found in its own installation (paused, so Edit asks to resume first); not even that in another.
        if (o === v) expect(opened).toMatch(/paused/);
        else expect(opened).not.toMatch(/paused/);
        nothingOf(o, v, opened, calls);
        h.fake.closeModal(v.requester.id);
      },
      ...why(
        NEVER_SHOWN,
        'list / search',
        'show',
        'run (one line, --now)',
        'status <id>',
        'watch <id>',
        'executions',
        'subscriptions',
        'alias',
        'defaults',
        'health',
        'freezes',
        'message shortcut',
        'typeahead',
        'Workflow step',
        'posts and calls',
      ),
      ...why('saving and deleting are audited: the audit row', 'audit'),
      ...why('a mention opens no form; `schedules` by mention is the schedules cell', 'mention'),
    },
  },
  {
    kind: 'schedule pauses (paused from the list)',
    cells: {
      schedules: async (o, v) => {
        const said = await answerText(v.requester, `schedules "${SCALE}"`, /chedule/);
        if (o === v) expect(said).toMatch(new RegExp(`${ACTIONS.scheduleResume}[^}]*${o.r.scheduleId}`));
        else expect(said).not.toContain(o.r.scheduleId);
      },
      'App Home': async (o, v) => {
        const home = await homeOf(v.requester);
        if (o !== v) expect(home.text).not.toContain(o.r.scheduleId);
      },
      'button (replayed)': async (o, v) => {
        if (o !== v) {
          const surface = { kind: 'ephemeral' as const, ephemeral: structuredClone(o.r.scheduleList) };
          const since = h.fake.state.ephemerals.length;
          const calls = await callsDuring(() =>
            userOf(v.requester).act(surface, onSchedule(ACTIONS.scheduleResume, o.r.scheduleId)),
          );
          nothingOf(o, v, ephemeralsTo(v.requester, since), calls);
          // Pause and Skip next run, with the same reference, change nothing of the owner's either.
          const drawn = buttonValueIn(o.r.scheduleList, ACTIONS.scheduleResume);
          for (const action of [ACTIONS.schedulePause, ACTIONS.scheduleSkip]) {
            const from = h.fake.state.ephemerals.length;
            const made = await callsDuring(() =>
              userOf(v.requester).act(surface, onSchedule(ACTIONS.scheduleResume, o.r.scheduleId), {
                action_id: action,
                value: drawn,
              }),
            );
            nothingOf(o, v, ephemeralsTo(v.requester, from), made);
          }
        }
        // Still paused for its owner.
        expect(textOf(await freshList(o))).toMatch(new RegExp(`${ACTIONS.scheduleResume}[^}]*${o.r.scheduleId}`));
      },
      ...why(
        NEVER_SHOWN,
        'list / search',
        'show',
        'run (one line, --now)',
        'status <id>',
        'watch <id>',
        'executions',
        'subscriptions',
        'alias',
        'defaults',
        'health',
        'freezes',
        'modal',
        'mention',
        'message shortcut',
        'typeahead',
        'Workflow step',
        'posts and calls',
      ),
      ...why('pause and resume are audited: the audit row', 'audit'),
    },
  },
  {
    kind: 'uploads (a long output kept as a file)',
    cells: {
      'status <id>': async (o, v) => {
        const said = await answerText(v.requester, `status ${o.r.logsId}`, o.r.logsId);
        if (o === v) expect(said).toContain(LOGS);
        else expect(said).toMatch(/No execution has the id/);
      },
      'button (replayed)': async (o, v) => {
        const { shown, calls } = await click(
          v.requester,
          { kind: 'message', message: messageNow(o.r.logsCard) },
          ACTIONS.executionOutput,
        );
        // The output opens in a modal that loads: what it ends up showing.
        const ended = await settledModal(v.requester);
        if (o === v) expect(ended).toContain(o.r.logsId);
        else expect(ended).not.toContain(o.r.logsId);
        nothingOf(o, v, `${shown}${ended}`, calls);
        expect(calls.filter((c) => c.method.startsWith('files.'))).toEqual([]);
        h.fake.closeModal(v.requester.id);
      },
      'posts and calls': async (o, v) => {
        const fileId = (await h.runtime.store.outputUploads.get(o.r.logsId, o.installation))?.fileId;
        // Kept under its own installation only.
        if (o !== v) expect(await h.runtime.store.outputUploads.get(o.r.logsId, v.installation)).toBeNull();
        const uploads = h.fake.state.calls.filter(
          (c) => c.method === 'files.completeUploadExternal' && c.ok && JSON.stringify(c.args).includes(String(fileId)),
        );
        expect(uploads).toHaveLength(1);
        expect(uploads[0]!.installation).toBe(o.installation);
        if (o !== v) expect(uploads[0]!.installation).not.toBe(v.installation);
      },
      ...why(
        NEVER_SHOWN,
        'list / search',
        'show',
        'run (one line, --now)',
        'watch <id>',
        'executions',
        'schedules',
        'subscriptions',
        'alias',
        'defaults',
        'audit',
        'health',
        'freezes',
        'App Home',
        'modal',
        'mention',
        'message shortcut',
        'typeahead',
        'Workflow step',
      ),
    },
  },
  {
    kind: 'workflow steps (a step waiting for its run)',
    cells: {
      'Workflow step': async (o, v) => {
        const ends = h.fake.state.calls.filter(
          (c) => c.method.startsWith('functions.complete') && c.args.function_execution_id === o.r.stepId,
        );
        expect(ends).toHaveLength(1);
        expect(ends[0]!.installation).toBe(o.installation);
        expect(h.fake.state.functionExecutions[o.r.stepId]).toMatchObject({
          state: 'completed',
          outputs: { execution_id: o.r.stepExecutionId },
        });
        // Kept under its own installation only.
        expect((await h.runtime.store.workflowSteps.get(o.r.stepId, o.installation))?.executionId).toBe(
          o.r.stepExecutionId,
        );
        if (o !== v) {
          expect(executionWith(v, `${o.marker}-step`)).toBeUndefined();
          expect(await h.runtime.store.workflowSteps.get(o.r.stepId, v.installation)).toBeNull();
        }
      },
      'status <id>': async (o, v) => {
        const said = await answerText(v.requester, `status ${o.r.stepExecutionId}`, o.r.stepExecutionId);
        if (o === v) expect(said).toContain(`${o.marker}-step`);
        else expect(said).toMatch(/No execution has the id/);
      },
      ...why(
        NEVER_SHOWN,
        'list / search',
        'show',
        'run (one line, --now)',
        'watch <id>',
        'executions',
        'schedules',
        'subscriptions',
        'alias',
        'defaults',
        'audit',
        'health',
        'freezes',
        'App Home',
        'button (replayed)',
        'modal',
        'mention',
        'message shortcut',
        'typeahead',
        'posts and calls',
      ),
    },
  },
  {
    kind: 'freeze passes (break-glass)',
    cells: {
      'run (one line, --now)': async (o, v) => {
        if (o !== v) {
          // The owner's approver, typing in the other workspace: their pass is not good there.
          const before = executionCount(v);
          const inV = { id: o.approver.id, team: v.requester.team };
          const since = h.fake.state.ephemerals.length;
          await userOf(inV).command(`run "${FROZEN}" --now`, 'C01OPS');
          await until(async () => ephemeralsTo(inV, since), 'an answer');
          const confirm = h.fake.state.ephemerals
            .slice(since)
            .find((e) => e.user === inV.id && textOf(e).includes(ACTIONS.confirmRun));
          if (confirm)
            await callsDuring(() => userOf(inV).act({ kind: 'ephemeral', ephemeral: confirm }, ACTIONS.confirmRun));
          // Refused by the freeze itself (the policy lets people of another organisation use the bot).
          await until(async () => /change freeze/.test(ephemeralsTo(inV, since)), 'the freeze’s refusal');
          expect(executionCount(v)).toBe(before);
          return;
        }
        const since = h.fake.state.ephemerals.length;
        await userOf(o.approver).command(`run "${FROZEN}" --now`, 'C01OPS');
        const confirm = await until(
          async () =>
            h.fake.state.ephemerals
              .slice(since)
              .find((e) => e.user === o.approver.id && textOf(e).includes(ACTIONS.confirmRun)),
          'the confirmation',
        );
        const before = executionCount(o);
        await userOf(o.approver).act({ kind: 'ephemeral', ephemeral: confirm }, ACTIONS.confirmRun);
        await until(async () => executionCount(o) > before, `${o.key}'s run inside the freeze, on its pass`);
      },
      ...why(
        NEVER_SHOWN,
        'list / search',
        'show',
        'status <id>',
        'watch <id>',
        'executions',
        'schedules',
        'subscriptions',
        'alias',
        'defaults',
        'health',
        'App Home',
        'button (replayed)',
        'modal',
        'mention',
        'message shortcut',
        'typeahead',
        'Workflow step',
        'posts and calls',
      ),
      ...why('`freezes` lists the operator’s windows, the same for all; passes are not listed', 'freezes'),
      ...why('grants are audited: the audit row', 'audit'),
    },
  },
  {
    kind: 'run limits (a person at their limit)',
    cells: {
      'run (one line, --now)': async (o, v) => {
        // The owner's approver has started RUN_LIMIT runs this minute in the owner's installation.
        const who = o === v ? o.approver : { id: o.approver.id, team: v.requester.team };
        if (o !== v || !limited.has(o.key)) {
          for (let i = 0; i < RUN_LIMIT && !limited.has(o.key); i++)
            await h.runtime.store.runLimits.take(`run:${o.approver.id}`, Date.now(), 60_000, RUN_LIMIT, o.installation);
          limited.add(o.key);
        }
        const before = executionCount(v);
        const since = h.fake.state.ephemerals.length;
        const line = `run "${SCALE}" namespace=prod deployment=limit-${v.key.toLowerCase()} replicas=1 --now`;
        await userOf(who).command(line, 'C01OPS');
        const confirm = await until(
          async () =>
            h.fake.state.ephemerals
              .slice(since)
              .find((e) => e.user === who.id && textOf(e).includes(ACTIONS.confirmRun)),
          'the confirmation',
        );
        await userOf(who).act({ kind: 'ephemeral', ephemeral: structuredClone(confirm) }, ACTIONS.confirmRun);
        if (o === v) {
          // Its own installation counts its runs: refused.
          await until(async () => /too many runs this minute/.test(ephemeralsTo(who, since)), 'the limit’s refusal');
          expect(executionCount(v)).toBe(before);
        } else {
          // Another installation keeps its own count for the same person: the run starts there.
          await until(async () => executionCount(v) > before, `the run in ${v.key}`);
        }
      },
      ...why(
        'a limit is a count, shown nowhere: it is seen when a run is refused',
        'list / search',
        'show',
        'status <id>',
        'watch <id>',
        'executions',
        'schedules',
        'subscriptions',
        'alias',
        'defaults',
        'audit',
        'health',
        'freezes',
        'App Home',
        'button (replayed)',
        'modal',
        'mention',
        'message shortcut',
        'typeahead',
        'Workflow step',
        'posts and calls',
      ),
    },
  },
  {
    kind: 'installation settings (approvals channel)',
    cells: {
      'App Home': async (o, v) => {
        const line = approvalLine((await homeOf(ADMIN[v.key])).text);
        if (o === v) expect(line).toContain(`<#${SETTINGS_CHANNEL[o.key]}>`);
        else {
          expect(line).not.toContain(`<#${SETTINGS_CHANNEL[o.key]}>`);
          expect(line).not.toContain(`<@${ADMIN[o.key].id}>`);
        }
      },
      modal: async (o, v) => {
        const admin = userOf(ADMIN[v.key]);
        await homeOf(ADMIN[v.key]);
        const homeId = h.fake.state.homeViews[ADMIN[v.key].id]!;
        await admin.act({ kind: 'view', view: h.fake.state.views[homeId]! }, ACTIONS.settingsOpen);
        const form = await until(async () => {
          const top = admin.topModal();
          return top && JSON.stringify(top.view).includes(BLOCKS.settingsChannel) ? top : null;
        }, 'the settings form');
        const initial = JSON.stringify(form.view).match(/"initial_conversation":"([A-Z0-9]+)"/)?.[1];
        if (o === v) expect(initial).toBe(SETTINGS_CHANNEL[o.key]);
        else expect(initial).not.toBe(SETTINGS_CHANNEL[o.key]);
        const before = await h.runtime.store.installationSettings.get(o.installation);
        // Submitted (its own values again): saved for its own installation, the owner's untouched.
        const saved = await admin.submit(form.id, {
          [BLOCKS.settingsChannel]: {
            [ACTIONS.settingsChannel]: { type: 'conversations_select', selected_conversation: SETTINGS_CHANNEL[v.key] },
          },
          [BLOCKS.settingsGroup]: { [ACTIONS.settingsGroup]: { type: 'plain_text_input', value: null } },
        });
        expect(saved.body).toContain('Saved');
        expect((await h.runtime.store.installationSettings.get(v.installation))?.approvalsChannel).toBe(
          SETTINGS_CHANNEL[v.key],
        );
        const after = await h.runtime.store.installationSettings.get(o.installation);
        if (o !== v) expect(after).toEqual(before);
        h.fake.closeModal(ADMIN[v.key].id);
      },
      ...why(
        NEVER_SHOWN,
        'list / search',
        'show',
        'run (one line, --now)',
        'status <id>',
        'watch <id>',
        'executions',
        'schedules',
        'subscriptions',
        'alias',
        'defaults',
        'health',
        'freezes',
        'button (replayed)',
        'mention',
        'message shortcut',
        'typeahead',
        'Workflow step',
        'posts and calls',
      ),
      ...why('a save is audited (settings.update): the audit row', 'audit'),
    },
  },
  {
    kind: "user groups and approver users (each installation's approver group and approver)",
    cells: {
      modal: async (o, v) => {
        // The run form of a runbook needing approval names the viewer's own group and approver (the policy
        // names all three of each), never the owner's.
        const who = userOf(v.requester);
        await who.command(`run "${DRAIN}"`, 'C01OPS');
        const form = await until(async () => {
          const top = who.topModal();
          return top && JSON.stringify(top.view).includes('field_node_name') ? top : null;
        }, 'the drain form');
        const text = JSON.stringify(form.view);
        if (o === v) expect(text).toContain(`<!subteam^${o.group}>`);
        else expect(text).not.toContain(o.group);
        if (o === v) expect(text).toContain(`<@${o.approver.id}>`);
        else expect(text).not.toContain(o.approver.id);
        h.fake.closeModal(v.requester.id);
      },
      'App Home': async (o, v) => {
        // The settings form (from App Home) offers the groups the viewer's workspace may narrow to.
        const admin = userOf(ADMIN[v.key]);
        await homeOf(ADMIN[v.key]);
        const homeId = h.fake.state.homeViews[ADMIN[v.key].id]!;
        if (o !== v) expect(JSON.stringify(h.fake.state.views[homeId]!.view)).not.toContain(o.group);
        await admin.act({ kind: 'view', view: h.fake.state.views[homeId]! }, ACTIONS.settingsOpen);
        const form = await until(async () => {
          const top = admin.topModal();
          return top && JSON.stringify(top.view).includes(BLOCKS.settingsGroup) ? top : null;
        }, 'the settings form');
        if (o === v) expect(JSON.stringify(form.view)).toContain(o.group);
        else expect(JSON.stringify(form.view)).not.toContain(o.group);
        h.fake.closeModal(ADMIN[v.key].id);
      },
      'posts and calls': async (o, v) => {
        // Its members are read with its own token only (an org-wide one naming the group's workspace), and no
        // call with another's token names it (requests, their updates, forms, notices, refusals).
        const reads = h.fake.state.calls.filter(
          (c) => c.method === 'usergroups.users.list' && c.args.usergroup === o.group,
        );
        expect(reads.length).toBeGreaterThan(0);
        for (const read of reads) expect(read.installation).toBe(o.installation);
        if (o === G) for (const read of reads) expect(read.args.team_id).toBe(G.approver.team);
        const naming = h.fake.state.calls.filter(
          (c) => c.installation === v.installation && textOnce(c, () => c.args).includes(o.group),
        );
        if (o === v) expect(naming.length).toBeGreaterThan(0);
        else expect(naming.map((c) => c.method)).toEqual([]);
      },
      audit: async (o, v) => {
        const said = await answerText(v.approver, 'audit', /udit/);
        if (o !== v) expect(said).not.toContain(o.group);
      },
      ...why(
        'approvers are named on forms, requests and refusals only: the modal, App Home and calls cells',
        'list / search',
        'show',
        'run (one line, --now)',
        'status <id>',
        'watch <id>',
        'executions',
        'schedules',
        'subscriptions',
        'alias',
        'defaults',
        'health',
        'freezes',
        'button (replayed)',
        'mention',
        'message shortcut',
        'typeahead',
      ),
      ...why('a step needing approval is refused without naming approvers: the calls cell', 'Workflow step'),
    },
  },
  {
    kind: 'API connections',
    cells: {
      'App Home': async (o, v) => {
        const home = (await homeOf(ADMIN[v.key])).text;
        expect(home).toContain(`by <@${v.requester.id}>`);
        if (o !== v) expect(home).not.toContain(`by <@${o.requester.id}>`);
      },
      modal: async (o, v) => {
        // Connect, submitted by the viewer's admin (its own key again): its own connection, never the owner's.
        const before = await h.runtime.tenants!.connections.status(o.installation);
        await connectFromHome(h, userOf(ADMIN[v.key]), v.apiKey);
        h.fake.closeModal(ADMIN[v.key].id);
        expect((await h.runtime.tenants!.connections.status(v.installation))?.connectedBy).toBe(ADMIN[v.key].id);
        if (o !== v) expect(await h.runtime.tenants!.connections.status(o.installation)).toEqual(before);
      },
      'posts and calls': async (o, v) => {
        // Each tenant's key reached its own tenant only: nothing of the owner's in the other's tenant.
        if (o !== v) expect(executionWith(v, o.marker)).toBeUndefined();
        expect(executionWith(o, `${o.marker}-web`)).toBeDefined();
      },
      ...why(
        'the key is never shown, and Connect / Remove carry no id: they act on the clicker’s own installation',
        'button (replayed)',
      ),
      ...why(
        NEVER_SHOWN,
        'list / search',
        'show',
        'run (one line, --now)',
        'status <id>',
        'watch <id>',
        'executions',
        'schedules',
        'subscriptions',
        'alias',
        'defaults',
        'health',
        'freezes',
        'mention',
        'message shortcut',
        'typeahead',
        'Workflow step',
      ),
      ...why('connect and remove are audited: the audit row', 'audit'),
    },
  },
  {
    kind: 'leases and the request budget',
    cells: {
      'status <id>': async (o, v) => {
        // A lookup spends the viewer's tenant's requests only: the id reaches its API and no other.
        const nonce = crypto.randomUUID();
        await answerText(v.requester, `status ${nonce}`, nonce);
        const asked = (inst: Inst) => tenantOf(inst).requests.log.some((r) => r.path.includes(nonce));
        expect(asked(v)).toBe(true);
        if (o !== v) expect(asked(o)).toBe(false);
      },
      ...why(
        'leases and budgets hold no workspace data; their effect is which tenant a request reaches: the status cell',
        'list / search',
        'show',
        'run (one line, --now)',
        'watch <id>',
        'executions',
        'schedules',
        'subscriptions',
        'alias',
        'defaults',
        'audit',
        'health',
        'freezes',
        'App Home',
        'button (replayed)',
        'modal',
        'mention',
        'message shortcut',
        'typeahead',
        'Workflow step',
        'posts and calls',
      ),
    },
  },
  {
    kind: 'catalog cache (a runbook only its tenant has)',
    cells: {
      'list / search': async (o, v) => {
        for (const line of ['list', `list ${o.own.split(' ')[0]}`]) {
          const said = await answerText(v.requester, line, /\S/);
          if (o === v) expect(said).toContain(o.own);
          else expect(said).not.toContain(o.own);
        }
      },
      show: async (o, v) => {
        const said = await answerText(v.requester, `show "${o.own}"`, /\S/);
        if (o === v) expect(said).toContain(runbookId(o, o.own));
        else expect(said).not.toContain(runbookId(o, o.own));
      },
      'run (one line, --now)': async (o, v) => {
        const before = executionCount(v);
        const said = await answerText(v.requester, `run "${o.own}" --now`, /\S/);
        // Its own: found (its inputs are then checked); another's: no such runbook there.
        const found = said.includes(ACTIONS.confirmRun) || said.includes('These values are not valid');
        expect(found).toBe(o === v);
        expect(executionCount(v)).toBe(before);
      },
      health: async (o, v) => {
        const said = await answerText(v.requester, `health "${o.own}"`, /\S/);
        if (o !== v) expect(said).not.toContain(runbookId(o, o.own));
      },
      typeahead: async (o, v) => {
        const who = userOf(v.requester);
        await who.command('run', 'C01OPS');
        const form = await until(async () => {
          const top = who.topModal();
          return top && JSON.stringify(top.view).includes(ACTIONS.runbookPicker) ? top : null;
        }, 'the run form with its picker');
        const offered = await who.suggest(form.id, ACTIONS.runbookPicker, BLOCKS.runbookPicker, o.own.split(' ')[0]!);
        if (o === v) expect(offered.body).toContain(o.own);
        else expect(offered.body).not.toContain(o.own);
        h.fake.closeModal(v.requester.id);
      },
      mention: async (o, v) => {
        const said = await mentionAnswer(v.requester, `show "${o.own}"`);
        if (o !== v) expect(said).not.toContain(runbookId(o, o.own));
      },
      'Workflow step': async (o, v) => {
        if (o === v) return;
        const before = executionCount(v) + executionCount(o);
        const step = await userOf(v.requester).runWorkflowStep(
          FUNCTIONS.runRunbook,
          stepDefinition(FUNCTIONS.runRunbook),
          {
            runbook: o.own,
            inputs: '{}',
            invoking_user: v.requester.id,
          },
        );
        const ended = await until(
          async () =>
            h.fake.state.functionExecutions[step.started.execution.id]?.state === 'running'
              ? null
              : h.fake.state.functionExecutions[step.started.execution.id],
          'the step to end',
        );
        expect(ended.state).toBe('failed');
        expect(executionCount(v) + executionCount(o)).toBe(before);
      },
      ...why('the message shortcut opens the same picker: the typeahead cell', 'message shortcut'),
      ...why(
        NEVER_SHOWN,
        'status <id>',
        'watch <id>',
        'executions',
        'schedules',
        'subscriptions',
        'alias',
        'defaults',
        'audit',
        'freezes',
        'App Home',
        'button (replayed)',
        'modal',
        'posts and calls',
      ),
    },
  },
  {
    kind: 'identity cache (who a person is)',
    cells: {
      'posts and calls': async (o, v) => {
        // users.info about the owner's requester only ever with the owner's token (its approver also types in
        // another workspace in the freeze passes row: looked up there as that workspace's visitor).
        const about = h.fake.state.calls.filter((c) => c.method === 'users.info' && c.args.user === o.requester.id);
        expect(about.length).toBeGreaterThan(0);
        expect(about.filter((c) => c.installation === v.installation)).toHaveLength(o === v ? about.length : 0);
      },
      ...why(
        'a profile is read for the person acting and shown nowhere: the calls cell',
        'list / search',
        'show',
        'run (one line, --now)',
        'status <id>',
        'watch <id>',
        'executions',
        'schedules',
        'subscriptions',
        'alias',
        'defaults',
        'audit',
        'health',
        'freezes',
        'App Home',
        'button (replayed)',
        'modal',
        'mention',
        'message shortcut',
        'typeahead',
        'Workflow step',
      ),
    },
  },
];

const cellsOf = (row: Row) => COLUMNS.filter((c) => typeof row.cells[c] === 'function');
const CELL_COUNT = ROWS.reduce((n, row) => n + cellsOf(row).length, 0);

it('the link unfurl column does not exist: the app listens to no link_shared', () => {
  for (const file of ['manifest.http.json', 'manifest.many-workspaces.json', 'manifest.socket.json']) {
    const manifest = readFileSync(path.join(import.meta.dirname, '../../manifest', file), 'utf8');
    expect(manifest).not.toContain('link_shared');
  }
});

it('every row × every column is a cell or says why not; the matrix and the count', () => {
  const missing = ROWS.flatMap((row) =>
    COLUMNS.filter((c) => row.cells[c] === undefined).map((c) => `${row.kind} × ${c}`),
  );
  const lines = ROWS.map(
    (row) =>
      `${row.kind.padEnd(48).slice(0, 48)} ${COLUMNS.map((c) => (typeof row.cells[c] === 'function' ? 'X' : row.cells[c] ? '.' : '?')).join(' ')}`,
  );
  console.log(
    `isolation table: ${ROWS.length} record kinds × ${COLUMNS.length} surfaces, ${CELL_COUNT} cells, each run ${ALL.length}×${ALL.length} (owner × viewer)\n${lines.join('\n')}`,
  );
  expect(missing).toEqual([]);
  // A cell taken away (or added) changes this on purpose.
  expect(CELL_COUNT).toBe(55);
});

describe.each(ROWS.map((row) => [row.kind, row] as const))('%s', (_kind, row) => {
  it.each(cellsOf(row).map((c) => [c] as const))(
    '× %s: same installation sees it, no other does',
    async (column) => {
      const probe = row.cells[column] as Probe;
      homes.clear();
      for (const owner of ALL) {
        for (const viewer of ALL.filter((v) => v !== owner)) {
          await probe(owner, viewer);
          nothingCrossed(`${owner.key}'s record, ${viewer.key}'s ${column}`);
        }
        await probe(owner, owner);
      }
    },
    30_000,
  );
});

/** JSON of what does not change once made (a call's arguments, what an execution received), made once. */
const frozenText = new WeakMap<object, string>();
const textOnce = (thing: object, of: () => unknown) => {
  let text = frozenText.get(thing);
  if (text === undefined) {
    text = JSON.stringify(of());
    frozenText.set(thing, text);
  }
  return text;
};

/** No installation's marker in another's Slack calls, in what another's people were shown, or in another's tenant. */
function nothingCrossed(where: string) {
  const crossed: string[] = [];
  const others = (inst: Inst | undefined) => ALL.filter((o) => o !== inst);
  for (const c of h.fake.state.calls) {
    const by = ALL.find((i) => i.installation === c.installation);
    if (!by) continue;
    const text = textOnce(c, () => c.args);
    for (const owner of others(by))
      if (text.includes(owner.marker)) crossed.push(`${c.method} with ${by.key}'s token: ${text.slice(0, 300)}`);
  }
  const installationOf = new Map(ALL.flatMap((inst) => people(inst).map((p) => [p.id, inst] as const)));
  for (const e of h.fake.state.ephemerals) {
    const of = installationOf.get(e.user);
    if (!of) continue;
    // Replacing an ephemeral gives it new blocks: its text is read again then.
    const text = `${e.text ?? ''}${e.blocks ? textOnce(e.blocks, () => e.blocks) : ''}`;
    for (const owner of others(of))
      if (text.includes(owner.marker)) crossed.push(`shown to ${e.user} (${of.key}): ${text.slice(0, 300)}`);
  }
  for (const tenant of ALL) {
    for (const e of tenantOf(tenant).executions.byId.values()) {
      const text = textOnce(e, () => e.received);
      for (const owner of others(tenant))
        if (text.includes(owner.marker)) crossed.push(`${tenant.key}'s tenant received ${text.slice(0, 300)}`);
    }
    const schedules = JSON.stringify([...tenantOf(tenant).schedules.byId.values()]);
    for (const owner of others(tenant))
      if (schedules.includes(owner.marker)) crossed.push(`${tenant.key}'s tenant holds a schedule of ${owner.key}`);
  }
  expect(crossed.map((line) => `${where}: ${line}`)).toEqual([]);
}

it('after the table: no installation’s marker in another’s calls, people or Runbook API tenant', () => {
  nothingCrossed('at the end');
});
