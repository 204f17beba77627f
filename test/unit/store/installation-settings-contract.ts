// Each installation's approval settings, the behaviour both databases must have: one row per installation,
// replaced in place (either value may be cleared), seen by another replica, removed.
import { describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/store.ts';
import { freshStoreEachTest, type StoreHarness } from './store-contract.ts';

const T0 = 1_700_000_000_000;

export function runInstallationSettingsContract(name: string, createHarness: () => Promise<StoreHarness>): void {
  describe(`${name} store contract: installation settings`, () => {
    let harness: StoreHarness;
    let store: Store;
    freshStoreEachTest(createHarness, (fresh) => {
      ({ harness, store } = fresh);
    });

    it('keeps one row per installation, replaced in place, seen by another replica, removed', async () => {
      expect(await store.installationSettings.get('T1')).toBeNull();
      await store.installationSettings.put({
        installationId: 'T1',
        approvalsChannel: 'C1',
        approverGroup: 'S1',
        updatedBy: 'U1',
        updatedAt: T0,
      });
      await store.installationSettings.put({
        installationId: 'E2',
        approvalsChannel: null,
        approverGroup: 'S2',
        updatedBy: 'U2',
        updatedAt: T0 + 1,
      });
      await store.installationSettings.put({
        installationId: 'T1',
        approvalsChannel: 'C9',
        approverGroup: null,
        updatedBy: 'U3',
        updatedAt: T0 + 2,
      });
      const replica = await harness.open();
      expect(await replica.installationSettings.get('T1')).toEqual({
        installationId: 'T1',
        approvalsChannel: 'C9',
        approverGroup: null,
        updatedBy: 'U3',
        updatedAt: T0 + 2,
      });
      expect(await replica.installationSettings.get('E2')).toMatchObject({
        approvalsChannel: null,
        approverGroup: 'S2',
      });
      expect(await harness.rawRows('installation_settings')).toHaveLength(2);
      expect(await store.installationSettings.remove('T1')).toBe(true);
      expect(await store.installationSettings.remove('T1')).toBe(false);
      expect(await replica.installationSettings.get('T1')).toBeNull();
      expect(await replica.installationSettings.get('E2')).not.toBeNull();
    });
  });
}
