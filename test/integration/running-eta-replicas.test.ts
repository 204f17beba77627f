// "Running longer than usual" on whichever replica watches the run: replica A starts it (its card reads the
// runbook's health and keeps the median and p95 with the watch); A's watcher is down, so replica B, which
// never read that runbook's health, looks after the run and edits the card past the p95 from the watch
// alone, with no request for it. Both replicas on one Postgres schema and one Slack.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cachedHealth } from '../../src/runs/health.ts';
import type { FakeMessage } from '../../src/sandbox/fake-slack-api.ts';
import { type Harness, QUICK_WATCH_ENV, startHarness, waitFor } from '../support/bot-harness.ts';
import { seedFinishedRuns } from '../support/health-harness.ts';
import { pgAdmin } from '../support/process-harness.ts';
import { executionMarked, openScaleForm, SCALE_RUNBOOK, scaleFormValues } from '../support/run-form.ts';
import { TEST_DATABASE_URL } from '../support/test-database.ts';

const SCHEMA = `test_${randomBytes(6).toString('hex')}`;
const HOUR = 3600_000;

let a: Harness;
let b: Harness;

beforeAll(async () => {
  await pgAdmin(TEST_DATABASE_URL, `CREATE SCHEMA ${SCHEMA}`);
  const env = { ...QUICK_WATCH_ENV, DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: SCHEMA };
  a = await startHarness({ env, clockStart: Date.now() });
  b = await startHarness({ env, apiUrl: a.emulator.url, fakeSlack: a.fake, clockStart: Date.now() });
}, 60_000);

afterAll(async () => {
  await b?.stop();
  await a?.stop();
  await pgAdmin(TEST_DATABASE_URL, `DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
});

const cardOf = (executionId: string): FakeMessage | undefined =>
  (a.fake.state.messages.C02DEPLOYS ?? []).find((m) => !m.thread_ts && JSON.stringify(m.blocks).includes(executionId));

it('the replica watching a run says "longer than usual" from what the card kept, without reading health', async () => {
  // 400–880 ms each: p95 860 ms.
  seedFinishedRuns(a.emulator.state, a.clock.now(), SCALE_RUNBOOK, 400);
  // Only B watches: A takes the Slack request and posts the card, then leaves the run to B.
  await a.runtime.watcher!.stop();
  const view = await openScaleForm(a);
  await a.user().submit(view, scaleFormValues('eta-replicas'));
  const execution = await executionMarked(a, 'eta-replicas');
  const running = await waitFor(() => cardOf(execution.id), 'the running card');
  expect(JSON.stringify(running.blocks)).toContain('usually takes about 1 s (median of the last 20 runs)');

  const late = await waitFor(() => {
    const card = cardOf(execution.id);
    return card && JSON.stringify(card.blocks).includes('running longer than usual') ? card : undefined;
  }, '"longer than usual" from replica B');
  expect(late.ts).toBe(running.ts);
  expect(JSON.stringify(late.blocks)).toContain('95% of recent runs finished within about 1 s');
  // B's own health cache is empty: what it said came from the watch A stored.
  expect(cachedHealth(b.runtime.deps, SCALE_RUNBOOK)).toBeNull();
  expect(cachedHealth(a.runtime.deps, SCALE_RUNBOOK)).not.toBeNull();

  // The run ends: B replaces the card with the result.
  a.clock.advance(HOUR);
  const done = await waitFor(() => {
    const card = cardOf(execution.id);
    return card?.text.includes('succeeded') ? card : undefined;
  }, 'the result card');
  expect(done.ts).toBe(running.ts);
  expect(JSON.stringify(done.blocks)).not.toContain('longer than usual');
});
