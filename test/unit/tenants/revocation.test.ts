// The revocation rule on its own, over a real (in-memory) store: what Slack says about the stored token
// decides, a tokens_revoked naming only the installer's user token removes just that, and when Slack
// cannot say, tokens saved after the event was sent are a reinstall's and stay.
import { randomBytes } from 'node:crypto';
import type { Installation } from '@slack/oauth';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/open-store.ts';
import type { Store } from '../../../src/store/store.ts';
import { createInstallationStore, type SealedInstallationStore } from '../../../src/tenants/installation-store.ts';
import { revokeInstallation, type TokenState, tokenStateOf } from '../../../src/tenants/revocation.ts';
import { createSecretBox } from '../../../src/tenants/secret-box.ts';

const T0 = 1_700_000_000_000;

const install = (token: string): Installation =>
  ({
    team: { id: 'T1' },
    enterprise: undefined,
    user: { id: 'U0INSTALLER', token: 'xoxp-user', scopes: ['identify'] },
    bot: { id: 'B1', userId: 'U0BOT', token, scopes: ['commands'] },
    isEnterpriseInstall: false,
    authVersion: 'v2',
  }) as Installation;

describe('revoking an installation', () => {
  let store: Store;
  let installations: SealedInstallationStore;
  let now = T0;
  let stopped: string[];
  const revoke = (state: TokenState, event: Parameters<typeof revokeInstallation>[2]) =>
    revokeInstallation(
      {
        installations,
        records: store.installations,
        tokenState: async () => state,
        onRevoked: (id) => {
          stopped.push(id);
        },
        now: () => now,
      },
      'T1',
      event,
    );

  beforeEach(async () => {
    store = await openStore({ kind: 'sqlite', path: ':memory:' });
    now = T0;
    stopped = [];
    installations = createInstallationStore({
      records: store.installations,
      box: createSecretBox({ key: randomBytes(32) }),
      now: () => now,
    });
    await installations.storeInstallation(install('xoxb-first'));
  });
  afterEach(async () => {
    await store.close();
  });

  it('deletes tokens Slack says are dead and stops the work', async () => {
    expect(await revoke('revoked', { kind: 'app_uninstalled', sentAt: T0 + 10 })).toBe('revoked');
    expect((await store.installations.get('T1'))?.sealed).toBeNull();
    expect(stopped).toEqual(['T1']);
  });

  it('keeps a token that still works (a reinstall landed first)', async () => {
    expect(await revoke('valid', { kind: 'app_uninstalled', sentAt: T0 + 10 })).toBe('kept');
    expect((await store.installations.get('T1'))?.sealed).not.toBeNull();
    expect(stopped).toEqual([]);
  });

  it('when Slack cannot say: deletes tokens saved before the event, keeps those saved after', async () => {
    expect(await revoke('unknown', { kind: 'tokens_revoked', sentAt: T0 - 1, tokens: { bot: ['U0BOT'] } })).toBe(
      'kept',
    );
    expect(await revoke('unknown', { kind: 'tokens_revoked', sentAt: T0 + 1, tokens: { bot: ['U0BOT'] } })).toBe(
      'revoked',
    );
  });

  it('a tokens_revoked naming only the installer removes the user token and keeps the bot token', async () => {
    expect(
      await revoke('revoked', { kind: 'tokens_revoked', sentAt: T0 + 1, tokens: { oauth: ['U0INSTALLER'] } }),
    ).toBe('user-token-removed');
    const kept = await installations.fetchInstallation({
      teamId: 'T1',
      enterpriseId: undefined,
      isEnterpriseInstall: false,
    });
    expect(kept.bot?.token).toBe('xoxb-first');
    expect(kept.user.token).toBeUndefined();
    expect(stopped).toEqual([]);
    // Someone else's user token: nothing to do.
    expect(await revoke('revoked', { kind: 'tokens_revoked', sentAt: T0 + 1, tokens: { oauth: ['U9OTHER'] } })).toBe(
      'kept',
    );
  });

  it('an installation already gone still stops its work', async () => {
    await revoke('revoked', { kind: 'app_uninstalled', sentAt: T0 + 1 });
    expect(await revoke('revoked', { kind: 'tokens_revoked', sentAt: T0 + 2, tokens: { bot: ['U0BOT'] } })).toBe(
      'absent',
    );
    expect(stopped).toEqual(['T1', 'T1']);
  });

  it("reads Slack's answers: dead-token errors are revoked, anything else unknown", () => {
    const error = (code: string) => ({ error: Object.assign(new Error(code), { data: { error: code } }) });
    expect(tokenStateOf({ ok: true })).toBe('valid');
    for (const code of ['token_revoked', 'invalid_auth', 'account_inactive'])
      expect(tokenStateOf(error(code))).toBe('revoked');
    expect(tokenStateOf(error('ratelimited'))).toBe('unknown');
    expect(tokenStateOf({ error: new Error('socket hang up') })).toBe('unknown');
  });
});
