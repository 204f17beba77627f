// SLACK_DISTRIBUTION=limited: Slack allows a commercially distributed non-Marketplace app one
// conversations.history and one conversations.replies call a minute per workspace, 15 messages each.
// The fake Slack enforces it (429 past it, 15 messages at most). The watcher's read-back of lost replies
// goes through the workspace's slot (a bucket in the store) with limit ≤ 15: the fake never has to refuse
// a call, and each finished run still gets exactly one reply although Slack lost the answers to both posts.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Harness, QUICK_WATCH_ENV, startHarness, waitFor } from '../support/bot-harness.ts';
import { executionMarked, openScaleForm, scaleFormValues } from '../support/run-form.ts';

const INTERVAL_MS = 1_500;
let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    env: { ...QUICK_WATCH_ENV, LOG_LEVEL: 'warn', SLACK_DISTRIBUTION: 'limited' },
    runtime: { historyIntervalMs: INTERVAL_MS },
    fake: { historyLimit: { maxMessages: 15, windowMs: INTERVAL_MS } },
  });
});
afterAll(async () => {
  await h.stop();
});

const repliesNaming = (executionId: string) =>
  (h.fake.state.messages.C02DEPLOYS ?? []).filter(
    (m) => m.thread_ts && m.thread_ts !== m.ts && m.text.includes(`\`${executionId}\``),
  );

it('reads Slack back within the limit and never doubles a reply whose answer was lost', async () => {
  const ids: string[] = [];
  for (const name of ['limited-a', 'limited-b']) {
    const modalId = await openScaleForm(h);
    await h.user().submit(modalId, scaleFormValues(name));
    ids.push((await executionMarked(h, name)).id);
  }
  // Both runs' cards are up; the answers to both replies will be lost (Slack stores them).
  await waitFor(
    () =>
      ids.every((id) =>
        (h.fake.state.messages.C02DEPLOYS ?? []).some((m) => JSON.stringify(m.blocks ?? []).includes(id)),
      ),
    'both running cards',
  );
  h.fake.setFaults({ lostAnswerNext: 2, methods: ['chat.postMessage'] });
  h.emulator.advance(60 * 60_000);
  await waitFor(() => ids.every((id) => repliesNaming(id).length > 0), 'both replies', 30_000);
  // Both read-backs done: the watches complete only after the pacer settled each reply.
  await waitFor(async () => (await h.runtime.store.watches.countByState()).active === 0, 'both watches done', 30_000);
  for (const id of ids) expect(repliesNaming(id)).toHaveLength(1);

  const reads = h.fake.state.calls.filter(
    (c) => c.method === 'conversations.history' || c.method === 'conversations.replies',
  );
  // The lost answers were read back, and no read was refused by Slack's limit or asked for more than 15.
  expect(reads.length).toBeGreaterThan(0);
  for (const read of reads) {
    expect(read.ok).toBe(true);
    expect(Number(read.args.limit)).toBeLessThanOrEqual(15);
    expect(read.args.cursor).toBeUndefined();
  }
  for (const method of ['conversations.history', 'conversations.replies']) {
    const at = reads.filter((c) => c.method === method).map((c) => c.at);
    for (let i = 1; i < at.length; i++) expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(INTERVAL_MS - 50);
  }
}, 60_000);
