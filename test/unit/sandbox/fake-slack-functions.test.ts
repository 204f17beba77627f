import { WebClient } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FunctionDefinition } from '../../../src/sandbox/fake-slack-functions.ts';
import { type FakeSlackFixture, startFixture } from './fake-slack-fixture.ts';

let f: FakeSlackFixture;
beforeEach(async () => {
  f = await startFixture();
});
afterEach(async () => {
  await f.fake.close();
});

const definition: FunctionDefinition = {
  title: 'Run a runbook',
  input_parameters: { runbook: { type: 'string', is_required: true } },
  output_parameters: {
    execution_id: { type: 'string', is_required: true },
    status: { type: 'string', is_required: true },
  },
};

function errorOf(promise: Promise<unknown>): Promise<string | undefined> {
  return promise.then(
    () => undefined,
    (e: { data?: { error?: string } }) => e.data?.error,
  );
}

describe('Workflow Builder steps in the fake Slack', () => {
  it('startFunction returns the function_executed event as Slack sends it', () => {
    const { event, execution } = f.fake.startFunction({
      callbackId: 'run_runbook_step',
      definition,
      inputs: { runbook: 'x' },
    });
    expect(event).toMatchObject({
      type: 'function_executed',
      function: { callback_id: 'run_runbook_step', type: 'app', app_id: 'A0SANDBOX' },
      inputs: { runbook: 'x' },
      function_execution_id: execution.id,
      workflow_execution_id: execution.workflowExecutionId,
      bot_access_token: execution.botAccessToken,
    });
    expect(execution.id).toMatch(/^Fx/);
    expect(execution.botAccessToken).toMatch(/^xwfp-/);
    expect(
      (event.function as { output_parameters: Array<{ name: string }> }).output_parameters.map((p) => p.name),
    ).toEqual(['execution_id', 'status']);
  });

  it('completeSuccess checks required outputs, completes once, and the step token stops working after', async () => {
    const { execution } = f.fake.startFunction({ callbackId: 'run_runbook_step', definition, inputs: {} });
    const stepClient = new WebClient(execution.botAccessToken, {
      slackApiUrl: f.fake.url,
      retryConfig: { retries: 0 },
    });
    expect(
      await errorOf(
        stepClient.functions.completeSuccess({ function_execution_id: execution.id, outputs: { status: 'x' } }),
      ),
    ).toBe('parameter_validation_failed');
    const outputs = { execution_id: 'e-1', status: 'succeeded' };
    await stepClient.functions.completeSuccess({ function_execution_id: execution.id, outputs });
    expect(f.fake.state.functionExecutions[execution.id]).toMatchObject({ state: 'completed', outputs });
    expect(await errorOf(f.client.functions.completeSuccess({ function_execution_id: execution.id, outputs }))).toBe(
      'execution_not_in_running_state',
    );
    expect(await errorOf(stepClient.auth.test())).toBe('invalid_auth');
  });

  it('completeError records the message; unknown executions are not found', async () => {
    const { execution } = f.fake.startFunction({ callbackId: 'run_runbook_step', definition, inputs: {} });
    await f.client.functions.completeError({ function_execution_id: execution.id, error: 'Not allowed' });
    expect(f.fake.state.functionExecutions[execution.id]).toMatchObject({ state: 'failed', error: 'Not allowed' });
    expect(
      await errorOf(f.client.functions.completeError({ function_execution_id: execution.id, error: 'again' })),
    ).toBe('execution_not_in_running_state');
    expect(await errorOf(f.client.functions.completeError({ function_execution_id: 'Fx0NOPE', error: 'x' }))).toBe(
      'function_execution_not_found',
    );
  });
});
