// Many workspaces through the real Bolt pipeline and Bolt's own OAuth installer, against the fake Slack:
// "Add to Slack" into two workspaces and one Enterprise Grid org (org-wide), then a command in each is
// authorized with that installation's own token; the tokens are in no store row and no log line, in
// clear, base64 or hex; background work gets fresh (rotated) tokens through the same authorize path.

import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SlackUser } from '../../src/sandbox/slack-user.ts';
import { InstallationNotFoundError } from '../../src/tenants/installation-store.ts';
import { leaksIn, sqliteStoreText } from '../support/leak-check.ts';
import { API_KEY, type OAuthHarness, resultCardOf, startOAuthHarness } from '../support/oauth-harness.ts';

const GRID = { enterpriseId: 'E0ACMEGRID', isEnterpriseInstall: true };

/** Runs `/runbook run` (the runbook picker opens with views.open) and returns the installation whose token opened it. */
async function pickerOpenedBy(h: OAuthHarness, user: SlackUser): Promise<string | null | undefined> {
  const before = h.fake.state.calls.length;
  const res = await user.command('run', 'C01OPS');
  expect(res.status).toBe(200);
  for (let i = 0; i < 400; i++) {
    const call = h.fake.state.calls.slice(before).find((c) => c.method === 'views.open');
    if (call) return call.ok ? (call.installation ?? null) : `failed: ${call.error}`;
    await new Promise((r) => setTimeout(r, 10));
  }
  return undefined;
}

describe('many workspaces: "Add to Slack" through Bolt\'s installer', () => {
  let h: OAuthHarness;
  beforeAll(async () => {
    h = await startOAuthHarness();
  });
  afterAll(async () => {
    await h.stop();
  });

  it('serves its own install page and sends the person to Slack with the scopes and a state cookie', async () => {
    const landing = await fetch(`${h.origin}/slack/install`);
    expect(landing.status).toBe(200);
    const cookie = landing.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^slack-app-oauth-state=[^;]+; Secure; HttpOnly/);
    const html = await landing.text();
    expect(html).not.toContain('slack-edge.com');
    const href = new URL(html.match(/id="add-to-slack" href="([^"]+)"/)![1]!.replaceAll('&amp;', '&'));
    expect(href.origin + href.pathname).toBe(`${h.fake.origin}/oauth/v2/authorize`);
    expect(href.searchParams.get('client_id')).toBe('1111.2222');
    expect(href.searchParams.get('scope')?.split(',')).toContain('commands');
    expect(href.searchParams.get('state')).toBe(cookie.split(';')[0]!.split('=')[1]);
  });

  it("installs into two workspaces and a Grid org; each command runs on its own installation's token", async () => {
    for (const target of ['T0SANDBOX', 'T0SECOND', 'E0ACMEGRID']) {
      const done = await h.install(target);
      expect(done.status, done.html).toBe(200);
      expect(done.html).toContain('runbook-bot is installed');
    }
    expect(await pickerOpenedBy(h, h.user('U01ALICE', 'T0SANDBOX'))).toBe('T0SANDBOX');
    expect(await pickerOpenedBy(h, h.user('U11SAM', 'T0SECOND'))).toBe('T0SECOND');
    // Both workspaces of the org are served by the one org-wide installation.
    expect(await pickerOpenedBy(h, h.user('U21EVA', 'T0GRIDA', GRID))).toBe('E0ACMEGRID');
    expect(await pickerOpenedBy(h, h.user('U22UMA', 'T0GRIDB', GRID))).toBe('E0ACMEGRID');
    const audit = (await h.runtime.store.audit.recent(50)).filter((e) => e.action === 'app.install');
    expect(audit.map((e) => [e.target, e.detail]).sort()).toEqual([
      ['E0ACMEGRID', 'org-wide'],
      ['T0SANDBOX', null],
      ['T0SECOND', null],
    ]);
    const rows = await Promise.all(
      ['T0SANDBOX', 'T0SECOND', 'E0ACMEGRID'].map((id) => h.runtime.store.installations.get(id)),
    );
    expect(rows.map((r) => [r?.id, r?.isEnterpriseInstall, r?.sealed !== null])).toEqual([
      ['T0SANDBOX', false, true],
      ['T0SECOND', false, true],
      ['E0ACMEGRID', true, true],
    ]);
  });

  it("remembers the org's workspaces it served, so their records' background work finds the org", async () => {
    const records = h.runtime.store.installations;
    expect(await records.installationOfTeam('T0GRIDA')).toBe('E0ACMEGRID');
    expect(await records.installationOfTeam('T0GRIDB')).toBe('E0ACMEGRID');
    expect(await records.installationOfTeam('T0SECOND')).toBe('T0SECOND');
  });

  it("the watcher edits each run's card into its result with that workspace's own token", async () => {
    const second = await h.runNow('U11SAM', 'T0SECOND', 'second-ws');
    const first = await h.runNow('U01ALICE', 'T0SANDBOX', 'first-ws');
    h.clock.advance(60 * 60_000);
    const editOf = (id: string) => resultCardOf(h, id);
    expect((await editOf(second.id)).installation).toBe('T0SECOND');
    expect((await editOf(first.id)).installation).toBe('T0SANDBOX');
  });

  it('a workspace it is not installed in gets no token: nothing runs there', async () => {
    expect(await h.runtime.store.installations.get('T0OTHER')).toBeNull();
    const before = h.fake.state.calls.length;
    const res = await h.user('U01ALICE', 'T0OTHER').command('run', 'C01OPS');
    // Bolt answers once authorize has failed, before any listener could run.
    expect(res.status).toBe(200);
    expect(h.fake.state.calls.slice(before).filter((c) => c.method === 'views.open')).toEqual([]);
  });

  it("background work gets each installation's client through the authorize path", async () => {
    const clients = h.runtime.tenants!.clients;
    const second = await (await clients.clientFor('T0SECOND')).auth.test();
    expect(second.team_id).toBe('T0SECOND');
    const org = await (await clients.clientFor('E0ACMEGRID')).auth.test();
    expect([org.enterprise_id, org.is_enterprise_install]).toEqual(['E0ACMEGRID', true]);
    await expect(clients.clientFor('T0OTHER')).rejects.toThrow(InstallationNotFoundError);
  });

  it('keeps no token nor API key in any store row or log line, in clear, base64 or hex', async () => {
    const grants = [...h.fake.oauth.grants.values()];
    expect(grants.length).toBeGreaterThanOrEqual(3);
    const secrets = { ...Object.fromEntries(grants.map((g, i) => [`token ${i}`, g.token])), 'API key': API_KEY };
    const dump = sqliteStoreText(h.dataDir);
    expect(dump).toContain('E0ACMEGRID');
    const logs = h.logs.join('');
    expect(logs).toContain('app installed');
    expect(leaksIn(dump, secrets)).toEqual([]);
    expect(leaksIn(logs, secrets)).toEqual([]);
    expect(logs).not.toContain('client-secret-0123456789abcdef');
  });

  it('a cancelled install, a replayed redirect and a forged state install nothing and say so', async () => {
    const cancelled = await h.install('T0SECOND', { deny: true });
    // A person's choice, not a failure of ours: 200 (a 5xx would trip monitoring), with a way back.
    expect(cancelled.status).toBe(200);
    expect(cancelled.html).toContain('The install was cancelled in Slack.');
    expect(cancelled.html).toContain('href="/slack/install"');
    // A redirect without the browser's state cookie (a link sent to someone else) is refused.
    const landing = await fetch(`${h.origin}/slack/install`);
    const href = new URL((await landing.text()).match(/href="([^"]+)"/)![1]!.replaceAll('&amp;', '&'));
    href.searchParams.set('install_to', 'T0SECOND');
    const consent = await fetch(href, { redirect: 'manual' });
    const stranger = await fetch(consent.headers.get('location')!);
    expect(stranger.status).toBe(400);
    expect(await stranger.text()).toContain('opened in another browser');
  });
});

describe("token rotation: background work refreshes through Bolt's authorize, as requests do", () => {
  let h: OAuthHarness;
  beforeAll(async () => {
    h = await startOAuthHarness({ tokenRotation: true });
    // Tokens expiring within the refresh window (2 h): every authorize refreshes.
    h.fake.oauth.configureApp({ ...h.fake.oauth.app!, expiresInSeconds: 3_600 });
  });
  afterAll(async () => {
    await h.stop();
  });

  it('clientFor refreshes an expiring token, saves the new one sealed, and commands use it', async () => {
    expect((await h.install('T0SECOND')).status).toBe(200);
    const issued = [...h.fake.oauth.grants.values()].filter((g) => g.installationId === 'T0SECOND');
    expect(issued).toHaveLength(1);
    const before = (await h.runtime.store.installations.get('T0SECOND'))!.generation;
    const token = await h.runtime.tenants!.clients.tokenFor('T0SECOND');
    expect(token).not.toBe(issued[0]!.token);
    expect(h.fake.oauth.grants.get(token)?.installationId).toBe('T0SECOND');
    const after = (await h.runtime.store.installations.get('T0SECOND'))!;
    expect(after.generation).toBeGreaterThan(before);
    expect(after.sealed).not.toContain(token);
    expect(await pickerOpenedBy(h, h.user('U11SAM', 'T0SECOND'))).toBe('T0SECOND');
  });
});

describe('a key that does not open the stored installations', () => {
  it('is named at start-up, with what to do; the previous key beside the new one opens them', async () => {
    const oldKey = randomBytes(32).toString('base64');
    const first = await startOAuthHarness({ env: { SECRETS_ENCRYPTION_KEY: oldKey } });
    const dataDir = first.dataDir;
    try {
      expect((await first.install('T0SECOND', { connect: false })).status).toBe(200);
    } finally {
      await first.stop();
    }
    const wrong = await startOAuthHarness({ env: { DATA_DIR: dataDir } });
    await wrong.stop();
    expect(wrong.logs.join('')).toContain('SECRETS_ENCRYPTION_KEY does not open the stored installations');
    const rotated = await startOAuthHarness({
      env: { DATA_DIR: dataDir, SECRETS_ENCRYPTION_KEY_PREVIOUS: oldKey },
    });
    try {
      expect(rotated.logs.join('')).not.toContain('does not open the stored installations');
      expect((await (await rotated.runtime.tenants!.clients.clientFor('T0SECOND')).auth.test()).ok).toBe(true);
    } finally {
      await rotated.stop();
    }
  });
});
