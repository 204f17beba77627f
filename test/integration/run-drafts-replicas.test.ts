// Two bot replicas on one Postgres schema: a run that fails to start on replica A leaves a draft, and
// "Try again" clicked on replica B (where Slack happened to send the click) reopens the form filled in.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import { ephemeralContaining, type Harness, modalContaining, startHarness, waitFor } from '../support/bot-harness.ts';
import { pgAdmin } from '../support/process-harness.ts';
import { TEST_DATABASE_URL } from '../support/test-database.ts';

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
