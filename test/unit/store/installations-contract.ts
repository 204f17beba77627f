// Installations (many-workspace mode) and OAuth states: Bolt's InstallationStore and StateStore over our
// store, the behaviour both databases must have — keyed by team, or by enterprise for org-wide installs;
// tokens sealed (a raw read of the rows finds no token in clear, base64 or hex); key rotation; a
// revocation that deletes only the tokens it looked at; states taken once.
import { randomBytes } from 'node:crypto';
import type { Installation } from '@slack/oauth';
import { describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/store.ts';
import { createInstallationStore, InstallationNotFoundError } from '../../../src/tenants/installation-store.ts';
import { createStoredStateStore } from '../../../src/tenants/oauth-state-store.ts';
import { createSecretBox } from '../../../src/tenants/secret-box.ts';
import { freshStoreEachTest, type StoreHarness } from './store-contract.ts';

const T0 = 1_700_000_000_000;

function workspaceInstall(team: string, token: string, extra: Partial<Installation> = {}): Installation {
  return {
    team: { id: team, name: `Team ${team}` },
    enterprise: undefined,
    user: { id: 'U0INSTALLER', token: `xoxp-user-${token}`, scopes: ['identify'] },
    bot: {
      id: 'B0BOT',
      userId: 'U0BOT',
      token: `xoxb-${token}`,
      refreshToken: `xoxe-1-${token}`,
      expiresAt: 1_900_000_000,
      scopes: ['commands', 'chat:write'],
    },
    isEnterpriseInstall: false,
    authVersion: 'v2',
    appId: 'A0APP',
    ...extra,
  } as Installation;
}

function orgInstall(enterprise: string, token: string): Installation {
  return {
    team: undefined,
    enterprise: { id: enterprise, name: 'Grid Org' },
    user: { id: 'U0ADMIN', token: undefined, scopes: undefined },
    bot: { id: 'B0BOT', userId: 'U0BOT', token: `xoxb-${token}`, scopes: ['commands'] },
    isEnterpriseInstall: true,
    authVersion: 'v2',
    enterpriseUrl: 'https://grid.enterprise.slack.com/',
  } as Installation;
}

/** Every way a secret could sit in a row: in clear, base64 (either alphabet) or hex. */
export function leakedForms(secret: string): string[] {
  const bytes = Buffer.from(secret);
  return [secret, bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('hex')].flatMap((form) => [
    form,
    form.toUpperCase(),
  ]);
}

export function runInstallationsContract(name: string, createHarness: () => Promise<StoreHarness>): void {
  describe(`${name} store contract: installations and OAuth states`, () => {
    let harness: StoreHarness;
    let store: Store;
    let now = T0;
    const key = randomBytes(32);
    const box = createSecretBox({ key });
    const installations = () => createInstallationStore({ records: store.installations, box, now: () => now });
    freshStoreEachTest(createHarness, (fresh) => {
      ({ harness, store } = fresh);
      now = T0;
    });

    it('keeps a workspace install by team id and an org-wide install by enterprise id', async () => {
      const bolt = installations();
      await bolt.storeInstallation(workspaceInstall('T1', 'one'));
      await bolt.storeInstallation(orgInstall('E1', 'org'));
      const team = await bolt.fetchInstallation({ teamId: 'T1', enterpriseId: undefined, isEnterpriseInstall: false });
      expect(team.bot?.token).toBe('xoxb-one');
      expect(team.bot?.refreshToken).toBe('xoxe-1-one');
      expect(team.user.token).toBe('xoxp-user-one');
      // Any workspace of the org finds the org-wide install.
      const org = await bolt.fetchInstallation({ teamId: 'T9', enterpriseId: 'E1', isEnterpriseInstall: true });
      expect(org.bot?.token).toBe('xoxb-org');
      expect(await store.installations.get('E1')).toMatchObject({
        id: 'E1',
        teamId: null,
        enterpriseId: 'E1',
        isEnterpriseInstall: true,
        installedAt: T0,
        uninstalledAt: null,
      });
      // A workspace of the org named without is_enterprise_install (Slack's team_access_* envelopes) finds
      // the org-wide install; one installed on its own is its own installation, not the org's.
      const named = { teamId: 'T9', enterpriseId: 'E1', isEnterpriseInstall: false as const };
      expect((await bolt.fetchInstallation(named)).bot?.token).toBe('xoxb-org');
      await bolt.storeInstallation(workspaceInstall('T9', 'own', { enterprise: { id: 'E1', name: 'Grid Org' } }));
      expect((await bolt.fetchInstallation(named)).bot?.token).toBe('xoxb-own');
      // Neither an unknown org nor a workspace install's enterprise id stands in for an org-wide install.
      await expect(
        bolt.fetchInstallation({ teamId: 'T8', enterpriseId: 'E2', isEnterpriseInstall: false }),
      ).rejects.toThrow(InstallationNotFoundError);
      await expect(
        bolt.fetchInstallation({ teamId: 'T8', enterpriseId: 'T1', isEnterpriseInstall: false }),
      ).rejects.toThrow(InstallationNotFoundError);
      await expect(
        bolt.fetchInstallation({ teamId: 'T2', enterpriseId: undefined, isEnterpriseInstall: false }),
      ).rejects.toThrow(/No installation of the app for T2/);
    });

    it('holds no token in any row, in clear, base64 or hex', async () => {
      const bolt = installations();
      await bolt.storeInstallation(workspaceInstall('T1', 'secret-one-4f9a'));
      await bolt.storeInstallation(orgInstall('E1', 'secret-org-77c1'));
      const rows = JSON.stringify(await harness.rawRows('installations'));
      expect(rows).toContain('T1');
      const secrets = [
        'xoxb-secret-one-4f9a',
        'xoxe-1-secret-one-4f9a',
        'xoxp-user-secret-one-4f9a',
        'xoxb-secret-org-77c1',
      ];
      for (const secret of secrets) for (const form of leakedForms(secret)) expect(rows).not.toContain(form);
      // Nor the bare token bodies.
      expect(rows).not.toContain('secret-one-4f9a');
      expect(rows).not.toContain('secret-org-77c1');
    });

    it('a reinstall and a token refresh replace the tokens; a second replica reads the same', async () => {
      const bolt = installations();
      await bolt.storeInstallation(workspaceInstall('T1', 'first'));
      now = T0 + 1_000;
      await bolt.storeInstallation(workspaceInstall('T1', 'refreshed'));
      const other = createInstallationStore({ records: (await harness.open()).installations, box });
      const fetched = await other.fetchInstallation({
        teamId: 'T1',
        enterpriseId: undefined,
        isEnterpriseInstall: false,
      });
      expect(fetched.bot?.token).toBe('xoxb-refreshed');
      const record = await store.installations.get('T1');
      expect(record).toMatchObject({ installedAt: T0, updatedAt: T0 + 1_000, generation: 2 });
    });

    it('after a key rotation reads rows of the previous key and writes new ones with the new key', async () => {
      await installations().storeInstallation(workspaceInstall('T1', 'old-key'));
      const newKey = randomBytes(32);
      const rotated = createInstallationStore({
        records: store.installations,
        box: createSecretBox({ key: newKey, previousKey: key }),
      });
      const old = await rotated.fetchInstallation({
        teamId: 'T1',
        enterpriseId: undefined,
        isEnterpriseInstall: false,
      });
      expect(old.bot?.token).toBe('xoxb-old-key');
      await rotated.storeInstallation(workspaceInstall('T2', 'new-key'));
      const newOnly = createInstallationStore({ records: store.installations, box: createSecretBox({ key: newKey }) });
      const fresh = await newOnly.fetchInstallation({
        teamId: 'T2',
        enterpriseId: undefined,
        isEnterpriseInstall: false,
      });
      expect(fresh.bot?.token).toBe('xoxb-new-key');
      // Without the previous key, the old row no longer opens (and says why without the token).
      await expect(
        newOnly.fetchInstallation({ teamId: 'T1', enterpriseId: undefined, isEnterpriseInstall: false }),
      ).rejects.toThrow(/SECRETS_ENCRYPTION_KEY_PREVIOUS/);
    });

    it('a revocation deletes the tokens it looked at, never those of a reinstall saved since', async () => {
      const bolt = installations();
      await bolt.storeInstallation(workspaceInstall('T1', 'before'));
      const seen = (await store.installations.get('T1'))!;
      // A reinstall lands between the look and the delete: its fresh tokens stay.
      await bolt.storeInstallation(workspaceInstall('T1', 'reinstalled'));
      expect(await store.installations.revoke('T1', seen.generation, T0 + 5)).toBe(false);
      expect(
        (await bolt.fetchInstallation({ teamId: 'T1', enterpriseId: undefined, isEnterpriseInstall: false })).bot
          ?.token,
      ).toBe('xoxb-reinstalled');
      const current = (await store.installations.get('T1'))!;
      expect(await store.installations.revoke('T1', current.generation, T0 + 6)).toBe(true);
      // Twice is once.
      expect(await store.installations.revoke('T1', current.generation + 1, T0 + 7)).toBe(false);
      expect(await store.installations.get('T1')).toMatchObject({ sealed: null, uninstalledAt: T0 + 6 });
      await expect(
        bolt.fetchInstallation({ teamId: 'T1', enterpriseId: undefined, isEnterpriseInstall: false }),
      ).rejects.toThrow(InstallationNotFoundError);
      expect((await store.installations.listActive('', 10)).map((r) => r.id)).toEqual([]);
      // A reinstall after the uninstall starts anew.
      now = T0 + 60_000;
      await bolt.storeInstallation(workspaceInstall('T1', 'back'));
      expect(await store.installations.get('T1')).toMatchObject({ installedAt: T0 + 60_000, uninstalledAt: null });
      expect((await store.installations.listActive('', 10)).map((r) => r.id)).toEqual(['T1']);
    });

    it('Bolt deleteInstallation deletes the tokens', async () => {
      const bolt = installations();
      await bolt.storeInstallation(orgInstall('E1', 'org'));
      await bolt.deleteInstallation!({ teamId: undefined, enterpriseId: 'E1', isEnterpriseInstall: true });
      expect((await store.installations.get('E1'))?.sealed).toBeNull();
    });

    it('pages through the installations that hold tokens', async () => {
      const bolt = installations();
      for (const team of ['T3', 'T1', 'T2']) await bolt.storeInstallation(workspaceInstall(team, team));
      expect((await store.installations.listActive('', 2)).map((r) => r.id)).toEqual(['T1', 'T2']);
      expect((await store.installations.listActive('T2', 2)).map((r) => r.id)).toEqual(['T3']);
    });

    it('finds the installation serving a workspace: its own, else the org-wide one it was seen under', async () => {
      const bolt = installations();
      await bolt.storeInstallation(orgInstall('E1', 'org'));
      await bolt.storeInstallation(workspaceInstall('T1', 'one'));
      expect(await store.installations.installationOfTeam('T7')).toBeNull();
      await store.installations.rememberTeam('T7', 'E1', T0);
      expect(await store.installations.installationOfTeam('T7')).toBe('E1');
      expect(await store.installations.installationOfTeam('T1')).toBe('T1');
      // A workspace of the org that installed on its own is served by its own installation.
      await store.installations.rememberTeam('T1', 'E1', T0);
      expect(await store.installations.installationOfTeam('T1')).toBe('T1');
      // Nothing serves a workspace whose installation was uninstalled.
      const org = (await store.installations.get('E1'))!;
      await store.installations.revoke('E1', org.generation, T0 + 1);
      expect(await store.installations.installationOfTeam('T7')).toBeNull();
    });

    it('a workspace removed from an org-wide install is not served until granted or seen again; retries are safe', async () => {
      const bolt = installations();
      await bolt.storeInstallation(orgInstall('E1', 'org'));
      await store.installations.rememberTeam('T7', 'E1', T0);
      await store.installations.rememberTeam('T8', 'E1', T0);
      expect(await store.installations.serves('E1', 'T7')).toBe(true);
      expect(await store.installations.revokeTeam('T7', 'E1', T0 + 10_000)).toBe(true);
      // The event retried: already removed, nothing to do again.
      expect(await store.installations.revokeTeam('T7', 'E1', T0 + 10_000)).toBe(false);
      expect(await store.installations.installationOfTeam('T7')).toBeNull();
      expect(await store.installations.serves('E1', 'T7')).toBe(false);
      expect(await store.installations.serves('', 'T7')).toBe(false);
      // The org's other workspaces, and the org itself, are untouched.
      expect(await store.installations.installationOfTeam('T8')).toBe('E1');
      expect(await store.installations.serves('E1', 'T8')).toBe(true);
      expect(await store.installations.serves('E1', null)).toBe(true);
      // A grant sent before the removal (delivered late) changes nothing; a later one serves it again.
      await store.installations.grantTeam('T7', 'E1', T0 + 5_000);
      expect(await store.installations.installationOfTeam('T7')).toBeNull();
      await store.installations.grantTeam('T7', 'E1', T0 + 20_000);
      expect(await store.installations.installationOfTeam('T7')).toBe('E1');
      // The removal retried after the re-grant leaves it served.
      expect(await store.installations.revokeTeam('T7', 'E1', T0 + 10_000)).toBe(false);
      expect(await store.installations.serves('E1', 'T7')).toBe(true);
      // A request seen within the second the removal was sent (Slack's event_time is in seconds) was before it.
      await store.installations.rememberTeam('T8', 'E1', T0 + 25_500);
      expect(await store.installations.revokeTeam('T8', 'E1', T0 + 25_000)).toBe(true);
      await store.installations.grantTeam('T8', 'E1', T0 + 26_000);
      // Removed again, then a request from it (it has access once more) serves it.
      expect(await store.installations.revokeTeam('T7', 'E1', T0 + 30_000)).toBe(true);
      await store.installations.rememberTeam('T7', 'E1', T0 + 40_000);
      expect(await store.installations.installationOfTeam('T7')).toBe('E1');
      // An uninstalled org serves none of its workspaces.
      const org = (await store.installations.get('E1'))!;
      await store.installations.revoke('E1', org.generation, T0 + 50_000);
      expect(await store.installations.serves('E1', 'T8')).toBe(false);
    });

    it('an OAuth state is taken once, before it expires, and only if this app issued it', async () => {
      const states = createStoredStateStore({ states: store.oauthStates, secret: 'state-secret-0123456789' });
      const options = { scopes: ['commands'], metadata: 'm' };
      const state = await states.generateStateParam(options, new Date(T0));
      // Another replica verifies it.
      const elsewhere = createStoredStateStore({
        states: (await harness.open()).oauthStates,
        secret: 'state-secret-0123456789',
      });
      expect(await elsewhere.verifyStateParam(new Date(T0 + 1_000), state)).toEqual(options);
      await expect(states.verifyStateParam(new Date(T0 + 2_000), state)).rejects.toThrow(/already used/);
      const late = await states.generateStateParam(options, new Date(T0));
      await expect(states.verifyStateParam(new Date(T0 + 10 * 60_000), late)).rejects.toThrow(/expired/);
      const forged = `${late.split('.')[0]}.${'A'.repeat(43)}`;
      await expect(states.verifyStateParam(new Date(T0), forged)).rejects.toThrow(/not one this app issued/);
      const foreign = createStoredStateStore({ states: store.oauthStates, secret: 'another-secret-0123456789' });
      const theirs = await foreign.generateStateParam(options, new Date(T0));
      await expect(states.verifyStateParam(new Date(T0), theirs)).rejects.toThrow(/not one this app issued/);
      // Expired states are swept when new ones are issued.
      await states.generateStateParam(options, new Date(T0 + 11 * 60_000));
      expect((await harness.rawRows('oauth_states')).length).toBe(1);
    });
  });
}
