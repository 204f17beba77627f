// A client without a token of its own sends the token of the installation in scope, on every call and
// in every copy made of it (the no-retry copy that posts once); outside any scope it refuses to call.
// Caches keyed by who is asking keep installations apart (one email is a different person per workspace).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.ts';
import { Identity } from '../../../src/slack/kit/identity.ts';
import { noRetryClient } from '../../../src/slack/kit/post-once.ts';
import type { InstallationRecordStore } from '../../../src/store/installations.ts';
import { TenantClients } from '../../../src/tenants/tenant-clients.ts';
import {
  currentInstallation,
  DeadTokenError,
  inInstallation,
  NoInstallationInScopeError,
  RoutedWebClient,
} from '../../../src/tenants/tenant-scope.ts';

const TOKENS: Record<string, string> = { T1: 'xoxb-one', E1: 'xoxb-org', T9: 'xoxb-revoked', T8: 'xoxb-broken' };
let server: Server;
let url = '';
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const token = (req.headers.authorization ?? '').replace('Bearer ', '');
    seen.push(token);
    res.writeHead(200, { 'content-type': 'application/json' });
    if (token === 'xoxb-revoked') return void res.end(JSON.stringify({ ok: false, error: 'token_revoked' }));
    if (token === 'xoxb-broken') return void res.end(JSON.stringify({ ok: false, error: 'channel_not_found' }));
    // Each workspace knows the same email as a different person.
    res.end(JSON.stringify({ ok: true, user: { id: token === 'xoxb-one' ? 'U_IN_T1' : 'U_IN_E1' }, team_id: token }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const routed = () => new RoutedWebClient(async (id) => TOKENS[id]!, { slackApiUrl: url, retryConfig: { retries: 0 } });

describe('the installation in scope', () => {
  it('carries through awaits and timers, and is absent outside', async () => {
    expect(currentInstallation()).toBeUndefined();
    const inside = await inInstallation('T1', async () => {
      await new Promise((r) => setTimeout(r, 1));
      return currentInstallation();
    });
    expect(inside).toBe('T1');
    expect(inInstallation(null, () => currentInstallation())).toBeUndefined();
  });

  it("a routed client sends each scope's token, its no-retry copy too, and refuses outside any scope", async () => {
    const client = routed();
    seen.length = 0;
    await inInstallation('T1', () => client.auth.test());
    await inInstallation('E1', () => noRetryClient(client).auth.test());
    expect(seen).toEqual(['xoxb-one', 'xoxb-org']);
    await expect(client.auth.test()).rejects.toThrow(NoInstallationInScopeError);
    expect(seen).toHaveLength(2);
  });

  it('people looked up by email are kept per installation', async () => {
    const identity = new Identity({ groups: [], logger: createLogger({ level: 'silent' }) });
    const client = routed();
    const inT1 = await inInstallation('T1', () => identity.userIdByEmail(client, 'Ops@Example.com'));
    const inE1 = await inInstallation('E1', () => identity.userIdByEmail(client, 'ops@example.com'));
    expect([inT1, inE1]).toEqual(['U_IN_T1', 'U_IN_E1']);
  });

  it('a token Slack answers as revoked is reported for its installation (other errors are not), copies too', async () => {
    const dead: string[] = [];
    const client = new RoutedWebClient(
      async (id) => TOKENS[id]!,
      { slackApiUrl: url, retryConfig: { retries: 0 } },
      (id) => dead.push(id),
    );
    await expect(inInstallation('T9', () => client.auth.test())).rejects.toThrow(/token_revoked/);
    await expect(inInstallation('T9', () => noRetryClient(client).auth.test())).rejects.toThrow(/token_revoked/);
    await expect(inInstallation('T8', () => client.auth.test())).rejects.toThrow(/channel_not_found/);
    await inInstallation('T1', () => client.auth.test());
    expect(dead).toEqual(['T9', 'T9']);
  });

  it('a token once answered as dead is never sent again from this process; a reinstall’s new token is', async () => {
    // The store still holds the dead token (the uninstall event has not landed yet), then a reinstall's.
    let stored = 'xoxb-revoked';
    const records = {
      get: async () => ({ sealed: 'sealed', isEnterpriseInstall: false, teamId: 'T9', enterpriseId: null }),
    } as unknown as InstallationRecordStore;
    const clients = new TenantClients({
      records,
      authorize: async () => ({ botToken: stored }),
      // The client kept beside the token (background work's); the routed one only takes the token.
      makeClient: () => ({}) as never,
    });
    const client = new RoutedWebClient(
      (id) => clients.tokenFor(id),
      { slackApiUrl: url, retryConfig: { retries: 0 } },
      (id, token) => clients.markDead(token, id),
    );
    const before = seen.length;
    await expect(inInstallation('T9', () => client.auth.test())).rejects.toThrow(/token_revoked/);
    // Every later call fails at once, as Slack's own refusal would, without reaching Slack.
    for (let i = 0; i < 3; i++) {
      const refused = await inInstallation('T9', () => client.chat.postMessage({ channel: 'C1', text: 'x' })).catch(
        (err: unknown) => err,
      );
      expect(refused).toBeInstanceOf(DeadTokenError);
      expect(refused).toMatchObject({ code: 'slack_webapi_platform_error', data: { error: 'token_revoked' } });
    }
    expect(seen.slice(before)).toEqual(['xoxb-revoked']);
    stored = 'xoxb-one';
    await inInstallation('T9', () => client.auth.test());
    expect(seen.slice(before)).toEqual(['xoxb-revoked', 'xoxb-one']);
  });
});
