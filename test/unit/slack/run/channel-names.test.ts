import type { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { createChannelNames } from '../../../../src/slack/run/channel-names.ts';

type Channel = { id: string; name: string };

/** A client whose conversations.list pages `channels` two at a time and records each call. */
function fakeClient(channels: () => Channel[] | Error) {
  const calls: Array<Record<string, unknown>> = [];
  const client = {
    conversations: {
      list: async (args: Record<string, unknown>) => {
        calls.push(args);
        const all = channels();
        if (all instanceof Error) throw all;
        const start = Number(args.cursor ?? 0);
        const next = start + 2 < all.length ? String(start + 2) : '';
        return { ok: true, channels: all.slice(start, start + 2), response_metadata: { next_cursor: next } };
      },
    },
  } as unknown as WebClient;
  return { client, calls };
}

const CHANNELS: Channel[] = [
  { id: 'C01OPS', name: 'ops' },
  { id: 'C02DEPLOYS', name: 'deploys' },
  { id: 'G03PRIV', name: 'secret-ops' },
  { id: 'C04EU', name: 'ops-eu' },
];

describe('channel names', () => {
  it('finds a channel on any page, public or private, case-insensitively, asking for both types', async () => {
    const { client, calls } = fakeClient(() => CHANNELS);
    const names = createChannelNames();
    expect(await names.resolve(client, 'T1', '#ops-eu')).toEqual({ ok: true, id: 'C04EU' });
    expect(await names.resolve(client, 'T1', 'Secret-Ops')).toEqual({ ok: true, id: 'G03PRIV' });
    expect(calls[0]).toMatchObject({ types: 'public_channel,private_channel', exclude_archived: true });
    expect(calls.map((c) => c.cursor ?? null)).toEqual([null, '2']);
  });

  it('reuses a listing for a while per team, then fetches again', async () => {
    let t = 0;
    const { client, calls } = fakeClient(() => CHANNELS);
    const names = createChannelNames({ ttlMs: 1000, now: () => t });
    await names.resolve(client, 'T1', '#ops');
    await names.resolve(client, 'T1', '#deploys');
    expect(calls).toHaveLength(2); // one listing, two pages
    await names.resolve(client, 'T2', '#ops');
    expect(calls).toHaveLength(4);
    t = 1000;
    await names.resolve(client, 'T1', '#ops');
    expect(calls).toHaveLength(6);
  });

  it('an unknown name is a sentence naming it; a recent listing is not fetched again for it', async () => {
    let t = 0;
    let channels = CHANNELS;
    const { client, calls } = fakeClient(() => channels);
    const names = createChannelNames({ ttlMs: 60_000, refreshMissAfterMs: 5000, now: () => t });
    const missing = await names.resolve(client, 'T1', '#nope');
    expect(missing).toEqual({ ok: false, error: expect.stringContaining('`#nope`') });
    expect(calls).toHaveLength(2);
    // A channel made since: found once the listing is old enough to refresh on a miss.
    channels = [...CHANNELS, { id: 'C05NEW', name: 'new' }];
    t = 1000;
    expect((await names.resolve(client, 'T1', '#new')).ok).toBe(false);
    t = 6000;
    expect(await names.resolve(client, 'T1', '#new')).toEqual({ ok: true, id: 'C05NEW' });
  });

  it('a failing listing answers with a sentence and is not cached', async () => {
    let fail = true;
    const { client } = fakeClient(() => (fail ? new Error('missing_scope') : CHANNELS));
    const names = createChannelNames();
    const r = await names.resolve(client, null, '#ops');
    expect(r).toEqual({ ok: false, error: expect.stringMatching(/Could not look up `#ops`/) });
    fail = false;
    expect(await names.resolve(client, null, '#ops')).toEqual({ ok: true, id: 'C01OPS' });
  });
});
