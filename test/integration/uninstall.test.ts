// app_uninstalled and tokens_revoked through the real Bolt pipeline, against the fake Slack: in either
// order they delete that installation's tokens and stop its work at once (the listeners registered with
// tenants.onRevoked run), other installations untouched; delivered late, after a reinstall, they leave the
// reinstall's fresh tokens alone; delivered while a reinstall runs, the installation ends up on the new
// token.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InstallationNotFoundError } from '../../src/tenants/installation-store.ts';
import { type OAuthHarness, startOAuthHarness, until } from '../support/oauth-harness.ts';

const liveToken = (h: OAuthHarness, installationId: string) =>
  [...h.fake.oauth.grants.values()].filter((g) => g.installationId === installationId && !g.revoked).at(-1)?.token;

describe('uninstall and revocation', () => {
  let h: OAuthHarness;
  let stopped: string[];
  beforeEach(async () => {
    h = await startOAuthHarness();
    stopped = [];
    h.runtime.tenants!.onRevoked((id) => {
      stopped.push(id);
    });
    for (const target of ['T0SECOND', 'E0ACMEGRID', 'T0SANDBOX']) expect((await h.install(target)).status).toBe(200);
  });
  afterEach(async () => {
    await h.stop();
  });

  const revoked = (id: string) =>
    until(async () => (await h.runtime.store.installations.get(id))?.sealed === null, `${id}'s tokens to go`);

  it('app_uninstalled, then tokens_revoked: tokens deleted, work stopped once, the others untouched', async () => {
    const events = h.fake.oauth.uninstall('T0SECOND');
    expect(await h.deliver(events.appUninstalled)).toBe(200);
    await revoked('T0SECOND');
    expect(stopped).toEqual(['T0SECOND']);
    expect(await h.deliver(events.tokensRevoked)).toBe(200);
    await until(async () => h.logs.join('').match(/"outcome":"absent"/), 'the second event to be handled');
    await expect(h.runtime.tenants!.clients.clientFor('T0SECOND')).rejects.toThrow(InstallationNotFoundError);
    expect((await h.runtime.store.installations.get('T0SECOND'))?.uninstalledAt).not.toBeNull();
    const audit = (await h.runtime.store.audit.recent(50)).filter((e) => e.action === 'app.uninstall');
    expect(audit.map((e) => [e.target, e.detail])).toEqual([['T0SECOND', 'app_uninstalled']]);
    // The others still work.
    expect((await (await h.runtime.tenants!.clients.clientFor('T0SANDBOX')).auth.test()).team_id).toBe('T0SANDBOX');
    expect((await h.runtime.store.installations.get('E0ACMEGRID'))?.sealed).not.toBeNull();
  });

  it('tokens_revoked, then app_uninstalled, for an org-wide install', async () => {
    // Warm the cache: a client kept from before must not outlive the tokens.
    await h.runtime.tenants!.clients.clientFor('E0ACMEGRID');
    const events = h.fake.oauth.uninstall('E0ACMEGRID');
    expect(await h.deliver(events.tokensRevoked)).toBe(200);
    await revoked('E0ACMEGRID');
    expect(stopped).toEqual(['E0ACMEGRID']);
    await expect(h.runtime.tenants!.clients.clientFor('E0ACMEGRID')).rejects.toThrow(InstallationNotFoundError);
    expect(await h.deliver(events.appUninstalled)).toBe(200);
    await until(async () => h.logs.join('').match(/"outcome":"absent"/), 'the second event to be handled');
    expect((await h.runtime.store.installations.get('T0SECOND'))?.sealed).not.toBeNull();
  });

  it('a command from the workspace after the uninstall runs nothing', async () => {
    const events = h.fake.oauth.uninstall('T0SECOND');
    await h.deliver(events.appUninstalled);
    await revoked('T0SECOND');
    const before = h.fake.state.calls.length;
    expect((await h.user('U11SAM', 'T0SECOND').command('run', 'C01OPS')).status).toBe(200);
    expect(h.fake.state.calls.slice(before).filter((c) => c.method === 'views.open')).toEqual([]);
  });

  it('a run in flight when its workspace uninstalls: its watch is dropped, nothing is posted there', async () => {
    const run = await h.runNow('U11SAM', 'T0SECOND', 'gone-ws');
    await until(async () => (await h.runtime.store.watches.get(run.id, 'T0SECOND'))?.messageTs, 'the running card');
    const events = h.fake.oauth.uninstall('T0SECOND');
    await h.deliver(events.appUninstalled);
    await revoked('T0SECOND');
    const before = h.fake.state.calls.length;
    h.clock.advance(60 * 60_000);
    const watch = await until(async () => {
      const w = await h.runtime.store.watches.get(run.id, 'T0SECOND');
      return w?.state !== 'active' ? w : null;
    }, 'the watch to end');
    expect(watch?.state).toBe('stale');
    expect(watch?.resultPostedAt).toBeNull();
    expect(h.fake.state.calls.slice(before).filter((c) => c.method.startsWith('chat.'))).toEqual([]);
  });

  it('uninstalled while the result card is being edited (its answer lost): no second card, nothing after, the watch ends', async () => {
    const run = await h.runNow('U11SAM', 'T0SECOND', 'mid-post');
    await until(async () => (await h.runtime.store.watches.get(run.id, 'T0SECOND'))?.messageTs, 'the running card');
    // The edit that turns the card into the result is carried out, but its answer never arrives.
    h.fake.setFaults({ lostAnswerNext: 1, methods: ['chat.update'] });
    const edits = () =>
      h.fake.state.calls.filter((c) => c.method === 'chat.update' && JSON.stringify(c.args).includes(run.id));
    h.clock.advance(60 * 60_000);
    await until(async () => edits().length > 0, 'the edit in flight');
    // Slack revokes the tokens here: every call the fake records from now on was judged after it. Counted by
    // position in the fake's log, not by clock: the lost edit may be recorded in this very millisecond.
    const events = h.fake.oauth.uninstall('T0SECOND');
    const revokedAtCall = h.fake.state.calls.length;
    await h.deliver(events.tokensRevoked);
    await revoked('T0SECOND');
    const watch = await until(async () => {
      const w = await h.runtime.store.watches.get(run.id, 'T0SECOND');
      return w?.state !== 'active' ? w : null;
    }, 'the watch to end');
    expect(watch?.state).not.toBe('active');
    // One running card, never a second one; nothing reached Slack once the tokens were gone.
    const cards = h.fake.state.calls.filter(
      (c) => c.method === 'chat.postMessage' && c.ok && JSON.stringify(c.args).includes('is running'),
    );
    expect(cards).toHaveLength(1);
    // Nothing of this workspace's reached Slack once its tokens were gone (the others' work goes on).
    expect(
      h.fake.state.calls
        .slice(revokedAtCall)
        .filter((c) => c.installation === 'T0SECOND' && c.ok && c.method.startsWith('chat.')),
    ).toEqual([]);
    expect(edits().filter((c) => c.ok)).toHaveLength(1);
  });

  it('events that arrive after a reinstall leave its fresh tokens alone', async () => {
    const events = h.fake.oauth.uninstall('T0SECOND');
    expect((await h.install('T0SECOND')).status).toBe(200);
    const fresh = liveToken(h, 'T0SECOND');
    expect(await h.deliver(events.appUninstalled)).toBe(200);
    expect(await h.deliver(events.tokensRevoked)).toBe(200);
    await until(
      async () => (h.logs.join('').match(/"outcome":"kept"/g)?.length ?? 0) >= 2,
      'both events to be handled',
    );
    expect(stopped).toEqual([]);
    expect(await h.runtime.tenants!.clients.tokenFor('T0SECOND')).toBe(fresh);
  });

  it('events racing a reinstall: the installation ends on the new token, the revoked one is gone', async () => {
    const events = h.fake.oauth.uninstall('T0SECOND');
    const old = [...h.fake.oauth.grants.values()].find((g) => g.installationId === 'T0SECOND')!.token;
    const [first, reinstall, second] = await Promise.all([
      h.deliver(events.appUninstalled),
      h.install('T0SECOND'),
      h.deliver(events.tokensRevoked),
    ]);
    expect([first, reinstall.status, second]).toEqual([200, 200, 200]);
    await until(
      async () => (h.logs.join('').match(/installation tokens revoked/g)?.length ?? 0) >= 2,
      'both events to be handled',
    );
    const fresh = liveToken(h, 'T0SECOND');
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe(old);
    expect(await h.runtime.tenants!.clients.tokenFor('T0SECOND')).toBe(fresh);
  });
});
