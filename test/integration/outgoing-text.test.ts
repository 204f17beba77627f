// Text from outside cannot ping, broadcast or link, on any surface: a runbook whose name is made of
// Slack's control tokens goes through list, show, the run form, the running card, the result card
// and its thread reply, executions and status. Every Web API call and response_url post the bot made
// is then read as Slack would read it (top-level text, attachments, mrkdwn): the only <…> tokens in
// it are ones the bot's helpers made (the harness checks this after every integration suite too).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { foreignTokens, type Harness, startHarness, waitFor } from '../support/bot-harness.ts';
import { executionMarked, scaleFormValues } from '../support/run-form.ts';

const HOSTILE = 'Scale <!channel> <!here> <@U02BOB> <#C02DEPLOYS> <http://evil.example|click> <!subteam^S0APPROVERS>';
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ env: { WATCH_FIRST_CHECK_MS: '200', WATCH_MAX_CHECK_MS: '500', WATCH_TICK_MS: '50' } });
  const record = [...h.emulator.state.workflows.byId.values()].find(
    (r) => r.workflow.name === 'Scale Kubernetes Deployment',
  )!;
  record.workflow.name = HOSTILE;
});
afterAll(async () => {
  await h.stop();
});

it('never sends a runbook name as a live mention, broadcast or link', async () => {
  const id = [...h.emulator.state.workflows.byId.values()].find((r) => r.workflow.name === HOSTILE)!.workflow.id;
  await h.user().command('list scale', 'C01OPS');
  await h.user().command(`show ${id}`, 'C01OPS');
  await h.user().command(`run ${id}`, 'C01OPS');
  const modalId = await waitFor(() => {
    const top = h.user().topModal();
    return top && JSON.stringify(top.view).includes('meta_proxy') ? top.id : undefined;
  }, 'run modal');
  await h.user().submit(modalId, scaleFormValues('hostile-name'));
  const execution = await executionMarked(h, 'hostile-name');
  await waitFor(
    () => (h.fake.state.messages.C02DEPLOYS ?? []).find((m) => m.text.endsWith(' is running')),
    'running card',
  );
  h.emulator.advance(60 * 60_000);
  await waitFor(
    () => (h.fake.state.messages.C02DEPLOYS ?? []).some((m) => m.thread_ts && m.thread_ts !== m.ts),
    'thread reply',
    15_000,
  );
  await h.user().command('executions', 'C01OPS');
  await h.user().command(`status ${execution.id}`, 'C01OPS');
  await waitFor(() => h.fake.state.ephemerals.some((e) => JSON.stringify(e).includes(execution.id)), 'status');

  // The name did reach Slack (escaped), in the top-level text of the card too.
  const card = (h.fake.state.messages.C02DEPLOYS ?? []).find((m) => JSON.stringify(m.blocks).includes(execution.id))!;
  expect(card.text).toContain('&lt;!channel&gt;');
  expect(foreignTokens(h.fake)).toEqual([]);
});
