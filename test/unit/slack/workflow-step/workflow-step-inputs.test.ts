import { describe, expect, it } from 'vitest';
import { readStepInputs, stepActorId } from '../../../../src/slack/workflow-step/workflow-steps.ts';

const startedBy = (id: string) => ({ interactor: { id, secret: 's3cr3t' }, interactivity_pointer: '1.2.abc' });

describe('readStepInputs (what Workflow Builder sends the step)', () => {
  it('reads every input; JSON text or an object for the values; blanks are absent', () => {
    expect(
      readStepInputs({
        runbook: ' Restart Pods ',
        inputs: '{"namespace":"prod"}',
        proxy: '',
        channel: 'C01OPS',
        wait_for_completion: true,
        started_by: startedBy('U01ALICE'),
        invoking_user: 'U01ALICE',
      }),
    ).toEqual({
      runbook: 'Restart Pods',
      params: { namespace: 'prod' },
      proxy: null,
      channel: 'C01OPS',
      wait: true,
      startedBy: 'U01ALICE',
      runAs: 'U01ALICE',
    });
    expect(readStepInputs({ runbook: 'x', inputs: { a: 1 } })).toMatchObject({
      params: { a: 1 },
      wait: false,
      startedBy: null,
      runAs: null,
    });
    // The interactivity value as JSON text; anything else is nobody.
    expect(readStepInputs({ runbook: 'x', started_by: JSON.stringify(startedBy('U02BOB')) })).toMatchObject({
      startedBy: 'U02BOB',
    });
    for (const started_by of ['U02BOB', { interactor: 'U02BOB' }, { interactor: { id: '<!channel>' } }, null]) {
      expect(readStepInputs({ runbook: 'x', started_by })).toMatchObject({ startedBy: null });
    }
  });

  it('refuses a missing runbook and values that are not a JSON object', () => {
    expect(readStepInputs({ invoking_user: 'U1' })).toEqual({ error: expect.stringMatching(/needs a runbook/) });
    for (const inputs of ['[1,2]', '"text"', '{broken', 'null']) {
      expect(readStepInputs({ runbook: 'x', inputs })).toEqual({ error: expect.stringMatching(/JSON object/) });
    }
  });
});

describe('stepActorId: whom the step runs as', () => {
  it('the person Slack attests; an old "Run as" only when it names that same person', () => {
    expect(stepActorId({ startedBy: 'U01ALICE', runAs: null }, null, '#ops')).toEqual({ userId: 'U01ALICE' });
    expect(stepActorId({ startedBy: 'U01ALICE', runAs: 'U01ALICE' }, null, '#ops')).toEqual({ userId: 'U01ALICE' });
    expect(stepActorId({ startedBy: 'U01ALICE', runAs: 'U03CAROL' }, 'U03CAROL', '#ops')).toEqual({
      error: expect.stringMatching(/names someone other than the person who started the workflow.*"Started by"/),
    });
  });

  it('nobody started it: only the identity the policy names for that, else a sentence saying so', () => {
    expect(stepActorId({ startedBy: null, runAs: null }, 'U0AUTOMATION', '#ops')).toEqual({ userId: 'U0AUTOMATION' });
    expect(stepActorId({ startedBy: null, runAs: 'U0AUTOMATION' }, 'U0AUTOMATION', '#ops')).toEqual({
      userId: 'U0AUTOMATION',
    });
    expect(stepActorId({ startedBy: null, runAs: null }, null, '#ops')).toEqual({
      error: expect.stringMatching(/Nobody started this workflow.*ask #ops to set unattendedWorkflowsRunAs/),
    });
    expect(stepActorId({ startedBy: null, runAs: 'U03CAROL' }, 'U0AUTOMATION', '#ops')).toEqual({
      error: expect.stringMatching(/cannot be checked.*"Started by"/),
    });
  });
});
