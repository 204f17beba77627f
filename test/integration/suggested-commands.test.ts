// A command the bot suggests with a runbook's name in it works when typed as shown, also for a name with
// double quotes or spaces (`Check <prod> & "staging" Health`). Through the real Bolt pipeline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import { ephemeralContaining, type Harness, modalContaining, startHarness, waitFor } from '../support/bot-harness.ts';

const HOSTILE = 'Check <prod> & "staging" Health';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

/** The code span of a suggestion as a person copies it: Slack shows &lt; &gt; &amp; as < > &. */
function commandIn(text: string): string {
  const code = /`\/runbook ([^`]+)`/.exec(text)?.[1];
  expect(code).toBeDefined();
  return code!.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
}

describe('suggested commands', () => {
  it('"Create one with" on its empty schedules list, typed back, opens the schedule form of that runbook', async () => {
    const alice = h.user();
    await alice.command(`schedules '${HOSTILE}'`, 'C01OPS');
    const empty = await waitFor(() => ephemeralContaining(h.fake, 'has no schedules yet'), 'the empty list');
    const suggestion = commandIn(JSON.stringify(empty.blocks).replaceAll('\\"', '"'));
    await alice.command(suggestion, 'C01OPS');
    // Its form, not a pick list or "no runbook matches": the runbook's own description is in it.
    await waitFor(() => modalContaining(h, 'Calls the health endpoints'), 'the schedule form of that runbook');
  });

  it('"See all schedules" after saving a schedule, typed back, lists that runbook\'s schedules', async () => {
    const alice = h.user();
    await alice.command(`schedule '${HOSTILE}'`, 'C01OPS');
    const form = await waitFor(() => modalContaining(h, BLOCKS.cron), 'the schedule form');
    await alice.submit(form.id, {
      [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
      [BLOCKS.preset]: { [ACTIONS.presetSelect]: { type: 'static_select', selected_option: { value: 'custom' } } },
      [BLOCKS.cron]: { [ACTIONS.cronInput]: { type: 'plain_text_input', value: '17 3 * * *' } },
    });
    const saved = await waitFor(() => ephemeralContaining(h.fake, 'See all schedules'), 'the confirmation');
    const suggestion = commandIn(JSON.stringify(saved.blocks).replaceAll('\\"', '"'));
    const before = h.fake.state.ephemerals.length;
    await alice.command(suggestion, 'C01OPS');
    const answer = await waitFor(() => h.fake.state.ephemerals[before], 'the answer');
    expect(JSON.stringify(answer.blocks)).toContain('17 3 * * *');
  });
});

describe('a schedule asked for in a thread', () => {
  it('@runbook-bot schedule X in a thread: the form opens from the button, and its confirmation is in that thread', async () => {
    const alice = h.user();
    const root = h.fake.addUserMessage({ channel: 'C01OPS', user: 'U01ALICE', text: 'cleanup thread' });
    await alice.mention('schedule "Check Elasticsearch Cluster Health"', 'C01OPS', root.ts);
    const prompt = await waitFor(
      () =>
        h.fake.state.ephemerals.find(
          (e) => e.thread_ts === root.ts && JSON.stringify(e.blocks).includes(ACTIONS.mentionOpenForm),
        ),
      'the open-form prompt',
    );
    await alice.act({ kind: 'ephemeral', ephemeral: prompt }, ACTIONS.mentionOpenForm);
    const form = await waitFor(() => modalContaining(h, 'es.internal'), 'its schedule form');
    const res = await alice.submit(form.id, {
      [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
      [BLOCKS.preset]: { [ACTIONS.presetSelect]: { type: 'static_select', selected_option: { value: 'custom' } } },
      [BLOCKS.cron]: { [ACTIONS.cronInput]: { type: 'plain_text_input', value: '41 2 * * *' } },
      field_cluster_url: { value: { type: 'url_text_input', value: 'https://es.internal:9200' } },
    });
    expect(res.body).toBe('');
    const saved = await waitFor(
      () => h.fake.state.ephemerals.find((e) => e.text.startsWith('Scheduled Check Elasticsearch Cluster Health')),
      'the confirmation',
    );
    expect(saved.thread_ts).toBe(root.ts);
  });
});
