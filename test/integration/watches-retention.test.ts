// Ended watches pruned by the real runtime's pass (here at once, by tick(), after moving the bot's clock), through
// the real Bolt pipeline: `/runbook watch` of a run whose result was posted says "already reported" while its
// watch is kept (a pass inside the horizon deletes nothing); once the pass has deleted it, watching the run
// again tells its result once more (one new card), and from then on it is "already reported" again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../src/sandbox/fake-slack-api.ts';
import { WATCH_HORIZON_MS } from '../../src/tenants/retention.ts';
import { type Harness, startHarness, waitFor } from '../support/bot-harness.ts';
import { watchAndSee as watchAgain, watchFinished } from '../support/watch-again.ts';

const VACUUM = 'Postgres Vacuum Analyze';
const MIN = 60_000;
const CAROL = 'U03CAROL';
const CHANNEL = 'C03APPROVALS';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    sharedClock: true,
    env: { WATCH_TICK_MS: '20', WATCH_SLACK_POST_INTERVAL_MS: '0', WATCH_SLACK_UPDATE_INTERVAL_MS: '0' },
  });
});
afterAll(async () => {
  await h.stop();
});

/** Top-level messages in the channel that name this execution (its result cards). */
const cardsOf = (id: string): FakeMessage[] =>
  (h.fake.state.messages[CHANNEL] ?? []).filter(
    (m) => !m.thread_ts && JSON.stringify([m.text, m.blocks ?? []]).includes(id),
  );
const watchAndSee = (id: string, needle: string) => watchAgain(h, CAROL, CHANNEL, id, needle);
const finished = (id: string) => watchFinished(h, id);

describe('watches retention', () => {
  it('/runbook watch of a run: already reported inside the horizon; past it, its result is told once more', async () => {
    const found = await h.runtime.deps.catalog.resolve(VACUUM);
    if (found.kind !== 'match') throw new Error(`the emulator has no ${VACUUM}`);
    const run = await h.runtime.api.workflows.run(found.runbook.id, {
      proxyId: 'proxy-dev',
      params: { database: 'app', simulate_outcome: 'failed', simulate_duration_seconds: 5 },
    });
    const id = run.executionIds[0]!;
    h.clock.advance(MIN);
    await watchAndSee(id, 'has already finished');
    await waitFor(() => cardsOf(id)[0]?.text.includes('failed'), 'result card');
    await finished(id);

    // Just inside the horizon: the pass keeps the watch, and watching the run again says it was reported.
    // (The watcher stamps its watches by the wall clock, the pass reads the bot's: counted from the stamp.)
    const endedAt = (await h.runtime.store.watches.get(id))!.updatedAt;
    h.clock.advance(endedAt + WATCH_HORIZON_MS - MIN - h.clock.now());
    await h.runtime.tick();
    expect(await h.runtime.store.watches.get(id)).not.toBeNull();
    await watchAndSee(id, 'was already reported');
    expect(cardsOf(id)).toHaveLength(1);

    // Past it: the watch is gone; watching the run adopts it again and its result is posted once more.
    h.clock.advance(2 * MIN);
    await h.runtime.tick();
    const passes = h.logs
      .join('')
      .split('\n')
      .filter((line) => line.includes('pruned ended watches past their horizon'));
    expect(passes.map((line) => JSON.parse(line).deleted)).toEqual([0, 1]);
    expect(await h.runtime.store.watches.get(id)).toBeNull();
    await watchAndSee(id, 'has already finished');
    await waitFor(() => cardsOf(id)[1]?.text.includes('failed'), 'the result told again');
    await finished(id);
    await watchAndSee(id, 'was already reported');
    await new Promise((r) => setTimeout(r, 100));
    expect(cardsOf(id)).toHaveLength(2);
  });
});
