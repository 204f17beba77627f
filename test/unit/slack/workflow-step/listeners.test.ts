// The Workflow Builder step's listener, called as Bolt would call it (fake client, `fail` and request
// context) over the real use cases and the emulator: what reached the use case (the run the API received),
// how the step ended, one refusal.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FUNCTIONS, STEP_OUTPUTS } from '../../../../src/slack/kit/ids.ts';
import type { FunctionArgs } from '../../../../src/slack/kit/listen.ts';
import { workflowStepListeners } from '../../../../src/slack/workflow-step/register.ts';
import { runStepExecuted } from '../../../../src/slack/workflow-step/workflow-steps.ts';
import { PLAIN, TABLE_POLICY } from '../../../support/authorization-cases.ts';
import { type ListenerEnv, startListenerEnv } from '../listener-env.ts';

let env: ListenerEnv;
let failed: unknown[] = [];
let executions = 0;
beforeAll(async () => {
  env = await startListenerEnv(TABLE_POLICY);
});
afterAll(() => env.close());
beforeEach(() => {
  env.reset();
  failed = [];
});

const startedBy = (id: string) => ({ interactor: { id }, interactivity_pointer: '1.2.abc' });

/** The step's event as Slack delivers it; each call a new function execution unless `id` is given. */
function step(inputs: Record<string, unknown>, id = `Fx${++executions}`): FunctionArgs {
  return {
    inputs,
    client: env.client,
    event: { function_execution_id: id, inputs },
    body: { team_id: 'T01' },
    fail: async (error: unknown) => {
      failed.push(error);
    },
    complete: async () => {},
  } as unknown as FunctionArgs;
}

const PLAIN_INPUTS = {
  runbook: PLAIN,
  inputs: JSON.stringify({ namespace: 'web', deployment: 'api' }),
  channel: 'C01OPS',
};

describe('workflow step listener', () => {
  it('registers the step function', () => {
    expect(workflowStepListeners).toEqual([
      expect.objectContaining({ kind: 'function', callbackId: FUNCTIONS.runRunbook, listener: runStepExecuted }),
    ]);
  });

  it('runStepExecuted runs as the person who started the workflow, with the schema defaults, and ends the step', async () => {
    const args = step({ ...PLAIN_INPUTS, started_by: startedBy('U01ALICE') });
    await runStepExecuted(args, env.context('U01ALICE', null));
    expect(env.runs()).toEqual([
      {
        runbook: PLAIN,
        params: {
          namespace: 'web',
          deployment: 'api',
          context: 'staging',
          wait_for_rollout: true,
          timeout_seconds: 300,
        },
        proxyId: 'proxy-dev',
      },
    ]);
    expect(env.tracker.started_.at(-1)).toMatchObject({ runbookName: PLAIN, channel: 'C01OPS', startedBy: 'U01ALICE' });
    const completed = env.called('functions.completeSuccess');
    expect(completed).toHaveLength(1);
    const outputs = completed[0]!.args.outputs as Record<string, string>;
    expect(outputs[STEP_OUTPUTS.status]).toBe('running');
    expect(outputs[STEP_OUTPUTS.executionId]).toMatch(/^[0-9a-f-]{36}$/);
    expect(failed).toEqual([]);
  });

  it('runStepExecuted delivered twice (Slack retries the event) starts one run', async () => {
    const inputs = { ...PLAIN_INPUTS, started_by: startedBy('U01ALICE') };
    await runStepExecuted(step(inputs, 'FxTWICE'), env.context('U01ALICE', null));
    await runStepExecuted(step(inputs, 'FxTWICE'), env.context('U01ALICE', null));
    expect(env.runs()).toHaveLength(1);
    expect(env.called('functions.completeSuccess')).toHaveLength(1);
  });

  it('runStepExecuted with "wait for completion" leaves the step open for the watcher', async () => {
    await runStepExecuted(
      step({ ...PLAIN_INPUTS, started_by: startedBy('U01ALICE'), wait_for_completion: true }, 'FxWAIT'),
      env.context('U01ALICE', null),
    );
    expect(env.runs()).toHaveLength(1);
    expect(env.called('functions.completeSuccess')).toEqual([]);
    const kept = await env.store.workflowSteps.get('FxWAIT');
    expect(kept).toMatchObject({ runbookName: PLAIN, actorId: 'U01ALICE', waitForCompletion: true });
  });

  it('runStepExecuted for someone who may not run: the step fails with the sentence, nothing runs; audited', async () => {
    await runStepExecuted(step({ ...PLAIN_INPUTS, started_by: startedBy('U02BOB') }), env.context('U02BOB', null));
    expect(env.runs()).toEqual([]);
    // Refused by the gate once the step had begun: ended through the claim, with the gate's sentence.
    expect(env.called('functions.completeError').map((c) => c.args.error)).toEqual([
      expect.stringMatching(/^You may not run Restart Kubernetes Deployment: denied by rule “bob may not run”/),
    ]);
    expect(failed).toEqual([]);
    expect(env.called('functions.completeSuccess')).toEqual([]);
    expect((await env.audit(1))[0]).toMatchObject({ userId: 'U02BOB', outcome: 'denied' });
  });

  it('runStepExecuted nobody started, and the policy names no one for that: fails saying how to fix it', async () => {
    await runStepExecuted(step(PLAIN_INPUTS), env.context('U01ALICE', null));
    expect(env.runs()).toEqual([]);
    expect(failed).toEqual([{ error: expect.stringMatching(/^Nobody started this workflow/) }]);
  });

  it('runStepExecuted refuses values that are not a JSON object before anything starts', async () => {
    await runStepExecuted(
      step({ ...PLAIN_INPUTS, inputs: '[1,2]', started_by: startedBy('U01ALICE') }),
      env.context('U01ALICE', null),
    );
    expect(env.runs()).toEqual([]);
    expect(failed).toEqual([{ error: expect.stringMatching(/JSON object/) }]);
  });
});
