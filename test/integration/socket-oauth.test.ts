// Many workspaces over Socket Mode (SLACK_CLIENT_ID + SLACK_APP_TOKEN): one app-level token carries every
// installation's requests on one WebSocket, while Bolt's SocketModeReceiver serves "Add to Slack" on PORT
// beside /healthz and /readyz. Through the real Bolt pipeline against the fake Slack and its Socket Mode:
// installs over HTTP, then commands, App Home, Connect and runs of two workspaces arrive over the socket
// and are answered with that installation's own token; a workspace not installed gets nothing run; an
// uninstall delivered over the socket deletes that installation's tokens and ends its requests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { describeStartupError } from '../../src/ops/startup-error.ts';
import type { SlackUser } from '../../src/sandbox/slack-user.ts';
import { createSlackApp } from '../../src/slack/app.ts';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import {
  API_KEY,
  APP_TOKEN,
  CLIENT_SECRET,
  type OAuthHarness,
  resultCardOf,
  STATE_SECRET,
  startOAuthHarness,
  until,
} from '../support/oauth-harness.ts';

let h: OAuthHarness;
beforeAll(async () => {
  h = await startOAuthHarness({ socketMode: true });
}, 30_000);
afterAll(async () => {
  await h?.stop();
});

const callsSince = (since: number, method: string) =>
  h.fake.state.calls.slice(since).filter((c) => c.method === method);

/** `/runbook run` (the picker opens with views.open): the installation whose token opened it. */
async function pickerOpenedBy(user: SlackUser): Promise<string | null> {
  const since = h.fake.state.calls.length;
  const answer = await user.command('run', 'C01OPS');
  expect(answer.status).toBe(200);
  const call = await until(async () => callsSince(since, 'views.open')[0], 'views.open');
  expect(call.ok).toBe(true);
  return call.installation ?? null;
}

describe('many workspaces over Socket Mode', () => {
  it('serves Add to Slack, /healthz and /readyz on PORT (no /slack/events), and installs two workspaces', async () => {
    expect(h.runtime.slackPort).toBeGreaterThan(0);
    expect((await fetch(`${h.origin}/healthz`)).status).toBe(200);
    const ready = await until(async () => {
      const res = await fetch(`${h.origin}/readyz`);
      const body = (await res.json()) as { checks: Record<string, { state: string }> };
      return res.status === 200 ? body : null;
    }, '/readyz');
    // Readiness follows the WebSocket, as in single-workspace Socket Mode.
    expect(ready.checks.slack?.state).toBe('ok');
    // Requests come over the socket only: an HTTP "request from Slack" finds nothing to take it.
    const forged = await fetch(`${h.origin}/slack/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'url_verification', challenge: 'x' }),
    });
    expect(forged.status).toBe(404);

    const landing = await fetch(`${h.origin}/slack/install`);
    expect(landing.status).toBe(200);
    expect(landing.headers.get('set-cookie') ?? '').toMatch(/^slack-app-oauth-state=/);
    // T0SANDBOX is left for its admin to connect in App Home; T0SECOND is connected at once.
    for (const [target, connect] of [
      ['T0SANDBOX', false],
      ['T0SECOND', true],
    ] as const) {
      const page = await h.install(target, { connect });
      expect(page.status, page.html).toBe(200);
      expect(page.html).toContain('runbook-bot is installed');
    }
    const rows = await Promise.all(['T0SANDBOX', 'T0SECOND'].map((id) => h.runtime.store.installations.get(id)));
    expect(rows.map((r) => [r?.id, r?.sealed !== null])).toEqual([
      ['T0SANDBOX', true],
      ['T0SECOND', true],
    ]);
    const audit = (await h.runtime.store.audit.recent(20)).filter((e) => e.action === 'app.install');
    expect(audit.map((e) => e.target).sort()).toEqual(['T0SANDBOX', 'T0SECOND']);
    // A replayed redirect (the state was taken once) is refused, over this port too.
    const replay = await fetch(`${h.origin}/slack/oauth_redirect?code=x&state=not-a-state`);
    expect(replay.status).toBe(400);
    // Cancel on Slack's consent screen is a person's choice: 200 with a link to try again, here too.
    const cancelled = await h.install('T0OTHER', { deny: true });
    expect(cancelled.status).toBe(200);
    expect(cancelled.html).toContain('The install was cancelled in Slack.');
    expect(cancelled.html).toContain('href="/slack/install"');
    expect(await h.runtime.store.installations.get('T0OTHER')).toBeNull();
  });

  it('answers "not connected yet" until an admin connects the workspace in App Home, over the socket', async () => {
    const alice = h.user('U01ALICE', 'T0SANDBOX');
    const since = h.fake.state.ephemerals.length;
    await alice.command('list', 'C01OPS');
    await until(
      async () =>
        h.fake.state.ephemerals.slice(since).find((e) => e.user === 'U01ALICE' && e.text.includes('not connected')),
      'not connected',
    );

    const bob = h.user('U02BOB', 'T0SANDBOX'); // is_admin in the fake Slack
    const published = h.fake.state.calls.length;
    await bob.openHome();
    const homeId = await until(async () => h.fake.state.homeViews.U02BOB, 'home');
    const home = () => h.fake.state.views[homeId]!;
    await until(async () => JSON.stringify(home().view).includes(ACTIONS.connectOpen), 'Connect button');
    expect(callsSince(published, 'views.publish').map((c) => c.installation)).toContain('T0SANDBOX');
    await bob.act({ kind: 'view', view: home() }, ACTIONS.connectOpen);
    const form = await until(async () => {
      const top = bob.topModal();
      return top && JSON.stringify(top.view).includes(BLOCKS.connectKey) ? top : undefined;
    }, 'the Connect form');
    await bob.submit(form.id, {
      [BLOCKS.connectKey]: { [ACTIONS.connectKey]: { type: 'plain_text_input', value: API_KEY } },
    });
    await until(async () => JSON.stringify(bob.topModal()?.view ?? {}).includes('Connected to'), 'connected');
    expect((await h.runtime.tenants!.connections.status('T0SANDBOX'))?.baseUrl).toBe(h.emulator.url);
    expect(JSON.stringify(h.fake.state.calls)).not.toContain(API_KEY);
  });

  it("runs each workspace's commands and results on its own installation's token", async () => {
    expect(await pickerOpenedBy(h.user('U01ALICE', 'T0SANDBOX'))).toBe('T0SANDBOX');
    expect(await pickerOpenedBy(h.user('U11SAM', 'T0SECOND'))).toBe('T0SECOND');

    const first = await h.runNow('U01ALICE', 'T0SANDBOX', 'sock-sandbox');
    const second = await h.runNow('U11SAM', 'T0SECOND', 'sock-second');
    h.clock.advance(60 * 60_000);
    expect((await resultCardOf(h, first.id)).installation).toBe('T0SANDBOX');
    expect((await resultCardOf(h, second.id)).installation).toBe('T0SECOND');
  });

  it('runs nothing for a workspace that is not installed, and tells the person in the ack', async () => {
    const since = h.fake.state.calls.length;
    const executions = h.emulator.state.executions.byId.size;
    const eva = h.user('U21EVA', 'T0GRIDA');
    // The envelope is acked (Slack stops retrying) with the one sentence; no listener runs, no token is used.
    const answer = await eva.command('run "Scale Kubernetes Deployment" deployment=x --now', 'C01OPS');
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ response_type: 'ephemeral' });
    expect((answer.json as { text: string }).text).toMatch(
      /^runbook-bot is not installed in this workspace — ask an admin to add it/,
    );
    await eva.openHome();
    await new Promise((r) => setTimeout(r, 300));
    expect(h.fake.state.calls.slice(since).filter((c) => c.method !== 'apps.connections.open')).toEqual([]);
    expect(h.fake.state.ephemerals.filter((e) => e.user === 'U21EVA')).toEqual([]);
    expect(h.emulator.state.executions.byId.size).toBe(executions);
  });

  it("an uninstall over the socket deletes that installation's tokens and ends its requests; the other keeps working", async () => {
    const events = h.fake.oauth.uninstall('T0SECOND');
    const acked = await h.socket!.send('events_api', events.appUninstalled);
    expect(acked.envelope_id).toBeTruthy();
    await until(async () => (await h.runtime.store.installations.get('T0SECOND'))?.sealed === null, 'the tokens to go');
    const audit = (await h.runtime.store.audit.recent(50)).filter((e) => e.action === 'app.uninstall');
    expect(audit.map((e) => [e.target, e.detail])).toEqual([['T0SECOND', 'app_uninstalled']]);
    await h.socket!.send('events_api', events.tokensRevoked);

    const since = h.fake.state.calls.length;
    const after = await h.user('U11SAM', 'T0SECOND').command('run', 'C01OPS');
    expect(JSON.stringify(after.json)).toContain('runbook-bot is not installed in this workspace');
    await new Promise((r) => setTimeout(r, 300));
    expect(callsSince(since, 'views.open')).toEqual([]);
    expect(await pickerOpenedBy(h.user('U01ALICE', 'T0SANDBOX'))).toBe('T0SANDBOX');
  });

  it('answers 500 when the install page cannot be made (the store fails), and keeps serving', async () => {
    const states = h.runtime.store.oauthStates;
    const put = states.put;
    states.put = async () => {
      throw new Error('the database is away');
    };
    try {
      const res = await fetch(`${h.origin}/slack/install`);
      expect(res.status).toBe(500);
      expect(await res.text()).not.toContain('database');
    } finally {
      states.put = put;
    }
    expect((await fetch(`${h.origin}/slack/install`)).status).toBe(200);
    expect((await fetch(`${h.origin}/healthz`)).status).toBe(200);
  });

  it('keeps every token and secret out of the logs', () => {
    const text = h.logs.join('');
    expect(text.length).toBeGreaterThan(0);
    const tokens = [...h.fake.oauth.grants.values()].map((g) => g.token);
    expect(tokens.length).toBeGreaterThanOrEqual(2);
    for (const secret of [...tokens, APP_TOKEN, CLIENT_SECRET, STATE_SECRET, API_KEY]) {
      expect(text).not.toContain(secret);
    }
  });

  // Last: the refused app's socket client connects to the fake Socket Mode before it is stopped.
  it('a taken PORT fails the start of a Socket Mode app (Bolt listens without waiting), naming the variable', async () => {
    const taken = createSlackApp(h.runtime.deps, {
      mode: 'socket',
      botToken: 'xoxb-one-workspace',
      appToken: APP_TOKEN,
      apiUrl: h.fake.url,
      port: h.runtime.slackPort,
    });
    const failure = await taken.start().then(
      () => null,
      (err: unknown) => err,
    );
    expect(failure).toMatchObject({ code: 'EADDRINUSE' });
    expect(describeStartupError(failure, loadConfig({ PORT: String(h.runtime.slackPort) }))).toContain('set PORT');
    await taken.stop();
    expect((await fetch(`${h.origin}/healthz`)).status).toBe(200);
  });
});
