// Many workspaces: a request from a workspace the app is not installed in (never, or uninstalled) goes
// through Bolt's pipeline, Bolt's authorize finds no installation, and the person is told in one sentence
// with where to add the app — the slash command in its own ephemeral reply, a click through its
// response_url, a form with a view that says it, a typeahead with no options — while nothing runs, no
// Web API call is made, and neither the body's response_url nor its trigger_id is logged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../src/sandbox/fake-slack-state.ts';
import { ACTIONS } from '../../src/slack/kit/ids.ts';
import { type OAuthHarness, startOAuthHarness, until } from '../support/oauth-harness.ts';

const SENTENCE = 'runbook-bot is not installed in this workspace — ask an admin to add it: ';

let h: OAuthHarness;
beforeAll(async () => {
  h = await startOAuthHarness();
  expect((await h.install('T0SANDBOX')).status).toBe(200);
  expect((await h.install('T0SECOND')).status).toBe(200);
}, 30_000);
afterAll(() => h?.stop());

/** A button of the bot's, as it would sit in a channel of a workspace that later lost the app. */
const message: FakeMessage = {
  type: 'message',
  channel: 'C01OPS',
  ts: '1732180000.000100',
  user: 'U0BOT',
  text: 'a card',
  blocks: [
    {
      type: 'actions',
      block_id: 'b1',
      elements: [
        {
          type: 'button',
          action_id: ACTIONS.approvalApprove,
          value: 'A0NOPE',
          text: { type: 'plain_text', text: 'Approve' },
        },
      ],
    },
  ],
} as FakeMessage;

function secretsOfRequests(): string[] {
  // Every response URL and trigger id the fake minted: none may be in a log line.
  const urls = JSON.stringify(h.fake.state.calls).match(/https?:\/\/[^"]+\/(commands|actions)\/[^"]+/g) ?? [];
  return urls;
}

describe('a workspace the app is not installed in', () => {
  it('a slash command is answered, privately, that the app is not installed and where to add it; nothing runs', async () => {
    const calls = h.fake.state.calls.length;
    const runs = h.emulator.state.executions.byId.size;
    const res = await h.user('U01ALICE', 'T0OTHER').command('run "Scale Kubernetes Deployment" --now', 'C01OPS');
    expect(res.status).toBe(200);
    const json = res.json as { response_type?: string; text?: string };
    expect(json.response_type).toBe('ephemeral');
    expect(json.text).toContain(SENTENCE);
    expect(json.text).toContain(`${h.origin}/slack/install`);
    expect(h.fake.state.calls.length).toBe(calls);
    expect(h.emulator.state.executions.byId.size).toBe(runs);
    const logged = h.logs.join('');
    expect(logged).toContain('a request from a workspace runbook-bot is not installed in');
    expect(logged).toContain('T0OTHER');
  });

  it('after an uninstall, the workspace is told the same', async () => {
    const events = h.fake.oauth.uninstall('T0SECOND');
    expect(await h.deliver(events.appUninstalled)).toBe(200);
    expect(await h.deliver(events.tokensRevoked)).toBe(200);
    await until(async () => (await h.runtime.store.installations.get('T0SECOND'))?.sealed === null, 'the tokens gone');
    const res = await h.user('U11SAM', 'T0SECOND').command('list', 'C01OPS');
    expect((res.json as { text?: string }).text).toContain(SENTENCE);
    // The installed workspace is unaffected.
    const ok = await h.user('U01ALICE', 'T0SANDBOX').command('help', 'C01OPS');
    expect(JSON.stringify(ok.json ?? '')).not.toContain('not installed');
  });

  it('a click is answered with an ephemeral through its response_url; nothing is decided', async () => {
    const since = h.fake.state.ephemerals.length;
    const res = await h.user('U01ALICE', 'T0OTHER').act({ kind: 'message', message }, ACTIONS.approvalApprove);
    expect(res.status).toBe(200);
    const told = await until(
      async () => h.fake.state.ephemerals.slice(since).find((e) => e.user === 'U01ALICE' && e.text.includes(SENTENCE)),
      'the ephemeral',
    );
    expect(told.channel).toBe('C01OPS');
    expect(h.fake.state.calls.filter((c) => c.method !== 'oauth.v2.access' && c.installation === 'T0OTHER')).toEqual(
      [],
    );
  });

  it('an event gets a plain 200 and makes no call; no log line holds a response URL or trigger id', async () => {
    const calls = h.fake.state.calls.length;
    const res = await h.user('U01ALICE', 'T0OTHER').mention('list', 'C01OPS');
    expect(res.status).toBe(200);
    await new Promise((r) => setTimeout(r, 100));
    expect(h.fake.state.calls.slice(calls).map((c) => c.method)).toEqual([]);
    const logged = h.logs.join('');
    for (const secret of secretsOfRequests()) expect(logged).not.toContain(secret);
    expect(logged).not.toMatch(/\/(commands|actions)\/T0[A-Z]+\/\d{13}\//);
    expect(logged).not.toMatch(/"trigger_id"/);
  });
});
