// Ids become path segments only when they look like ids: a person's "." or "a/b" never changes which
// resource is asked for, and the refusal reads as a sentence, not "a response the bot could not understand".
import { describe, expect, it } from 'vitest';
import { describeApiError, InvalidIdError } from '../../../src/api/errors.ts';
import { isValidId } from '../../../src/api/path-segment.ts';
import { useMockApis } from './mock-api.ts';

const setup = useMockApis();
const BAD = ['.', '..', '', ' ', 'a b', '\n', 'x\u0000', 'x\u202e', 'x'.repeat(201)];

describe('ids as path segments', () => {
  it('refuses each bad id before any request, on every resource, with a typed error', async () => {
    const m = setup();
    const calls: Array<(id: string) => Promise<unknown>> = [
      (id) => m.api.executions.get(id),
      (id) => m.api.executions.get(id, { summary: true }),
      (id) => m.api.workflows.get(id),
      (id) => m.api.workflows.run(id, { proxyId: 'p' }),
      (id) => m.api.schedules.get(id),
      (id) => m.api.schedules.update(id, { schedule: '* * * * *' }),
      (id) => m.api.schedules.delete(id),
    ];
    for (const call of calls) {
      for (const id of BAD) {
        const err = await call(id).catch((e: unknown) => e);
        expect(err, JSON.stringify(id)).toBeInstanceOf(InvalidIdError);
      }
    }
    expect(m.calls()).toHaveLength(0);
  });

  it('words a bad execution id as a sentence that says what ids look like, without echoing it', async () => {
    const m = setup();
    const err = await m.api.executions.get('<!channel> now').catch((e: unknown) => e);
    const sentence = describeApiError(err);
    expect(sentence).toContain('not a valid execution id');
    expect(sentence).not.toContain('could not understand');
    expect(sentence).not.toContain('<!channel>');
  });

  it('accepts the ids the service and the emulator use', () => {
    for (const id of ['a'.repeat(64), '0b6f8c1e-3f1e-4a8e-9a59-0c5e2b7d9f11', 'sched-42', 'wf_1.2', 'x:y@z~1', '...']) {
      expect(isValidId(id), id).toBe(true);
    }
    for (const id of BAD) expect(isValidId(id), JSON.stringify(id)).toBe(false);
  });

  it('still sends a good id, encoded as one segment', async () => {
    const m = setup();
    m.intercept('GET', '/v1alpha1/executions/a%2F..%2Fb').reply(404, { code: 5, message: 'not found' });
    const err = await m.api.executions.get('a/../b').catch((e: unknown) => e);
    expect((err as Error).name).toBe('NotFoundError');
    expect(String(m.calls()[0]?.path)).toBe('/v1alpha1/executions/a%2F..%2Fb');
  });
});
