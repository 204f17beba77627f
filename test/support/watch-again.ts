// `/runbook watch` of a run, as the retention tests ask it again and again: until the person is told, and
// until the watcher is done with the run.
import { type Harness, waitFor } from './bot-harness.ts';

/** Until the run's watch has ended as finished (the watcher is done with it: card, file, reply, state). */
export async function watchFinished(h: Harness, id: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while ((await h.runtime.store.watches.get(id))?.state !== 'finished') {
    if (Date.now() > deadline) throw new Error('timed out waiting for the watch to finish');
    await new Promise((r) => setTimeout(r, 15));
  }
}

/** `/runbook watch <id>` by `user` in `channel`, until they are told `needle` once more. */
export async function watchAndSee(h: Harness, user: string, channel: string, id: string, needle: string) {
  const told = () =>
    h.fake.state.ephemerals.filter((e) => e.user === user && JSON.stringify([e.text, e.blocks]).includes(needle))
      .length;
  const before = told();
  await h.user(user).command(`watch ${id}`, channel);
  await waitFor(() => told() > before || undefined, needle);
}
