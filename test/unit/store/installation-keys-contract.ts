// The records migration 26 keys by installation, on both databases: two installations (many workspaces) may
// hold the same execution id (each tenant's API makes its own), the same person (Slack Connect, a Grid user in
// two installed workspaces) and the same service runbook id, so an output upload, a Workflow Builder step, a
// break-glass pass, a run limit and a scan cursor of one installation are never found, taken, counted or
// ended by another; '' stays the single workspace's.
import { describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/store.ts';
import { step } from './saved-runs-contract.ts';
import { freshStoreEachTest, type StoreHarness } from './store-contract.ts';

const T0 = 1_700_000_000_000;
const A = 'T0AAA';
const B = 'T0BBB';

export function runInstallationKeysContract(name: string, createHarness: () => Promise<StoreHarness>): void {
  describe(`${name} store contract: uploads, workflow steps, passes, run limits and cursors per installation`, () => {
    let harness: StoreHarness;
    let store: Store;
    freshStoreEachTest(createHarness, (fresh) => {
      ({ harness, store } = fresh);
    });

    it('an output upload claimed in one installation leaves the same execution id free in another', async () => {
      expect(await store.outputUploads.claim('e-1', T0, A)).toBe(true);
      expect(await store.outputUploads.claim('e-1', T0, A)).toBe(false);
      expect(await store.outputUploads.claim('e-1', T0, B)).toBe(true);
      expect(await store.outputUploads.claim('e-1', T0)).toBe(true);
      await store.outputUploads.complete('e-1', 'F0A', T0 + 1, A);
      expect(await store.outputUploads.get('e-1', A)).toMatchObject({ fileId: 'F0A' });
      expect(await store.outputUploads.get('e-1', B)).toMatchObject({ fileId: null });
      // B gives its claim back: A's completed upload stays, and B may claim again.
      await store.outputUploads.release('e-1', B);
      await store.outputUploads.release('e-1', A);
      expect(await store.outputUploads.get('e-1', B)).toBeNull();
      expect(await store.outputUploads.get('e-1', A)).toMatchObject({ fileId: 'F0A' });
      expect(await store.outputUploads.get('e-9', A)).toBeNull();
    });

    it('a workflow step waits for its own installation’s execution: another’s run of that id never ends it', async () => {
      expect(await store.workflowSteps.begin(step('Fx1'), T0, A)).toBe(true);
      expect(await store.workflowSteps.begin(step('Fx1'), T0, A)).toBe(false);
      await store.workflowSteps.attachExecution('Fx1', 'exec-1', T0 + 1, A);
      // B's run of the same execution id: no step of B waits for it.
      expect(await store.workflowSteps.pendingForExecution('exec-1', B)).toBeNull();
      expect(await store.workflowSteps.pendingForExecution('exec-1')).toBeNull();
      expect(await store.workflowSteps.get('Fx1', B)).toBeNull();
      expect(await store.workflowSteps.finish('Fx1', 'failed', { error: 'x' }, T0 + 2, B)).toBe(false);
      await store.workflowSteps.attachExecution('Fx1', 'exec-other', T0 + 2, B);
      await store.workflowSteps.reopen('Fx1', T0 + 2, B);
      expect(await store.workflowSteps.pendingForExecution('exec-1', A)).toMatchObject({
        functionExecutionId: 'Fx1',
        executionId: 'exec-1',
        state: 'pending',
      });
      expect(await store.workflowSteps.finish('Fx1', 'completed', { outputs: { ok: 1 } }, T0 + 3, A)).toBe(true);
      expect(await store.workflowSteps.get('Fx1', A)).toMatchObject({ state: 'completed' });
    });

    it('a break-glass pass granted in one installation is not seen nor taken in another', async () => {
      const pass = {
        userId: 'U1',
        runbookId: 'svc-64hex',
        freeze: 'Year end',
        reason: 'prod down',
        expiresAt: T0 + 60,
      };
      await store.freezePasses.grant(pass, T0, A);
      expect(await store.freezePasses.peek('U1', 'svc-64hex', T0 + 1, B)).toBeNull();
      expect(await store.freezePasses.take('U1', 'svc-64hex', T0 + 1, B)).toBeNull();
      expect(await store.freezePasses.peek('U1', 'svc-64hex', T0 + 1)).toBeNull();
      expect(await store.freezePasses.take('U1', 'svc-64hex', T0 + 1, A)).toMatchObject({ reason: 'prod down' });
      expect(await store.freezePasses.take('U1', 'svc-64hex', T0 + 2, A)).toBeNull();
    });

    it('run limits count per installation: one person’s starts in one do not use up the other’s', async () => {
      expect(await store.runLimits.take('run:U1', T0, 60_000, 2, A)).toEqual({ ok: true });
      expect(await store.runLimits.take('run:U1', T0 + 1, 60_000, 2, A)).toEqual({ ok: true });
      expect(await store.runLimits.take('run:U1', T0 + 2, 60_000, 2, A)).toMatchObject({ ok: false });
      expect(await store.runLimits.take('run:U1', T0 + 2, 60_000, 2, B)).toEqual({ ok: true });
      expect(await store.runLimits.take('run:U1', T0 + 2, 60_000, 2)).toEqual({ ok: true });
      expect(await store.runLimits.deleteIdle(T0 + 2)).toBe(3);
    });

    it('cursors of one name are kept per installation', async () => {
      await store.cursors.set('subscriptions', 'a', T0, A);
      await store.cursors.set('subscriptions', 'b', T0, B);
      expect(await store.cursors.get('subscriptions', A)).toBe('a');
      expect(await store.cursors.get('subscriptions', B)).toBe('b');
      expect(await store.cursors.get('subscriptions')).toBeNull();
      await store.cursors.set('subscriptions', 'a2', T0 + 1, A);
      expect(await store.cursors.get('subscriptions', B)).toBe('b');
      expect(await store.cursors.get('subscriptions', A)).toBe('a2');
    });

    it('a request bucket records the installation it is of', async () => {
      const spec = { ratePerSecond: 1, burst: 1 };
      await store.coordination.takeTokens('runbook-api/tenant/T0AAA', spec, 1, T0, A);
      await store.coordination.takeTokens('runbook-api:global', spec, 1, T0);
      const rows = await harness.rawRows('rate_buckets');
      expect(Object.fromEntries(rows.map((r) => [r.name, r.installation_id]))).toEqual({
        'runbook-api/tenant/T0AAA': A,
        'runbook-api:global': '',
      });
    });
  });
}
