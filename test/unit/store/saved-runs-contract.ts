// Aliases, channel defaults and workflow steps: the behaviour both store implementations must have.
import { describe, expect, it } from 'vitest';
import type { NewRunAlias } from '../../../src/store/saved-runs.ts';
import type { Store } from '../../../src/store/store.ts';
import { freshStoreEachTest, type StoreHarness } from './store-contract.ts';

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

/** A Workflow Builder step waiting for its run. */
export const step = (id: string) => ({
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
    freshStoreEachTest(createHarness, (fresh) => {
      ({ harness, store } = fresh);
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

    it('aliases and channel defaults are kept per installation: a channel shared by two never crosses', async () => {
      // A Slack Connect channel C1 in two installed workspaces, T1 and E1 (an org-wide install), and the
      // single-workspace key ''.
      expect(await store.aliases.add(alias({ runbookId: 'rb-a' }), T0, 'T1')).toBe('added');
      expect(await store.aliases.add(alias({ runbookId: 'rb-b', createdBy: 'U1' }), T0, 'E1')).toBe('added');
      expect((await store.aliases.get('C1', 'restart-prod', 'T1'))?.runbookId).toBe('rb-a');
      expect((await store.aliases.get('C1', 'restart-prod', 'E1'))?.runbookId).toBe('rb-b');
      expect(await store.aliases.get('C1', 'restart-prod')).toBeNull();
      expect(await store.aliases.get('C1', 'restart-prod', 'T2')).toBeNull();
      expect((await store.aliases.listForChannel('C1', 'T1')).map((a) => a.runbookId)).toEqual(['rb-a']);
      expect(await store.aliases.listForChannel('C1', 'T2')).toEqual([]);
      expect((await store.aliases.listByCreator('U1', 10, 'E1')).map((a) => a.runbookId)).toEqual(['rb-b']);
      // Replacing in one installation changes only its own.
      expect(await store.aliases.add(alias({ runbookId: 'rb-a2' }), T0 + 1, 'T1')).toBe('updated');
      expect((await store.aliases.get('C1', 'restart-prod', 'E1'))?.runbookId).toBe('rb-b');
      expect(await store.aliases.remove('C1', 'restart-prod', 'T2')).toBe(false);
      expect(await store.aliases.remove('C1', 'restart-prod', 'T1')).toBe(true);
      expect((await store.aliases.get('C1', 'restart-prod', 'E1'))?.runbookId).toBe('rb-b');

      await store.channelDefaults.set('C1', { proxyId: 'p-a' }, 'U1', T0, 'T1');
      await store.channelDefaults.set('C1', { proxyId: 'p-b', resultChannel: 'C9' }, 'U2', T0, 'E1');
      expect(await store.channelDefaults.get('C1', 'T1')).toMatchObject({ proxyId: 'p-a', resultChannel: null });
      expect(await store.channelDefaults.get('C1', 'E1')).toMatchObject({ proxyId: 'p-b', resultChannel: 'C9' });
      expect(await store.channelDefaults.get('C1')).toBeNull();
      expect(await store.channelDefaults.clear('C1', 'T2')).toBe(false);
      expect(await store.channelDefaults.clear('C1', 'T1')).toBe(true);
      expect(await store.channelDefaults.get('C1', 'E1')).toMatchObject({ proxyId: 'p-b' });
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

    // Run record retention (tenants/retention.ts picks the cutoff): an ended step goes once it ended before it.
    it('workflow steps: pruneFinished deletes ended steps before the cutoff, oldest first; pending ones stay', async () => {
      for (const [id, at] of [
        ['Fx1', T0],
        ['Fx2', T0 + 1],
        ['Fx3', T0 + 2],
        ['Fx4', T0 + 3],
      ] as const)
        expect(await store.workflowSteps.begin(step(id), at, 'T9')).toBe(true);
      expect(await store.workflowSteps.begin(step('Fx1'), T0, 'T8')).toBe(true);
      expect(await store.workflowSteps.finish('Fx1', 'completed', { outputs: {} }, T0 + 10, 'T9')).toBe(true);
      expect(await store.workflowSteps.finish('Fx2', 'failed', { error: 'no' }, T0 + 11, 'T9')).toBe(true);
      expect(await store.workflowSteps.finish('Fx3', 'failed', { error: 'no' }, T0 + 50, 'T9')).toBe(true);
      expect(await store.workflowSteps.pruneFinished(T0 + 50, 1)).toBe(1);
      expect(await store.workflowSteps.get('Fx1', 'T9')).toBeNull();
      expect(await store.workflowSteps.pruneFinished(T0 + 50, 1)).toBe(1);
      expect(await store.workflowSteps.get('Fx2', 'T9')).toBeNull();
      expect(await store.workflowSteps.pruneFinished(T0 + 50, 1)).toBe(0);
      expect((await store.workflowSteps.get('Fx3', 'T9'))?.state).toBe('failed');
      expect(await store.workflowSteps.pruneFinished(T0 + 400 * 86_400_000, 10)).toBe(1);
      // Pending steps stay, however old: the watcher still ends them with their run.
      expect((await store.workflowSteps.get('Fx4', 'T9'))?.state).toBe('pending');
      expect((await store.workflowSteps.get('Fx1', 'T8'))?.state).toBe('pending');
    });
  });
}
