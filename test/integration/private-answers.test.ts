// Private stays private: an answer meant for one person (the reply to a mention, an answer without a
// response_url) is never posted where others read it. When Slack refuses the ephemeral (a rate limit,
// any error) it goes to the person's DM; when that fails too, it is dropped and logged.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, waitFor } from '../support/bot-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterEach(() => {
  h.fake.setFaults({});
});
afterAll(async () => {
  await h.stop();
});

/** Every message anyone can read in `channel` (thread replies included) carrying `needle`. */
function publicMessagesWith(channel: string, needle: string) {
  return (h.fake.state.messages[channel] ?? []).filter((m) => JSON.stringify([m.text, m.blocks]).includes(needle));
}

describe('a private answer whose ephemeral Slack refuses', () => {
  it('goes to the DM, never into the thread of the mention', async () => {
    h.fake.setFaults({ methods: ['chat.postEphemeral'], ratelimitedRate: 1, retryAfterSeconds: 0 });
    const { message } = await h.user('U01ALICE').mention('help', 'C01OPS');
    const dm = await waitFor(() => h.fake.state.ims.U01ALICE, 'a DM opened to Alice');
    const answer = await waitFor(() => publicMessagesWith(dm, '/runbook list').at(0), 'the answer in the DM');
    expect(JSON.stringify(answer.blocks)).toContain('could not answer you privately');
    // Nothing of the answer in the channel or the thread: only Alice's own mention is there.
    expect(publicMessagesWith('C01OPS', '/runbook list')).toEqual([]);
    expect(
      h.fake.state.calls.filter(
        (c) => c.method === 'chat.postMessage' && c.args.channel === 'C01OPS' && c.args.thread_ts === message.ts,
      ),
    ).toEqual([]);
  });

  it('is dropped and logged when the DM cannot be opened either', { timeout: 45_000 }, async () => {
    h.fake.setFaults({
      methods: ['chat.postEphemeral', 'conversations.open'],
      ratelimitedRate: 1,
      retryAfterSeconds: 0,
    });
    const before = h.fake.state.calls.length;
    await h.user('U03CAROL').mention('help', 'C02DEPLOYS');
    // The Web API client retries a rate-limited call with backoff (about 4 s per call, two calls) before it gives up.
    await waitFor(() => h.logs.some((l) => l.includes('could not reach the user at all')), 'the drop logged', 30_000);
    const posts = h.fake.state.calls.slice(before).filter((c) => c.method === 'chat.postMessage');
    expect(posts).toEqual([]);
    expect(publicMessagesWith('C02DEPLOYS', '/runbook list')).toEqual([]);
  });
});
