import { describe, expect, it } from 'vitest';
import { readStepInputs } from '../../../../src/slack/workflow-step/workflow-steps.ts';

describe('readStepInputs (what Workflow Builder sends the step)', () => {
  it('reads every input; JSON text or an object for the values; blanks are absent', () => {
    expect(
      readStepInputs({
        runbook: ' Restart Pods ',
        inputs: '{"namespace":"prod"}',
        proxy: '',
        channel: 'C01OPS',
        wait_for_completion: true,
        invoking_user: 'U01ALICE',
      }),
    ).toEqual({
      runbook: 'Restart Pods',
      params: { namespace: 'prod' },
      proxy: null,
      channel: 'C01OPS',
      wait: true,
      actor: 'U01ALICE',
    });
    expect(readStepInputs({ runbook: 'x', inputs: { a: 1 }, invoking_user: 'U1' })).toMatchObject({
      params: { a: 1 },
      wait: false,
    });
  });

  it('refuses a missing runbook or actor and values that are not a JSON object', () => {
    expect(readStepInputs({ invoking_user: 'U1' })).toEqual({ error: expect.stringMatching(/needs a runbook/) });
    expect(readStepInputs({ runbook: 'x' })).toEqual({ error: expect.stringMatching(/Person who used this workflow/) });
    for (const inputs of ['[1,2]', '"text"', '{broken', 'null']) {
      expect(readStepInputs({ runbook: 'x', invoking_user: 'U1', inputs })).toEqual({
        error: expect.stringMatching(/JSON object/),
      });
    }
  });
});
