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
    expect(reply.text).not.toContain('failed.');
    expect(reply.text).toMatch(/`\/runbook executions`\.$/);
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

describe('/runbook watch credits whoever started the run', () => {
  const aboutExecution = (channel: string, id: string) =>
    (h.fake.state.messages[channel] ?? []).filter((m) => JSON.stringify([m.text, m.blocks ?? []]).includes(id));

  async function watchRunBy(userEmail: string | undefined) {
    const runbook = (await h.runtime.deps.catalog.all()).find((r) => r.name === 'Scale Kubernetes Deployment')!;
    const run = await h.runtime.api.workflows.run(runbook.id, {
      proxyId: 'proxy-dev',
      params: { namespace: `watched-${userEmail ?? 'api'}`, deployment: 'api', replicas: 1 },
      ...(userEmail ? { userEmail } : {}),
    });
    const id = run.executionIds[0]!;
    await h.user('U01ALICE').command(`watch ${id}`, 'C01OPS');
    await waitFor(() => aboutExecution('C01OPS', id)[0], 'running card');
    h.emulator.advance(60 * 60_000);
    await waitFor(
      () => aboutExecution('C01OPS', id).some((m) => m.thread_ts && m.thread_ts !== m.ts),
      'the thread reply',
      10_000,
    );
    const card = aboutExecution('C01OPS', id).find((m) => !(m.thread_ts && m.thread_ts !== m.ts))!;
    const reply = aboutExecution('C01OPS', id).find((m) => m.thread_ts && m.thread_ts !== m.ts)!;
    return { card: JSON.stringify(card.blocks), reply: reply.text };
  }

  it('names and pings the executor Slack knows by email, not the person who typed watch', async () => {
    const { card, reply } = await watchRunBy('bob@example.com');
    expect(card).toContain('*Started by*\\n<@U02BOB>');
    expect(card).not.toContain('<@U01ALICE>');
    expect(reply).toContain('<@U02BOB> your run of');
    expect(reply).not.toContain('<@U01ALICE>');
  });

  it('names an executor Slack does not know as text and pings nobody', async () => {
    const { card, reply } = await watchRunBy('stranger@elsewhere.example');
    expect(card).toContain('stranger@elsewhere.example');
    expect(card).not.toContain('<@U01ALICE>');
    expect(reply).not.toContain('<@');
  });
});
