import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSlackFixture, startFixture } from './fake-slack-fixture.ts';

let f: FakeSlackFixture;

beforeEach(async () => {
  f = await startFixture();
});

afterEach(async () => {
  await f.fake.close();
});

describe('users', () => {
  it('users.info answers the default users with email and time zone', async () => {
    const res = await f.client.users.info({ user: 'U02BOB' });
    expect(res.user).toMatchObject({
      id: 'U02BOB',
      name: 'bob',
      real_name: 'Bob Brown',
      tz: 'America/New_York',
      tz_label: 'Eastern Standard Time',
      tz_offset: -18000,
      team_id: 'T0SANDBOX',
      is_bot: false,
      profile: { email: 'bob@example.com', real_name: 'Bob Brown', display_name: 'bob' },
    });
    const alice = await f.client.users.info({ user: 'U01ALICE' });
    expect(alice.user).toMatchObject({ tz: 'Europe/Berlin', profile: { email: 'alice@example.com' } });
    const carol = await f.client.users.info({ user: 'U03CAROL' });
    expect(carol.user).toMatchObject({ tz: 'Asia/Tokyo', tz_offset: 32400 });
  });

  it('users.info answers user_not_found; the bot user is known', async () => {
    await expect(f.client.users.info({ user: 'U404' })).rejects.toMatchObject({ data: { error: 'user_not_found' } });
    const bot = await f.client.users.info({ user: 'U0BOT' });
    expect(bot.user).toMatchObject({ is_bot: true, profile: { bot_id: 'B0BOT' } });
  });

  it('users.lookupByEmail finds users case-insensitively and answers users_not_found', async () => {
    const res = await f.client.users.lookupByEmail({ email: 'Carol@Example.com' });
    expect(res.user?.id).toBe('U03CAROL');
    await expect(f.client.users.lookupByEmail({ email: 'nobody@example.com' })).rejects.toMatchObject({
      data: { error: 'users_not_found' },
    });
  });

  it('serves configured users instead of the defaults', async () => {
    const g = await startFixture({
      users: [
        {
          id: 'U09DAN',
          name: 'dan',
          real_name: 'Dan D',
          email: 'dan@example.com',
          tz: 'UTC',
          tz_label: 'UTC',
          tz_offset: 0,
        },
      ],
    });
    try {
      expect((await g.client.users.info({ user: 'U09DAN' })).user?.name).toBe('dan');
      await expect(g.client.users.info({ user: 'U01ALICE' })).rejects.toMatchObject({
        data: { error: 'user_not_found' },
      });
    } finally {
      await g.fake.close();
    }
  });
});

describe('conversations', () => {
  it('conversations.list lists the default channels with paging', async () => {
    const all = await f.client.conversations.list({});
    expect(all.channels?.map((c) => [c.id, c.name, c.is_member])).toEqual([
      ['C01OPS', 'ops', true],
      ['C02DEPLOYS', 'deploys', true],
      ['C03APPROVALS', 'approvals', true],
    ]);
    const first = await f.client.conversations.list({ limit: 2 });
    expect(first.channels).toHaveLength(2);
    const cursor = first.response_metadata?.next_cursor ?? '';
    expect(cursor).not.toBe('');
    const second = await f.client.conversations.list({ limit: 2, cursor });
    expect(second.channels?.map((c) => c.id)).toEqual(['C03APPROVALS']);
    expect(second.response_metadata?.next_cursor).toBe('');
  });

  it('conversations.info and members answer for channels and channel_not_found otherwise', async () => {
    const info = await f.client.conversations.info({ channel: 'C03APPROVALS' });
    expect(info.channel).toMatchObject({ id: 'C03APPROVALS', name: 'approvals', is_channel: true, is_private: false });
    const members = await f.client.conversations.members({ channel: 'C01OPS' });
    expect(members.members).toEqual(['U01ALICE', 'U02BOB', 'U03CAROL', 'U0BOT']);
    await expect(f.client.conversations.info({ channel: 'C404' })).rejects.toMatchObject({
      data: { error: 'channel_not_found' },
    });
  });

  it('hides private channels the bot is not in', async () => {
    const g = await startFixture({ channels: [{ id: 'G01SEC', name: 'sec', is_private: true, is_member: false }] });
    try {
      await expect(g.client.conversations.info({ channel: 'G01SEC' })).rejects.toMatchObject({
        data: { error: 'channel_not_found' },
      });
      const list = await g.client.conversations.list({ types: 'public_channel,private_channel' });
      expect(list.channels).toEqual([]);
    } finally {
      await g.fake.close();
    }
  });

  it('conversations.open gives a stable D… channel for a user', async () => {
    const first = await f.client.conversations.open({ users: 'U01ALICE' });
    expect(first.channel?.id).toBe('D01ALICE');
    const again = await f.client.conversations.open({ users: 'U01ALICE', return_im: true });
    expect(again).toMatchObject({ already_open: true, channel: { id: 'D01ALICE', is_im: true, user: 'U01ALICE' } });
    await expect(f.client.conversations.open({ users: 'U404' })).rejects.toMatchObject({
      data: { error: 'user_not_found' },
    });
  });

  it('conversations.join answers already_in_channel as a warning', async () => {
    const res = await f.client.conversations.join({ channel: 'C01OPS' });
    expect(res).toMatchObject({ ok: true, warning: 'already_in_channel', channel: { id: 'C01OPS' } });
  });

  it('conversations.history pages newest first and honours oldest/latest', async () => {
    const ts: string[] = [];
    for (const text of ['one', 'two', 'three']) {
      const res = await f.client.chat.postMessage({ channel: 'C01OPS', text });
      ts.push(res.ts!);
    }
    const page1 = await f.client.conversations.history({ channel: 'C01OPS', limit: 2 });
    expect(page1.messages?.map((m) => m.text)).toEqual(['three', 'two']);
    expect(page1.has_more).toBe(true);
    const page2 = await f.client.conversations.history({
      channel: 'C01OPS',
      limit: 2,
      cursor: page1.response_metadata?.next_cursor ?? '',
    });
    expect(page2.messages?.map((m) => m.text)).toEqual(['one']);
    const ranged = await f.client.conversations.history({ channel: 'C01OPS', oldest: ts[0], latest: ts[2] });
    expect(ranged.messages?.map((m) => m.text)).toEqual(['two']);
    await expect(f.client.conversations.replies({ channel: 'C01OPS', ts: '1.000001' })).rejects.toMatchObject({
      data: { error: 'thread_not_found' },
    });
  });

  it('reset forgets messages and restores membership', async () => {
    await f.client.chat.postMessage({ channel: 'C01OPS', text: 'x' });
    f.fake.state.channels[0]!.is_member = false;
    f.fake.reset();
    expect(f.fake.state.messages).toEqual({});
    expect(f.fake.state.calls).toEqual([]);
    expect(f.fake.state.channels[0]?.is_member).toBe(true);
    const res = await f.client.chat.postMessage({ channel: 'C01OPS', text: 'after reset' });
    expect(res.ok).toBe(true);
  });
});
