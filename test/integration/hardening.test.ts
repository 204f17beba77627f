// Hardening through the real Bolt pipeline: what a person can type must not reach the Runbook API
// as something else, and every refusal is a sentence.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ephemeralContaining, type Harness, startHarness, waitFor } from '../support/bot-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

describe('ids typed by a person', () => {
  it('`/runbook status .` asks the API for nothing and says the id is not valid', async () => {
    const before = h.emulator.state.requests.log.length;
    await h.user().command('status .', 'C01OPS');
    const reply = await waitFor(() => ephemeralContaining(h.fake, 'not a valid execution id'), 'invalid id reply');
    expect(reply.text).not.toContain('could not understand');
    const executionCalls = h.emulator.state.requests.log.slice(before).filter((r) => r.path.includes('/executions'));
    expect(executionCalls).toEqual([]);
  });
});
