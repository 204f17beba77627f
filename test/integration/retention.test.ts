// DATA_RETENTION_DAYS through the real runtime (Bolt's OAuth installer, the fake Slack): a workspace's
// alias, channel default and subscription survive its uninstall and the retention pass, and a reinstall
// finds them again; with a retention of 0 days the pass after the uninstall purges them (and the
// installation row), and a reinstall starts empty — the audit trail stays. (The moved-clock cases, 29 and
// 31 days, are the store contract's: test/unit/store/retention-contract.ts.)
import { afterEach, describe, expect, it } from 'vitest';
import { type OAuthHarness, startOAuthHarness, until } from '../support/oauth-harness.ts';

const TEAM = 'T0SECOND';

async function seed(h: OAuthHarness): Promise<void> {
  const { store } = h.runtime;
  await store.aliases.add(
    {
      channel: 'C01OPS',
      name: 'kept',
      runbookId: 'r1',
      runbookName: 'Restart',
      params: '{}',
      proxyId: null,
      resultChannel: null,
      createdBy: 'U11SAM',
      teamId: TEAM,
    },
    Date.now(),
    TEAM,
  );
  await store.channelDefaults.set('C01OPS', { proxyId: 'proxy-dev' }, 'U11SAM', Date.now(), TEAM);
  await store.subscriptions.add(
    {
      channel: 'C0SAMS',
      runbookId: 'r1',
      runbookName: 'Restart',
      failuresOnly: false,
      createdBy: 'U11SAM',
      teamId: TEAM,
    },
    Date.now(),
    TEAM,
  );
}

async function uninstall(h: OAuthHarness): Promise<void> {
  expect(await h.deliver(h.fake.oauth.uninstall(TEAM).appUninstalled)).toBe(200);
  await until(async () => (await h.runtime.store.installations.get(TEAM))?.sealed === null, 'the tokens to go');
}

const kept = async (h: OAuthHarness) => ({
  alias: (await h.runtime.store.aliases.get('C01OPS', 'kept', TEAM)) !== null,
  defaults: (await h.runtime.store.channelDefaults.get('C01OPS', TEAM)) !== null,
  subscription: (await h.runtime.store.subscriptions.listForChannel('C0SAMS', TEAM)).length === 1,
});

describe('DATA_RETENTION_DAYS', () => {
  let h: OAuthHarness;
  afterEach(async () => {
    await h?.stop();
  });

  it('within the retention, a reinstall finds its alias, defaults and subscription again', async () => {
    h = await startOAuthHarness({ env: { DATA_RETENTION_DAYS: '30' } });
    expect((await h.install(TEAM)).status).toBe(200);
    await seed(h);
    await uninstall(h);
    await h.runtime.tick();
    expect(await h.runtime.store.installations.get(TEAM)).not.toBeNull();
    expect((await h.install(TEAM)).status).toBe(200);
    expect(await kept(h)).toEqual({ alias: true, defaults: true, subscription: true });
  });

  it('after it, the pass purged them; the audit trail stays and a reinstall starts empty', async () => {
    h = await startOAuthHarness({ env: { DATA_RETENTION_DAYS: '0' } });
    expect((await h.install(TEAM)).status).toBe(200);
    await seed(h);
    await uninstall(h);
    await h.runtime.tick();
    expect(await h.runtime.store.installations.get(TEAM)).toBeNull();
    expect(await kept(h)).toEqual({ alias: false, defaults: false, subscription: false });
    expect(h.logs.join('')).toContain('purged an uninstalled installation past DATA_RETENTION_DAYS');
    const audit = await h.runtime.store.audit.recent(50, TEAM);
    expect(audit.map((e) => e.action)).toEqual(expect.arrayContaining(['app.install', 'app.uninstall']));
    expect((await h.install(TEAM)).status).toBe(200);
    expect(await kept(h)).toEqual({ alias: false, defaults: false, subscription: false });
  });
});
