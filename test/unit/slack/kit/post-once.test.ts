// postOnce: a post is never sent twice by accident. A lost answer is resolved by reading the channel
// back; a refusal is final; a rate limit waits and sends again; without a way to recognise the
// message, an unknown outcome is not retried (lost beats doubled). The caller's client may retry all
// it likes: posts do not go through its retries.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { postOnce } from '../../../../src/slack/kit/post-once.ts';
import { type FakeSlackFixture, START_MS, section, startFixture } from '../../sandbox/fake-slack-fixture.ts';

let f: FakeSlackFixture;
beforeEach(async () => {
  f = await startFixture();
});
afterEach(async () => {
  await f.fake.close();
});

const card = { text: 'Dump is running', blocks: [section('*Dump* `exec-1`')] as never[] };
const namesExec1 = (m: { blocks?: unknown[] }) => JSON.stringify(m.blocks ?? []).includes('exec-1');
const posts = () => (f.fake.state.messages.C01OPS ?? []).map((m) => m.text);

describe('postOnce', () => {
  it('resolves a lost answer by reading back: one message, and its ts', async () => {
    // Even a client that retries on its own: postOnce does not use its retries for the post.
    const retrying = f.newClient({ retryConfig: { retries: 3, minTimeout: 1, maxTimeout: 2 } });
    f.fake.setFaults({ lostAnswerNext: 1, methods: ['chat.postMessage'] });
    const outcome = await postOnce(retrying, 'C01OPS', card, { sentCheck: namesExec1, sinceMs: START_MS - 60_000 });
    expect(outcome).toMatchObject({ kind: 'posted', readBack: true });
    expect(posts()).toEqual(['Dump is running']);
    expect(outcome.kind === 'posted' && outcome.ts).toBe(f.fake.state.messages.C01OPS![0]!.ts);
  });

  it('sends again after a 5xx that stored nothing (read back first)', async () => {
    f.fake.setFaults({ serverErrorNext: 1, methods: ['chat.postMessage'] });
    const outcome = await postOnce(f.client, 'C01OPS', card, { sentCheck: namesExec1, sinceMs: START_MS - 60_000 });
    expect(outcome).toMatchObject({ kind: 'posted', readBack: false });
    expect(posts()).toEqual(['Dump is running']);
  });

  it('does not retry an unknown outcome it cannot check', async () => {
    f.fake.setFaults({ lostAnswerNext: 1, methods: ['chat.postMessage'] });
    expect((await postOnce(f.client, 'C01OPS', card)).kind).toBe('unknown');
    expect(posts()).toEqual(['Dump is running']);
  });

  it('waits out a rate limit, and takes a refusal as final', async () => {
    const waits: number[] = [];
    f.fake.setFaults({ ratelimitedNext: 1, retryAfterSeconds: 2, methods: ['chat.postMessage'] });
    const sleep = async (ms: number) => {
      waits.push(ms);
    };
    expect((await postOnce(f.client, 'C01OPS', card, { sleep })).kind).toBe('posted');
    expect(waits).toEqual([2000]);
    expect(await postOnce(f.client, 'CNOPE', card)).toMatchObject({ kind: 'refused', code: 'channel_not_found' });
  });

  it('says not-sent when every attempt was rate-limited or read back absent: nothing is there', async () => {
    const waits: number[] = [];
    const sleep = async (ms: number) => {
      waits.push(ms);
    };
    f.fake.setFaults({ ratelimitedNext: 3, retryAfterSeconds: 1, methods: ['chat.postMessage'] });
    expect((await postOnce(f.client, 'C01OPS', card, { sleep })).kind).toBe('not-sent');
    // No wait after the last attempt: nothing follows it.
    expect(waits).toEqual([1000, 1000]);
    f.fake.setFaults({ serverErrorNext: 3, methods: ['chat.postMessage'] });
    const failing = await postOnce(f.client, 'C01OPS', card, { sentCheck: namesExec1, sinceMs: START_MS - 60_000 });
    expect(failing.kind).toBe('not-sent');
    expect(posts()).toEqual([]);
    // A lost answer it could not check stays unknown: it may be there.
    f.fake.setFaults({ lostAnswerNext: 1, methods: ['chat.postMessage'] });
    expect((await postOnce(f.client, 'C01OPS', card)).kind).toBe('unknown');
  });
});
