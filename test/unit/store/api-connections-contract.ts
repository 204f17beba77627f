// Each installation's Runbook API connection, the behaviour both databases must have: one row per
// installation, replaced in place, removed; the key only ever sealed (a raw read of the rows finds it in
// no form: clear, base64 or hex), and opened again only with the right encryption key.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/store.ts';
import { ApiConnections } from '../../../src/tenants/api-connections.ts';
import { createSecretBox } from '../../../src/tenants/secret-box.ts';
import { leakedForms } from './installations-contract.ts';
import { freshStoreEachTest, type StoreHarness } from './store-contract.ts';

const T0 = 1_700_000_000_000;
const URL_A = 'https://runbooks-a.example.com';
const URL_B = 'https://runbooks-b.example.com/api';
const KEY_1 = 'rb-live-key-111111111111111111';
const KEY_2 = 'rb-live-key-222222222222222222';

export function runApiConnectionsContract(name: string, createHarness: () => Promise<StoreHarness>): void {
  describe(`${name} store contract: Runbook API connections`, () => {
    let harness: StoreHarness;
    let store: Store;
    let now = T0;
    const box = createSecretBox({ key: randomBytes(32) });
    const verified: string[] = [];
    const connections = () =>
      new ApiConnections({
        records: store.apiConnections,
        box,
        baseUrls: [URL_A, `${URL_B}/`],
        now: () => now,
        verify: async (baseUrl, apiKey) => {
          verified.push(`${baseUrl} ${apiKey}`);
        },
      });
    freshStoreEachTest(createHarness, (fresh) => {
      ({ harness, store } = fresh);
      now = T0;
      verified.length = 0;
    });

    it('keeps one connection per installation, replaced in place and removed, never the key in clear', async () => {
      const c = connections();
      expect(await c.connect('T1', { apiKey: ` ${KEY_1} `, baseUrl: URL_A }, 'U1')).toEqual({
        ok: true,
        status: { baseUrl: URL_A, connectedBy: 'U1', connectedAt: T0, account: expect.any(String) },
        previous: null,
      });
      expect(verified).toEqual([`${URL_A} ${KEY_1}`]);
      now = T0 + 1000;
      await c.connect('E9', { apiKey: KEY_2, baseUrl: URL_B }, 'U9');
      expect((await c.open('T1'))?.apiKey).toBe(KEY_1);
      expect((await c.open('E9'))?.status).toMatchObject({ baseUrl: URL_B, connectedBy: 'U9', connectedAt: T0 + 1000 });

      now = T0 + 2000;
      const before = await c.open('T1');
      await c.connect('T1', { apiKey: KEY_2, baseUrl: `${URL_B}/` }, 'U2');
      const after = await c.open('T1');
      expect(after).toMatchObject({
        apiKey: KEY_2,
        status: { baseUrl: URL_B, connectedBy: 'U2', connectedAt: T0 + 2000 },
      });
      expect(after?.version).not.toBe(before?.version);

      const rows = await harness.rawRows('api_connections');
      expect(rows).toHaveLength(2);
      const raw = JSON.stringify(rows);
      for (const form of [...leakedForms(KEY_1), ...leakedForms(KEY_2)]) expect(raw).not.toContain(form);

      // A second replica reads the same; another encryption key cannot open it.
      const replica = await harness.open();
      expect(await replica.apiConnections.get('E9')).toMatchObject({ installationId: 'E9', baseUrl: URL_B });
      const stranger = new ApiConnections({
        records: replica.apiConnections,
        box: createSecretBox({ key: randomBytes(32) }),
        baseUrls: [URL_A],
        verify: async () => {},
      });
      await expect(stranger.open('E9')).rejects.toThrow(/neither SECRETS_ENCRYPTION_KEY/);

      expect(await c.remove('T1')).toBe(true);
      expect(await c.remove('T1')).toBe(false);
      expect(await c.open('T1')).toBeNull();
      expect(await c.status('E9')).toMatchObject({ baseUrl: URL_B, connectedBy: 'U9', connectedAt: T0 + 1000 });
    });

    it('keeps the account across a key the person says is of the same account, at the same address only', async () => {
      const c = connections();
      const first = await c.connect('T1', { apiKey: KEY_1, baseUrl: URL_A }, 'U1');
      const account = first.ok ? first.status.account : '';
      expect(account).not.toBe('');
      const rotated = await c.connect('T1', { apiKey: KEY_2, baseUrl: URL_A, sameAccount: true }, 'U2');
      expect(rotated).toMatchObject({ ok: true, status: { account }, previous: { account, connectedBy: 'U1' } });
      // Unsaid, or said at another address: another account.
      const other = await c.connect('T1', { apiKey: KEY_1, baseUrl: URL_A }, 'U2');
      expect(other.ok && other.status.account).not.toBe(account);
      const moved = await c.connect('T1', { apiKey: KEY_1, baseUrl: URL_B, sameAccount: true }, 'U2');
      expect(moved.ok && other.ok && moved.status.account).not.toBe(other.ok && other.status.account);
      expect((await store.apiConnections.get('T1'))?.account).toBe(moved.ok ? moved.status.account : null);
    });

    it('saves nothing for a refused key, an address not allowed, or something that is not a key', async () => {
      const refusing = new ApiConnections({
        records: store.apiConnections,
        box,
        baseUrls: [URL_A, URL_B],
        verify: async () => {
          throw new Error('refused');
        },
      });
      const refused = await refusing.connect('T1', { apiKey: KEY_1, baseUrl: URL_A }, 'U1');
      expect(refused).toMatchObject({ ok: false, field: 'apiKey' });
      expect(JSON.stringify(refused)).not.toContain(KEY_1);
      const c = connections();
      expect(await c.connect('T1', { apiKey: KEY_1, baseUrl: 'https://evil.example.com' }, 'U1')).toMatchObject({
        ok: false,
        field: 'baseUrl',
      });
      // With several addresses one must be chosen.
      expect(await c.connect('T1', { apiKey: KEY_1 }, 'U1')).toMatchObject({ ok: false, field: 'baseUrl' });
      expect(await c.connect('T1', { apiKey: 'two words' }, 'U1')).toMatchObject({ ok: false, field: 'apiKey' });
      expect(await c.connect('T1', { apiKey: '   ' }, 'U1')).toMatchObject({ ok: false, field: 'apiKey' });
      expect(verified).toEqual([]);
      expect(await harness.rawRows('api_connections')).toEqual([]);
    });
  });
}
