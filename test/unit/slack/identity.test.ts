import { Writable } from 'node:stream';
import type { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.ts';
import { Identity } from '../../../src/slack/identity.ts';
import { UserFacingError } from '../../../src/slack/user-facing-error.ts';

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
