// When Slack cannot say which user groups someone is in, access cannot be checked, so nothing happens
// and the person is told exactly that, with the same sentence, from every path: slash commands,
// buttons, the global shortcut, modal submissions, approvals and App Home. (Two error-to-sentence
// helpers once turned it into "Something went wrong while talking to the Runbook API" on some paths.)
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { policyGroups } from '../../src/policy/load-policy.ts';
import type { FakeMessage } from '../../src/sandbox/fake-slack-state.ts';
import { Identity } from '../../src/slack/kit/identity.ts';
import { ACTIONS, BLOCKS, SHORTCUTS } from '../../src/slack/kit/ids.ts';
import { type Harness, startHarness, waitFor } from '../support/bot-harness.ts';

const SENTENCE = 'Slack could not tell which user groups you are in';
const POLICY = `
rules:
  - name: approvers may not run restarts
    effect: deny
    actions: [run]
    groups: [S0APPROVERS]
    runbooks: { names: ["Restart *"] }
`;
const USER = 'U02BOB';
const SCALE = 'Scale Kubernetes Deployment';

let h: Harness;
let runbookId: string;
let scheduleId: string;
let executionId: string;
beforeAll(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'groups-'));
  writeFileSync(path.join(dir, 'policy.yaml'), POLICY);
  h = await startHarness({ env: { POLICY_FILE: path.join(dir, 'policy.yaml') } });
  const runbook = (await h.runtime.deps.catalog.all()).find((r) => r.name === SCALE)!;
  runbookId = runbook.id;
  scheduleId = (
    await h.runtime.api.schedules.create({
      proxyId: 'proxy-dev',
      runbookId,
      runbookName: SCALE,
      inputSchema: runbook.inputSchema,
      params: JSON.stringify({ namespace: 'web', deployment: 'api', replicas: 2 }),
      schedule: '0 9 * * *',
    })
  ).id;
  executionId = (await h.runtime.api.workflows.run(runbookId, { proxyId: 'proxy-dev', params: {} })).executionIds[0]!;
});
afterAll(async () => {
  await h.stop();
});

const GROUP = { handle: 'approvers', users: ['U02BOB'] };

/** Nothing is remembered from before; Slack can read the policy's group, or answers its lookup with an error. */
function forgetGroups(readable: boolean) {
  const { policy } = h.runtime.deps.access;
  h.runtime.deps.access.identity = new Identity({
    groups: policyGroups(policy),
    logger: createLogger({ level: 'silent' }),
  });
  h.fake.setFaults({});
  if (readable) h.fake.state.usergroups.S0APPROVERS = structuredClone(GROUP);
  // As with a missing usergroups:read scope: Slack answers with an error, at once.
  else delete h.fake.state.usergroups.S0APPROVERS;
}

/** From now on Slack cannot say who is in the policy's group, and nothing is remembered from before. */
function breakUserGroups() {
  forgetGroups(false);
}

function button(actionId: string, value: string): { kind: 'message'; message: FakeMessage } {
  const message = {
    type: 'message',
    channel: 'C01OPS',
    ts: `${Date.now() / 1000}`,
    text: '',
    blocks: [{ type: 'actions', elements: [{ type: 'button', action_id: actionId, value }] }],
  } as unknown as FakeMessage;
  return { kind: 'message', message };
}

/** Waits until Bob sees the sentence anywhere (an ephemeral or response, his top modal, his Home tab) after `since`. */
async function bobIsTold(since: { ephemerals: number; modal: string | null }, what: string): Promise<void> {
  await waitFor(() => {
    const ephemerals = h.fake.state.ephemerals.slice(since.ephemerals).filter((e) => e.user === USER);
    const top = h.user(USER).topModal();
    const modal = top && top.id !== since.modal ? top.view : null;
    const homeId = h.fake.state.homeViews[USER];
    const home = homeId ? h.fake.state.views[homeId]?.view : null;
    return JSON.stringify([ephemerals.map((e) => [e.text, e.blocks]), modal, home]).includes(SENTENCE);
  }, `the sentence after ${what}`);
}

function mark() {
  return { ephemerals: h.fake.state.ephemerals.length, modal: h.user(USER).topModal()?.id ?? null };
}

describe('the user-group fail-closed sentence reaches the person', () => {
  const bob = () => h.user(USER);
  const paths: Array<[string, () => Promise<unknown>]> = [
    ['/runbook list', () => bob().command('list', 'C01OPS')],
    ['/runbook show', () => bob().command(`show "${SCALE}"`, 'C01OPS')],
    ['/runbook run', () => bob().command(`run "${SCALE}"`, 'C01OPS')],
    ['/runbook schedule', () => bob().command(`schedule "${SCALE}"`, 'C01OPS')],
    ['/runbook schedules', () => bob().command('schedules', 'C01OPS')],
    ['/runbook executions', () => bob().command('executions', 'C01OPS')],
    ['/runbook status', () => bob().command(`status ${executionId}`, 'C01OPS')],
    ['/runbook subscribe', () => bob().command(`subscribe "${SCALE}"`, 'C01OPS')],
    ['/runbook subscribe all', () => bob().command('subscribe all', 'C01OPS')],
    ['/runbook subscriptions', () => bob().command('subscriptions', 'C01OPS')],
    ['/runbook unsubscribe', () => bob().command('unsubscribe all', 'C01OPS')],
    ['/runbook watch', () => bob().command(`watch ${executionId}`, 'C01OPS')],
    ['/runbook audit', () => bob().command('audit', 'C01OPS')],
    ['the Run button', () => bob().act(button(ACTIONS.runbookRun, runbookId), ACTIONS.runbookRun)],
    ['the Schedule button', () => bob().act(button(ACTIONS.runbookSchedule, runbookId), ACTIONS.runbookSchedule)],
    ['the Details button', () => bob().act(button(ACTIONS.runbookDetails, runbookId), ACTIONS.runbookDetails)],
    [
      'Run now',
      () =>
        bob().act(
          button(ACTIONS.scheduleRunNow, JSON.stringify({ id: scheduleId, r: runbookId })),
          ACTIONS.scheduleRunNow,
        ),
    ],
    [
      'Edit schedule',
      () =>
        bob().act(button(ACTIONS.scheduleEdit, JSON.stringify({ id: scheduleId, r: runbookId })), ACTIONS.scheduleEdit),
    ],
    [
      'Delete schedule',
      () =>
        bob().act(
          button(ACTIONS.scheduleDelete, JSON.stringify({ id: scheduleId, r: runbookId })),
          ACTIONS.scheduleDelete,
        ),
    ],
    ['Approve', () => bob().act(button(ACTIONS.approvalApprove, 'some-request'), ACTIONS.approvalApprove)],
    ['the global shortcut', () => bob().shortcut(SHORTCUTS.runRunbook)],
    ['App Home', () => bob().openHome()],
  ];

  it('(with user groups readable, the same request just works)', async () => {
    forgetGroups(true);
    const since = mark();
    await bob().command(`show "${SCALE}"`, 'C01OPS');
    await waitFor(
      () =>
        h.fake.state.ephemerals
          .slice(since.ephemerals)
          .find((e) => e.user === USER && JSON.stringify(e.blocks).includes(SCALE)),
      'the details',
    );
    expect(JSON.stringify(h.fake.state.ephemerals.slice(since.ephemerals))).not.toContain(SENTENCE);
  });

  it.each(paths)('%s', async (what, act) => {
    breakUserGroups();
    const since = mark();
    await act();
    await bobIsTold(since, what);
  });

  it('Slack failing (HTTP 5xx, retried) says the same', async () => {
    forgetGroups(true);
    h.fake.setFaults({ serverErrorRate: 1, methods: ['usergroups.users.list'] });
    const since = mark();
    await bob().command('list', 'C01OPS');
    await bobIsTold(since, 'a Slack outage');
  });

  it('the run form, submitted once groups cannot be read', async () => {
    forgetGroups(true);
    await bob().command(`run "${SCALE}"`, 'C01OPS');
    const form = await waitFor(() => {
      const top = bob().topModal();
      return top && JSON.stringify(top.view).includes('field_replicas') ? top : undefined;
    }, 'the run form');
    breakUserGroups();
    const before = h.emulator.state.executions.byId.size;
    const res = await bob().submit(form.id, {
      [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
      field_namespace: { value: { type: 'plain_text_input', value: 'web' } },
      field_deployment: { value: { type: 'plain_text_input', value: 'api' } },
      field_replicas: { value: { type: 'number_input', value: '2' } },
    });
    expect(JSON.stringify(res.json)).toContain(SENTENCE);
    expect(h.emulator.state.executions.byId.size).toBe(before);
  });

  it('the schedule form, submitted once groups cannot be read', async () => {
    forgetGroups(true);
    await bob().command(`schedule "${SCALE}"`, 'C01OPS');
    const form = await waitFor(() => {
      const top = bob().topModal();
      return top && JSON.stringify(top.view).includes(BLOCKS.preset) ? top : undefined;
    }, 'the schedule form');
    breakUserGroups();
    const count = h.emulator.state.schedules.byId.size;
    const since = mark();
    await bob().submit(form.id, {
      [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
      [BLOCKS.preset]: { [ACTIONS.presetSelect]: { type: 'static_select', selected_option: { value: 'custom' } } },
      [BLOCKS.cron]: { [ACTIONS.cronInput]: { type: 'plain_text_input', value: '15 4 * * *' } },
      field_namespace: { value: { type: 'plain_text_input', value: 'web' } },
      field_deployment: { value: { type: 'plain_text_input', value: 'api' } },
      field_replicas: { value: { type: 'number_input', value: '2' } },
    });
    await bobIsTold(since, 'the schedule submission');
    expect(h.emulator.state.schedules.byId.size).toBe(count);
  });
});
