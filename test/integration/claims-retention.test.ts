// Dedupe claims pruned by the real runtime's pass (here at once, by tick(), after moving the bot's clock),
// through the real Bolt pipeline: a `--now` confirmation's Run, clicked again from the old message, stays
// "already done" while its claim is kept (a pass inside the horizon deletes nothing), and once the pass has
// deleted it the click finds the confirmation expired (its draft is gone long before): one run in all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeEphemeral } from '../../src/sandbox/fake-slack-state.ts';
import { ACTIONS } from '../../src/slack/kit/ids.ts';
import { CLAIM_HORIZON_MS } from '../../src/tenants/retention.ts';
import { ephemeralContaining, type Harness, startHarness, waitFor } from '../support/bot-harness.ts';

const SCALE = 'Scale Kubernetes Deployment';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ sharedClock: true });
});
afterAll(async () => {
  await h.stop();
});

const runsOf = (deployment: string) =>
  [...h.emulator.state.executions.byId.values()].filter(
    (e) => e.workflowName === SCALE && JSON.parse(String(e.received.params ?? '{}')).deployment === deployment,
  );
const saying = (needle: string) =>
  h.fake.state.ephemerals.filter((e) => e.user === 'U01ALICE' && JSON.stringify([e.text, e.blocks]).includes(needle))
    .length;

describe('claims retention', () => {
  it('an old confirmation’s Run clicked again: already done inside the horizon, expired after; one run', async () => {
    await h.user().command(`run "${SCALE}" namespace=prod deployment=pruned replicas=2 --now`, 'C01OPS');
    const shown = await waitFor(
      () =>
        [...h.fake.state.ephemerals]
          .reverse()
          .find((e) => !e.deleted && JSON.stringify(e.blocks ?? []).includes(ACTIONS.confirmRun)),
      'confirmation',
    );
    // The message as it was when clicked: its buttons are what an old copy on screen still offers.
    const old: FakeEphemeral = structuredClone(shown);
    const clickRun = () => h.user().act({ kind: 'ephemeral', ephemeral: old }, ACTIONS.confirmRun);
    await clickRun();
    const run = await waitFor(() => runsOf('pruned')[0], 'the run');
    await waitFor(
      () => (h.fake.state.messages.C01OPS ?? []).some((m) => JSON.stringify(m.blocks).includes(run.id)),
      'card',
    );

    // Just inside the horizon (the draft itself long expired): the pass keeps the claim, the click is done.
    h.clock.advance(CLAIM_HORIZON_MS.confirmation - 60_000);
    await h.runtime.tick();
    const doneBefore = saying('already done');
    await clickRun();
    await waitFor(() => saying('already done') > doneBefore || undefined, 'already done');

    // Past it: the claim is gone; the click finds nothing to run.
    h.clock.advance(2 * 60_000);
    await h.runtime.tick();
    expect(h.logs.join('')).toContain('pruned dedupe claims past their horizon');
    await clickRun();
    await waitFor(() => ephemeralContaining(h.fake, 'confirmation has expired') ?? undefined, 'expired');
    await new Promise((r) => setTimeout(r, 100));
    expect(runsOf('pruned')).toHaveLength(1);
  });
});
