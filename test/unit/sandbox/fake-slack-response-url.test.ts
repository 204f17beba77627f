import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSlackFixture, section, startFixture } from './fake-slack-fixture.ts';

let f: FakeSlackFixture;

beforeEach(async () => {
  f = await startFixture();
});

afterEach(async () => {
  await f.fake.close();
});

async function post(url: string, body: object): Promise<{ status: number; json: unknown }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

describe('response_url', () => {
  it('looks like a Slack hooks URL on the fake origin', () => {
    const url = f.fake.newResponseUrl({ channel: 'C01OPS', user: 'U01ALICE' });
    expect(url).toMatch(new RegExp(`^${f.fake.origin}/commands/T0SANDBOX/\\d{13}/[A-Z0-9]{24}$`));
  });

  it('records an ephemeral answer and shows it to the user only', async () => {
    const url = f.fake.newResponseUrl({ channel: 'C01OPS', user: 'U01ALICE' });
    const res = await post(url, { text: 'Only you can see this', blocks: [section('hi')] });
    expect(res).toEqual({ status: 200, json: { ok: true } });
    expect(f.fake.state.responseUrlPosts).toEqual([
      expect.objectContaining({
        url,
        channel: 'C01OPS',
        user: 'U01ALICE',
        ok: true,
        body: { text: 'Only you can see this', blocks: [section('hi')] },
      }),
    ]);
    expect(f.fake.state.ephemerals).toEqual([
      expect.objectContaining({
        channel: 'C01OPS',
        user: 'U01ALICE',
        text: 'Only you can see this',
        source: 'response_url',
      }),
    ]);
    expect(f.fake.state.messages.C01OPS ?? []).toEqual([]);
  });

  it('posts in_channel answers as bot messages, in a thread when asked', async () => {
    const parent = await f.client.chat.postMessage({ channel: 'C01OPS', text: 'parent' });
    const url = f.fake.newResponseUrl({ channel: 'C01OPS', user: 'U01ALICE' });
    await post(url, { response_type: 'in_channel', text: 'for everyone', thread_ts: parent.ts });
    const stored = f.fake.state.messages.C01OPS ?? [];
    expect(stored.map((m) => [m.text, m.thread_ts])).toEqual([
      ['parent', undefined],
      ['for everyone', parent.ts],
    ]);
  });

  it('replaces and deletes the original message of an interaction', async () => {
    const posted = await f.client.chat.postMessage({ channel: 'C01OPS', text: 'Approve?' });
    const url = f.fake.newResponseUrl({ channel: 'C01OPS', user: 'U02BOB', messageTs: posted.ts! });
    expect(url).toContain('/actions/');
    await post(url, { replace_original: true, text: 'Approved by Bob' });
    expect(f.fake.state.messages.C01OPS?.[0]).toMatchObject({ ts: posted.ts, text: 'Approved by Bob' });
    await post(url, { delete_original: true });
    expect(f.fake.state.messages.C01OPS).toEqual([]);
  });

  it('replaces an ephemeral original in place', async () => {
    const eph = await f.client.chat.postEphemeral({ channel: 'C01OPS', user: 'U01ALICE', text: 'Pick one' });
    const url = f.fake.newResponseUrl({ channel: 'C01OPS', user: 'U01ALICE', messageTs: eph.message_ts! });
    await post(url, { replace_original: 'true', text: 'Picked' });
    expect(f.fake.state.ephemerals).toEqual([expect.objectContaining({ text: 'Picked', replaced: true })]);
  });

  it('works 5 times within 30 minutes, like Slack', async () => {
    const url = f.fake.newResponseUrl({ channel: 'C01OPS', user: 'U01ALICE' });
    for (let i = 0; i < 5; i++) expect((await post(url, { text: `#${i}` })).status).toBe(200);
    expect(await post(url, { text: 'sixth' })).toEqual({ status: 404, json: { ok: false, error: 'used_url' } });
    const later = f.fake.newResponseUrl({ channel: 'C01OPS', user: 'U01ALICE' });
    f.clock.ms += 30 * 60_000 + 1;
    expect(await post(later, { text: 'late' })).toEqual({ status: 404, json: { ok: false, error: 'expired_url' } });
    expect(f.fake.state.responseUrlPosts.map((p) => p.ok)).toEqual([true, true, true, true, true, false, false]);
  });

  it('rejects blocks that break Block Kit limits', async () => {
    const url = f.fake.newResponseUrl({ channel: 'C01OPS', user: 'U01ALICE' });
    const blocks = Array.from({ length: 51 }, () => section('x'));
    expect(await post(url, { text: 'x', blocks })).toEqual({
      status: 400,
      json: { ok: false, error: 'invalid_blocks' },
    });
    expect(f.fake.state.ephemerals).toEqual([]);
  });
});
