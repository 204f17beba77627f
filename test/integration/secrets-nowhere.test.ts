// Tokens and Runbook API keys, after a full many-workspace flow through the real Bolt pipeline — install
// (token rotation on, every authorize refreshing), Connect from App Home, run, schedule, subscribe, a run
// approved, Replace key, a run on the new key, a key the API refused, result cards and subscription notices, Disconnect, uninstall
// — on SQLite and on Postgres: no bot token, refresh token or API key (the keys typed into Connect and
// Replace key) is in any store row, any message, modal, view or other Web API call the fake Slack received,
// any ephemeral, or any log line — in clear, base64, base64url or hex (also inside a longer encoded value).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import { writePolicyFile } from '../support/bot-harness.ts';
import { leaksIn, postgresStoreText, sqliteStoreText } from '../support/leak-check.ts';
import {
  CLIENT_SECRET,
  connectFromHome,
  DRAIN,
  type OAuthHarness,
  openConnectForm,
  requestDrainApproval,
  resultCardOf,
  SCALE,
  SIGNING_SECRET,
  STATE_SECRET,
  scheduleThroughForm,
  startOAuthHarness,
  until,
} from '../support/oauth-harness.ts';
import { TEST_DATABASE_URL, withPostgres } from '../support/test-database.ts';

const ALICE = 'U01ALICE';
const BOB = 'U02BOB'; // a workspace admin, and the policy's approver

describe('the check', () => {
  it('finds a secret in clear, and base64-, base64url- or hex-encoded inside a longer value', () => {
    const secret = 'xoxe.xoxb-1-secret-0123456789';
    expect(leaksIn(`{"t":"${secret}"}`, { s: secret })).not.toEqual([]);
    for (const before of ['', 'a', 'ab']) {
      const blob = Buffer.from(`${before}{"token":"${secret}","x":1}`);
      for (const encoding of ['base64', 'base64url', 'hex'] as const) {
        expect(leaksIn(blob.toString(encoding), { s: secret }), `${encoding} after ${before.length}`).not.toEqual([]);
      }
    }
    expect(leaksIn(Buffer.from('no secret here at all').toString('base64'), { s: secret })).toEqual([]);
  });
});

describe.each(['sqlite', 'postgres'] as const)('no secret anywhere after a full flow (%s)', (kind) => {
  // Keys nobody else knows (not the harness's, which its logger redacts): a leak cannot hide behind redaction.
  const KEY_1 = `rk1-${randomBytes(12).toString('hex')}`;
  const KEY_2 = `rk2-${randomBytes(12).toString('hex')}`;
  // Typed into Connect but refused by the API: kept nowhere either.
  const WRONG_KEY = `rkx-${randomBytes(12).toString('hex')}`;
  const schema = `leak_${randomBytes(5).toString('hex')}`;
  const ENCRYPTION_KEY = randomBytes(32).toString('base64');
  let h: OAuthHarness;

  beforeAll(async () => {
    h = await startOAuthHarness({
      tokenRotation: true,
      tenants: {
        [KEY_1]: { name: 'first', runbooks: [SCALE, DRAIN, 'Postgres Vacuum Analyze'] },
        [KEY_2]: { name: 'second', runbooks: [SCALE, DRAIN, 'Postgres Vacuum Analyze'] },
      },
      env: {
        POLICY_FILE: writePolicyFile(`approvers: { users: [${BOB}] }\n`),
        SUBSCRIPTIONS_POLL_SECONDS: '0.05',
        SECRETS_ENCRYPTION_KEY: ENCRYPTION_KEY,
        ...(kind === 'postgres' ? { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema } : {}),
      },
    });
    // Tokens expiring within the refresh window: every authorize refreshes (rotation on every request).
    h.fake.oauth.configureApp({ ...h.fake.oauth.app!, expiresInSeconds: 3_600 });
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
    if (kind === 'postgres') await withPostgres((c) => c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
  });

  it('install, connect, run, schedule, subscribe, approve, rotate, replace, disconnect, uninstall', async () => {
    expect((await h.install('T0SANDBOX', { connect: false })).status).toBe(200);
    const alice = h.user(ALICE, 'T0SANDBOX');
    const bob = h.user(BOB, 'T0SANDBOX');
    const refused = await openConnectForm(h, bob);
    await bob.submit(refused.id, {
      [BLOCKS.connectKey]: { [ACTIONS.connectKey]: { type: 'plain_text_input', value: WRONG_KEY } },
    });
    await until(async () => JSON.stringify(bob.topModal()?.view ?? {}).includes(':warning:'), 'the refusal');
    h.fake.closeModal(BOB);
    await connectFromHome(h, bob, KEY_1);

    const first = await h.runNow(ALICE, 'T0SANDBOX', 'leak-web', KEY_1);
    await scheduleThroughForm(alice, SCALE, '15 4 * * *', {
      field_namespace: { value: { type: 'plain_text_input', value: 'prod' } },
      field_deployment: { value: { type: 'plain_text_input', value: 'leak-nightly' } },
      field_replicas: { value: { type: 'number_input', value: '3' } },
    });
    await until(async () => h.emulator.tenant(KEY_1)!.schedules.byId.size > 0, 'the schedule');
    await alice.command(`subscribe "${SCALE}"`, 'C01OPS');
    await until(async () => (await h.runtime.store.subscriptions.listAll()).length > 0, 'the subscription');
    const { message } = await requestDrainApproval(h, alice, 'leak-node');
    await bob.act({ kind: 'message', message }, ACTIONS.approvalApprove);
    await until(
      async () =>
        [...h.emulator.tenant(KEY_1)!.executions.byId.values()].find((e) =>
          String(e.received.params).includes('leak-node'),
        ),
      'the approved run',
    );

    h.clock.advance(60 * 60_000);
    await resultCardOf(h, first.id);

    // Replace key (here with another tenant's), and a run on it.
    await connectFromHome(h, bob, KEY_2);
    const second = await h.runNow(ALICE, 'T0SANDBOX', 'leak-after-replace', KEY_2);
    h.clock.advance(60 * 60_000);
    await resultCardOf(h, second.id);
    await until(
      async () =>
        h.fake.state.calls.find(
          (c) =>
            c.method === 'chat.postMessage' &&
            c.args.channel === 'C01OPS' &&
            JSON.stringify(c.args).includes(second.id) &&
            /succeeded|failed/i.test(JSON.stringify(c.args)),
        ),
      'a subscription notice',
    );

    // The store while everything is live (the key and tokens still held), and again once they are gone.
    const storeText = () => (kind === 'postgres' ? postgresStoreText(schema) : sqliteStoreText(h.dataDir));
    const whileLive = await storeText();
    expect(whileLive).toContain('sealed_key');

    // Disconnect from App Home, then the app is uninstalled.
    await bob.openHome();
    const home = await until(async () => {
      const view = h.fake.state.views[h.fake.state.homeViews[BOB] ?? ''];
      return view && JSON.stringify(view.view).includes(ACTIONS.connectRemove) ? view : undefined;
    }, 'the Disconnect button');
    await bob.act({ kind: 'view', view: home }, ACTIONS.connectRemove);
    await until(async () => (await h.runtime.tenants!.connections.status('T0SANDBOX')) === null, 'disconnected');
    const events = h.fake.oauth.uninstall('T0SANDBOX');
    expect(await h.deliver(events.appUninstalled)).toBe(200);
    expect(await h.deliver(events.tokensRevoked)).toBe(200);
    await until(async () => (await h.runtime.store.installations.get('T0SANDBOX'))?.sealed === null, 'tokens gone');

    // Rotation really happened: several bot tokens, each with its refresh token.
    const grants = [...h.fake.oauth.grants.values()];
    expect(grants.length).toBeGreaterThan(2);
    const secrets: Record<string, string> = {
      'API key 1': KEY_1,
      'API key 2': KEY_2,
      'refused API key': WRONG_KEY,
      'client secret': CLIENT_SECRET,
      'state secret': STATE_SECRET,
      'signing secret': SIGNING_SECRET,
      'encryption key': ENCRYPTION_KEY,
    };
    for (const [i, grant] of grants.entries()) {
      secrets[`bot token ${i}`] = grant.token;
      if (grant.refreshToken) secrets[`refresh token ${i}`] = grant.refreshToken;
    }
    expect(Object.keys(secrets).filter((k) => k.startsWith('refresh')).length).toBeGreaterThan(2);

    const afterwards = await storeText();
    expect(afterwards).toContain('T0SANDBOX');
    expect(leaksIn(whileLive, secrets)).toEqual([]);
    expect(leaksIn(afterwards, secrets)).toEqual([]);

    // Everything Slack was sent, but the OAuth exchanges themselves (oauth.v2.access carries the code and
    // the refresh token to Slack by design), and everything it shows.
    const toSlack = JSON.stringify({
      calls: h.fake.state.calls.filter((c) => c.method !== 'oauth.v2.access'),
      messages: h.fake.state.messages,
      ephemerals: h.fake.state.ephemerals,
      views: h.fake.state.views,
    });
    expect(toSlack).toContain('leak-web');
    expect(leaksIn(toSlack, secrets)).toEqual([]);

    const logs = h.logs.join('');
    expect(logs).toContain('app installed');
    expect(leaksIn(logs, secrets)).toEqual([]);
  }, 60_000);
});
