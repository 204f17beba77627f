// Whom a Workflow Builder step runs as: the person Slack attests, or the policy's identity for unattended
// workflows; the old "Run as" only when it agrees.
import { describe, expect, it } from 'vitest';
import { stepActorId } from '../../../src/runs/who-acts.ts';

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
