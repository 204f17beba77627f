// A replayed submission: the same signed view_submission delivered three times (Slack retrying a slow
// ack, or a request captured and replayed inside the signature window), at once and then again later.
// The store decides which delivery runs: one run, one card; the others start nothing — also when the
// copies reach two replicas that share one Postgres.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { formRequest, interactivityBody, sendToBot, viewSubmissionPayload } from '../../src/sandbox/slack-requests.ts';
import { type Harness, SIGNING_SECRET, startHarness, waitFor } from '../support/bot-harness.ts';
import { pgAdmin } from '../support/process-harness.ts';
import { openScaleForm, SCALE_RUNBOOK, scaleFormValues } from '../support/run-form.ts';
import { TEST_DATABASE_URL } from '../support/test-database.ts';

const RUNBOOK = SCALE_RUNBOOK;
const DATABASE_URL = TEST_DATABASE_URL;
const SCHEMA = `test_replay_${randomBytes(6).toString('hex')}`;
let h: Harness;
/** A second replica: same Postgres schema, same Runbook API (h's emulator). */
let replica: Harness;

beforeAll(async () => {
  await pgAdmin(DATABASE_URL, `CREATE SCHEMA ${SCHEMA}`);
  const env = { LOG_LEVEL: 'warn', RUN_RATE_LIMIT_PER_MINUTE: '1000', DATABASE_URL, DATABASE_SCHEMA: SCHEMA };
  h = await startHarness({ env });
  replica = await startHarness({ env, apiUrl: h.emulator.url });
});
afterAll(async () => {
  await replica?.stop();
  await h?.stop();
  await pgAdmin(DATABASE_URL, `DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
});

it('starts one run however often the same submission arrives', async () => {
  const modalId = await openScaleForm(h);
  const values = scaleFormValues('replayed');
  const body = formRequest(
    interactivityBody(
      viewSubmissionPayload({
        userId: 'U01ALICE',
        teamId: 'T0SANDBOX',
        triggerId: h.fake.newTriggerId('U01ALICE'),
        view: h.fake.viewOutput(modalId) as { id: string },
        values,
      }),
    ),
  );
  const timestampSeconds = Math.floor(Date.now() / 1000);
  const deliveries = await Promise.all(
    [1, 2, 3].map(() => sendToBot(h.botUrl, SIGNING_SECRET, body, { timestampSeconds })),
  );
  for (const d of deliveries) expect(d.status).toBe(200);
  await new Promise((r) => setTimeout(r, 500));
  // And once more, a little later, still inside the signature window.
  expect((await sendToBot(replica.botUrl, SIGNING_SECRET, body, { timestampSeconds })).status).toBe(200);

  const runs = () => [...h.emulator.state.executions.byId.values()].filter((e) => e.params.namespace === 'replayed');
  await waitFor(() => runs().length > 0, 'the run');
  await new Promise((r) => setTimeout(r, 1_000));
  expect(runs()).toHaveLength(1);
  const cards = [h, replica].flatMap((x) =>
    (x.fake.state.messages.C02DEPLOYS ?? []).filter((m) => m.text === `${RUNBOOK} is running`),
  );
  expect(cards).toHaveLength(1);
});
