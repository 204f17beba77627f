// A pick list finishes the command as it was typed: `/runbook schedules <ambiguous> --next 7d` and a pick
// give that runbook's forecast (not its schedule list); `/runbook executions <ambiguous> --status failed`
// and a pick keep the status filter. Through Bolt, clicking the posted button.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeEphemeral } from '../../src/sandbox/fake-slack-state.ts';
import { ACTIONS } from '../../src/slack/kit/ids.ts';
import { type Harness, startHarness, waitFor } from '../support/bot-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({});
});
afterAll(async () => {
  await h.stop();
});

async function answer(text: string, needle: string, act?: () => Promise<unknown>) {
  const before = h.fake.state.ephemerals.length;
  await (act ? act() : h.user().command(text, 'C01OPS'));
  return waitFor(
    () => h.fake.state.ephemerals.slice(before).find((e) => JSON.stringify([e.text, e.blocks]).includes(needle)),
    `answer to ${text}`,
  );
}

/** The Choose button of the pick list's entry for `name`. */
function chooseOf(list: FakeEphemeral, name: string): string {
  const blocks = list.blocks as { block_id?: string; text?: { text?: string } }[];
  const i = blocks.filter((b) => b.block_id?.startsWith('pick_')).findIndex((b) => b.text?.text?.includes(name));
  expect(i).toBeGreaterThanOrEqual(0);
  return `${ACTIONS.pickRunbook}_${i}`;
}

describe('a pick keeps the options typed with the command', () => {
  it('schedules <ambiguous> --next 7d, then a pick: the forecast of that window', async () => {
    const list = await answer('schedules postgres --next 7d', 'Several runbooks match');
    const shown = await answer('pick', 'due in the next 7 days', () =>
      h.user().act({ kind: 'ephemeral', ephemeral: list }, chooseOf(list, 'Postgres Vacuum Analyze')),
    );
    expect(JSON.stringify([shown.text, shown.blocks])).toContain(
      'Runs of Postgres Vacuum Analyze due in the next 7 days',
    );
  });

  it('executions <ambiguous> --status failed, then a pick: only that runbook’s failed runs', async () => {
    const list = await answer('executions postgres --status failed', 'Several runbooks match');
    const shown = await answer('pick', 'Executions of Postgres Vacuum Analyze', () =>
      h.user().act({ kind: 'ephemeral', ephemeral: list }, chooseOf(list, 'Postgres Vacuum Analyze')),
    );
    // The status filter shown as chosen is the one typed: Failed, not All.
    const buttons = (shown.blocks as { elements?: { action_id?: string; style?: string }[] }[]).flatMap(
      (b) => b.elements ?? [],
    );
    const chosen = buttons.filter((b) => b.action_id?.startsWith(`${ACTIONS.executionsPage}_status_`) && b.style);
    expect(chosen.map((b) => b.action_id)).toEqual([`${ACTIONS.executionsPage}_status_failed`]);
  });
});

describe('schedules --next with a window it does not take', () => {
  it('names every window it takes and suggests none that only looks near', async () => {
    const told = await answer('schedules --next 3x', '3x');
    const shown = JSON.stringify([told.text, told.blocks]);
    expect(shown).toContain('`24h` (the next 24 hours) or `7d` (the next 7 days)');
    expect(shown).not.toContain('Did you mean');
    expect(shown).not.toContain('Runs due in');
  });
});
