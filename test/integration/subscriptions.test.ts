// Channel subscriptions and `/runbook watch` end to end: the real runtime (Bolt, watcher, subscription
// scanner) against the emulator on a ManualClock and the fake Slack. A schedule created through the API
// fires when the clock advances; subscribed channels get exactly one message per finished run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Workflow } from '../../src/api/schemas.ts';
import type { FakeMessage } from '../../src/sandbox/fake-slack-api.ts';
import { ACTIONS } from '../../src/slack/kit/ids.ts';
import { checkBlocks } from '../../src/slack/kit/limits.ts';
import { SUBSCRIPTIONS_CURSOR } from '../../src/watch/subscriptions.ts';
import { ephemeralContaining, type Harness, startHarness, waitFor } from '../support/bot-harness.ts';

const VACUUM = 'Postgres Vacuum Analyze';
const MIN = 60_000;

let h: Harness;
let vacuum: Workflow;

beforeAll(async () => {
  h = await startHarness({
    env: {
      SUBSCRIPTIONS_POLL_SECONDS: '0.05',
      WATCH_FIRST_CHECK_MS: '30',
      WATCH_MAX_CHECK_MS: '150',
      WATCH_TICK_MS: '20',
      WATCH_SLACK_POST_INTERVAL_MS: '0',
      WATCH_SLACK_UPDATE_INTERVAL_MS: '0',
    },
  });
  const found = await h.runtime.deps.catalog.resolve(VACUUM);
  if (found.kind !== 'match') throw new Error('the emulator has no Postgres Vacuum Analyze');
  vacuum = found.runbook;
});
afterAll(async () => {
  await h.stop();
});

const messagesIn = (channel: string): FakeMessage[] => h.fake.state.messages[channel] ?? [];
/** Top-level messages in a channel that name this execution. */
const aboutExecution = (channel: string, executionId: string) =>
  messagesIn(channel).filter((m) => !m.thread_ts && JSON.stringify([m.text, m.blocks ?? []]).includes(executionId));

/** Newest execution of a runbook, straight from the API. */
async function newestExecutionOf(name: string): Promise<string | null> {
  const page = await h.runtime.api.executions.list({ orderBy: 'descending', pageSize: 20 });
  return page.items.find((e) => e.workflowName === name)?.id ?? null;
}

/** Polls an async probe until it returns a value (not undefined/null/false). */
async function until<T>(
  probe: () => Promise<T | undefined | null | false>,
  what: string,
  timeoutMs = 8_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The scanner's first pass (its "now") has happened, so runs from here on are new to it. */
const scanUntilBaseline = () => until(() => h.runtime.store.cursors.get(SUBSCRIPTIONS_CURSOR), 'baseline scan');

describe('channel subscriptions', () => {
  let scheduleId: string;

  it('posts exactly one message per scheduled run in a subscribed channel; --failures skips successes', async () => {
    await h.user().command(`subscribe "${VACUUM}"`, 'C01OPS');
    const confirmation = await waitFor(() => ephemeralContaining(h.fake, 'gets a message whenever'), 'confirmation');
    expect(confirmation.channel).toBe('C01OPS');
    await h.user('U02BOB').command('subscribe vacuum analyze --failures', 'C02DEPLOYS');
    await waitFor(() => ephemeralContaining(h.fake, 'fails, scheduled runs', 'U02BOB'), 'failures confirmation');
    const audit = await h.runtime.store.audit.recent(5);
    expect(audit.filter((e) => e.action === 'subscription.add' && e.outcome === 'ok')).toHaveLength(2);
    await scanUntilBaseline();

    const schedule = await h.runtime.api.schedules.create({
      proxyId: 'proxy-dev',
      runbookId: vacuum.id,
      params: JSON.stringify({ database: 'app', simulate_outcome: 'succeeded', simulate_duration_seconds: 30 }),
      schedule: '*/10 * * * *',
    });
    scheduleId = schedule.id;
    // 08:00 → 08:10 fires the schedule; one more minute and the run has finished.
    h.emulator.advance(10 * MIN);
    h.emulator.advance(MIN);
    const id = await until(() => newestExecutionOf(VACUUM), 'scheduled run');
    await waitFor(() => aboutExecution('C01OPS', id).length > 0, 'subscription message', 8_000);
    // More scans change nothing: exactly one message, and none for the failures-only channel.
    await h.runtime.subscriptions.scanOnce();
    await h.runtime.subscriptions.scanOnce();
    expect(aboutExecution('C01OPS', id)).toHaveLength(1);
    expect(aboutExecution('C02DEPLOYS', id)).toHaveLength(0);
    const message = aboutExecution('C01OPS', id)[0]!;
    expect(message.text).toContain('succeeded');
    expect(JSON.stringify(message.blocks)).toContain('api-key@runbooks.local');
    expect(checkBlocks(message.blocks ?? [], 'message')).toEqual([]);
  });

  it('posts a failed run to both channels, once each', async () => {
    await h.runtime.api.schedules.update(scheduleId, {
      params: JSON.stringify({ database: 'app', simulate_outcome: 'failed', simulate_duration_seconds: 30 }),
    });
    h.emulator.advance(10 * MIN);
    h.emulator.advance(MIN);
    const id = (await newestExecutionOf(VACUUM))!;
    await waitFor(
      () => aboutExecution('C02DEPLOYS', id).length > 0 && aboutExecution('C01OPS', id).length > 0,
      'both',
      8_000,
    );
    await h.runtime.subscriptions.scanOnce();
    expect(aboutExecution('C01OPS', id)).toHaveLength(1);
    expect(aboutExecution('C02DEPLOYS', id)).toHaveLength(1);
    expect(aboutExecution('C02DEPLOYS', id)[0]!.text).toContain('failed');
  });

  it('lists subscriptions with Unsubscribe buttons, and unsubscribing stops the messages', async () => {
    await h.user('U02BOB').command('subscriptions', 'C02DEPLOYS');
    const list = await waitFor(() => ephemeralContaining(h.fake, 'This channel has 1 subscription', 'U02BOB'), 'list');
    expect(JSON.stringify(list.blocks)).toContain('failures only');
    expect(JSON.stringify(list.blocks)).toContain(VACUUM);
    expect(checkBlocks(list.blocks ?? [], 'message')).toEqual([]);
    await h.user('U02BOB').act({ kind: 'ephemeral', ephemeral: list }, ACTIONS.subscriptionRemove);
    await waitFor(() => ephemeralContaining(h.fake, 'no longer gets results', 'U02BOB'), 'unsubscribed');
    expect(await h.runtime.store.subscriptions.listForChannel('C02DEPLOYS')).toEqual([]);

    await h.user().command(`unsubscribe "${VACUUM}"`, 'C01OPS');
    await waitFor(() => ephemeralContaining(h.fake, 'no longer gets results'), 'unsubscribed by command');
    const before = messagesIn('C01OPS').length + messagesIn('C02DEPLOYS').length;
    h.emulator.advance(10 * MIN);
    h.emulator.advance(MIN);
    await h.runtime.subscriptions.scanOnce();
    await h.runtime.subscriptions.scanOnce();
    expect(messagesIn('C01OPS').length + messagesIn('C02DEPLOYS').length).toBe(before);
    const audit = await h.runtime.store.audit.recent(10);
    expect(audit.filter((e) => e.action === 'subscription.remove')).toHaveLength(2);
    await h.runtime.api.schedules.delete(scheduleId);
  });

  it('offers a pick list when the name is ambiguous or unknown', async () => {
    await h.user().command('subscribe postgres', 'C01OPS');
    const pick = await waitFor(() => ephemeralContaining(h.fake, 'Several runbooks match'), 'pick list');
    await h
      .user()
      .act({ kind: 'ephemeral', ephemeral: pick }, (el) =>
        Boolean(el.action_id?.startsWith(ACTIONS.subscriptionPick) && el.value?.includes(vacuum.id)),
      );
    await until(async () => (await h.runtime.store.subscriptions.listForChannel('C01OPS')).length === 1, 'subscribed');
    await h.user().command('subscribe postgrse vacum anlyze', 'C01OPS');
    await waitFor(() => ephemeralContaining(h.fake, 'No runbook matches'), 'closest names');
    await h.user().command('unsubscribe all', 'C01OPS');
    await waitFor(() => ephemeralContaining(h.fake, 'not subscribed to *all runbooks*'), 'not subscribed to all');
    await h.user().command(`unsubscribe ${vacuum.id}`, 'C01OPS');
    await until(async () => (await h.runtime.store.subscriptions.listAll()).length === 0, 'unsubscribed');
  });
});

describe('/runbook watch', () => {
  it('adopts an execution started through the API: running card, then the result in place', async () => {
    const run = await h.runtime.api.workflows.run(vacuum.id, {
      proxyId: 'proxy-dev',
      params: { database: 'app', simulate_outcome: 'succeeded', simulate_duration_seconds: 120 },
    });
    const id = run.executionIds[0]!;
    await h.user('U03CAROL').command(`watch ${id}`, 'C03APPROVALS');
    const card = await waitFor(() => aboutExecution('C03APPROVALS', id)[0], 'running card');
    expect(card.text).toContain('is running');
    const watch = await h.runtime.store.watches.get(id);
    expect(watch).toMatchObject({
      origin: 'adopted',
      channel: 'C03APPROVALS',
      // Started through the API with no user: nobody in Slack gets the credit (not the watcher, Carol).
      startedBy: null,
      runbookId: vacuum.id,
    });

    h.emulator.advance(3 * MIN);
    await waitFor(() => aboutExecution('C03APPROVALS', id)[0]?.text.includes('succeeded'), 'result card', 8_000);
    expect(aboutExecution('C03APPROVALS', id)).toHaveLength(1);
    expect(aboutExecution('C03APPROVALS', id)[0]!.ts).toBe(card.ts);

    // Watching it again says so instead of posting another card (once the watcher is done with it:
    // after the card it still uploads a long output and replies).
    await until(async () => (await h.runtime.store.watches.get(id))?.state === 'finished', 'finished');
    await h.user('U03CAROL').command(`watch ${id}`, 'C03APPROVALS');
    await waitFor(() => ephemeralContaining(h.fake, 'was already reported', 'U03CAROL'), 'already watched');
  });

  it('posts the result at once for an execution that already finished, exactly once', async () => {
    const run = await h.runtime.api.workflows.run(vacuum.id, {
      proxyId: 'proxy-dev',
      params: { database: 'app', simulate_outcome: 'failed', simulate_duration_seconds: 5 },
    });
    const id = run.executionIds[0]!;
    h.emulator.advance(MIN);
    await h.user('U03CAROL').command(`watch ${id}`, 'C03APPROVALS');
    await waitFor(() => aboutExecution('C03APPROVALS', id)[0]?.text.includes('failed'), 'result card', 8_000);
    await until(async () => (await h.runtime.store.watches.get(id))?.state === 'finished', 'finished');
    expect(aboutExecution('C03APPROVALS', id)).toHaveLength(1);
  });

  it('says clearly when there is no such execution', async () => {
    await h.user('U03CAROL').command('watch 00000000-0000-4000-8000-000000000000', 'C03APPROVALS');
    await waitFor(() => ephemeralContaining(h.fake, 'No execution has the id', 'U03CAROL'), 'not found');
  });
});

describe('people in cards of runs started outside Slack', () => {
  it('names an executor Slack knows by email as a mention, anyone else by email, and pings nobody in a thread', async () => {
    await h.user('U02BOB').command(`subscribe "${VACUUM}"`, 'C02DEPLOYS');
    await until(
      async () => (await h.runtime.store.subscriptions.listForChannel('C02DEPLOYS')).length > 0,
      'subscribed',
    );
    const start = async (userEmail: string) =>
      (
        await h.runtime.api.workflows.run(vacuum.id, {
          proxyId: 'proxy-dev',
          userEmail,
          params: { database: 'app', simulate_outcome: 'succeeded', simulate_duration_seconds: 5 },
        })
      ).executionIds[0]!;
    // Alice is in the fake Slack's directory (users.lookupByEmail finds her); the stranger is not.
    const known = await start('Alice@Example.com');
    const stranger = await start('stranger@example.com');
    // The earlier tests left no subscription, so the scanner forgot its position: its next scan is a
    // baseline, which must see these runs still running (then they are reported when they finish).
    await h.runtime.subscriptions.scanOnce();
    await scanUntilBaseline();
    h.emulator.advance(MIN);
    await waitFor(
      () => aboutExecution('C02DEPLOYS', known).length > 0 && aboutExecution('C02DEPLOYS', stranger).length > 0,
      'both notices',
      8_000,
    );
    const knownCard = JSON.stringify(aboutExecution('C02DEPLOYS', known)[0]!.blocks);
    expect(knownCard).toContain('*Started by*\\n<@U01ALICE>');
    expect(knownCard).not.toContain('Alice@Example.com');
    const strangerCard = JSON.stringify(aboutExecution('C02DEPLOYS', stranger)[0]!.blocks);
    expect(strangerCard).toContain('*Started by*\\nstranger@example.com');
    expect(strangerCard).not.toContain('<@');
    // The mention is on the card only: no reply in a thread names her.
    const replies = messagesIn('C02DEPLOYS').filter((m) => m.thread_ts && m.thread_ts !== m.ts);
    expect(replies.filter((m) => JSON.stringify([m.text, m.blocks ?? []]).includes('<@U01ALICE>'))).toEqual([]);

    // /runbook status names her the same way.
    await h.user('U02BOB').command(`status ${known}`, 'C02DEPLOYS');
    const status = await waitFor(() => ephemeralContaining(h.fake, known, 'U02BOB'), 'status');
    expect(JSON.stringify(status.blocks)).toContain('*Run by*\\n<@U01ALICE>');
  });
});
