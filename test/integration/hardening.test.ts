// Hardening through the real Bolt pipeline: what a person can type must not reach the Runbook API
// as something else, and every refusal is a sentence.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formRequest, interactivityBody, sendToBot, viewSubmissionPayload } from '../../src/sandbox/slack-requests.ts';
import {
  ephemeralContaining,
  type Harness,
  modalContaining,
  SIGNING_SECRET,
  startHarness,
  waitFor,
} from '../support/bot-harness.ts';

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

describe('the seal on private_metadata', () => {
  it('refuses a submission whose private_metadata is not a string, like a bad seal', async () => {
    await h.user().command('run "Scale Kubernetes Deployment"', 'C01OPS');
    const modal = await waitFor(() => modalContaining(h, 'meta_proxy'), 'run modal');
    const view = h.fake.viewOutput(modal.id) as { id: string; private_metadata: unknown };
    const before = h.emulator.state.executions.byId.size;
    for (const forged of [42, { r: 'any-runbook', c: 'C02DEPLOYS' }, ['x'], null, true]) {
      const payload = viewSubmissionPayload({
        userId: 'U01ALICE',
        teamId: 'T0SANDBOX',
        triggerId: h.fake.newTriggerId('U01ALICE'),
        view: { ...view, private_metadata: forged } as unknown as { id: string },
      });
      const res = await sendToBot(h.botUrl, SIGNING_SECRET, formRequest(interactivityBody(payload)));
      expect(res.status, JSON.stringify(forged)).toBe(200);
      expect(JSON.stringify(res.json), JSON.stringify(forged)).toContain('could not be verified');
    }
    expect(h.emulator.state.executions.byId.size).toBe(before);
  });
});
