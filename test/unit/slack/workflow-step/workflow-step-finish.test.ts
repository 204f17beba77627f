import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Execution } from '../../../../src/api/schemas.ts';
import type { FunctionDefinition } from '../../../../src/sandbox/fake-slack-functions.ts';
import {
  endOfRun,
  endStep,
  OUTPUT_TAIL_CHARS,
  outputTail,
} from '../../../../src/slack/workflow-step/workflow-step-finish.ts';
import { openStore } from '../../../../src/store/open-store.ts';
import type { Store } from '../../../../src/store/store.ts';
import { type FakeSlackFixture, startFixture } from '../../sandbox/fake-slack-fixture.ts';

const logger = pino({ level: 'silent' });
const definition: FunctionDefinition = {
  title: 'Run a runbook',
  input_parameters: {},
  output_parameters: {
    execution_id: { type: 'string', is_required: true },
    status: { type: 'string', is_required: true },
  },
};

let f: FakeSlackFixture;
let store: Store;
beforeEach(async () => {
  f = await startFixture();
  store = await openStore({ kind: 'sqlite', path: ':memory:' });
});
afterEach(async () => {
  await store.close();
  await f.fake.close();
});

async function pendingStep(): Promise<string> {
  const { execution } = f.fake.startFunction({ callbackId: 'run_runbook_step', definition, inputs: {} });
  await store.workflowSteps.begin(
    {
      functionExecutionId: execution.id,
      runbookId: 'rb-1',
      runbookName: 'Restart Pods',
      actorId: 'U01ALICE',
      channel: 'C01OPS',
      waitForCompletion: true,
    },
    1,
  );
  await store.workflowSteps.attachExecution(execution.id, 'exec-1', 2);
  return execution.id;
}

describe('ending a workflow step', () => {
  it('maps the run to outputs or a failure sentence', () => {
    const step = { executionId: 'exec-1', runbookName: 'Restart Pods' } as Parameters<typeof endOfRun>[0];
    const ok = Execution.parse({ id: 'exec-1', executionStatus: 'EXECUTION_STATUS_SUCCEEDED', output: 'a\nb\n' });
    expect(endOfRun(step, ok, false, 'https://x/p1')).toEqual({
      kind: 'completed',
      outputs: { execution_id: 'exec-1', status: 'succeeded', output_tail: 'a\nb', card_link: 'https://x/p1' },
    });
    const failed = Execution.parse({ id: 'exec-1', executionStatus: 'EXECUTION_STATUS_FAILED', reason: 'pod crashed' });
    expect(endOfRun(step, failed, false, null)).toEqual({
      kind: 'failed',
      error: 'Restart Pods failed (execution exec-1): pod crashed.',
    });
    expect(endOfRun(step, ok, true, null).kind).toBe('failed');
  });

  it('bounds the output tail', () => {
    const long = Array.from({ length: 500 }, (_, i) => `line ${i} ${'x'.repeat(80)}`).join('\n');
    const tail = outputTail(long);
    expect(tail.length).toBeLessThanOrEqual(OUTPUT_TAIL_CHARS);
    expect(tail.endsWith('line 499 ' + 'x'.repeat(80))).toBe(true);
  });

  it('exactly once: two enders racing make one Slack call', async () => {
    const id = await pendingStep();
    const end = { kind: 'completed' as const, outputs: { execution_id: 'exec-1', status: 'succeeded' } };
    const results = await Promise.all([
      endStep(store, f.client, logger, id, end, () => 3),
      endStep(store, f.client, logger, id, end, () => 3),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(f.fake.state.calls.filter((c) => c.method === 'functions.completeSuccess')).toHaveLength(1);
    expect(f.fake.state.functionExecutions[id]?.state).toBe('completed');
  });

  it('a call Slack did not take (5xx) gives the claim back; the next attempt completes the step', async () => {
    const id = await pendingStep();
    const end = { kind: 'failed' as const, error: 'Restart Pods failed' };
    f.fake.setFaults({ serverErrorNext: 1, methods: ['functions.completeError'] });
    await expect(endStep(store, f.client, logger, id, end, () => 3)).rejects.toThrow();
    expect((await store.workflowSteps.get(id))?.state).toBe('pending');
    expect(await endStep(store, f.client, logger, id, end, () => 4)).toBe(true);
    expect(f.fake.state.functionExecutions[id]).toMatchObject({ state: 'failed', error: 'Restart Pods failed' });
  });

  it('a step Slack already ended stays ended', async () => {
    const id = await pendingStep();
    await f.client.functions.completeError({ function_execution_id: id, error: 'timed out in Slack' });
    expect(await endStep(store, f.client, logger, id, { kind: 'failed', error: 'x' }, () => 3)).toBe(true);
    expect((await store.workflowSteps.get(id))?.state).toBe('failed');
  });
});
