import { ErrorCode, retryPolicies } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSlackFixture, startFixture } from './fake-slack-fixture.ts';

let f: FakeSlackFixture;

beforeEach(async () => {
  f = await startFixture();
});

afterEach(async () => {
  await f.fake.close();
});

describe('rate limiting', () => {
  it('answers 429 ratelimited with Retry-After', async () => {
    f.fake.setFaults({ ratelimitedNext: 1, retryAfterSeconds: 7 });
    const res = await fetch(`${f.fake.url}auth.test`, { method: 'POST', headers: { authorization: 'Bearer xoxb-t' } });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(await res.json()).toEqual({ ok: false, error: 'ratelimited' });
    expect(f.fake.state.calls.at(-1)).toMatchObject({
      method: 'auth.test',
      ok: false,
      error: 'ratelimited',
      status: 429,
    });
  });

  it('makes WebClient reject with a rate-limited error when it must not wait', async () => {
    f.fake.setFaults({ ratelimitedRate: 1, retryAfterSeconds: 30 });
    const client = f.newClient({ rejectRateLimitedCalls: true });
    await expect(client.chat.postMessage({ channel: 'C01OPS', text: 'x' })).rejects.toMatchObject({
      code: ErrorCode.RateLimitedError,
      retryAfter: 30,
    });
    expect(f.fake.state.messages.C01OPS ?? []).toHaveLength(0);
  });

  it('makes WebClient with retries disabled give up after honouring Retry-After', async () => {
    f.fake.setFaults({ ratelimitedRate: 1, retryAfterSeconds: 0 });
    await expect(f.client.chat.postMessage({ channel: 'C01OPS', text: 'x' })).rejects.toMatchObject({
      code: ErrorCode.RequestError,
      message: expect.stringContaining('A rate limit was exceeded'),
    });
    expect(f.fake.state.calls.map((c) => c.error)).toEqual(['ratelimited']);
  });

  it("lets WebClient's default retry succeed after a one-shot Retry-After: 1", async () => {
    f.fake.setFaults({ ratelimitedNext: 1, retryAfterSeconds: 1, methods: ['chat.postMessage'] });
    // WebClient's default policy: waits Retry-After, then its own first backoff (1–2 s), then retries.
    const client = f.newClient({ retryConfig: retryPolicies.tenRetriesInAboutThirtyMinutes });
    const res = await client.chat.postMessage({ channel: 'C01OPS', text: 'eventually' });
    expect(res.ok).toBe(true);
    expect(f.fake.state.calls.map((c) => [c.method, c.status])).toEqual([
      ['chat.postMessage', 429],
      ['chat.postMessage', 200],
    ]);
    expect(f.fake.state.messages.C01OPS?.map((m) => m.text)).toEqual(['eventually']);
  });
});

describe('server errors and fault scoping', () => {
  it('answers HTTP 5xx with an HTML body, which WebClient reports as an HTTP error', async () => {
    f.fake.setFaults({ serverErrorNext: 1, serverErrorStatus: 502 });
    await expect(f.client.auth.test()).rejects.toMatchObject({ code: ErrorCode.HTTPError, statusCode: 502 });
    const res = await f.client.auth.test();
    expect(res.ok).toBe(true);
  });

  it('limits faults to the listed methods', async () => {
    f.fake.setFaults({ serverErrorRate: 1, methods: ['chat.update'] });
    expect((await f.client.auth.test()).ok).toBe(true);
    const posted = await f.client.chat.postMessage({ channel: 'C01OPS', text: 'a' });
    await expect(f.client.chat.update({ channel: 'C01OPS', ts: posted.ts!, text: 'b' })).rejects.toMatchObject({
      code: ErrorCode.HTTPError,
    });
    f.fake.setFaults({});
    expect((await f.client.chat.update({ channel: 'C01OPS', ts: posted.ts!, text: 'b' })).ok).toBe(true);
  });

  it('draws probabilistic faults from the injected random source', async () => {
    const draws = [0.9, 0.1, 0.9];
    const g = await startFixture({ random: () => draws.shift() ?? 0.9 });
    try {
      g.fake.setFaults({ serverErrorRate: 0.5 });
      const outcomes: string[] = [];
      for (let i = 0; i < 3; i++) {
        outcomes.push(
          await g.client.auth.test().then(
            () => 'ok',
            () => 'failed',
          ),
        );
      }
      expect(outcomes).toEqual(['ok', 'failed', 'ok']);
    } finally {
      await g.fake.close();
    }
  });
});

describe('lost answers', () => {
  it('carries the call out and drops the connection: the message is there, the caller hears nothing', async () => {
    f.fake.setFaults({ lostAnswerNext: 1, methods: ['chat.postMessage'] });
    const client = f.newClient({ retryConfig: retryPolicies.fiveRetriesInFiveMinutes });
    const noRetry = f.newClient({ retryConfig: { retries: 0 } });
    await expect(noRetry.chat.postMessage({ channel: 'C01OPS', text: 'once' })).rejects.toBeDefined();
    expect((f.fake.state.messages.C01OPS ?? []).map((m) => m.text)).toEqual(['once']);
    // The next call is answered normally.
    await expect(client.chat.postMessage({ channel: 'C01OPS', text: 'twice' })).resolves.toMatchObject({ ok: true });
  });

  it('shows why a client that retries blindly doubles a post', async () => {
    f.fake.setFaults({ lostAnswerNext: 1, methods: ['chat.postMessage'] });
    const retrying = f.newClient({ retryConfig: { retries: 2, minTimeout: 1, maxTimeout: 5 } });
    await retrying.chat.postMessage({ channel: 'C01OPS', text: 'card' });
    expect((f.fake.state.messages.C01OPS ?? []).map((m) => m.text)).toEqual(['card', 'card']);
  });
});
