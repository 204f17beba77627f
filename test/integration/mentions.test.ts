// @runbook-bot mentions end to end: signed app_mention events through the real Bolt pipeline, the
// same grammar as /runbook, answers in the thread the person wrote in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appMentionEvent } from '../../src/sandbox/slack-entry-requests.ts';
import { eventCallbackBody, jsonRequest, sendToBot } from '../../src/sandbox/slack-requests.ts';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import { type Harness, modalContaining, SIGNING_SECRET, startHarness, waitFor } from '../support/bot-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

function ephemeralIn(thread: string, needle: string, user = 'U01ALICE') {
  return h.fake.state.ephemerals.find(
    (e) => e.user === user && e.thread_ts === thread && JSON.stringify([e.text, e.blocks]).includes(needle),
  );
}

describe('@runbook-bot mentions', () => {
  it('answers help in the thread of a top-level mention, privately', async () => {
    const alice = h.user();
    const { message, status } = await alice.mention('help', 'C01OPS');
    expect(status).toBe(200);
    const reply = await waitFor(() => ephemeralIn(message.ts, '/runbook list'), 'help in the thread');
    expect(JSON.stringify(reply.blocks)).toContain('/runbook alias');
  });

  it('inside a thread, a mistyped subcommand gets did-you-mean in that thread', async () => {
    const alice = h.user();
    const root = h.fake.addUserMessage({ channel: 'C01OPS', user: 'U02BOB', text: 'prod is down' });
    await alice.mention('lsit', 'C01OPS', root.ts);
    const reply = await waitFor(
      () => ephemeralIn(root.ts, 'is neither a /runbook subcommand nor an alias in this channel'),
      'error in thread',
    );
    expect(JSON.stringify(reply.blocks)).toContain('Did you mean `list`?');
  });

  it('a command that needs a form answers with a button; the button opens the form', async () => {
    const alice = h.user();
    const root = h.fake.addUserMessage({ channel: 'C01OPS', user: 'U01ALICE', text: 'incident thread' });
    await alice.mention('run "Restart Kubernetes Deployment"', 'C01OPS', root.ts);
    const prompt = await waitFor(() => ephemeralIn(root.ts, ACTIONS.mentionOpenForm), 'open-form prompt');
    await alice.act({ kind: 'ephemeral', ephemeral: prompt }, ACTIONS.mentionOpenForm);
    const form = await waitFor(() => modalContaining(h, 'field_deployment'), 'run form');
    // Submitted, the run's live card goes to the thread the mention was typed in.
    await alice.submit(form.id, {
      [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
      [BLOCKS.channel]: { [ACTIONS.channelSelect]: { type: 'conversations_select', selected_conversation: 'C01OPS' } },
      field_namespace: { value: { type: 'plain_text_input', value: 'web' } },
      field_deployment: { value: { type: 'plain_text_input', value: 'from-thread' } },
    });
    const run = await waitFor(
      () =>
        [...h.emulator.state.executions.byId.values()].find((e) =>
          String(e.received.params ?? '').includes('from-thread'),
        ),
      'the run',
    );
    const card = await waitFor(
      () => (h.fake.state.messages.C01OPS ?? []).find((m) => JSON.stringify(m.blocks ?? []).includes(run.id)),
      'the card',
    );
    expect(card.thread_ts).toBe(root.ts);
  });

  it("a channel's alias works in a mention: its form opens from the button", async () => {
    await h.user().command('alias add web-restart "Restart Kubernetes Deployment" namespace=web', 'C01OPS');
    await waitFor(() => h.fake.state.ephemerals.find((e) => e.text.includes('web-restart')), 'alias saved');
    const { message } = await h.user().mention('web-restart deployment=api', 'C01OPS');
    const prompt = await waitFor(() => ephemeralIn(message.ts, ACTIONS.mentionOpenForm), 'open-form prompt');
    await h.user().act({ kind: 'ephemeral', ephemeral: prompt }, ACTIONS.mentionOpenForm);
    // The saved value and the one typed after the alias, both in the form.
    const form = await waitFor(() => modalContaining(h, '"initial_value":"api"'), 'the alias form');
    expect(JSON.stringify(form.view.blocks)).toContain('"initial_value":"web"');
  });

  it('ignores mentions by other bots', async () => {
    const event = {
      ...appMentionEvent({
        userId: 'U0OTHERBOT',
        teamId: 'T0SANDBOX',
        channelId: 'C01OPS',
        text: 'help',
        botUserId: 'U0BOT',
        ts: '1790000000.000100',
      }),
      bot_id: 'B0OTHER',
    };
    const res = await sendToBot(
      h.botUrl,
      SIGNING_SECRET,
      jsonRequest(eventCallbackBody({ teamId: 'T0SANDBOX', event })),
    );
    expect(res.status).toBe(200);
    // A person's mention right after is answered; the bot's never is.
    const { message } = await h.user().mention('help', 'C01OPS');
    await waitFor(() => ephemeralIn(message.ts, '/runbook list'), 'answer to the person');
    expect(h.fake.state.ephemerals.some((e) => e.thread_ts === '1790000000.000100')).toBe(false);
  });
});
