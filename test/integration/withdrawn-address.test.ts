// Many workspaces: an operator removes an address from RUNBOOK_API_URLS while a workspace is connected to
// it. Its saved connection must stop being used at once: every command says the address is no longer
// allowed and who can reconnect, App Home says it with Connect, its followed runs stop with a log line,
// and nothing at all is sent to the removed address. Through the real Bolt pipeline against the fake Slack.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIONS } from '../../src/slack/kit/ids.ts';
import { createSecretBox } from '../../src/tenants/secret-box.ts';
import { API_KEY, type OAuthHarness, startOAuthHarness, until } from '../support/oauth-harness.ts';

const KEY = randomBytes(32);
let h: OAuthHarness;
let removed: Server;
let removedUrl: string;
const hits: string[] = [];

beforeAll(async () => {
  // The address the operator took away: anything sent there is counted.
  removed = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(500).end();
  });
  await new Promise<void>((resolve) => removed.listen(0, '127.0.0.1', resolve));
  removedUrl = `http://127.0.0.1:${(removed.address() as { port: number }).port}`;
  h = await startOAuthHarness({ env: { SECRETS_ENCRYPTION_KEY: KEY.toString('base64') } });
  expect((await h.install('T0SANDBOX')).status).toBe(200);
  expect((await h.install('T0SECOND')).status).toBe(200);
}, 30_000);
afterAll(async () => {
  await h?.stop();
  await new Promise((resolve) => removed?.close(resolve));
});

/** The connection as it was saved before the operator removed its address (the same sealed key). */
async function connectionToRemovedAddress(installationId: string) {
  const box = createSecretBox({ key: KEY });
  await h.runtime.store.apiConnections.put(
    {
      ...(await h.runtime.store.apiConnections.get(installationId))!,
      baseUrl: removedUrl,
      sealedKey: box.seal(API_KEY),
    },
    Date.now(),
  );
}

/** `/runbook list` as `userId` of `team`: the private answer, as text. */
async function listAnswer(userId: string, team: string): Promise<string> {
  const since = h.fake.state.ephemerals.length;
  await h.user(userId, team).command('list', 'C01OPS');
  const said = await until(
    async () => h.fake.state.ephemerals.slice(since).find((e) => e.user === userId),
    `${userId}'s answer`,
  );
  return JSON.stringify(said);
}

const activeWatchesOf = async (installation: string) =>
  (await h.runtime.store.watches.countActiveByTenant()).find((r) => r.tenant === installation)?.count ?? 0;

describe('a connection to an address the operator removed from RUNBOOK_API_URLS', () => {
  it('is not used: its followed runs stop with a log line, commands and App Home say so, nothing reaches the address', async () => {
    // A run followed in T0SANDBOX while its address was allowed.
    await h.runNow('U01ALICE', 'T0SANDBOX', 'withdrawn-1');
    await until(async () => (await activeWatchesOf('T0SANDBOX')) > 0, 'the watch');
    await connectionToRemovedAddress('T0SANDBOX');

    await until(async () => (await activeWatchesOf('T0SANDBOX')) === 0, 'the watches to stop');
    const logs = h.logs.join('');
    expect(logs).toContain("a workspace's Runbook API address is no longer allowed by the operator");
    expect(logs).toContain("a withdrawn connection's watches stopped");

    const said = await listAnswer('U01ALICE', 'T0SANDBOX');
    expect(said).toContain("This workspace's Runbook API address is no longer allowed by the operator");
    expect(said).toContain('reconnect it with Connect');

    // App Home: the admin sees the sentence and Connect (not Replace key, not the runs of the old address).
    const bob = h.user('U02BOB', 'T0SANDBOX');
    await bob.openHome();
    const homeId = await until(async () => h.fake.state.homeViews.U02BOB, 'home');
    const home = await until(async () => {
      const text = JSON.stringify(h.fake.state.views[homeId]!.view);
      return text.includes('no longer allowed by the operator') ? text : null;
    }, 'the home tab');
    expect(home).toContain(ACTIONS.connectOpen);
    expect(home).not.toContain('Replace key');

    // The other workspace, on an allowed address, is untouched.
    expect(await listAnswer('U11SAM', 'T0SECOND')).not.toContain('no longer allowed');
    expect(hits).toEqual([]);
  });

  it('is used again once an admin reconnects to an allowed address', async () => {
    const connected = await h.runtime.tenants!.connections.connect('T0SANDBOX', { apiKey: API_KEY }, 'U02BOB');
    expect(connected.ok).toBe(true);
    expect(await listAnswer('U01ALICE', 'T0SANDBOX')).not.toContain('no longer allowed');
    expect(hits).toEqual([]);
  });
});
