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

it('the same subscription typed again changes nothing and announces nothing; a real change is announced', async () => {
  const posted = () =>
    (h.fake.state.messages.C03APPROVALS ?? []).filter((m) => m.bot_id && /this channel/.test(JSON.stringify(m.blocks)));
  await h.user('U01ALICE').command('subscribe all --failures', 'C03APPROVALS');
  await waitFor(() => posted()[0], 'the first announcement');
  await h.user('U01ALICE').command('subscribe all --failures', 'C03APPROVALS');
  const told = await waitFor(() => ephemeralContaining(h.fake, 'already gets'), 'the person is told nothing changed');
  expect(JSON.stringify(told.blocks)).toContain('nothing changed');
  expect(posted()).toHaveLength(1);
  // Every result instead of failures only: a change, said in the channel.
  await h.user('U01ALICE').command('subscribe all', 'C03APPROVALS');
  const changed = await waitFor(() => posted()[1], 'the change announced');
  expect(JSON.stringify(changed.blocks)).toContain('changed this channel’s subscription to');
});
