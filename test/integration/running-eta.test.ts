// The ETA on a running card, through Bolt: a run of a runbook with known history says how long it usually
// takes (median of the last 20 runs); past the p95 of those runs the watcher edits the card to "running
// longer than usual" from the health cache (no request for it); the result card replaces both.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../src/sandbox/fake-slack-api.ts';
import { type Harness, QUICK_WATCH_ENV, startHarness, waitFor } from '../support/bot-harness.ts';
import { executionMarked, openScaleForm, SCALE_RUNBOOK, scaleFormValues } from '../support/run-form.ts';

let h: Harness;
beforeAll(async () => {
  // Health counts the last 30 days by the bot's clock: the emulator's starts there too.
  h = await startHarness({ env: QUICK_WATCH_ENV, clockStart: Date.now() });
});
afterAll(async () => {
  await h.stop();
});

const HOUR = 3600_000;
/** 25 finished runs over the last days, 400–880 ms each (20 ms apart): median of the latest 20 about 0.6 s. */
function seedQuickHistory() {
  const record = [...h.emulator.state.workflows.byId.values()].find((w) => w.workflow.name === SCALE_RUNBOOK)!;
  for (let i = 0; i < 25; i++) {
    h.emulator.state.startExecutionAt(
      record,
      { proxyId: 'proxy-dev', params: '{}' },
      {},
      h.clock.now() - (i + 1) * 5 * HOUR,
      { executor: 'oncall@example.com', approver: '' },
      { outcome: 'succeeded', durationMs: 400 + i * 20 },
    );
  }
  h.emulator.state.catchUp();
}

const listCalls = () => h.emulator.state.requests.log.filter((r) => r.route === 'GET /v1alpha1/executions').length;
const cardOf = (channel: string, executionId: string): FakeMessage | undefined =>
  (h.fake.state.messages[channel] ?? []).find((m) => !m.thread_ts && JSON.stringify(m.blocks).includes(executionId));

describe('ETA on running cards', () => {
  it('says how long it usually takes, then "longer than usual" past the p95, then the result', async () => {
    seedQuickHistory();
    const view = await openScaleForm(h);
    await h.user().submit(view, scaleFormValues('eta-1'));
    const execution = await executionMarked(h, 'eta-1');
    const running = await waitFor(() => cardOf('C02DEPLOYS', execution.id), 'the running card');
    const text = JSON.stringify(running.blocks);
    // The latest 20 runs took 400–780 ms: median 590 ms, "about 1 s".
    expect(text).toContain('usually takes about 1 s (median of the last 20 runs)');
    expect(text).not.toContain('longer than usual');

    // The watcher looks again and again while it runs; past the p95 (of the 25 runs: 860 ms) the card
    // says so, without reading the executions list for it.
    const lists = listCalls();
    const late = await waitFor(() => {
      const card = cardOf('C02DEPLOYS', execution.id);
      return card && JSON.stringify(card.blocks).includes('running longer than usual') ? card : undefined;
    }, '"longer than usual"');
    expect(late.ts).toBe(running.ts);
    expect(JSON.stringify(late.blocks)).toContain('95% of recent runs finished within about 1 s');
    expect(JSON.stringify(late.blocks)).toContain('usually takes about 1 s');
    expect(listCalls()).toBe(lists);
    // Edited once for it, however many looks follow.
    const edits = late.history.length;
    await new Promise((r) => setTimeout(r, 400));
    expect(cardOf('C02DEPLOYS', execution.id)!.history.length).toBe(edits);

    // The run ends (the emulator's clock): the result card replaces the running one.
    h.clock.advance(HOUR);
    const done = await waitFor(() => {
      const card = cardOf('C02DEPLOYS', execution.id);
      return card?.text.includes('succeeded') ? card : undefined;
    }, 'the result card');
    expect(JSON.stringify(done.blocks)).not.toContain('longer than usual');
  });
});
