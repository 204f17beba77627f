// A line reads what it is given as the form does, on every path (slash command and mention), through the
// real Bolt pipeline: a name that matches several runbooks gives the same pick list with or without --now,
// and the pick carries on as the line asked (--now: the confirmation with the typed values); a date-time
// typed without an offset is read in the person's Slack time zone, as the form's picker is, and the reply
// says which zone; an offset or Z is kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeEphemeral } from '../../src/sandbox/fake-slack-state.ts';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import { type Harness, modalContaining, startHarness, waitFor } from '../support/bot-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

const VACUUM = 'Postgres Vacuum Analyze';
const LOGS = 'Collect Kubernetes Pod Logs';
const executionsOf = (name: string) =>
  [...h.emulator.state.executions.byId.values()].filter((e) => e.workflowName === name);
const paramsOf = (e: { received: { params?: unknown } }) => JSON.parse(String(e.received.params ?? '{}'));
const textOf = (e: FakeEphemeral) => JSON.stringify([e.text, e.blocks ?? []]);

/** The first answer to `user` after `act` that contains `needle`. */
async function answer(act: () => Promise<unknown>, needle: string, user = 'U01ALICE'): Promise<FakeEphemeral> {
  const before = h.fake.state.ephemerals.length;
  await act();
  return waitFor(
    () => h.fake.state.ephemerals.slice(before).find((e) => e.user === user && textOf(e).includes(needle)),
    `an answer with ${needle}`,
  );
}

/** The Choose button of the pick list's entry for `name`. */
function chooseOf(list: FakeEphemeral, name: string): string {
  const blocks = list.blocks as { block_id?: string; text?: { text?: string } }[];
  const i = blocks.filter((b) => b.block_id?.startsWith('pick_')).findIndex((b) => b.text?.text?.includes(name));
  expect(i, textOf(list)).toBeGreaterThanOrEqual(0);
  return `${ACTIONS.pickRunbook}_${i}`;
}

/** The button ids of a message. */
const buttonsOf = (e: FakeEphemeral) =>
  (e.blocks as { accessory?: { action_id?: string }; elements?: { action_id?: string }[] }[]).flatMap((b) =>
    [b.accessory, ...(b.elements ?? [])].map((x) => x?.action_id).filter(Boolean),
  );

async function runFrom(confirm: FakeEphemeral, runbook: string, user = 'U01ALICE') {
  const before = new Set(executionsOf(runbook).map((e) => e.id));
  await h.user(user).act({ kind: 'ephemeral', ephemeral: confirm }, ACTIONS.confirmRun);
  return waitFor(() => executionsOf(runbook).find((e) => !before.has(e.id)), 'the run');
}

describe('a name that matches several runbooks, with --now', () => {
  it('gives the pick list the line without --now gives, and the pick confirms with the typed values', async () => {
    // Without --now: the pick list (in the run modal).
    await h.user().command('run postgres tables=orders', 'C01OPS');
    const modal = await waitFor(() => modalContaining(h, 'Several runbooks match'), 'the pick list in a modal');
    const formPicks = JSON.stringify(modal.view.blocks).match(/pick_\d/g);
    // With --now: the same list, as buttons, where the line was typed.
    const list = await answer(() => h.user().command('run postgres tables=orders --now', 'C01OPS'), 'Several runbooks');
    expect(textOf(list)).toContain('Several runbooks match “postgres”. Which one?');
    expect(JSON.stringify(list.blocks).match(/pick_\d/g)).toEqual(formPicks);
    expect(textOf(list)).not.toContain('orders');
    const confirm = await answer(
      () => h.user().act({ kind: 'ephemeral', ephemeral: list }, chooseOf(list, VACUUM)),
      ACTIONS.confirmRun,
    );
    expect(confirm.text).toBe(`Run ${VACUUM} now?`);
    expect(textOf(confirm)).toContain('*Tables*: `[\\"orders\\"]`');
    const run = await runFrom(confirm, VACUUM);
    expect(paramsOf(run)).toEqual({ database: 'app', tables: ['orders'], verbose: false });
  });

  it('through a mention in a thread: the pick list and the confirmation stay in the thread', async () => {
    const root = h.fake.addUserMessage({ channel: 'C01OPS', user: 'U02BOB', text: 'bloat again' });
    const list = await answer(
      () => h.user().mention('run postgres tables=threaded --now', 'C01OPS', root.ts),
      'Several runbooks',
    );
    expect(list.thread_ts).toBe(root.ts);
    const confirm = await answer(
      () => h.user().act({ kind: 'ephemeral', ephemeral: list }, chooseOf(list, VACUUM)),
      ACTIONS.confirmRun,
    );
    const run = await runFrom(confirm, VACUUM);
    expect(paramsOf(run).tables).toEqual(['threaded']);
    const card = await waitFor(
      () => (h.fake.state.messages.C01OPS ?? []).find((m) => JSON.stringify(m.blocks ?? []).includes(run.id)),
      'the card',
    );
    expect(card.thread_ts).toBe(root.ts);
  });

  it('a pick still judges the values: an invalid one is refused and nothing runs', async () => {
    const list = await answer(
      () => h.user().command('run postgres min_duration_seconds=0 --now', 'C01OPS'),
      'Several runbooks',
    );
    const before = executionsOf('Find Long Running Postgres Queries').length;
    const refused = await answer(
      () => h.user().act({ kind: 'ephemeral', ephemeral: list }, chooseOf(list, 'Find Long Running Postgres Queries')),
      'Nothing ran',
    );
    expect(textOf(refused)).toContain('These values are not valid');
    expect(buttonsOf(refused)).not.toContain(ACTIONS.confirmRun);
    expect(executionsOf('Find Long Running Postgres Queries')).toHaveLength(before);
  });

  it('a secret of any runbook offered is refused at once, as for one runbook, not offered for a pick', async () => {
    const refused = await answer(
      () => h.user().command('run postgres db_password=hunter2-line --now', 'C01OPS'),
      'Nothing ran',
    );
    expect(textOf(refused)).toContain('Secret values (db_password) are never typed on a line');
    expect(buttonsOf(refused)).not.toContain(`${ACTIONS.pickRunbook}_0`);
    expect(textOf(refused)).not.toContain('hunter2');
  });

  it('another person cannot carry on someone else’s line', async () => {
    const list = await answer(() => h.user().command('run postgres tables=mine --now', 'C01OPS'), 'Several runbooks');
    const refused = await answer(
      () => h.user('U02BOB').act({ kind: 'ephemeral', ephemeral: list }, chooseOf(list, VACUUM)),
      'expired',
      'U02BOB',
    );
    expect(buttonsOf(refused)).not.toContain(ACTIONS.confirmRun);
  });

  it('no match: still refused, with the closest names to pick from, as without --now', async () => {
    const list = await answer(
      () => h.user().command('run vacum postgres min_duration_seconds=45 --now', 'C01OPS'),
      'Nothing ran',
    );
    expect(textOf(list)).toContain('Did you mean one of these?');
    const confirm = await answer(
      () => h.user().act({ kind: 'ephemeral', ephemeral: list }, chooseOf(list, 'Find Long Running Postgres Queries')),
      ACTIONS.confirmRun,
    );
    expect(textOf(confirm)).toContain('*Minimum duration (s)*: `45`');
  });
});

describe('a name that matches several runbooks, without --now', () => {
  it('the pick in the modal opens the form prefilled with the values typed on the line', async () => {
    // Bob: Alice's pick list from the first test is still her top modal.
    await h.user('U02BOB').command('run postgres tables=kept database=stats', 'C01OPS');
    const modal = await waitFor(() => modalContaining(h, 'Several runbooks match', 'U02BOB'), 'the pick list');
    const blocks = modal.view.blocks as { block_id?: string; text?: { text?: string } }[];
    const i = blocks.filter((b) => b.block_id?.startsWith('pick_')).findIndex((b) => b.text?.text?.includes(VACUUM));
    await h.user('U02BOB').act({ kind: 'view', view: modal }, `${ACTIONS.pickRunbook}_${i}`);
    const form = await waitFor(() => modalContaining(h, 'field_tables', 'U02BOB'), 'the form');
    const shown = JSON.stringify(form.view.blocks);
    expect(shown).toContain('"initial_value":"kept"');
    expect(shown).toContain('"initial_value":"stats"');
  });
});

describe('a date-time typed on a line', () => {
  it('without an offset: read in the person’s Slack time zone, said in the confirmation', async () => {
    const confirm = await answer(
      () => h.user().command(`run "${LOGS}" namespace=tz-line since="2026-12-01 10:00" --now`, 'C01OPS'),
      ACTIONS.confirmRun,
    );
    expect(textOf(confirm)).toContain('read in your Slack time zone, Central European Time (Europe/Berlin)');
    const run = await runFrom(confirm, LOGS);
    expect(paramsOf(run).since).toBe('2026-12-01T10:00:00+01:00');
  });

  it('another person’s line is read in their own zone (New York), through a mention', async () => {
    const confirm = await answer(
      () => h.user('U02BOB').mention(`run "${LOGS}" namespace=tz-bob since=2026-12-01T10:00 --now`, 'C01OPS'),
      ACTIONS.confirmRun,
      'U02BOB',
    );
    expect(textOf(confirm)).toContain('Eastern Standard Time (America/New_York)');
    const run = await runFrom(confirm, LOGS, 'U02BOB');
    expect(paramsOf(run).since).toBe('2026-12-01T10:00:00-05:00');
  });

  it('an offset or Z is kept as typed, and no zone is named', async () => {
    const confirm = await answer(
      () => h.user().command(`run "${LOGS}" namespace=tz-z since=2026-12-01T10:00:00Z --now`, 'C01OPS'),
      ACTIONS.confirmRun,
    );
    expect(textOf(confirm)).not.toContain('read in your Slack time zone');
    const run = await runFrom(confirm, LOGS);
    expect(paramsOf(run).since).toBe('2026-12-01T10:00:00Z');
  });

  it('the form prefilled from the line shows the same time, names the zone, and sends what --now sends', async () => {
    await h.user().command(`run "${LOGS}" namespace=tz-form since="2026-12-01 10:00"`, 'C01OPS');
    const modal = await waitFor(() => modalContaining(h, 'field_since'), 'the prefilled form');
    const blocks = JSON.stringify(modal.view.blocks);
    expect(blocks).toContain('The time is in your Slack time zone, Central European Time (Europe/Berlin).');
    // The picker holds 10:00 in Berlin: 09:00 UTC.
    const initial = Date.parse('2026-12-01T09:00:00Z') / 1000;
    expect(blocks).toContain(`"initial_date_time":${initial}`);
    expect(blocks).not.toMatch(/since`: Must be/);
    const before = new Set(executionsOf(LOGS).map((e) => e.id));
    await h.user().submit(modal.id, {
      [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
      [BLOCKS.channel]: { [ACTIONS.channelSelect]: { type: 'conversations_select', selected_conversation: 'C01OPS' } },
      field_namespace: { value: { type: 'plain_text_input', value: 'tz-form' } },
      field_since: { value: { type: 'datetimepicker', selected_date_time: initial } },
    });
    const run = await waitFor(() => executionsOf(LOGS).find((e) => !before.has(e.id)), 'the run');
    expect(paramsOf(run).since).toBe('2026-12-01T10:00:00+01:00');
  });
});
