import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compareTs } from '../../../src/sandbox/fake-slack-ids.ts';
import { type FakeSlackFixture, section, startFixture } from './fake-slack-fixture.ts';

let f: FakeSlackFixture;

beforeEach(async () => {
  f = await startFixture();
});

afterEach(async () => {
  await f.fake.close();
});

function platformError(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  return promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: { code?: string; data?: Record<string, unknown> }) => {
      expect(error.code).toBe('slack_webapi_platform_error');
      return error.data ?? {};
    },
  );
}

describe('chat.postMessage', () => {
  it('stores the message and answers with channel, ts and the message as Slack shows it', async () => {
    const blocks = [section('*Deploy* started')];
    const res = await f.client.chat.postMessage({ channel: 'C01OPS', text: 'Deploy started', blocks });
    expect(res.ok).toBe(true);
    expect(res.channel).toBe('C01OPS');
    expect(res.ts).toMatch(/^\d{10}\.\d{6}$/);
    expect(res.message).toMatchObject({
      type: 'message',
      text: 'Deploy started',
      user: 'U0BOT',
      bot_id: 'B0BOT',
      ts: res.ts,
      blocks,
      team: 'T0SANDBOX',
    });
    const stored = f.fake.state.messages.C01OPS ?? [];
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ ts: res.ts, text: 'Deploy started', blocks, bot_id: 'B0BOT' });
  });

  it('resolves #names and user ids (a DM), and threads replies', async () => {
    const byName = await f.client.chat.postMessage({ channel: '#deploys', text: 'hi' });
    expect(byName.channel).toBe('C02DEPLOYS');
    const dm = await f.client.chat.postMessage({ channel: 'U01ALICE', text: 'psst' });
    expect(dm.channel).toBe('D01ALICE');
    const reply = await f.client.chat.postMessage({ channel: 'C02DEPLOYS', text: 'reply', thread_ts: byName.ts });
    expect(reply.message?.thread_ts).toBe(byName.ts);
    const replies = await f.client.conversations.replies({ channel: 'C02DEPLOYS', ts: byName.ts! });
    expect(replies.messages?.map((m) => m.text)).toEqual(['hi', 'reply']);
    expect(replies.messages?.[0]).toMatchObject({ reply_count: 1, thread_ts: byName.ts });
    const history = await f.client.conversations.history({ channel: 'C02DEPLOYS' });
    expect(history.messages?.map((m) => m.text)).toEqual(['hi']);
  });

  it('gives strictly increasing ts values even when the clock stands still', async () => {
    const a = await f.client.chat.postMessage({ channel: 'C01OPS', text: 'a' });
    const b = await f.client.chat.postMessage({ channel: 'C01OPS', text: 'b' });
    f.clock.ms -= 5_000;
    const c = await f.client.chat.postMessage({ channel: 'C01OPS', text: 'c' });
    expect(a.ts).toBe('1732180000.000000');
    expect(compareTs(b.ts!, a.ts!)).toBeGreaterThan(0);
    expect(compareTs(c.ts!, b.ts!)).toBeGreaterThan(0);
  });

  it('answers invalid_blocks with Slack-worded errors for a 51-block message', async () => {
    const blocks = Array.from({ length: 51 }, (_, i) => section(`line ${i}`));
    const data = await platformError(f.client.chat.postMessage({ channel: 'C01OPS', text: 'too many', blocks }));
    expect(data.error).toBe('invalid_blocks');
    expect(data.errors).toEqual([expect.stringContaining('more than 50 blocks')]);
    expect((data.errors as string[])[0]).toContain('[json-pointer:/blocks]');
    expect(f.fake.state.messages.C01OPS ?? []).toHaveLength(0);
  });

  it('answers invalid_blocks for a 3001-character section', async () => {
    const data = await platformError(
      f.client.chat.postMessage({ channel: 'C01OPS', text: 'x', blocks: [section('x'.repeat(3001))] }),
    );
    expect(data.error).toBe('invalid_blocks');
    expect((data.errors as string[])[0]).toContain('[json-pointer:/blocks/0/text/text]');
  });

  it('answers msg_too_long, no_text and channel_not_found', async () => {
    expect(
      (await platformError(f.client.chat.postMessage({ channel: 'C01OPS', text: 'x'.repeat(40_001) }))).error,
    ).toBe('msg_too_long');
    expect((await platformError(f.client.chat.postMessage({ channel: 'C01OPS', text: '' }))).error).toBe('no_text');
    expect((await platformError(f.client.chat.postMessage({ channel: 'C999', text: 'x' }))).error).toBe(
      'channel_not_found',
    );
  });

  it('answers not_in_channel until the bot joins the channel', async () => {
    const g = await startFixture({ channels: [{ id: 'C09PRIV', name: 'secret-ops', is_member: false }] });
    try {
      const data = await platformError(g.client.chat.postMessage({ channel: 'C09PRIV', text: 'hello' }));
      expect(data.error).toBe('not_in_channel');
      await g.client.conversations.join({ channel: 'C09PRIV' });
      const res = await g.client.chat.postMessage({ channel: 'C09PRIV', text: 'hello' });
      expect(res.ok).toBe(true);
    } finally {
      await g.fake.close();
    }
  });

  it('accepts JSON bodies as well as form bodies', async () => {
    const res = await fetch(`${f.fake.url}chat.postMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', authorization: 'Bearer xoxb-json' },
      body: JSON.stringify({ channel: 'C01OPS', text: 'json', blocks: [section('json body')] }),
    });
    const body = (await res.json()) as { ok: boolean; message: { blocks: unknown[] } };
    expect(body.ok).toBe(true);
    expect(body.message.blocks).toEqual([section('json body')]);
    expect(f.fake.state.calls.at(-1)).toMatchObject({
      method: 'chat.postMessage',
      ok: true,
      args: { channel: 'C01OPS', blocks: [section('json body')] },
    });
    expect(f.fake.state.calls.at(-1)?.args).not.toHaveProperty('token');
  });
});

describe('chat.update / chat.delete / chat.postEphemeral / chat.getPermalink', () => {
  it('updates a message and keeps its earlier revision', async () => {
    const posted = await f.client.chat.postMessage({
      channel: 'C01OPS',
      text: 'running',
      blocks: [section('running')],
    });
    const updated = await f.client.chat.update({
      channel: 'C01OPS',
      ts: posted.ts!,
      text: 'done',
      blocks: [section('done')],
    });
    expect(updated).toMatchObject({ ok: true, channel: 'C01OPS', ts: posted.ts, text: 'done' });
    expect(updated.message).toMatchObject({ text: 'done', blocks: [section('done')], edited: { user: 'U0BOT' } });
    const stored = f.fake.state.messages.C01OPS?.[0];
    expect(stored?.text).toBe('done');
    expect(stored?.history).toEqual([
      { text: 'running', blocks: [section('running')], replaced_at: expect.stringMatching(/^\d+\.\d{6}$/) },
    ]);
  });

  it('keeps blocks when an update omits them, as Slack does', async () => {
    const posted = await f.client.chat.postMessage({ channel: 'C01OPS', text: 'a', blocks: [section('a')] });
    await f.client.chat.update({ channel: 'C01OPS', ts: posted.ts!, text: 'b' });
    expect(f.fake.state.messages.C01OPS?.[0]).toMatchObject({ text: 'b', blocks: [section('a')] });
  });

  it('answers message_not_found for an unknown ts and cant_update_message for a human message', async () => {
    expect((await platformError(f.client.chat.update({ channel: 'C01OPS', ts: '1.000001', text: 'x' }))).error).toBe(
      'message_not_found',
    );
    const human = f.fake.addUserMessage({ channel: 'C01OPS', user: 'U01ALICE', text: 'mine' });
    expect((await platformError(f.client.chat.update({ channel: 'C01OPS', ts: human.ts, text: 'x' }))).error).toBe(
      'cant_update_message',
    );
    expect((await platformError(f.client.chat.delete({ channel: 'C01OPS', ts: human.ts }))).error).toBe(
      'cant_delete_message',
    );
  });

  it('deletes a message', async () => {
    const posted = await f.client.chat.postMessage({ channel: 'C01OPS', text: 'bye' });
    const res = await f.client.chat.delete({ channel: 'C01OPS', ts: posted.ts! });
    expect(res).toMatchObject({ ok: true, channel: 'C01OPS', ts: posted.ts });
    expect(f.fake.state.messages.C01OPS).toEqual([]);
  });

  it('stores ephemerals for a channel member and refuses non-members', async () => {
    const res = await f.client.chat.postEphemeral({ channel: 'C01OPS', user: 'U02BOB', text: 'only you' });
    expect(res.ok).toBe(true);
    expect(res.message_ts).toMatch(/^\d+\.\d{6}$/);
    expect(f.fake.state.ephemerals).toEqual([
      expect.objectContaining({ channel: 'C01OPS', user: 'U02BOB', text: 'only you', ts: res.message_ts }),
    ]);
    const g = await startFixture({ channels: [{ id: 'C05X', name: 'x', members: ['U01ALICE'] }] });
    try {
      const data = await platformError(g.client.chat.postEphemeral({ channel: 'C05X', user: 'U02BOB', text: 'hi' }));
      expect(data.error).toBe('user_not_in_channel');
    } finally {
      await g.fake.close();
    }
  });

  it('builds permalinks, with thread_ts for replies', async () => {
    const parent = await f.client.chat.postMessage({ channel: 'C01OPS', text: 'p' });
    const reply = await f.client.chat.postMessage({ channel: 'C01OPS', text: 'r', thread_ts: parent.ts! });
    const top = await f.client.chat.getPermalink({ channel: 'C01OPS', message_ts: parent.ts! });
    expect(top.permalink).toBe(`https://t0sandbox.slack.com/archives/C01OPS/p${parent.ts!.replace('.', '')}`);
    const threaded = await f.client.chat.getPermalink({ channel: 'C01OPS', message_ts: reply.ts! });
    expect(threaded.permalink).toContain(`?thread_ts=${parent.ts}&cid=C01OPS`);
  });

  it('emits message events for the sandbox UI', async () => {
    const seen: Array<{ kind: string; channel: string }> = [];
    f.fake.on('message', (e: { kind: string; channel: string }) => seen.push({ kind: e.kind, channel: e.channel }));
    const posted = await f.client.chat.postMessage({ channel: 'C01OPS', text: 'a' });
    await f.client.chat.update({ channel: 'C01OPS', ts: posted.ts!, text: 'b' });
    await f.client.chat.delete({ channel: 'C01OPS', ts: posted.ts! });
    expect(seen).toEqual([
      { kind: 'posted', channel: 'C01OPS' },
      { kind: 'updated', channel: 'C01OPS' },
      { kind: 'deleted', channel: 'C01OPS' },
    ]);
  });
});

describe('authentication', () => {
  it('answers not_authed without a token and invalid_auth for a wrong one', async () => {
    const anonymous = await fetch(`${f.fake.url}auth.test`, { method: 'POST' });
    expect(await anonymous.json()).toEqual({ ok: false, error: 'not_authed' });
    const wrong = f.newClient({}, 'xoxp-not-a-bot');
    expect((await platformError(wrong.auth.test())).error).toBe('invalid_auth');
  });

  it('accepts only the configured token when one is set, also as a token param', async () => {
    const g = await startFixture({ botToken: 'xoxb-right' });
    try {
      expect((await platformError(g.newClient({}, 'xoxb-wrong').auth.test())).error).toBe('invalid_auth');
      const res = await fetch(`${g.fake.url}auth.test`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'token=xoxb-right',
      });
      expect(await res.json()).toMatchObject({ ok: true, user_id: 'U0BOT', bot_id: 'B0BOT', team_id: 'T0SANDBOX' });
    } finally {
      await g.fake.close();
    }
  });

  it('answers unknown_method for methods it does not implement', async () => {
    const data = await platformError(f.client.apiCall('files.upload', {}));
    expect(data.error).toBe('unknown_method');
  });
});
