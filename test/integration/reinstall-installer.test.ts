// Many workspaces: "whoever installed the app" may connect it, but a member who runs Add to Slack again on
// a workspace already connected (Slack lets members install apps unless the workspace requires approval)
// becomes the stored installer without being given the connection: they cannot replace the key, disconnect
// it or change the approval settings (nor can anyone who reinstalls after an uninstall, the connection being
// kept). Whoever installed and connected it keeps those rights; an admin keeps them always.
// End to end through Bolt's installer and the fake Slack's consent page, on two replicas (Carol's requests
// reach the second, which reads the installation as it is stored now).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeView } from '../../src/sandbox/fake-slack-state.ts';
import { SlackUser } from '../../src/sandbox/slack-user.ts';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import {
  addZed,
  connectFromHome,
  type OAuthHarness,
  publishedHomeOf,
  SIGNING_SECRET,
  startOAuthHarness,
  until,
} from '../support/oauth-harness.ts';
import { answer as answerOf } from '../support/tenant-flows.ts';
import { TEST_DATABASE_URL, withPostgres } from '../support/test-database.ts';

const KEY_OTHER = 'mallory-tenant-key-0123456789';
const TEAM = 'T0SANDBOX';
const schema = `test_${randomBytes(6).toString('hex')}`;
let h: OAuthHarness;
let other: { origin: string };

beforeAll(async () => {
  h = await startOAuthHarness({
    tenants: { [KEY_OTHER]: { name: 'mallory', runbooks: ['Drain Kubernetes Node'] } },
    env: { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema },
  });
  other = await h.replica();
}, 60_000);
afterAll(async () => {
  await h?.stop();
  await withPostgres((c) => c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
});

const alice = () => h.user('U01ALICE', TEAM);
const carol = () =>
  new SlackUser({
    fake: h.fake,
    botUrl: `${other.origin}/slack/events`,
    signingSecret: SIGNING_SECRET,
    userId: 'U03CAROL',
    teamId: TEAM,
  });
/** Who Slack says installed it last (the installation the bot stored is that grant's). */
const installer = async () =>
  [...h.fake.oauth.grants.values()].filter((g) => g.installationId === TEAM).at(-1)?.installerUserId ?? null;
const homeView = (userId: string): FakeView => h.fake.state.views[h.fake.state.homeViews[userId] ?? '']!;

async function uninstall(team = TEAM): Promise<void> {
  const events = h.fake.oauth.uninstall(team);
  expect(await h.deliver(events.appUninstalled)).toBe(200);
  expect(await h.deliver(events.tokensRevoked)).toBe(200);
  await until(async () => (await h.runtime.store.installations.get(team))?.sealed === null, 'the uninstall');
}

async function installAs(userId: string, team = TEAM): Promise<void> {
  h.fake.oauth.signIn(userId);
  expect((await h.install(team, { connect: false })).status).toBe(200);
}

describe('a reinstall by a member does not hand them the connection', () => {
  let aliceHome: FakeView;

  it('Alice (a member) installs and connects it: she installed it', async () => {
    await installAs('U01ALICE');
    expect(await installer()).toBe('U01ALICE');
    await connectFromHome(h, alice(), 'test-api-key-0123456789');
    const home = await publishedHomeOf(h, alice());
    expect(home.text).toContain(ACTIONS.connectRemove);
    expect(home.text).toContain(ACTIONS.settingsOpen);
    aliceHome = structuredClone(homeView('U01ALICE'));
  });

  it('Carol (a member) adds it again: she is now the installer, but is given no Replace key, Disconnect nor settings', async () => {
    await installAs('U03CAROL');
    expect(await installer()).toBe('U03CAROL');
    const home = await publishedHomeOf(h, carol());
    expect(home.text).toContain('Connected to');
    expect(home.text).not.toContain(ACTIONS.connectOpen);
    expect(home.text).not.toContain(ACTIONS.connectRemove);
    expect(home.text).not.toContain(ACTIONS.settingsOpen);
  });

  it("Carol pressing Alice's Replace key, Disconnect and Approval settings is refused; nothing changes", async () => {
    const before = await h.runtime.tenants!.connections.status(TEAM);
    expect(before?.connectedBy).toBe('U01ALICE');
    const callsBefore = h.fake.state.calls.length;
    for (const action of [ACTIONS.connectOpen, ACTIONS.settingsOpen]) {
      await carol().act({ kind: 'view', view: aliceHome }, action);
      await until(async () => {
        const top = carol().topModal();
        return top && JSON.stringify(top.view).includes('Only a workspace admin or owner') ? top : null;
      }, `the refusal of ${action}`);
      h.fake.closeModal('U03CAROL');
    }
    const removeFrom = h.fake.state.calls.length;
    await carol().act({ kind: 'view', view: aliceHome }, ACTIONS.connectRemove);
    await until(
      async () =>
        h.fake.state.calls
          .slice(removeFrom)
          .some((c) => JSON.stringify(c.args).includes('Only a workspace admin or owner')),
      'the refusal of Disconnect',
    );
    expect(await h.runtime.tenants!.connections.status(TEAM)).toEqual(before);
    const denials = await until(async () => {
      const found = (await h.runtime.store.audit.recent(50, TEAM)).filter(
        (e) => e.userId === 'U03CAROL' && e.outcome === 'denied',
      );
      return found.length === 3 ? found : null;
    }, "Carol's three refusals in the audit trail");
    expect(denials.map((e) => e.action).sort()).toEqual(['api.connect', 'api.disconnect', 'settings.update']);
    // Nothing Carol was shown or sent carries a key field.
    expect(JSON.stringify(h.fake.state.calls.slice(callsBefore))).not.toContain(BLOCKS.connectKey);
  });

  it('an admin still replaces it; after an uninstall, whoever adds it again does not get the kept connection', async () => {
    const bob = h.user('U02BOB', TEAM); // is_admin in the fake Slack
    expect((await publishedHomeOf(h, bob)).text).toContain(ACTIONS.connectRemove);
    await uninstall();
    await installAs('U01ALICE');
    // Alice installed and connected it: hers again.
    expect((await publishedHomeOf(h, alice())).text).toContain(ACTIONS.connectRemove);
    await uninstall();
    await installAs('U03CAROL');
    const home = await publishedHomeOf(h, carol());
    expect(home.text).toContain('Connected to');
    expect(home.text).not.toContain(ACTIONS.connectOpen);
  });

  it('on a workspace not connected, whoever installed it connects it', async () => {
    const bob = h.user('U02BOB', TEAM);
    const home = await publishedHomeOf(h, bob);
    expect(home.text).toContain(ACTIONS.connectRemove);
    await bob.act({ kind: 'view', view: homeView('U02BOB') }, ACTIONS.connectRemove);
    await until(async () => (await h.runtime.tenants!.connections.status(TEAM)) === null, 'disconnected');
    await connectFromHome(h, carol(), KEY_OTHER);
    expect((await h.runtime.tenants!.connections.status(TEAM))?.connectedBy).toBe('U03CAROL');
  });
});

describe('the installer is read when it decides, not when the workspace was first seen', () => {
  it('Sam installed it and left it unconnected; Zed adds it again: on the same replica, Zed may connect and Sam may not', async () => {
    addZed(h);
    const sam = h.user('U11SAM', 'T0SECOND');
    const zed = h.user('U12ZED', 'T0SECOND');
    await installAs('U11SAM', 'T0SECOND');
    const samHome = await publishedHomeOf(h, sam);
    expect(samHome.text).toContain(ACTIONS.connectOpen);
    const samView = structuredClone(homeView('U11SAM'));
    await uninstall('T0SECOND');
    await installAs('U12ZED', 'T0SECOND');
    expect((await publishedHomeOf(h, sam)).text).not.toContain(ACTIONS.connectOpen);
    const zedHome = await publishedHomeOf(h, zed);
    expect(zedHome.text).toContain(ACTIONS.connectOpen);
    expect(zedHome.text).toContain('press *Connect* below');
    // Every command there names Zed as who may connect it now, not Sam.
    const said = await answerOf(h, { id: 'U12ZED', team: 'T0SECOND' }, 'list', 'not connected');
    expect(JSON.stringify(said)).toContain('<@U12ZED> (who installed the app)');
    expect(JSON.stringify(said)).not.toContain('U11SAM');
    // Sam's old Connect button, pressed now: refused, no key field.
    await sam.act({ kind: 'view', view: samView }, ACTIONS.connectOpen);
    await until(async () => {
      const top = sam.topModal();
      return top && JSON.stringify(top.view).includes('Only a workspace admin or owner') ? top : null;
    }, "the refusal of Sam's Connect");
  });
});
