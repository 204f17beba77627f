// The ETA on a running card, through Bolt: a run of a runbook with known history says how long it usually
// takes (median of the last 20 runs); past the p95 of those runs the watcher edits the card to "running
// longer than usual" from the health cache (no request for it); the result card replaces both.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../src/sandbox/fake-slack-api.ts';
import { type Harness, QUICK_WATCH_ENV, startHarness, waitFor } from '../support/bot-harness.ts';
import { seedFinishedRuns } from '../support/health-harness.ts';
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
const MINUTE = 60_000;
const recordOf = (name: string) => [...h.emulator.state.workflows.byId.values()].find((w) => w.workflow.name === name)!;

/** 400–880 ms each: median of the latest 20 about 0.6 s. */
const seedQuickHistory = () => seedFinishedRuns(h.emulator.state, h.clock.now(), SCALE_RUNBOOK, 400);

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

  it('/runbook watch times a run from its own start, not from when it was adopted', async () => {
    // Runs of about 10 minutes; one started 30 minutes ago, still running, is watched now: it is already
    // longer than usual, said on the first card and kept by the watcher (which reads no health for it).
    const name = 'Find Crashlooping Pods';
    seedFinishedRuns(h.emulator.state, h.clock.now(), name, 10 * MINUTE);
    // By the bot's clock (the emulator's was moved on by the test above; the run still runs by it).
    const startedAt = Date.now() - 30 * MINUTE;
    const started = h.emulator.state.startExecutionAt(
      recordOf(name),
      { proxyId: 'proxy-dev', params: '{}' },
      {},
      startedAt,
      { executor: 'oncall@example.com', approver: '' },
      { outcome: 'succeeded', durationMs: 2 * HOUR },
    );
    h.emulator.state.catchUp();
    await h.user().command(`watch ${started.id}`, 'C01OPS');
    const card = await waitFor(() => cardOf('C01OPS', started.id), 'the adopted run’s card');
    expect(JSON.stringify(card.blocks)).toContain('usually takes about 10 min (median of the last 20 runs)');
    expect(JSON.stringify(card.blocks)).toContain('running longer than usual');
    // The card is in Slack a moment before the bot records it (with its ETA) on the watch.
    let watch = await h.runtime.store.watches.get(started.id);
    for (let look = 0; !watch?.messageTs && look < 200; look++) {
      await new Promise((r) => setTimeout(r, 25));
      watch = await h.runtime.store.watches.get(started.id);
    }
    expect(watch?.messageTs).toBe(card.ts);
    expect(watch?.startedAt).toBe(startedAt);
    expect(watch?.eta).toMatchObject({ runs: 20 });
    expect(watch!.eta!.p95Ms).toBeGreaterThan(10 * MINUTE);
    expect(watch!.eta!.p95Ms).toBeLessThan(30 * MINUTE);
  });
});
