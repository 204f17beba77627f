// A secret typed on a line — `/runbook run X password=…`, a mention, an alias — is never taken, never
// repeated back, and the person is told so (not silently dropped). Through the real Bolt pipeline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIONS } from '../../src/slack/kit/ids.ts';
import { type Harness, modalContaining, startHarness, waitFor } from '../support/bot-harness.ts';

const TERMINATE = 'Terminate Blocking Postgres Queries';
/** Needs no approval; `ssh_private_key` is an optional secret. */
const DISK = 'Check Disk Usage on Hosts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

/** Everything the fake Slack received from the bot: messages, ephemerals, views, calls. */
function everythingSent(): string {
  return JSON.stringify([h.fake.state.messages, h.fake.state.ephemerals, h.fake.state.views, h.fake.state.calls]);
}

describe('a secret typed on a line', () => {
  it('/runbook run: the form opens without it and says why, next to the values it did take', async () => {
    const secret = 'hunter2-slash-7f3a';
    await h.user().command(`run "${TERMINATE}" db_password=${secret} pids=7`, 'C01OPS');
    const form = await waitFor(() => modalContaining(h, 'field_pids'), 'the run form');
    const view = JSON.stringify(form.view);
    expect(view).toContain('db_password');
    expect(view).toMatch(/never taken from a line/);
    // The other value is prefilled as before.
    expect(view).toContain('"initial_value":"7"');
    expect(everythingSent()).not.toContain(secret);
  });

  it('a mention: the answer neither shows nor carries it, warns it is in the channel, and the form opens', async () => {
    const secret = 'hunter2-mention-9c1d';
    const alice = h.user();
    const { message } = await alice.mention(`run "${TERMINATE}" db_password=${secret} pids=8`, 'C01OPS');
    const prompt = await waitFor(
      () =>
        h.fake.state.ephemerals.find(
          (e) => e.thread_ts === message.ts && JSON.stringify(e.blocks).includes(ACTIONS.mentionOpenForm),
        ),
      'the open-form prompt',
    );
    const answer = JSON.stringify([prompt.text, prompt.blocks]);
    expect(answer).not.toContain(secret);
    expect(answer).toContain('db_password');
    expect(answer).toMatch(/rotate it/);
    await alice.act({ kind: 'ephemeral', ephemeral: prompt }, ACTIONS.mentionOpenForm);
    const form = await waitFor(() => modalContaining(h, '"initial_value":"8"'), 'the run form, pids prefilled');
    expect(JSON.stringify(form.view)).not.toContain(secret);
    // Only the person's own message holds it: nothing the bot sent does.
    const sent = JSON.stringify([h.fake.state.ephemerals, h.fake.state.views, h.fake.state.calls]);
    expect(sent).not.toContain(secret);
  });

  it("a mention of a channel's alias with a secret typed after it: neither shown nor carried", async () => {
    const secret = 'hunter2-alias-51aa';
    await h.user().command(`alias add term "${TERMINATE}" pids=9`, 'C01OPS');
    await waitFor(() => h.fake.state.ephemerals.find((e) => e.text.includes('term')), 'alias saved');
    const { message } = await h.user().mention(`term db_password=${secret}`, 'C01OPS');
    const prompt = await waitFor(
      () =>
        h.fake.state.ephemerals.find(
          (e) => e.thread_ts === message.ts && JSON.stringify(e.blocks).includes(ACTIONS.mentionOpenForm),
        ),
      'the open-form prompt',
    );
    expect(JSON.stringify([prompt.text, prompt.blocks])).toContain('db_password');
    expect(JSON.stringify([h.fake.state.ephemerals, h.fake.state.calls])).not.toContain(secret);
  });

  it('a mention naming a runbook it cannot resolve still never repeats a credential-like value', async () => {
    const secret = 'tok-unknown-4b2e';
    const { message } = await h.user().mention(`run "No Such Runbook At All" api_token=${secret}`, 'C01OPS');
    await waitFor(() => h.fake.state.ephemerals.find((e) => e.thread_ts === message.ts), 'an answer');
    expect(JSON.stringify([h.fake.state.ephemerals, h.fake.state.calls])).not.toContain(secret);
  });
  it('a mention with --now: refused without repeating it, and told to rotate it, as without --now', async () => {
    const secret = 'hunter2-now-3e8b';
    const { message } = await h.user().mention(`run "${DISK}" hosts=web-1 ssh_private_key=${secret} --now`, 'C01OPS');
    const answer = await waitFor(() => h.fake.state.ephemerals.find((e) => e.thread_ts === message.ts), 'the answer');
    const shown = JSON.stringify([answer.text, answer.blocks]);
    expect(shown).toContain('Nothing ran');
    expect(shown).toContain('ssh_private_key');
    expect(shown).toMatch(/rotate it/);
    expect(JSON.stringify([h.fake.state.ephemerals, h.fake.state.calls])).not.toContain(secret);
  });

  it('a blank secret with --now counts as not given, as a blank field does: confirmed, not refused', async () => {
    const before = h.fake.state.ephemerals.length;
    await h.user().command(`run "${DISK}" hosts=web-1 ssh_private_key= --now`, 'C01OPS');
    const answer = await waitFor(() => h.fake.state.ephemerals[before], 'the answer');
    expect(answer.text).not.toContain('Nothing ran');
    expect(answer.text).toContain(`Run ${DISK} now?`);
  });
  it('a mention with a blank secret: nothing typed, so no warning to rotate it', async () => {
    const { message } = await h.user().mention(`run "${DISK}" hosts=web-9 ssh_private_key=`, 'C01OPS');
    const prompt = await waitFor(
      () =>
        h.fake.state.ephemerals.find(
          (e) => e.thread_ts === message.ts && JSON.stringify(e.blocks).includes(ACTIONS.mentionOpenForm),
        ),
      'the open-form prompt',
    );
    expect(JSON.stringify([prompt.text, prompt.blocks])).not.toMatch(/rotate|secret/);
  });
  it('a mention with --now naming several runbooks: the secret is refused at once, and told to rotate it', async () => {
    const secret = 'hunter2-pick-a41c';
    const { message } = await h.user().mention(`run postgres db_password=${secret} --now`, 'C01OPS');
    const answer = await waitFor(() => h.fake.state.ephemerals.find((e) => e.thread_ts === message.ts), 'the answer');
    const shown = JSON.stringify([answer.text, answer.blocks]);
    expect(shown).toContain('Secret values (db_password)');
    expect(shown).toMatch(/rotate it/);
    expect(JSON.stringify([h.fake.state.ephemerals, h.fake.state.calls])).not.toContain(secret);
  });

  it('--now naming several runbooks with a blank secret: no secret to refuse, the pick list is offered', async () => {
    const before = h.fake.state.ephemerals.length;
    await h.user().command('run postgres db_password= --now', 'C01OPS');
    const answer = await waitFor(() => h.fake.state.ephemerals[before], 'the answer');
    expect(answer.text).not.toContain('Secret values');
    expect(answer.text).toContain('Several runbooks match');
  });
});
