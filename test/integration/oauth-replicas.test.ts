// Two replicas on one Postgres in many-workspace mode: the install starts on one and Slack's redirect
// lands on the other (the state is in the store, taken once), a command on the first is authorized from
// what the second stored, a replayed redirect is refused on either, and the raw Postgres rows hold no
// token in clear, base64 or hex.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaksIn, postgresStoreText } from '../support/leak-check.ts';
import { type OAuthHarness, startOAuthHarness, until } from '../support/oauth-harness.ts';
import { TEST_DATABASE_URL, withPostgres } from '../support/test-database.ts';

const schema = `test_${randomBytes(6).toString('hex')}`;

let h: OAuthHarness;
let other: { origin: string };

beforeAll(async () => {
  h = await startOAuthHarness({
    env: {
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_SCHEMA: schema,
      SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    },
  });
  other = await h.replica();
  // Slack sends people back to the other replica (behind one load balancer, any replica may get it).
  h.fake.oauth.configureApp({ ...h.fake.oauth.app!, redirectUrl: `${other.origin}/slack/oauth_redirect` });
}, 60_000);

afterAll(async () => {
  await h?.stop();
  await withPostgres((c) => c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
});

describe('many workspaces on two replicas', () => {
  it('an install begun on one replica finishes on the other, and both serve the workspace', async () => {
    const landing = await fetch(`${h.origin}/slack/install`);
    const cookie = landing.headers.get('set-cookie')!.split(';')[0]!;
    const href = new URL(
      (await landing.text()).match(/id="add-to-slack" href="([^"]+)"/)![1]!.replaceAll('&amp;', '&'),
    );
    href.searchParams.set('install_to', 'T0SECOND');
    const consent = await fetch(href, { redirect: 'manual' });
    const back = consent.headers.get('location')!;
    expect(back.startsWith(other.origin)).toBe(true);
    const done = await fetch(back, { headers: { cookie } });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('runbook-bot is installed');
    // The same redirect again (a replay), on either replica: the state was taken.
    for (const origin of [other.origin, h.origin]) {
      const replay = await fetch(back.replace(other.origin, origin), { headers: { cookie } });
      expect(replay.status).toBe(400);
    }
    // The first replica authorizes the workspace's command from what the second stored.
    await h.runtime.tenants!.connections.connect('T0SECOND', { apiKey: 'test-api-key-0123456789' }, 'U0HARNESS');
    const before = h.fake.state.calls.length;
    await h.user('U11SAM', 'T0SECOND').command('run', 'C01OPS');
    const opened = await until(
      async () => h.fake.state.calls.slice(before).find((c) => c.method === 'views.open'),
      'the picker',
    );
    expect([opened.ok, opened.installation]).toEqual([true, 'T0SECOND']);
  });

  it('the Postgres rows hold no token nor API key in clear, base64 or hex', async () => {
    const grants = [...h.fake.oauth.grants.values()];
    expect(grants.length).toBeGreaterThan(0);
    const dump = await postgresStoreText(schema);
    expect(dump).toContain('T0SECOND');
    const secrets = Object.fromEntries(grants.map((g, i) => [`token ${i}`, g.token]));
    expect(leaksIn(dump, { ...secrets, 'API key': 'test-api-key-0123456789' })).toEqual([]);
  });
});
