// Two bot replicas on one Postgres schema: a run that fails to start on replica A leaves a draft, and
// "Try again" clicked on replica B (where Slack happened to send the click) reopens the form filled in;
// the same for a schedule form that could not be saved; a schedule form opened and changed on replica A is
// saved when its submission reaches replica B (no draft of it lives in A's memory). And a schedule's Run now
// confirmation starts one
// run however often it is clicked, on whichever replica: the used confirmation is replaced, and a repeat
// says it was already done.
import { randomBytes } from 'node:crypto';
import type { KnownBlock } from '@slack/types';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SlackUser } from '../../src/sandbox/slack-user.ts';
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
import { submit as stateOf } from '../unit/forms/slack-state.ts';

const DATABASE_URL = TEST_DATABASE_URL;
const SCHEMA = `test_${randomBytes(6).toString('hex')}`;
const RUNBOOK = 'Scale Kubernetes Deployment';

let a: Harness;
let b: Harness;

beforeAll(async () => {
  await pgAdmin(DATABASE_URL, `CREATE SCHEMA ${SCHEMA}`);
  const env = { DATABASE_URL, DATABASE_SCHEMA: SCHEMA };
  a = await startHarness({ env });
  // Replica B talks to the same Runbook API and the same database; Slack reaches it separately.
  b = await startHarness({ env, apiUrl: a.emulator.url });
});

afterAll(async () => {
  await b?.stop();
  await a?.stop();
  await pgAdmin(DATABASE_URL, `DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
});

it('Try again on another replica reopens the form with what was typed', { timeout: 30_000 }, async () => {
  await a.user().command(`run "${RUNBOOK}"`, 'C01OPS');
  const modal = await waitFor(() => modalContaining(a, 'field_replicas'), 'run modal');
  a.emulator.setFaults({ errorRate: 1 });
  await a.user().submit(modal.id, {
    [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
    [BLOCKS.channel]: { [ACTIONS.channelSelect]: { type: 'conversations_select', selected_conversation: 'C01OPS' } },
    field_namespace: { value: { type: 'plain_text_input', value: 'payments' } },
    field_deployment: { value: { type: 'plain_text_input', value: 'api-gateway' } },
    field_replicas: { value: { type: 'number_input', value: '7' } },
  });
  const notice = await waitFor(() => ephemeralContaining(a.fake, 'did not start'), 'did not start notice', 20_000);
  a.emulator.setFaults({ errorRate: 0 });

  await b.user().act({ kind: 'ephemeral', ephemeral: notice }, ACTIONS.retryRun);
  const reopened = await waitFor(() => modalContaining(b, 'field_replicas'), 'run modal on replica B', 20_000);
  const text = JSON.stringify(reopened.view.blocks);
  expect(text).toContain('"initial_value":"payments"');
  expect(text).toContain('"initial_value":"api-gateway"');
  expect(text).toContain('"initial_value":"7"');
});

it('a schedule form that was not saved reopens filled in on the other replica', { timeout: 30_000 }, async () => {
  await a.user().command(`schedule "${SCALE_RUNBOOK}"`, 'C01OPS');
  const modal = await waitFor(() => modalContaining(a, BLOCKS.cron), 'schedule modal');
  a.emulator.setFaults({ errorRate: 1 });
  await a.user().submit(modal.id, {
    ...scaleFormValues('payments', 'C01OPS', 'sched-gateway'),
    [BLOCKS.preset]: { [ACTIONS.presetSelect]: { type: 'static_select', selected_option: { value: 'custom' } } },
    [BLOCKS.cron]: { [ACTIONS.cronInput]: { type: 'plain_text_input', value: '17 4 * * *' } },
  });
  const notice = await waitFor(() => ephemeralContaining(a.fake, ACTIONS.scheduleRetry), 'not saved notice', 20_000);
  a.emulator.setFaults({ errorRate: 0 });
  // Both replicas run in this one process here, so the draft must be found where B looks: the shared store.
  const draftId = JSON.stringify(notice.blocks).match(
    new RegExp(`"action_id":"${ACTIONS.scheduleRetry}","value":"([^"]+)"`),
  )?.[1];
  expect(draftId).toBeTruthy();
  expect(await b.runtime.store.runDrafts.get(draftId!, Date.now())).not.toBeNull();

  await b.user().act({ kind: 'ephemeral', ephemeral: notice }, ACTIONS.scheduleRetry);
  const reopened = await waitFor(() => modalContaining(b, 'sched-gateway'), 'schedule modal on replica B', 20_000);
  const text = JSON.stringify(reopened.view.blocks);
  expect(text).toContain('"initial_value":"payments"');
  expect(text).toContain('17 4 * * *');
});

it('a schedule form opened and changed on one replica is saved by the other', { timeout: 30_000 }, async () => {
  for (let top = a.user().topModal(); top; top = a.user().topModal()) await a.user().close(top.id);
  await a.user().command(`schedule "${SCALE_RUNBOOK}"`, 'C01OPS');
  const opened = await waitFor(() => modalContaining(a, BLOCKS.cron), 'the schedule form on A');
  // A change of preset is answered by A, which rebuilds the form with the custom expression box.
  await a.user().act({ kind: 'view', view: opened }, ACTIONS.presetSelect, {
    type: 'static_select',
    selected_option: { text: { type: 'plain_text', text: 'Custom' }, value: 'custom' },
  });
  const cronBox = `"action_id":"${ACTIONS.cronInput}"`;
  expect(JSON.stringify(opened.view.blocks)).not.toContain(cronBox);
  const custom = await waitFor(() => modalContaining(a, cronBox), 'the custom expression box');
  // Slack sends the submission to replica B, which never saw this form: everything it needs is in the
  // submission (sealed metadata, the state) and the shared store.
  const toB = new SlackUser({ fake: a.fake, botUrl: b.botUrl, signingSecret: SIGNING_SECRET, userId: 'U01ALICE' });
  const state = {
    ...stateOf(custom.view.blocks as KnownBlock[], { field_deployment: { value: 'replica-b' } }),
    [BLOCKS.cron]: { [ACTIONS.cronInput]: { type: 'plain_text_input', value: '5 6 * * 1' } },
  };
  const answer = await toB.submit(custom.id, state as Record<string, Record<string, Record<string, unknown>>>);
  expect(answer.status).toBe(200);
  expect(answer.body).not.toContain('errors');
  const saved = await waitFor(
    () =>
      [...a.emulator.state.schedules.byId.values()].map((r) => r.schedule).find((s) => s.params.includes('replica-b')),
    'the schedule saved by B',
  );
  expect(saved.schedule).toBe('5 6 * * 1');
  expect(JSON.parse(saved.params)).toEqual({
    namespace: 'default',
    deployment: 'replica-b',
    replicas: 3,
    context: 'staging',
  });
  // B tells the person (in its Slack) that it was saved; its owner is recorded in the shared store.
  await waitFor(() => ephemeralContaining(b.fake, 'Scheduled'), 'the confirmation from B');
  expect((await a.runtime.store.scheduleOwners.get(saved.id))?.userId).toBe('U01ALICE');
});

it('Run now under a confirmation runs once, clicked twice and on both replicas', { timeout: 30_000 }, async () => {
  const { schedule } = await createScaleSchedule(
    a,
    { namespace: 'once', deployment: 'run-now', replicas: 2 },
    '0 3 * * *',
  );
  await a.user().command('schedules', 'C01OPS');
  const list = await waitFor(() => ephemeralContaining(a.fake, schedule.id), 'schedules list');
  await a
    .user()
    .act(
      { kind: 'ephemeral', ephemeral: list },
      (el) => el.action_id === ACTIONS.scheduleRunNow && String(el.value).includes(schedule.id),
    );
  const confirmation = await waitFor(
    () => ephemeralContaining(a.fake, ACTIONS.scheduleRunNowConfirmed),
    'the Run now confirmation',
  );
  const runs = () =>
    [...a.emulator.state.executions.byId.values()].filter((e) => e.params.deployment === 'run-now').length;
  const surface = { kind: 'ephemeral' as const, ephemeral: structuredClone(confirmation) };
  await a.user().act(surface, ACTIONS.scheduleRunNowConfirmed);
  await waitFor(() => runs() === 1, 'the run');
  // The used confirmation is replaced: no Run now button left to click.
  await waitFor(
    () =>
      !JSON.stringify(ephemeralContaining(a.fake, 'started')?.blocks ?? []).includes(ACTIONS.scheduleRunNowConfirmed),
    'the confirmation replaced',
  );
  // The same payload again, on the other replica and on the first: nothing more runs, and it says so.
  await b.user().act(surface, ACTIONS.scheduleRunNowConfirmed);
  await waitFor(() => ephemeralContaining(b.fake, 'already done'), 'already done on B');
  await a.user().act(surface, ACTIONS.scheduleRunNowConfirmed);
  await new Promise((r) => setTimeout(r, 300));
  expect(runs()).toBe(1);
  const audited = (await a.runtime.store.audit.recent(50)).filter(
    (e) => e.action === 'run.start' && e.outcome === 'ok' && e.detail?.includes('run-now'),
  );
  expect(audited).toHaveLength(1);
});
