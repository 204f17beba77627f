import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../../src/api/errors.ts';
import { describeFailure } from '../../../src/slack/describe-failure.ts';
import { UserFacingError } from '../../../src/slack/user-facing-error.ts';

describe('describeFailure: one sentence for any failure', () => {
  it('keeps our own sentence (the user-group fail-closed one among them) as it is', () => {
    const sentence =
      'Slack could not tell which user groups you are in, so your access cannot be checked; try again in a minute.';
    expect(describeFailure(new UserFacingError(sentence))).toBe(sentence);
  });

  it('describes a Runbook API error with its request id', () => {
    const err = new NotFoundError({
      message: 'not found',
      status: 404,
      method: 'GET',
      path: '/v1alpha1/workflows/x',
      tid: 'tid-123',
    });
    expect(describeFailure(err)).toContain('tid-123');
  });

  it("names Slack's error code, and the Web API client's own", () => {
    expect(describeFailure(Object.assign(new Error('x'), { data: { error: 'channel_not_found' } }))).toContain(
      'channel_not_found',
    );
    expect(describeFailure(Object.assign(new Error('x'), { code: 'slack_webapi_request_error' }))).toContain(
      'slack_webapi_request_error',
    );
  });

  it('never blames the Runbook API for something else, and never shows the raw error', () => {
    const sentence = describeFailure(new Error('SQLITE_BUSY: database is locked at /data/x.sqlite'));
    expect(sentence).not.toContain('Runbook API');
    expect(sentence).not.toContain('SQLITE');
  });
});
