import { describe, expect, it } from 'vitest';
import { InvalidIdError, NotFoundError } from '../../../../src/api/errors.ts';
import {
  describeFailure,
  FAILURE_SHOWN_CHANNEL,
  isInputFailure,
  withFullStop,
} from '../../../../src/slack/kit/describe-failure.ts';
import type { HandlerContext } from '../../../../src/slack/kit/handler-context.ts';
import { reportFailure } from '../../../../src/slack/kit/report-failure.ts';
import { UserFacingError } from '../../../../src/slack/kit/user-facing-error.ts';

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

  it('counts an invalid id as refused (the person typed it), not as a Runbook API failure', () => {
    const kinds: unknown[] = [];
    const listen = (m: unknown) => kinds.push((m as { kind: string }).kind);
    FAILURE_SHOWN_CHANNEL.subscribe(listen);
    try {
      const err = new InvalidIdError({ kind: 'execution', id: '.', method: 'GET', path: '/v1alpha1/executions/' });
      expect(isInputFailure(err)).toBe(true);
      expect(describeFailure(err)).toContain('not a valid execution id');
      describeFailure(new NotFoundError({ message: 'x', status: 404, method: 'GET', path: '/v1alpha1/x', tid: 't' }));
    } finally {
      FAILURE_SHOWN_CHANNEL.unsubscribe(listen);
    }
    expect(kinds).toEqual(['refused', 'runbook_api']);
  });

  it('ends a sentence with one full stop', () => {
    expect(withFullStop('copy it from `/runbook executions`')).toBe('copy it from `/runbook executions`.');
    expect(withFullStop('Done.')).toBe('Done.');
  });
});

describe('reportFailure', () => {
  function fakeContext() {
    const replies: unknown[] = [];
    const logs: { level: string; obj: Record<string, unknown> }[] = [];
    const logger = {
      warn: (obj: Record<string, unknown>) => logs.push({ level: 'warn', obj }),
      info: (obj: Record<string, unknown>) => logs.push({ level: 'info', obj }),
      error: (obj: Record<string, unknown>) => logs.push({ level: 'error', obj }),
    };
    const ctx = {
      userId: 'U1',
      deps: { logger },
      respond: async (m: unknown) => {
        replies.push(m);
      },
    } as unknown as HandlerContext;
    return { ctx, replies, logs };
  }

  it('answers an invalid id in one clean sentence and logs it at info without the error', async () => {
    const { ctx, replies, logs } = fakeContext();
    const err = new InvalidIdError({ kind: 'execution', id: '.', method: 'GET', path: '/v1alpha1/executions/' });
    await reportFailure(ctx, err, '/runbook status');
    const text = JSON.stringify(replies);
    expect(text).toContain('That is not a valid execution id');
    expect(text).toContain('copy it from `/runbook executions`.');
    expect(text).not.toContain('failed.');
    expect(logs.map((l) => l.level)).toEqual(['info']);
    expect(logs[0]!.obj.err).toBeUndefined();
  });

  it('still says what failed, with a full stop, and warns with the error for anything else', async () => {
    const { ctx, replies, logs } = fakeContext();
    await reportFailure(ctx, new Error('boom'), '/runbook status');
    const text = JSON.stringify(replies);
    expect(text).toContain('/runbook status failed. Something went wrong on the bot’s side');
    expect(text).toContain('keeps happening.');
    expect(logs.map((l) => l.level)).toEqual(['warn']);
    expect(logs[0]!.obj.err).toBeInstanceOf(Error);
  });
});
