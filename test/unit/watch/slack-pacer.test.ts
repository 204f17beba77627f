import { describe, expect, it } from 'vitest';
import {
  type PacerTransport,
  type ReplyRequest,
  SlackPacer,
  type SlackPacerOptions,
} from '../../../src/watch/slack-pacer.ts';

interface Sent {
  at: number;
  method: 'post' | 'update';
  channel: string;
  text: string;
  threadTs?: string;
}

/** A fake transport and a virtual clock whose sleep just moves time forward. */
function setup(
  options: {
    /** Next calls fail with this error; `stored` = Slack kept the message although the call failed. */
    failNext?: Array<{ error: unknown; stored?: boolean }>;
    /** Give the transport a read-back (conversations.history / replies); failures throw these. */
    readBack?: { failNext?: unknown[] };
    /** Further pacer options (intervals, lane scopes). */
    pacer?: Partial<SlackPacerOptions>;
  } = {},
) {
  let t = 0;
  const sent: Sent[] = [];
  const stored: Array<{ channel: string; ts: string; text: string; threadTs?: string }> = [];
  const failures = [...(options.failNext ?? [])];
  const readFailures = [...(options.readBack?.failNext ?? [])];
  let reads = 0;
  let seq = 0;
  const transport: PacerTransport = {
    async post(channel, message, threadTs) {
      const f = failures.shift();
      const ts = `${++seq}.000`;
      if (f && !f.stored) throw f.error;
      sent.push({ at: t, method: 'post', channel, text: message.text, ...(threadTs ? { threadTs } : {}) });
      stored.push({ channel, ts, text: message.text, ...(threadTs ? { threadTs } : {}) });
      if (f) throw f.error;
      return { channel, ts };
    },
    async update(channel, _ts, message) {
      const f = failures.shift();
      if (f) throw f.error;
      sent.push({ at: t, method: 'update', channel, text: message.text });
    },
    ...(options.readBack
      ? {
          async recent(channel: string, threadTs: string | null) {
            reads++;
            const f = readFailures.shift();
            if (f) throw f;
            return stored
              .filter((m) => m.channel === channel && (threadTs ? m.threadTs === threadTs : !m.threadTs))
              .map((m) => ({ ts: m.ts, text: m.text }));
          },
        }
      : {}),
  };
  const pacer = new SlackPacer({
    transport,
    now: () => t,
    sleep: async (ms) => {
      t += ms;
    },
    postIntervalMs: 1_000,
    updateIntervalMs: 500,
    digestThreshold: 3,
    ...options.pacer,
  });
  return { pacer, sent, now: () => t, reads: () => reads };
}

function reply(channel: string, n: number, claims: Set<string> = new Set()): ReplyRequest {
  return {
    channel,
    threadTs: `t${n}`,
    message: { text: `reply ${n}` },
    digestLine: `• line ${n}`,
    claim: async () => {
      if (claims.has(`${n}`)) return false;
      claims.add(`${n}`);
      return true;
    },
    sentCheck: (m) => m.text.includes(`reply ${n}`) || m.text.includes(`line ${n}\n`) || m.text.endsWith(`line ${n}`),
  };
}

const HTTP_503 = Object.assign(new Error('503'), { code: 'slack_webapi_http_error', statusCode: 503 });
const NETWORK = Object.assign(new Error('socket hang up'), { code: 'slack_webapi_request_error' });

describe('SlackPacer', () => {
  it('posts at most one message per second per channel, channels independently', async () => {
    const { pacer, sent } = setup();
    await Promise.all([
      pacer.post('C1', { text: 'a' }),
      pacer.post('C1', { text: 'b' }),
      pacer.post('C2', { text: 'x' }),
      pacer.post('C1', { text: 'c' }),
    ]);
    const c1 = sent.filter((s) => s.channel === 'C1').map((s) => s.at);
    expect(c1).toEqual([0, 1_000, 2_000]);
    expect(sent.find((s) => s.channel === 'C2')!.at).toBe(0);
  });

  it('sends up to the threshold of replies one by one, in their threads', async () => {
    const { pacer, sent } = setup();
    const outcomes = await Promise.all([1, 2, 3].map((n) => pacer.reply(reply('C1', n))));
    expect(outcomes).toEqual(['sent', 'sent', 'sent']);
    expect(sent.map((s) => [s.text, s.threadTs])).toEqual([
      ['reply 1', 't1'],
      ['reply 2', 't2'],
      ['reply 3', 't3'],
    ]);
  });

  it('coalesces a burst of replies beyond the threshold into one digest', async () => {
    const { pacer, sent } = setup();
    const outcomes = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => pacer.reply(reply('C1', n))));
    expect(outcomes).toEqual(Array(6).fill('sent'));
    expect(sent).toHaveLength(1);
    expect(sent[0]!.threadTs).toBeUndefined();
    expect(sent[0]!.text).toBe('6 runs finished:\n• line 1\n• line 2\n• line 3\n• line 4\n• line 5\n• line 6');
  });

  it('skips replies whose claim was already taken (exactly once)', async () => {
    const { pacer, sent } = setup();
    const claims = new Set(['2']);
    const outcomes = await Promise.all([1, 2].map((n) => pacer.reply(reply('C1', n, claims))));
    expect(outcomes).toEqual(['sent', 'skipped']);
    expect(sent.map((s) => s.text)).toEqual(['reply 1']);
  });

  it('paces edits on their own lane', async () => {
    const { pacer, sent } = setup();
    await Promise.all([
      pacer.update('C1', '1', { text: 'e1' }),
      pacer.update('C2', '2', { text: 'e2' }),
      pacer.update('C1', '3', { text: 'e3' }),
    ]);
    expect(sent.map((s) => s.at)).toEqual([0, 500, 1_000]);
  });

  it('records an edit before the next edit goes out, so at most one edit is sent and unrecorded', async () => {
    const { pacer, sent } = setup();
    const log: string[] = [];
    const recordOf = (text: string) => async () => {
      // The record is slow (a busy database): the next edit must still wait for it.
      await new Promise((r) => setTimeout(r, 5));
      log.push(`recorded ${text} with ${sent.length} sent`);
    };
    await Promise.all([
      pacer.update('C1', '1', { text: 'e1' }, { record: recordOf('e1') }),
      pacer.update('C1', '2', { text: 'e2' }, { record: recordOf('e2') }),
    ]);
    expect(log).toEqual(['recorded e1 with 1 sent', 'recorded e2 with 2 sent']);
  });

  it('an edit whose record throws still counts as sent', async () => {
    const { pacer, sent } = setup();
    const outcome = await pacer.update(
      'C1',
      '1',
      { text: 'e' },
      {
        record: async () => {
          throw new Error('store down');
        },
      },
    );
    expect(outcome.ok).toBe(true);
    expect(sent).toHaveLength(1);
  });

  it('waits Retry-After when rate limited and sends once, without claiming twice', async () => {
    const limited = Object.assign(new Error('rate limited'), {
      code: 'slack_webapi_rate_limited_error',
      retryAfter: 7,
    });
    const { pacer, sent } = setup({ failNext: [{ error: limited }] });
    let claimsTaken = 0;
    const outcome = await pacer.reply({
      ...reply('C1', 1),
      claim: async () => {
        claimsTaken++;
        return true;
      },
    });
    expect(outcome).toBe('sent');
    expect(claimsTaken).toBe(1);
    expect(sent).toEqual([{ at: 7_000, method: 'post', channel: 'C1', text: 'reply 1', threadTs: 't1' }]);
  });

  it('gives up on a definite refusal and reports the Slack error code', async () => {
    const refused = Object.assign(new Error('gone'), {
      code: 'slack_webapi_platform_error',
      data: { error: 'message_not_found' },
    });
    const { pacer, sent } = setup({ failNext: [{ error: refused }] });
    const outcome = await pacer.update('C1', '1', { text: 'e' });
    expect(outcome.ok).toBe(false);
    expect(outcome.ok === false && outcome.code).toBe('message_not_found');
    expect(sent).toEqual([]);
  });

  it('edits again after a 5xx (an edit is idempotent)', async () => {
    const { pacer, sent } = setup({ failNext: [{ error: HTTP_503 }, { error: HTTP_503 }] });
    const outcome = await pacer.update('C1', '1', { text: 'e' });
    expect(outcome.ok).toBe(true);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.at).toBeGreaterThanOrEqual(1_000);
  });

  it('re-posts after a 5xx only once Slack says the first post did not arrive', async () => {
    const { pacer, sent, reads } = setup({ failNext: [{ error: HTTP_503 }, { error: HTTP_503 }], readBack: {} });
    const outcome = await pacer.post('C1', { text: 'card X' }, { sentCheck: (m) => m.text.includes('card X') });
    expect(outcome.ok).toBe(true);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.at).toBeGreaterThanOrEqual(1_000);
    expect(reads()).toBe(2);
  });

  it('never doubles a post that reached Slack although the call failed (network error)', async () => {
    const { pacer, sent } = setup({ failNext: [{ error: NETWORK, stored: true }], readBack: {} });
    const outcome = await pacer.post('C1', { text: 'card X' }, { sentCheck: (m) => m.text.includes('card X') });
    expect(outcome).toEqual({ ok: true, value: { channel: 'C1', ts: '1.000' } });
    expect(sent.map((s) => s.text)).toEqual(['card X']);
  });

  it('treats an unknown outcome as final when Slack cannot be read back (lost beats doubled)', async () => {
    const { pacer, sent } = setup({ failNext: [{ error: NETWORK, stored: true }] });
    const outcome = await pacer.post('C1', { text: 'card X' }, { sentCheck: (m) => m.text.includes('card X') });
    expect(outcome.ok).toBe(false);
    expect(sent).toHaveLength(1);
    const replyOutcome = await setup({ failNext: [{ error: HTTP_503, stored: true }] }).pacer.reply(reply('C1', 1));
    expect(replyOutcome).toBe('failed');
  });

  it('sends a claimed reply exactly once across 5xx answers, stored or not', async () => {
    const lost = setup({ failNext: [{ error: HTTP_503 }], readBack: {} });
    expect(await lost.pacer.reply(reply('C1', 1))).toBe('sent');
    expect(lost.sent.map((s) => s.text)).toEqual(['reply 1']);
    const kept = setup({ failNext: [{ error: HTTP_503, stored: true }, { error: HTTP_503 }], readBack: {} });
    expect(await kept.pacer.reply(reply('C1', 1))).toBe('sent');
    expect(kept.sent.map((s) => s.text)).toEqual(['reply 1']);
  });

  it('keeps reading back while Slack cannot answer, then sends what did not arrive', async () => {
    const { pacer, sent, reads } = setup({ failNext: [{ error: HTTP_503 }], readBack: { failNext: [NETWORK] } });
    expect(await pacer.reply(reply('C1', 1))).toBe('sent');
    expect(sent.map((s) => s.text)).toEqual(['reply 1']);
    // The failed read, then the thread and the channel's top level.
    expect(reads()).toBe(3);
  });

  it('re-sends only the digest lines that did not arrive', async () => {
    const { pacer, sent } = setup({ failNext: [{ error: HTTP_503, stored: true }], readBack: {} });
    const first = Promise.all([1, 2, 3, 4].map((n) => pacer.reply(reply('C1', n))));
    expect(await first).toEqual(['sent', 'sent', 'sent', 'sent']);
    expect(sent).toHaveLength(1);
  });

  it('posts into a thread and reads a lost post back there', async () => {
    const { pacer, sent, reads } = setup({ failNext: [{ error: NETWORK, stored: true }], readBack: {} });
    const check = { sentCheck: (m: { text: string }) => m.text.includes('card X'), threadTs: 'T' };
    expect(await pacer.post('C1', { text: 'card X' }, check)).toEqual({
      ok: true,
      value: { channel: 'C1', ts: '1.000' },
    });
    expect(sent).toEqual([{ at: 0, method: 'post', channel: 'C1', text: 'card X', threadTs: 'T' }]);
    expect(reads()).toBe(1);
  });

  it('replies about cards inside one thread leave as one digest in that thread, apart from the others', async () => {
    const { pacer, sent } = setup();
    const inThread = (n: number): ReplyRequest => ({ ...reply('C1', n), threadTs: 'T', cardTs: `card${n}` });
    const outcomes = await Promise.all([
      ...[1, 2, 3, 4].map((n) => pacer.reply(inThread(n))),
      ...[5, 6].map((n) => pacer.reply(reply('C1', n))),
    ]);
    expect(outcomes).toEqual(Array(6).fill('sent'));
    expect(sent.map((s) => [s.text, s.threadTs])).toEqual([
      ['4 runs finished:\n• line 1\n• line 2\n• line 3\n• line 4', 'T'],
      ['reply 5', 't5'],
      ['reply 6', 't6'],
    ]);
  });

  it('reads a reply about a card in a thread back in that thread only, not taking the card for it', async () => {
    // The card's answer is lost (found by reading back), then the reply's first send fails with a 5xx.
    const { pacer, sent, reads } = setup({
      failNext: [{ error: NETWORK, stored: true }, { error: HTTP_503 }],
      readBack: {},
    });
    // The result card, in thread T, names the run as the reply does.
    const card = await pacer.post('C1', { text: 'result: reply 1' }, { threadTs: 'T', sentCheck: () => true });
    expect(card).toEqual({ ok: true, value: { channel: 'C1', ts: '1.000' } });
    expect(await pacer.reply({ ...reply('C1', 1), threadTs: 'T', cardTs: '1.000' })).toBe('sent');
    expect(sent.map((s) => [s.text, s.threadTs])).toEqual([
      ['result: reply 1', 'T'],
      ['reply 1', 'T'],
    ]);
    // The card's read-back, then the reply's: its thread only (its digest would be there too).
    expect(reads()).toBe(2);
  });

  it('a claim that throws fails only its own reply; the digest still carries the others', async () => {
    const { pacer, sent } = setup();
    const outcomes = await Promise.all(
      [1, 2, 3, 4, 5].map((n) =>
        pacer.reply(
          n === 3
            ? {
                ...reply('C1', n),
                claim: async () => {
                  throw new Error('Connection terminated unexpectedly');
                },
              }
            : reply('C1', n),
        ),
      ),
    );
    expect(outcomes).toEqual(['sent', 'sent', 'claim_error', 'sent', 'sent']);
    expect(sent.map((s) => s.text)).toEqual(['4 runs finished:\n• line 1\n• line 2\n• line 4\n• line 5']);
  });

  it('says whether a failed post surely did not arrive (a claim on it may be given back) or may have', async () => {
    const card = { sentCheck: (m: { text: string }) => m.text.includes('card X') };
    const limited = Object.assign(new Error('rate limited'), {
      code: 'slack_webapi_rate_limited_error',
      retryAfter: 1,
    });
    const always = (error: unknown, stored = false) => Array.from({ length: 5 }, () => ({ error, stored }));
    // Rate-limited on every attempt: refused each time, nothing there.
    const refused = await setup({ failNext: always(limited) }).pacer.post('C1', { text: 'card X' }, card);
    expect(refused).toMatchObject({ ok: false, notSent: true });
    // A 5xx on every attempt, each read back and absent (the last one too): nothing there.
    const absent = setup({ failNext: always(HTTP_503), readBack: {} });
    expect(await absent.pacer.post('C1', { text: 'card X' }, card)).toMatchObject({ ok: false, notSent: true });
    expect(absent.reads()).toBe(5);
    // A 5xx that Slack cannot be asked about: it may be there.
    const unknown = await setup({ failNext: always(HTTP_503) }).pacer.post('C1', { text: 'card X' }, card);
    expect(unknown).toMatchObject({ ok: false, notSent: false });
    // The last attempt's 5xx did store it: the last look finds it, and it is not sent again.
    const late = setup({
      failNext: [...always(HTTP_503).slice(0, 4), { error: HTTP_503, stored: true }],
      readBack: {},
    });
    expect(await late.pacer.post('C1', { text: 'card X' }, card)).toEqual({
      ok: true,
      value: { channel: 'C1', ts: '5.000' },
    });
    expect(late.sent).toHaveLength(1);
  });
});

describe('SlackPacer with a lane scope (many workspaces)', () => {
  it('gives each tenant its own edit lane: one tenant’s burst of edits does not hold another’s', async () => {
    const { AsyncLocalStorage } = await import('node:async_hooks');
    const scope = new AsyncLocalStorage<string>();
    let t = 0;
    const sent: Array<{ at: number; text: string }> = [];
    const pacer = new SlackPacer({
      transport: {
        post: async (channel) => ({ channel, ts: '1.0' }),
        update: async (_channel, _ts, message) => {
          sent.push({ at: t, text: message.text });
        },
      },
      now: () => t,
      sleep: async (ms) => {
        t += ms;
      },
      updateIntervalMs: 1_000,
      laneScope: () => scope.getStore(),
    });
    const edits: Array<Promise<unknown>> = [];
    scope.run('BIG', () => {
      for (let i = 0; i < 10; i++) edits.push(pacer.update('C1', `${i}`, { text: `big ${i}` }));
    });
    scope.run('SMALL', () => {
      edits.push(pacer.update('C1', 's', { text: 'small' }));
    });
    // No scope at all: the shared lane, as with one workspace.
    edits.push(pacer.update('C9', 'x', { text: 'unscoped' }));
    await Promise.all(edits);
    expect(sent.find((s) => s.text === 'small')!.at).toBe(0);
    expect(sent.find((s) => s.text === 'unscoped')!.at).toBe(0);
    // BIG's own lane is still paced one edit a second.
    expect(sent.filter((s) => s.text.startsWith('big')).map((s) => s.at)).toEqual([
      0, 1_000, 2_000, 3_000, 4_000, 5_000, 6_000, 7_000, 8_000, 9_000,
    ]);
  });

  it('gives each workspace of one installation (an org-wide install) its own edit lane, but one lane per channel; drop ends both', async () => {
    const { AsyncLocalStorage } = await import('node:async_hooks');
    const scope = new AsyncLocalStorage<string>();
    const workspace = new AsyncLocalStorage<string>();
    const { pacer, sent, now } = setup({
      pacer: {
        updateIntervalMs: 1_000,
        laneScope: () => scope.getStore(),
        laneWorkspace: () => workspace.getStore(),
      },
    });
    const inOrg = <T>(team: string, work: () => T): T => scope.run('E1', () => workspace.run(team, work));
    const edits = [
      ...inOrg('TA', () => [0, 1, 2].map((i) => pacer.update('C1', `${i}`, { text: `a ${i}` }))),
      ...inOrg('TB', () => [pacer.update('C2', '9', { text: 'b' })]),
    ];
    await Promise.all(edits);
    expect(sent.find((s) => s.text === 'b')!.at).toBe(0);
    expect(sent.filter((s) => s.text.startsWith('a')).map((s) => s.at)).toEqual([0, 1_000, 2_000]);

    // One channel both workspaces post to (a channel shared in the org): its lane is the channel's, 1 a second.
    const from = now();
    await Promise.all([
      inOrg('TA', () => pacer.post('C3', { text: 'post a' })),
      inOrg('TB', () => pacer.post('C3', { text: 'post b' })),
    ]);
    expect(sent.filter((s) => s.text.startsWith('post')).map((s) => s.at - from)).toEqual([0, 1_000]);

    const queued = [
      ...inOrg('TA', () => [pacer.update('C1', '3', { text: 'a 3' })]),
      ...inOrg('TB', () => [pacer.update('C2', '4', { text: 'b 4' })]),
    ];
    expect(pacer.drop('E1')).toBe(2);
    expect(await Promise.all(queued)).toMatchObject([
      { ok: false, notSent: true },
      { ok: false, notSent: true },
    ]);
  });

  it('dropWorkspace ends one workspace’s queued edits, posts and replies (a shared channel too), and its job in flight is not tried again; the org’s other workspace goes on', async () => {
    const { AsyncLocalStorage } = await import('node:async_hooks');
    const scope = new AsyncLocalStorage<string>();
    const workspace = new AsyncLocalStorage<string>();
    const limited = Object.assign(new Error('rate limited'), {
      code: 'slack_webapi_rate_limited_error',
      retryAfter: 1,
    });
    let t = 0;
    let entered = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const calls: string[] = [];
    const call = async (text: string) => {
      entered++;
      await gate;
      calls.push(`${workspace.getStore()} ${text}`);
      if (text === 'a 1') throw limited;
    };
    const pacer = new SlackPacer({
      transport: {
        post: async (channel, message) => {
          await call(message.text);
          return { channel, ts: '1.0' };
        },
        update: (_channel, _ts, message) => call(message.text),
      },
      now: () => t,
      sleep: async (ms) => {
        t += ms;
      },
      laneScope: () => scope.getStore(),
      laneWorkspace: () => workspace.getStore(),
    });
    const inOrg = <T>(team: string, work: () => T): T => scope.run('E1', () => workspace.run(team, work));
    let claims = 0;
    const a = inOrg('TA', () => [pacer.update('C1', '1', { text: 'a 1' }), pacer.update('C1', '2', { text: 'a 2' })]);
    const b = inOrg('TB', () => [pacer.update('C2', '1', { text: 'b 1' }), pacer.update('C2', '2', { text: 'b 2' })]);
    // C3 is shared by both workspaces (one lane); on C4 a reply of TA waits behind TB's post.
    const shared = [
      inOrg('TB', () => pacer.post('C3', { text: 'pb 1' })),
      inOrg('TA', () => pacer.post('C3', { text: 'pa 1' })),
      inOrg('TB', () => pacer.post('C3', { text: 'pb 2' })),
      inOrg('TA', () => pacer.post('C3', { text: 'pa 2' })),
      inOrg('TB', () => pacer.post('C4', { text: 'pb 3' })),
      inOrg('TA', () => pacer.reply({ ...reply('C4', 9), claim: async () => ++claims > 0 })),
      inOrg('TB', () => pacer.post('C4', { text: 'pb 4' })),
    ];
    // Each lane's first job is in flight (a 1, b 1, pb 1, pb 3) when TA is removed.
    while (entered < 4) await new Promise((r) => setImmediate(r));
    expect(pacer.dropWorkspace('E1', 'TA')).toBe(4);
    open();
    const outcomes = await Promise.all([...a, ...b, ...shared]);
    await pacer.idle();
    // a 1 was refused (rate-limited) in flight: not tried again. Nothing else of TA went out; all of TB did.
    expect(calls.filter((c) => c.startsWith('TA'))).toEqual(['TA a 1']);
    expect(calls.filter((c) => c.startsWith('TB')).sort()).toEqual(
      ['TB b 1', 'TB b 2', 'TB pb 1', 'TB pb 2', 'TB pb 3', 'TB pb 4'].sort(),
    );
    expect(outcomes.slice(0, 2)).toMatchObject([
      { ok: false, notSent: true },
      { ok: false, notSent: true },
    ]);
    expect(outcomes.slice(2, 4)).toMatchObject([{ ok: true }, { ok: true }]);
    expect([outcomes[5], outcomes[7]]).toMatchObject([
      { ok: false, notSent: true },
      { ok: false, notSent: true },
    ]);
    expect(outcomes[9]).toBe('dropped');
    expect(claims).toBe(0);
    // The whole installation's drop still ends every workspace's work.
    const queued = inOrg('TB', () => [pacer.update('C2', '3', { text: 'b 3' })]);
    expect(pacer.drop('E1')).toBe(1);
    expect(await Promise.all(queued)).toMatchObject([{ ok: false, notSent: true }]);
  });

  it('drops a tenant’s queued work, unsent, once Slack answers its token as dead; others go on', async () => {
    const { AsyncLocalStorage } = await import('node:async_hooks');
    const scope = new AsyncLocalStorage<string>();
    const revoked = Object.assign(new Error('An API error occurred: token_revoked'), {
      code: 'slack_webapi_platform_error',
      data: { ok: false, error: 'token_revoked' },
    });
    let t = 0;
    const calls: string[] = [];
    const dropped: Array<[string | null, number]> = [];
    const pacer = new SlackPacer({
      transport: {
        post: async (channel, message) => {
          calls.push(`${scope.getStore()} post ${message.text}`);
          return { channel, ts: '1.0' };
        },
        update: async (_channel, _ts, message) => {
          calls.push(`${scope.getStore()} update ${message.text}`);
          if (scope.getStore() === 'GONE') throw revoked;
        },
      },
      now: () => t,
      sleep: async (ms) => {
        t += ms;
      },
      updateIntervalMs: 1_000,
      postIntervalMs: 1_000,
      laneScope: () => scope.getStore(),
      onDropped: (s, n) => dropped.push([s, n]),
    });
    let claims = 0;
    const gone = scope.run('GONE', () => [
      ...[1, 2, 3].map((n) => pacer.update('C1', `${n}`, { text: `edit ${n}` })),
      // Its post lane has one post in flight beside the refused edit, then one waiting its turn.
      pacer.post('C1', { text: 'post 1' }),
      pacer.post('C1', { text: 'post 2' }),
      pacer.reply({ ...reply('C1', 9), claim: async () => ++claims > 0 }),
    ]);
    const kept = scope.run('KEPT', () => [1, 2].map((n) => pacer.update('C1', `${n}`, { text: `other ${n}` })));
    const outcomes = await Promise.all(gone);
    await Promise.all(kept);
    // The refused edit and the post already in flight beside it; nothing of GONE after.
    expect(calls.filter((c) => c.startsWith('GONE'))).toEqual(['GONE update edit 1', 'GONE post post 1']);
    expect(calls.filter((c) => c.startsWith('KEPT'))).toEqual(['KEPT update other 1', 'KEPT update other 2']);
    expect(outcomes.slice(1, 3)).toMatchObject([
      { ok: false, code: 'token_revoked', notSent: true },
      { ok: false, code: 'token_revoked', notSent: true },
    ]);
    expect(outcomes[4]).toMatchObject({ ok: false, code: 'token_revoked', notSent: true });
    // A queued reply is neither claimed nor sent, and says so (not settled).
    expect(outcomes[5]).toBe('dropped');
    expect(claims).toBe(0);
    expect(dropped).toEqual([['GONE', 4]]);
    // drop() does the same from outside (an uninstall event): nothing queued is left to go out.
    const queued = scope.run('KEPT', () => [3, 4].map((n) => pacer.update('C1', `${n}`, { text: `other ${n}` })));
    expect(pacer.drop('KEPT')).toBe(2);
    expect(await Promise.all(queued)).toMatchObject([
      { ok: false, notSent: true },
      { ok: false, notSent: true },
    ]);
    await pacer.idle();
    expect(calls.filter((c) => c.startsWith('KEPT'))).toHaveLength(2);
  });
});
