// Places: what Slack says about a destination, read from the fake Slack Web API with the real WebClient,
// cached with a TTL (and shared between concurrent lookups), failing closed when Slack does not answer.
import { Writable } from 'node:stream';
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../src/logger.ts';
import { type FakeSlack, startFakeSlack } from '../../../../src/sandbox/fake-slack-api.ts';
import { DEFAULT_CHANNELS } from '../../../../src/sandbox/fake-slack-state.ts';
import { Places } from '../../../../src/slack/kit/places.ts';
import { UserFacingError } from '../../../../src/slack/kit/user-facing-error.ts';

const logger = createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, done) => done() }) });
const TOKEN = 'xoxb-places-test';

let fake: FakeSlack;
let client: WebClient;
beforeAll(async () => {
  fake = await startFakeSlack({
    port: 0,
    botToken: TOKEN,
    channels: [
      ...DEFAULT_CHANNELS,
      { id: 'C0SECRET', name: 'secret', is_private: true, members: ['U02BOB'] },
      { id: 'C0BOTLESS', name: 'botless', is_private: true, is_member: false, members: ['U01ALICE'] },
      { id: 'C0OLD', name: 'old', is_archived: true },
    ],
  });
  client = new WebClient(TOKEN, { slackApiUrl: fake.url, retryConfig: { retries: 0 } });
});
afterAll(async () => {
  await fake.close();
});

const calls = (method: string) => fake.state.calls.filter((c) => c.method === method).length;

describe('Places.facts', () => {
  it('reads existence, kind, the bot and the chooser from Slack', async () => {
    const places = new Places({ logger });
    expect(await places.facts(client, 'C01OPS', 'U01ALICE')).toEqual({
      found: true,
      kind: 'public',
      archived: false,
      botIsMember: true,
      chooserIsMember: true,
    });
    expect(await places.facts(client, 'C0SECRET', 'U01ALICE')).toMatchObject({
      found: true,
      kind: 'private',
      chooserIsMember: false,
    });
    expect((await places.facts(client, 'C0SECRET', 'U02BOB')).chooserIsMember).toBe(true);
    // A private channel without the bot does not exist for it; nor does a made-up id.
    expect((await places.facts(client, 'C0BOTLESS', 'U01ALICE')).found).toBe(false);
    expect((await places.facts(client, 'C0NOSUCH', 'U01ALICE')).found).toBe(false);
    expect((await places.facts(client, 'C0OLD', 'U01ALICE')).archived).toBe(true);
  });

  it('knows a DM only as the chooser’s own DM with the bot', async () => {
    const places = new Places({ logger });
    const own = await places.facts(client, 'D01ALICE', 'U01ALICE');
    expect(own).toMatchObject({ kind: 'dm', chooserIsMember: true });
    expect((await places.facts(client, 'D02BOB', 'U01ALICE')).chooserIsMember).toBe(false);
  });

  it('caches memberships for their TTL, and concurrent lookups share one call', async () => {
    // lru-cache reads a start time of 0 as "never stale": the clock starts later.
    let now = 1_000_000;
    const places = new Places({ logger, now: () => now, membershipTtlMs: 30_000 });
    const before = calls('users.conversations');
    await Promise.all([places.facts(client, 'C01OPS', 'U03CAROL'), places.facts(client, 'C02DEPLOYS', 'U03CAROL')]);
    expect(calls('users.conversations') - before).toBe(1);
    now += 29_000;
    await places.facts(client, 'C01OPS', 'U03CAROL');
    expect(calls('users.conversations') - before).toBe(1);
    // Carol leaves #ops: seen once the TTL is over.
    const ops = fake.state.channels.find((c) => c.id === 'C01OPS')!;
    const members = ops.members;
    ops.members = (members ?? []).filter((m) => m !== 'U03CAROL');
    try {
      now += 2_000;
      expect((await places.facts(client, 'C01OPS', 'U03CAROL')).chooserIsMember).toBe(false);
      expect(calls('users.conversations') - before).toBe(2);
    } finally {
      ops.members = members;
    }
  });

  it('fails closed with a sentence when Slack does not answer', async () => {
    const places = new Places({ logger });
    fake.setFaults({ serverErrorNext: 1, methods: ['conversations.info'] });
    await expect(places.facts(client, 'C02DEPLOYS', 'U01ALICE')).rejects.toBeInstanceOf(UserFacingError);
    fake.setFaults({});
    // Not cached: the next look answers.
    expect((await places.facts(client, 'C02DEPLOYS', 'U01ALICE')).found).toBe(true);
  });
});

describe('fake users.conversations', () => {
  it('lists a user’s channels (private ones only with the bot), paged, with Slack’s errors', async () => {
    const list = await client.users.conversations({
      user: 'U01ALICE',
      types: 'public_channel,private_channel',
      limit: 2,
    });
    expect(list.channels).toHaveLength(2);
    expect(list.channels?.[0]).not.toHaveProperty('is_member');
    expect(list.response_metadata?.next_cursor).not.toBe('');
    const all = await client.users.conversations({ user: 'U01ALICE', types: 'public_channel,private_channel' });
    const ids = (all.channels ?? []).map((c) => c.id);
    expect(ids).toContain('C01OPS');
    expect(ids).not.toContain('C0BOTLESS');
    expect(ids).not.toContain('C0SECRET');
    await expect(client.users.conversations({ user: 'U0NOBODY' })).rejects.toMatchObject({
      data: { error: 'user_not_found' },
    });
    await expect(client.users.conversations({ user: 'U01ALICE', types: 'channels' })).rejects.toMatchObject({
      data: { error: 'invalid_types' },
    });
  });
});
