// The conversations.history / replies limit of distributed non-Marketplace apps, against the fake Slack
// enforcing it: one call per window per workspace and method, 15 messages, one page. Virtual slots and
// sleep: waits are counted, never measured.
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../../../../src/sandbox/fake-slack-api.ts';
import { HistoryLimitedError, limitHistory } from '../../../../src/slack/kit/history-limit.ts';
import { readBackMessages } from '../../../../src/slack/kit/read-back.ts';

const TOKEN = 'xoxb-history-limit';
let fake: FakeSlack;
let t = 1_000_000;
beforeAll(async () => {
  fake = await startFakeSlack({ port: 0, botToken: TOKEN, now: () => t, historyLimit: { maxMessages: 15 } });
});
afterAll(() => fake.close());

/** A slot per key every 60 s of virtual time, as the store's bucket gives them. */
function slots() {
  const last = new Map<string, number>();
  return {
    take: async (key: string) => {
      const at = last.get(key);
      if (at !== undefined && t - at < 60_000) return { granted: false, waitMs: at + 60_000 - t };
      last.set(key, t);
      return { granted: true, waitMs: 0 };
    },
  };
}

function client(maxWaitMs: number, scope = 'T1') {
  const waits: number[] = [];
  const c = limitHistory(
    new WebClient(TOKEN, { slackApiUrl: fake.url, retryConfig: { retries: 0 }, rejectRateLimitedCalls: true }),
    {
      slots: slots(),
      scope: () => scope,
      maxWaitMs,
      sleep: async (ms) => {
        waits.push(ms);
        t += ms;
      },
    },
  );
  return { c, waits };
}

describe('limitHistory', () => {
  it('the fake refuses a second call within the minute, and caps a call at 15 messages', async () => {
    const raw = new WebClient(TOKEN, {
      slackApiUrl: fake.url,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
    });
    const channel = 'C02DEPLOYS';
    for (let i = 0; i < 20; i++) await raw.chat.postMessage({ channel, text: `m${i}` });
    t += 120_000;
    const first = await raw.conversations.history({ channel, limit: 200 });
    expect(first.messages).toHaveLength(15);
    await expect(raw.conversations.history({ channel, limit: 5 })).rejects.toMatchObject({
      code: 'slack_webapi_rate_limited_error',
    });
    t += 60_000;
  });

  it('waits for the next allowed call instead of being refused, and asks for 15 at most', async () => {
    t += 120_000;
    const { c, waits } = client(65_000);
    const channel = 'C02DEPLOYS';
    await c.conversations.history({ channel, limit: 200 });
    const second = await c.conversations.history({ channel, limit: 200 });
    expect(second.ok).toBe(true);
    expect(waits).toEqual([60_000]);
    const reads = fake.state.calls.filter((x) => x.method === 'conversations.history').slice(-2);
    expect(reads.map((x) => x.ok)).toEqual([true, true]);
    expect(reads.map((x) => Number(x.args.limit))).toEqual([15, 15]);
  });

  it('fails (cannot tell) when the next call is further away than it may wait, or a second page is wanted', async () => {
    t += 120_000;
    const { c, waits } = client(10_000);
    const channel = 'C02DEPLOYS';
    await c.conversations.history({ channel, limit: 15 });
    await expect(c.conversations.history({ channel, limit: 15 })).rejects.toBeInstanceOf(HistoryLimitedError);
    expect(waits).toEqual([]);
    t += 120_000;
    // More than 15 messages since `oldest`: a read-back would need a second page, so it cannot say "not there".
    await expect(readBackMessages(c, channel, null, 0)).rejects.toBeInstanceOf(HistoryLimitedError);
  });

  it('keeps workspaces apart: another workspace’s slot is free', async () => {
    t += 120_000;
    const shared = slots();
    const make = (scope: string) =>
      limitHistory(new WebClient(TOKEN, { slackApiUrl: fake.url, retryConfig: { retries: 0 } }), {
        slots: shared,
        scope: () => scope,
        maxWaitMs: 0,
      });
    await make('TA').conversations.history({ channel: 'C02DEPLOYS', limit: 1 });
    await expect(make('TA').conversations.history({ channel: 'C02DEPLOYS', limit: 1 })).rejects.toBeInstanceOf(
      HistoryLimitedError,
    );
    const other = shared.take('TB:conversations.history');
    expect((await other).granted).toBe(true);
  });
});
