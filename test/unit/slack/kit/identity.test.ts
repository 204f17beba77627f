import { Writable } from 'node:stream';
import { getHeapStatistics } from 'node:v8';
import type { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../src/logger.ts';
import { Identity } from '../../../../src/slack/kit/identity.ts';
import { Places } from '../../../../src/slack/kit/places.ts';
import { UserFacingError } from '../../../../src/slack/kit/user-facing-error.ts';

const logger = createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, done) => done() }) });

/** A Web API client whose usergroups.users.list answers from `answer` (throwing when it returns an Error). */
function client(answer: () => string[] | Error): WebClient {
  return {
    usergroups: {
      users: {
        list: async () => {
          const a = answer();
          if (a instanceof Error) throw a;
          return { ok: true, users: a };
        },
      },
    },
  } as unknown as WebClient;
}

describe('Identity.groupsOf', () => {
  it('fails closed when Slack cannot say who is in a group, and does not cache the failure', async () => {
    let now = 0;
    const identity = new Identity({ groups: ['S0DENIED'], logger, now: () => now });
    let slackDown = true;
    const c = client(() => (slackDown ? new Error('ratelimited') : ['U1']));
    await expect(identity.groupsOf(c, 'U1')).rejects.toBeInstanceOf(UserFacingError);
    slackDown = false;
    expect(await identity.groupsOf(c, 'U1')).toEqual(['S0DENIED']);
    // Once known, a later failure keeps the last known members rather than dropping them.
    slackDown = true;
    now += 60 * 60_000;
    expect(await identity.groupsOf(c, 'U1')).toEqual(['S0DENIED']);
  });
});

describe('Identity.groupsOf with fresh', () => {
  it('reads Slack now, not the cached members, and never falls back to what was known before', async () => {
    const identity = new Identity({ groups: ['S0APPROVERS'], logger, now: () => 0 });
    let members: string[] | Error = ['U1', 'U2'];
    const c = client(() => members);
    expect(await identity.groupsOf(c, 'U1')).toEqual(['S0APPROVERS']);
    members = ['U2'];
    // The cache (10 minutes) still has U1; a fresh read does not.
    expect(await identity.groupsOf(c, 'U1')).toEqual(['S0APPROVERS']);
    expect(await identity.groupsOf(c, 'U1', { fresh: true })).toEqual([]);
    members = new Error('ratelimited');
    await expect(identity.groupsOf(c, 'U2', { fresh: true })).rejects.toBeInstanceOf(UserFacingError);
  });
});

/** A Web API client whose users.info answers after the test releases it, counting calls per user. */
function usersClient(answer: (userId: string) => string | null | Error) {
  const calls: string[] = [];
  const c = {
    users: {
      info: async ({ user }: { user: string }) => {
        calls.push(user);
        await new Promise((resolve) => setTimeout(resolve, 5));
        const a = answer(user);
        if (a instanceof Error) throw a;
        return { ok: true, user: { id: user, profile: a === null ? {} : { email: a } } };
      },
    },
  } as unknown as WebClient;
  return { client: c, calls };
}

const T0 = 1_700_000_000_000;

describe('Identity.emailOf', () => {
  it('concurrent lookups of one user share one users.info call', async () => {
    const identity = new Identity({ groups: [], logger, now: () => T0 });
    const { client: c, calls } = usersClient((u) => `${u.toLowerCase()}@example.com`);
    const emails = await Promise.all([
      identity.emailOf(c, 'U1'),
      identity.emailOf(c, 'U1'),
      identity.emailOf(c, 'U2'),
      identity.emailOf(c, 'U1'),
    ]);
    expect(emails).toEqual(['u1@example.com', 'u1@example.com', 'u2@example.com', 'u1@example.com']);
    expect(calls.sort()).toEqual(['U1', 'U2']);
  });

  it('keeps an email (or its absence) for the TTL, then asks again', async () => {
    let now = T0;
    const identity = new Identity({ groups: [], logger, now: () => now, ttlMs: 60_000 });
    let email: string | null = null;
    const { client: c, calls } = usersClient(() => email);
    expect(await identity.emailOf(c, 'U1')).toBeNull();
    email = 'u1@example.com';
    now = T0 + 59_999;
    expect(await identity.emailOf(c, 'U1')).toBeNull();
    now = T0 + 60_001;
    expect(await identity.emailOf(c, 'U1')).toBe('u1@example.com');
    expect(calls).toEqual(['U1', 'U1']);
  });

  it('drops the least recently used user at the bound, not the whole cache', async () => {
    const identity = new Identity({ groups: [], logger, now: () => T0, maxUsers: 2 });
    const { client: c, calls } = usersClient((u) => `${u}@example.com`);
    await identity.emailOf(c, 'U1');
    await identity.emailOf(c, 'U2');
    await identity.emailOf(c, 'U1');
    await identity.emailOf(c, 'U3');
    expect(calls).toEqual(['U1', 'U2', 'U3']);
    await identity.emailOf(c, 'U1');
    expect(calls).toEqual(['U1', 'U2', 'U3']);
    await identity.emailOf(c, 'U2');
    expect(calls).toEqual(['U1', 'U2', 'U3', 'U2']);
  });

  it('a failed users.info gives null to everyone waiting and is not cached', async () => {
    const identity = new Identity({ groups: [], logger, now: () => T0 });
    let down = true;
    const { client: c, calls } = usersClient(() => (down ? new Error('ratelimited') : 'u1@example.com'));
    expect(await Promise.all([identity.emailOf(c, 'U1'), identity.emailOf(c, 'U1')])).toEqual([null, null]);
    down = false;
    expect(await identity.emailOf(c, 'U1')).toBe('u1@example.com');
    expect(calls).toEqual(['U1', 'U1']);
  });
});

describe('Identity.groupsOf, concurrently', () => {
  it('concurrent checks share one read of the group members', async () => {
    const identity = new Identity({ groups: ['S1', 'S2'], logger, now: () => T0 });
    const calls: string[] = [];
    const c = {
      usergroups: {
        users: {
          list: async ({ usergroup }: { usergroup: string }) => {
            calls.push(usergroup);
            await new Promise((resolve) => setTimeout(resolve, 5));
            return { ok: true, users: usergroup === 'S1' ? ['U1'] : ['U1', 'U2'] };
          },
        },
      },
    } as unknown as WebClient;
    const groups = await Promise.all([
      identity.groupsOf(c, 'U1'),
      identity.groupsOf(c, 'U2'),
      identity.groupsOf(c, 'U3'),
    ]);
    expect(groups).toEqual([['S1', 'S2'], ['S2'], []]);
    expect(calls).toEqual(['S1', 'S2']);
  });
});

describe("each installation's people and places caches", () => {
  it('take memory as they fill, not up front (many workspaces build a pair per installation)', () => {
    const before = getHeapStatistics().used_heap_size;
    const pairs = 200;
    const kept: unknown[] = [];
    for (let i = 0; i < pairs; i++) kept.push(new Identity({ groups: ['S1'], logger }), new Places({ logger }));
    const perInstallation = (getHeapStatistics().used_heap_size - before) / pairs;
    // Slots allocated for every possible entry cost about 2 MB a pair (2 GB for 1,000 installations).
    expect(perInstallation).toBeLessThan(100 * 1024);
  });
});
