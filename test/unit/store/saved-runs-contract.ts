// Aliases, channel defaults and workflow steps: the behaviour both store implementations must have.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewRunAlias } from '../../../src/store/saved-runs.ts';
import type { Store } from '../../../src/store/store.ts';
import type { StoreHarness } from './store-contract.ts';

const T0 = 1_700_000_000_000;

function alias(overrides: Partial<NewRunAlias> = {}): NewRunAlias {
  return {
    channel: 'C1',
    name: 'restart-prod',
    runbookId: 'rb-1',
    runbookName: 'Restart Pods',
    params: '{"namespace":"prod"}',
    proxyId: 'proxy-a',
    resultChannel: null,
    createdBy: 'U1',
    teamId: 'T1',
    ...overrides,
  };
}

const step = (id: string) => ({
  functionExecutionId: id,
  runbookId: 'rb-1',
  runbookName: 'Restart Pods',
  actorId: 'U1',
  channel: 'C1',
  waitForCompletion: true,
});

export function runSavedRunsContract(name: string, createHarness: () => Promise<StoreHarness>): void {
  describe(`${name} store contract: aliases, channel defaults, workflow steps`, () => {
    let harness: StoreHarness;
    let store: Store;
    beforeEach(async () => {
      harness = await createHarness();
      store = await harness.open();
    });
    afterEach(async () => {
      await harness.destroy();
    });

    it('aliases: add, update keeps the creator, case-insensitive per channel, list, remove', async () => {
      expect(await store.aliases.add(alias(), T0)).toBe('added');
      expect(await store.aliases.add(alias({ channel: 'C2', runbookId: 'rb-2' }), T0)).toBe('added');
      expect(
        await store.aliases.add(alias({ name: 'Restart-PROD', createdBy: 'U9', params: '{"namespace":"p2"}' }), T0 + 5),
      ).toBe('updated');
      const got = await store.aliases.get('C1', 'RESTART-prod');
      expect(got).toMatchObject({ name: 'restart-prod', createdBy: 'U1', params: '{"namespace":"p2"}', createdAt: T0 });
      expect(got?.updatedAt).toBe(T0 + 5);
      await store.aliases.add(alias({ name: 'a-first' }), T0);
      expect((await store.aliases.listForChannel('C1')).map((a) => a.name)).toEqual(['a-first', 'restart-prod']);
      await store.aliases.add(alias({ channel: 'C0', name: 'zz', createdBy: 'U2' }), T0);
      expect((await store.aliases.listByCreator('U1', 10)).map((a) => `${a.channel}/${a.name}`)).toEqual([
        'C1/a-first',
        'C1/restart-prod',
        'C2/restart-prod',
      ]);
      expect(await store.aliases.listByCreator('U1', 1)).toHaveLength(1);
      expect(await store.aliases.remove('C1', 'Restart-Prod')).toBe(true);
      expect(await store.aliases.remove('C1', 'restart-prod')).toBe(false);
      expect(await store.aliases.get('C1', 'restart-prod')).toBeNull();
      expect((await store.aliases.get('C2', 'restart-prod'))?.runbookId).toBe('rb-2');
    });

    it('channel defaults: set some fields, keep the others, clear', async () => {
      expect(await store.channelDefaults.get('C1')).toBeNull();
      await store.channelDefaults.set('C1', { proxyId: 'p1' }, 'U1', T0);
      await store.channelDefaults.set('C1', { resultChannel: 'C9' }, 'U2', T0 + 1);
      expect(await store.channelDefaults.get('C1')).toEqual({
        channel: 'C1',
        proxyId: 'p1',
        resultChannel: 'C9',
        updatedBy: 'U2',
        updatedAt: T0 + 1,
      });
      await store.channelDefaults.set('C1', { proxyId: null }, 'U2', T0 + 2);
      expect(await store.channelDefaults.get('C1')).toMatchObject({ proxyId: null, resultChannel: 'C9' });
      expect(await store.channelDefaults.clear('C1')).toBe(true);
      expect(await store.channelDefaults.get('C1')).toBeNull();
    });

    it('watches keep the link of the message a run was started from', async () => {
      const link = 'https://sandbox.slack.com/archives/C1/p1700000000000100';
      await store.watches.insert(
        {
          executionId: 'e-src',
          runbookId: 'rb-1',
          runbookName: 'Restart Pods',
          channel: 'C1',
          threadTs: '1700000000.000100',
          proxyId: 'p',
          inputsSummary: '{}',
          origin: 'slack',
          sourceLink: link,
        },
        T0,
      );
      expect(await store.watches.get('e-src')).toMatchObject({ sourceLink: link, threadTs: '1700000000.000100' });
    });

    it('workflow steps: begin once, found by execution, finished exactly once across replicas', async () => {
      expect(await store.workflowSteps.begin(step('Fx1'), T0)).toBe(true);
      expect(await store.workflowSteps.begin(step('Fx1'), T0 + 1)).toBe(false);
      await store.workflowSteps.attachExecution('Fx1', 'exec-1', T0 + 2);
      const replica = await harness.open();
      expect(await replica.workflowSteps.pendingForExecution('exec-1')).toMatchObject({
        functionExecutionId: 'Fx1',
        waitForCompletion: true,
        state: 'pending',
        actorId: 'U1',
      });
      const outputs = { execution_id: 'exec-1', status: 'succeeded' };
      const wins = await Promise.all([
        store.workflowSteps.finish('Fx1', 'completed', { outputs }, T0 + 3),
        replica.workflowSteps.finish('Fx1', 'failed', { error: 'late' }, T0 + 3),
        replica.workflowSteps.finish('Fx1', 'completed', { outputs }, T0 + 3),
      ]);
      expect(wins.filter(Boolean)).toHaveLength(1);
      expect(await store.workflowSteps.pendingForExecution('exec-1')).toBeNull();
      const done = await store.workflowSteps.get('Fx1');
      expect(done?.state === 'completed' ? JSON.parse(done.outputs ?? '{}') : done?.error).toEqual(
        done?.state === 'completed' ? outputs : 'late',
      );
      // A claim whose Slack call definitely failed is reopened and can be won again.
      await store.workflowSteps.reopen('Fx1', T0 + 4);
      expect(await store.workflowSteps.finish('Fx1', 'failed', { error: 'timed out' }, T0 + 5)).toBe(true);
      expect(await store.workflowSteps.get('Fx1')).toMatchObject({
        state: 'failed',
        error: 'timed out',
        outputs: null,
      });
    });
  });
}
