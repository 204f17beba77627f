// Who may be an actor, from what Slack says: the installation (auth.test) and the person (users.info).
import { Writable } from 'node:stream';
import type { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../src/logger.ts';
import type { SlackDeps } from '../../../../src/slack/kit/deps.ts';
import { Identity } from '../../../../src/slack/kit/identity.ts';
import { standingOf } from '../../../../src/slack/kit/standing.ts';

const logger = createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, done) => done() }) });

interface Person {
  team_id: string;
  enterprise?: string;
  is_bot?: boolean;
}

/** auth.test says the bot U0BOT is installed in T0ACME of org E0ACME (or of no org); users.info knows `people`. */
function world(people: Record<string, Person>, enterpriseId: string | null = 'E0ACME') {
  const client = {
    token: 'xoxb-test',
    auth: {
      test: async () => ({
        ok: true,
        team_id: 'T0ACME',
        user_id: 'U0BOT',
        ...(enterpriseId ? { enterprise_id: enterpriseId } : {}),
      }),
    },
    users: {
      info: async ({ user }: { user: string }) => {
        const p = people[user];
        if (!p) throw Object.assign(new Error('user_not_found'), { data: { error: 'user_not_found' } });
        return {
          ok: true,
          user: {
            id: user,
            team_id: p.team_id,
            is_bot: p.is_bot ?? false,
            ...(p.enterprise ? { enterprise_user: { enterprise_id: p.enterprise } } : {}),
            profile: {},
          },
        };
      },
    },
  } as unknown as WebClient;
  const deps = { access: { identity: new Identity({ groups: [], logger }) } } as unknown as Pick<SlackDeps, 'access'>;
  return { client, deps };
}

const PEOPLE: Record<string, Person> = {
  U1MEMBER: { team_id: 'T0ACME', enterprise: 'E0ACME' },
  U2SIBLING: { team_id: 'T0ACMEEU', enterprise: 'E0ACME' },
  U3PARTNER: { team_id: 'T0PARTNER', enterprise: 'E0PARTNER' },
  U4NOORG: { team_id: 'T0SMALLCO' },
  U5OTHERAPP: { team_id: 'T0ACME', is_bot: true },
};

describe('standingOf', () => {
  it('members, sibling workspaces of the same org, bots and people of another organisation', async () => {
    const { client, deps } = world(PEOPLE);
    const of = (userId: string, extra = {}) => standingOf(deps, client, { userId, ...extra });
    expect(await of('U1MEMBER')).toEqual({ kind: 'member' });
    expect(await of('U2SIBLING', { teamHint: 'T0ACMEEU' })).toEqual({ kind: 'member' });
    expect(await of('U3PARTNER', { teamHint: 'T0ACME' })).toEqual({ kind: 'external', teamId: 'T0PARTNER' });
    expect(await of('U4NOORG')).toEqual({ kind: 'external', teamId: 'T0SMALLCO' });
    for (const bot of ['U5OTHERAPP', 'U0BOT', 'USLACKBOT']) expect(await of(bot)).toEqual({ kind: 'bot' });
    expect(await of('U1MEMBER', { botHint: true })).toEqual({ kind: 'bot' });
  });

  it('without an org, another workspace is external; when Slack cannot say, the payload decides', async () => {
    const { client, deps } = world(PEOPLE, null);
    expect(await standingOf(deps, client, { userId: 'U2SIBLING' })).toEqual({ kind: 'external', teamId: 'T0ACMEEU' });
    expect(await standingOf(deps, client, { userId: 'U9UNKNOWN', teamHint: 'T0ELSE' })).toEqual({
      kind: 'external',
      teamId: 'T0ELSE',
    });
    expect(await standingOf(deps, client, { userId: 'U9UNKNOWN', teamHint: 'T0ACME' })).toEqual({ kind: 'member' });
  });
});
