// Fuzz pass over inbound Slack payloads through the real bot: every request is correctly SIGNED,
// so it gets past verification and reaches Bolt's parsing and our listeners. Whatever arrives,
// the bot must answer (status < 500, or a 500 that is Bolt's own clean error path: an empty or
// short non-stack body — Slack just retries or shows "app did not respond"), must keep serving,
// and must never show a stack trace to anyone in Slack.
//
// A body that parses to JSON `null` (`payload=null`, or a JSON body `null`) used to make Bolt 5.1's
// HTTPReceiver read `null.ssl_check` and never answer; src/slack/kit/guard-request.ts answers 400 now,
// and the cases below keep it that way.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formRequest, type SlackRequestBody, sendToBot, slashCommandBody } from '../../src/sandbox/slack-requests.ts';
import { ACTIONS, BLOCKS, SHORTCUTS, VIEWS } from '../../src/slack/kit/ids.ts';
import { ephemeralContaining, type Harness, SIGNING_SECRET, startHarness, waitFor } from '../support/bot-harness.ts';

let h: Harness;
const statuses: number[] = [];

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

const STACK_TRACE = /\bat .*\.(ts|js):\d+/;

/**
 * A request Bolt never answers must fail here, clearly, naming it. "Never" is judged by progress, not by a
 * deadline per request: requests go out 120 at once and the machine may be shared, so how long one waits
 * says little. It fails once the bot has answered nothing at all for QUIET_MS while it waited, as seen by
 * two looks of a watchdog with the event loop's I/O between them (after a stalled process wakes, timers
 * run before answers already waiting). QUIET_MS is above Bolt's 2.9 s for a request no listener takes.
 */
const QUIET_MS = 5_000;
let lastAnswerAt = 0;

function unanswered(body: SlackRequestBody): { never: Promise<never>; stop: () => void } {
  const sentAt = Date.now();
  let watchdog: NodeJS.Timeout | undefined;
  const never = new Promise<never>((_, reject) => {
    let suspect = false;
    watchdog = setInterval(() => {
      const quiet = Date.now() - Math.max(sentAt, lastAnswerAt);
      if (quiet < QUIET_MS) suspect = false;
      else if (!suspect) suspect = true;
      else reject(new Error(`no answer to ${body.raw.slice(0, 120)}: the bot answered nothing for ${quiet} ms`));
    }, 250);
  });
  return { never, stop: () => clearInterval(watchdog) };
}

/** Sends a signed body; records the status; fails on an unclean answer. */
async function send(body: SlackRequestBody): Promise<number> {
  const watch = unanswered(body);
  const res = await Promise.race([
    sendToBot(h.botUrl, SIGNING_SECRET, body).then((answer) => {
      lastAnswerAt = Date.now();
      return answer;
    }),
    watch.never,
  ]).finally(watch.stop);
  statuses.push(res.status);
  // A 500 is acceptable only as Bolt's generic failure answer: never a stack trace in the body.
  expect(res.status, `answer to ${body.raw.slice(0, 120)}`).toBeLessThanOrEqual(500);
  expect(res.body).not.toMatch(STACK_TRACE);
  return res.status;
}

/** Bolt answers a request no listener takes only after its unhandled-request timeout (2.9 s), so send in parallel. */
async function sendAll(bodies: SlackRequestBody[]): Promise<void> {
  for (let i = 0; i < bodies.length; i += 120) await Promise.all(bodies.slice(i, i + 120).map(send));
}

const form = (fields: Record<string, string>) => formRequest(new URLSearchParams(fields).toString());
const payload = (raw: string) => formRequest(`payload=${encodeURIComponent(raw)}`);
const json = (value: unknown) => ({ kind: 'json' as const, raw: JSON.stringify(value) });

function command(text: string, overrides: Record<string, string> = {}): SlackRequestBody {
  const base = slashCommandBody({
    command: '/runbook',
    text,
    userId: 'U01ALICE',
    channelId: 'C01OPS',
    teamId: h.fake.state.teamId,
    triggerId: h.fake.newTriggerId('U01ALICE'),
    responseUrl: h.fake.newResponseUrl({ channel: 'C01OPS', user: 'U01ALICE' }),
  });
  const params = new URLSearchParams(base);
  for (const [k, v] of Object.entries(overrides)) params.set(k, v);
  return formRequest(params.toString());
}

// No time limit per test: `unanswered` bounds every request by the bot's progress, so a slow machine only
// makes the pass longer, and a request never answered still fails, naming it.
describe('fuzzed inbound payloads', { timeout: 0 }, () => {
  it('handles malformed payload= JSON, wrong types and unknown payload types', async () => {
    const user = { id: 'U01ALICE', team_id: 'T0', name: 'alice' };
    const cases: SlackRequestBody[] = [
      payload('null'),
      { kind: 'json', raw: 'null' },
      { kind: 'json', raw: '"text"' },
      payload('{not json'),
      payload(''),
      payload('[]'),
      payload('42'),
      payload('"a string"'),
      formRequest('payload='),
      formRequest('payload'),
      formRequest('%%%=%%%'),
      formRequest(''),
      json({}),
      json([]),
      json({ type: 'event_callback' }),
      json({ type: 'event_callback', event: 'not an object', team_id: 5 }),
      json({ type: 'url_verification', challenge: 12 }),
      { kind: 'json', raw: '{"type": "event_callback", "event": ' },
      payload(JSON.stringify({ type: 'no_such_type', user })),
      payload(JSON.stringify({ type: 'block_actions' })),
      payload(JSON.stringify({ type: 'block_actions', user, actions: 'not an array' })),
      payload(JSON.stringify({ type: 'block_actions', user, actions: [{ action_id: 42, block_id: [], value: {} }] })),
      payload(
        JSON.stringify({ type: 'block_actions', user, actions: [{ action_id: ACTIONS.runbookRun, value: 12345 }] }),
      ),
      payload(
        JSON.stringify({
          type: 'block_actions',
          user,
          actions: [{ action_id: ACTIONS.listPage, value: '{broken' }],
          channel: { id: 'C01OPS' },
        }),
      ),
      payload(
        JSON.stringify({ type: 'block_actions', user, actions: [{ action_id: ACTIONS.executionStatus, value: null }] }),
      ),
      payload(
        JSON.stringify({
          type: 'view_submission',
          user,
          view: { callback_id: VIEWS.run, private_metadata: 7, state: { values: [] } },
        }),
      ),
      payload(
        JSON.stringify({
          type: 'view_submission',
          user,
          view: {
            callback_id: VIEWS.run,
            private_metadata: '{"r":"nope"}',
            state: { values: { [BLOCKS.proxy]: 'x' } },
          },
        }),
      ),
      payload(JSON.stringify({ type: 'view_submission', user, view: { callback_id: VIEWS.schedule, state: null } })),
      payload(JSON.stringify({ type: 'view_closed', user, view: [] })),
      payload(
        JSON.stringify({
          type: 'block_suggestion',
          user,
          action_id: ACTIONS.runbookPicker,
          block_id: BLOCKS.runbookPicker,
          value: 99,
        }),
      ),
      payload(
        JSON.stringify({
          type: 'block_suggestion',
          user,
          action_id: 'value',
          block_id: 'field_x',
          value: 'a',
          view: { private_metadata: '{' },
        }),
      ),
      payload(JSON.stringify({ type: 'shortcut', user, callback_id: SHORTCUTS.runRunbook, trigger_id: 12 })),
      payload(JSON.stringify({ type: 'shortcut', callback_id: SHORTCUTS.runRunbook })),
      payload(JSON.stringify({ type: 'message_action', user, callback_id: 'x' })),
    ];
    await sendAll(cases);
  });

  it('handles slash commands with missing fields, wrong types and huge values', async () => {
    await send(form({ command: '/runbook' }));
    await send(form({ command: '/runbook', text: 'help' }));
    await send(form({ command: '/unknown', text: 'help', user_id: 'U01ALICE' }));
    await send(command('run', { trigger_id: '' }));
    await send(command('status', { response_url: 'not a url' }));
    await send(command('list', { channel_id: '', user_id: '' }));
    await send(command('x'.repeat(10_000)));
    await send(command(`run "${'r'.repeat(10_000)}"`));
    await send(command(`list ${'k '.repeat(5_000)}`));
    await send(command('status 42'));
    await send(command('executions --status --last'));
    await send(command('"unterminated'));
    // 1 MB of text in one field.
    await send(command(`show ${'a'.repeat(1024 * 1024)}`));
    await send(
      payload(
        JSON.stringify({
          type: 'block_actions',
          user: { id: 'U01ALICE' },
          actions: [{ action_id: ACTIONS.runbookDetails, value: 'v'.repeat(1024 * 1024) }],
        }),
      ),
    );
  });

  it('survives random JSON as interactivity payloads and random form bodies as slash commands', async () => {
    const types = fc.constantFrom(
      'block_actions',
      'view_submission',
      'view_closed',
      'block_suggestion',
      'shortcut',
      'interactive_message',
      'x',
    );
    const interaction = fc.oneof(
      fc.jsonValue(),
      fc.record(
        { type: types, user: fc.jsonValue(), actions: fc.jsonValue(), view: fc.jsonValue(), value: fc.jsonValue() },
        { requiredKeys: ['type'] },
      ),
      fc.record({
        type: types,
        user: fc.record({ id: fc.constantFrom('U01ALICE', 'U02BOB', ''), team_id: fc.string() }),
        action_id: fc.constantFrom(...Object.values(ACTIONS)),
        block_id: fc.string(),
        actions: fc.array(
          fc.record({
            action_id: fc.constantFrom(...Object.values(ACTIONS)),
            value: fc.oneof(fc.string(), fc.jsonValue()),
          }),
          { maxLength: 3 },
        ),
        view: fc.record({
          callback_id: fc.constantFrom(...Object.values(VIEWS)),
          private_metadata: fc.string(),
          state: fc.record({ values: fc.jsonValue() }),
        }),
      }),
    );
    await sendAll(fc.sample(interaction, { numRuns: 120, seed: 20261121 }).map((v) => payload(JSON.stringify(v))));
    const field = fc.constantFrom(
      'token',
      'team_id',
      'channel_id',
      'user_id',
      'command',
      'text',
      'trigger_id',
      'response_url',
      'api_app_id',
      'x',
    );
    const commands = fc.sample(
      fc.tuple(fc.dictionary(field, fc.string({ maxLength: 200 })), fc.string({ maxLength: 300 })),
      {
        numRuns: 120,
        seed: 20261122,
      },
    );
    await sendAll(commands.map(([fields, text]) => form({ command: '/runbook', ...fields, text })));
  });

  it('keeps serving afterwards and never shows a stack trace in Slack', async () => {
    // Each accepted status is either an answer (< 500) or Bolt's own 500; report what we saw.
    expect(statuses.length).toBeGreaterThan(250);
    expect(statuses.every((s) => s < 500 || s === 500)).toBe(true);
    const res = await h.user().command('help', 'C01OPS');
    expect(res.status).toBe(200);
    await waitFor(() => ephemeralContaining(h.fake, '/runbook list'), 'help after the fuzz pass');
    // Let late follow-ups (response_url posts, modal updates) land before inspecting Slack.
    await new Promise((r) => setTimeout(r, 300));
    const shown = JSON.stringify({
      messages: h.fake.state.messages,
      ephemerals: h.fake.state.ephemerals,
      views: h.fake.state.views,
      responses: h.fake.state.responseUrlPosts,
      calls: h.fake.state.calls.map((c) => c.args),
    });
    expect(shown).not.toMatch(STACK_TRACE);
    expect(shown).not.toContain('.ts:');
  });
});
