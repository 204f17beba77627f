// Each Slack event is handled once: a delivery Slack retries (X-Slack-Retry-Num, the same event_id) and
// the app_mention Slack sends again when the message is edited (a new event_id, the same ts and
// client_msg_id) give one answer and one announcement, decided in the store so replicas agree.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appMentionEvent } from '../../src/sandbox/slack-entry-requests.ts';
import { eventCallbackBody, jsonRequest, sendToBot } from '../../src/sandbox/slack-requests.ts';
import { type Harness, SIGNING_SECRET, startHarness, waitFor } from '../support/bot-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

function announcements(channel: string) {
  return (h.fake.state.messages[channel] ?? []).filter(
    // "subscribed this channel to …", or "updated …" for the same subscription made again.
    (m) => m.bot_id && JSON.stringify(m.blocks ?? '').includes('Find Crashlooping Pods'),
  );
}

function answers(user: string, needle: string) {
  return h.fake.state.ephemerals.filter((e) => e.user === user && JSON.stringify([e.text, e.blocks]).includes(needle));
}

/** Alice's mention typed in `channel`, as the event Slack delivers for it. */
function mentionOf(channel: string, text: string, clientMsgId: string) {
  const message = h.fake.addUserMessage({ channel, user: 'U01ALICE', text: `<@${h.fake.state.botUserId}> ${text}` });
  const event = {
    ...appMentionEvent({
      userId: 'U01ALICE',
      teamId: h.fake.state.teamId,
      channelId: channel,
      text,
      botUserId: h.fake.state.botUserId,
      ts: message.ts,
    }),
    client_msg_id: clientMsgId,
  };
  return { message, event };
}

const ignored = () => h.logs.filter((l) => l.includes('ignored an event already handled')).length;

describe('each Slack event is handled once', () => {
  it('a retried delivery of a mention: one announcement, one answer', async () => {
    const { event } = mentionOf(
      'C02DEPLOYS',
      'subscribe "Find Crashlooping Pods"',
      'c0ffee00-0000-4000-8000-000000000001',
    );
    const body = jsonRequest(eventCallbackBody({ teamId: h.fake.state.teamId, event, eventId: 'Ev0RETRIED01' }));
    expect((await sendToBot(h.botUrl, SIGNING_SECRET, body)).status).toBe(200);
    await waitFor(() => announcements('C02DEPLOYS').length === 1, 'the announcement');
    const before = ignored();
    const retry = await sendToBot(h.botUrl, SIGNING_SECRET, body, {
      headers: { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' },
    });
    expect(retry.status).toBe(200);
    await waitFor(() => ignored() > before || announcements('C02DEPLOYS').length > 1, 'the retry handled');
    expect(announcements('C02DEPLOYS')).toHaveLength(1);
    expect(answers('U01ALICE', 'whenever a run of')).toHaveLength(1);
  });

  it('a mention edited after it was answered is not handled again', async () => {
    const { message, event } = mentionOf(
      'C01OPS',
      'subscribe "Find Crashlooping Pods"',
      'c0ffee00-0000-4000-8000-000000000002',
    );
    const first = jsonRequest(eventCallbackBody({ teamId: h.fake.state.teamId, event, eventId: 'Ev0ORIGINAL02' }));
    await sendToBot(h.botUrl, SIGNING_SECRET, first);
    await waitFor(() => announcements('C01OPS').length === 1, 'the announcement');
    const answered = answers('U01ALICE', 'whenever a run of').length;
    // Alice fixes a typo: Slack sends app_mention again, a new event id, the same message.
    const edited = {
      ...event,
      text: `<@${h.fake.state.botUserId}> subscribe "Find Crashlooping Pods" `,
      edited: { user: 'U01ALICE', ts: (Number(message.ts) + 5).toFixed(6) },
    };
    const before = ignored();
    await sendToBot(
      h.botUrl,
      SIGNING_SECRET,
      jsonRequest(eventCallbackBody({ teamId: h.fake.state.teamId, event: edited, eventId: 'Ev0EDITED0003' })),
    );
    await waitFor(() => ignored() > before || announcements('C01OPS').length > 1, 'the edit handled');
    expect(announcements('C01OPS')).toHaveLength(1);
    expect(answers('U01ALICE', 'whenever a run of')).toHaveLength(answered);
  });

  it('a new mention in the same channel is still answered', async () => {
    const before = answers('U01ALICE', '/runbook list').length;
    await h.user('U01ALICE').mention('help', 'C01OPS');
    await waitFor(() => answers('U01ALICE', '/runbook list').length > before, 'the answer');
  });
});
