// Subscribing and unsubscribing a channel is announced in the channel (who and what), through Bolt.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ephemeralContaining, type Harness, startHarness, waitFor } from '../support/bot-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

const announcements = (channel: string) =>
  (h.fake.state.messages[channel] ?? []).filter(
    (m) => m.bot_id && /subscribed this channel/.test(m.blocks ? JSON.stringify(m.blocks) : ''),
  );

it('announces subscribe and unsubscribe in the channel, with who and what', async () => {
  await h.user('U01ALICE').command('subscribe "Find Crashlooping Pods" --failures', 'C02DEPLOYS');
  await waitFor(() => ephemeralContaining(h.fake, 'gets a message whenever a run of'), 'the subscriber is told');
  const subscribed = await waitFor(() => announcements('C02DEPLOYS')[0], 'the announcement');
  expect(JSON.stringify(subscribed.blocks)).toContain(
    '<@U01ALICE> subscribed this channel to *Find Crashlooping Pods*: failures of its runs will be posted here',
  );
  expect(subscribed.text).toBe('This channel was subscribed to failures of Find Crashlooping Pods.');

  await h.user('U03CAROL').command('unsubscribe "Find Crashlooping Pods"', 'C02DEPLOYS');
  const unsubscribed = await waitFor(() => announcements('C02DEPLOYS')[1], 'the second announcement');
  expect(JSON.stringify(unsubscribed.blocks)).toContain(
    '<@U03CAROL> unsubscribed this channel from *Find Crashlooping Pods*',
  );
  // Not subscribed any more: nothing to announce.
  await h.user('U03CAROL').command('unsubscribe "Find Crashlooping Pods"', 'C02DEPLOYS');
  await waitFor(() => ephemeralContaining(h.fake, 'is not subscribed to', 'U03CAROL'), 'not subscribed');
  expect(announcements('C02DEPLOYS')).toHaveLength(2);
});
