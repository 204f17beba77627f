// Many workspaces: the caches in front of Slack and the Runbook API are kept per installation. A's runbook
// catalog never answers B's list, search, lookup or resolution; what A's Slack said about a user id (profile,
// email, user groups) or a channel (the bot in it, the person in it) is never B's answer, even when one object
// serves both (background work holds one Identity, one Places, one proxy directory and one routed catalog for
// every installation).
import { Writable } from 'node:stream';
import type { WebClient } from '@slack/web-api';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunbookApi } from '../../../src/api/runbook-api.ts';
import { ProxyDirectory } from '../../../src/catalog/proxy-directory.ts';
import { createLogger } from '../../../src/logger.ts';
import { Identity } from '../../../src/slack/kit/identity.ts';
import { Places } from '../../../src/slack/kit/places.ts';
import { RoutedRunbookCatalog } from '../../../src/slack/tenant-deps.ts';
import { NoApiInScopeError } from '../../../src/tenants/routed-api.ts';
import { currentInstallation, inInstallation } from '../../../src/tenants/tenant-scope.ts';
import { TABLE_POLICY } from '../../support/authorization-cases.ts';
import { B_RUNBOOKS, KEY_A, KEY_B, type TenancyEnv, useTenancyEnvs } from './tenancy-env.ts';

const logger = createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, done) => done() }) });
const A = 'T0AAA';
const B = 'T0BBB';

/** One workspace's Slack as its own token sees it: a person's email and groups, a channel the bot is in. */
function workspaceSlack(p: { email: string; groupMembers: string[]; channels: string[] }) {
  const calls: string[] = [];
  const client = {
    users: {
      info: async ({ user }: { user: string }) => {
        calls.push('users.info');
        return { ok: true, user: { id: user, team_id: 'T', profile: { email: p.email } } };
      },
      conversations: async () => {
        calls.push('users.conversations');
        return { ok: true, channels: p.channels.map((id) => ({ id })) };
      },
    },
    usergroups: {
      users: {
        list: async () => {
          calls.push('usergroups.users.list');
          return { ok: true, users: p.groupMembers };
        },
      },
    },
    conversations: {
      info: async ({ channel }: { channel: string }) => {
        calls.push('conversations.info');
        if (!p.channels.includes(channel))
          throw Object.assign(new Error('x'), { data: { error: 'channel_not_found' } });
        return { ok: true, channel: { id: channel, is_member: true } };
      },
    },
  };
  return { client: client as unknown as WebClient, calls };
}

describe('the identity cache, per installation', () => {
  it('a user id’s profile and groups read in A are never B’s answer', async () => {
    const identity = new Identity({ groups: ['S0ONCALL'], logger });
    const a = workspaceSlack({ email: 'u1@a.example', groupMembers: ['U1'], channels: [] });
    const b = workspaceSlack({ email: 'u1@b.example', groupMembers: [], channels: [] });
    expect(await inInstallation(A, () => identity.emailOf(a.client, 'U1'))).toBe('u1@a.example');
    expect(await inInstallation(A, () => identity.groupsOf(a.client, 'U1'))).toEqual(['S0ONCALL']);
    expect(await inInstallation(B, () => identity.emailOf(b.client, 'U1'))).toBe('u1@b.example');
    expect(await inInstallation(B, () => identity.groupsOf(b.client, 'U1'))).toEqual([]);
    expect(b.calls).toEqual(['users.info', 'usergroups.users.list']);
    // Each installation's answers stay cached for it.
    expect(await inInstallation(A, () => identity.groupsOf(a.client, 'U1'))).toEqual(['S0ONCALL']);
    expect(await inInstallation(A, () => identity.emailOf(a.client, 'U1'))).toBe('u1@a.example');
    expect(a.calls).toEqual(['users.info', 'usergroups.users.list']);
  });
});

describe('the places cache, per installation', () => {
  it('a channel A’s bot and person are in is asked again in B (a Slack Connect channel has one id)', async () => {
    const places = new Places({ logger });
    const a = workspaceSlack({ email: '', groupMembers: [], channels: ['C0SHARED'] });
    const b = workspaceSlack({ email: '', groupMembers: [], channels: [] });
    expect(await inInstallation(A, () => places.facts(a.client, 'C0SHARED', 'U1'))).toMatchObject({
      found: true,
      botIsMember: true,
      chooserIsMember: true,
    });
    expect(await inInstallation(B, () => places.facts(b.client, 'C0SHARED', 'U1'))).toMatchObject({
      found: false,
      chooserIsMember: false,
    });
    expect(b.calls).toEqual(['conversations.info']);
  });
});

describe('the proxies seen on schedules, per installation', () => {
  it('background work’s one directory never names or offers A’s proxies in B', async () => {
    const schedulesOf: Record<string, Array<{ proxyId: string; proxyName: string }>> = {
      [A]: [{ proxyId: 'proxy-a', proxyName: 'A’s vault proxy' }],
      [B]: [],
    };
    const api = {
      schedules: {
        async *iterate() {
          yield* schedulesOf[currentInstallation() ?? ''] ?? [];
        },
      },
    } as unknown as RunbookApi;
    const proxies = new ProxyDirectory({
      api,
      configured: [],
      defaultId: null,
      scope: () => currentInstallation() ?? '',
    });
    const inA = await inInstallation(A, () => proxies.choicesFor(null));
    expect(inA.options.map((p) => p.id)).toEqual(['proxy-a']);
    expect(inInstallation(A, () => proxies.nameOf('proxy-a'))).toBe('A’s vault proxy');
    expect((await inInstallation(B, () => proxies.choicesFor(null))).options).toEqual([]);
    expect(inInstallation(B, () => proxies.nameOf('proxy-a'))).toBeNull();
    inInstallation(B, () => proxies.remember({ id: 'proxy-b', name: 'B’s' }));
    expect(inInstallation(A, () => proxies.nameOf('proxy-b'))).toBeNull();
  });
});

describe('the runbook catalog, per installation', () => {
  const envs = useTenancyEnvs(TABLE_POLICY);
  let t: TenancyEnv;
  beforeAll(async () => {
    t = envs.tenancy();
    expect((await t.connections.connect(A, { apiKey: KEY_A }, 'U1')).ok).toBe(true);
    expect((await t.connections.connect(B, { apiKey: KEY_B }, 'U2')).ok).toBe(true);
  });

  it('A’s catalog never answers B’s list, search, lookup or resolution', async () => {
    const a = (await t.tenants.depsFor(t.installation(A))).catalog;
    const b = (await t.tenants.depsFor(t.installation(B))).catalog;
    const onlyA = (await a.search('Scale Kubernetes Deployment'))[0]!;
    expect(onlyA.name).toBe('Scale Kubernetes Deployment');
    expect(await b.search('Scale Kubernetes Deployment')).toEqual([]);
    expect(await b.get(onlyA.id)).toBeNull();
    expect(await b.resolve(onlyA.id)).toMatchObject({ kind: 'none' });
    expect(await b.resolve('Scale Kubernetes Deployment')).toMatchObject({ kind: 'none' });
    const listed = await b.browse({ words: '', scope: 'all', category: null, page: 0, pageSize: 100 });
    expect(listed.items.map((w) => w.name).sort()).toEqual([...B_RUNBOOKS].sort());
    expect((await a.browse({ words: '', scope: 'all', category: null, page: 0, pageSize: 100 })).total).toBeGreaterThan(
      40,
    );
    // Asked again (cached now) it is still each one's own.
    expect(await b.search('Scale')).toEqual([]);
    expect((await a.resolve(onlyA.id)).kind).toBe('match');
  });

  it('background work’s one catalog answers from the installation in scope’s, and outside any refuses', async () => {
    const routed = new RoutedRunbookCatalog(async () => {
      const id = currentInstallation();
      if (!id) throw new NoApiInScopeError();
      return (await t.tenants.depsForId(id)).catalog;
    });
    const scale = await inInstallation(A, () => routed.search('Scale Kubernetes Deployment'));
    expect(scale.map((w) => w.name)).toEqual(['Scale Kubernetes Deployment']);
    expect(await inInstallation(B, () => routed.get(scale[0]!.id))).toBeNull();
    expect(await inInstallation(B, () => routed.named('Scale Kubernetes Deployment'))).toEqual([]);
    expect((await inInstallation(B, () => routed.all())).map((w) => w.name).sort()).toEqual([...B_RUNBOOKS].sort());
    expect((await inInstallation(A, () => routed.resolve(scale[0]!.id))).kind).toBe('match');
    await expect(routed.all()).rejects.toBeInstanceOf(NoApiInScopeError);
  });
});
