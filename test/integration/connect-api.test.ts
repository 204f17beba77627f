// Each installation connects its own Runbook API, end to end through the real Bolt pipeline against the
// fake Slack: the bot's app built with `depsFor` (many-workspace deps, the installation from Bolt's
// authorization), an emulator serving tenants A and B by key. Until connected every command answers who
// can connect it (help still works); an admin connects from App Home; then commands reach that tenant
// only, and an execution id of tenant A is "not found" here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeEphemeral } from '../../src/sandbox/fake-slack-state.ts';
import { SlackUser } from '../../src/sandbox/slack-user.ts';
import { createSlackApp, type SlackAppHandle } from '../../src/slack/app.ts';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import { BOT_TOKEN, type Harness, SIGNING_SECRET, startHarness, waitFor } from '../support/bot-harness.ts';
import { B_RUNBOOKS, INSTALLER, KEY_A, KEY_B, startTenancyEnv, type TenancyEnv } from '../unit/slack/tenancy-env.ts';

let h: Harness;
let t: TenancyEnv;
let app: SlackAppHandle;
let botUrl: string;
beforeAll(async () => {
  h = await startHarness();
  t = await startTenancyEnv(h.runtime.deps, h.runtime.store);
  app = createSlackApp(h.runtime.deps, {
    mode: 'http',
    botToken: BOT_TOKEN,
    signingSecret: SIGNING_SECRET,
    apiUrl: h.fake.url.endsWith('/') ? h.fake.url : `${h.fake.url}/`,
    port: 0,
    depsFor: t.tenants.depsFor,
  });
  const { port } = await app.start();
  botUrl = `http://127.0.0.1:${port}/slack/events`;
});
afterAll(async () => {
  await app?.stop();
  await t?.close();
  await h?.stop();
});

const user = (userId: string) => new SlackUser({ fake: h.fake, botUrl, signingSecret: SIGNING_SECRET, userId });
const ephemeralSince = (since: number, needle: string, userId = 'U01ALICE'): FakeEphemeral | undefined =>
  h.fake.state.ephemerals
    .slice(since)
    .find((e) => e.user === userId && (e.text.includes(needle) || JSON.stringify(e.blocks).includes(needle)));

describe('connecting a workspace to its Runbook API', () => {
  it('answers every command with who can connect it until connected; help still works', async () => {
    const since = h.fake.state.ephemerals.length;
    await user('U01ALICE').command('list', 'C01OPS');
    const answer = await waitFor(() => ephemeralSince(since, 'not connected to a Runbook API yet'), 'not connected');
    expect(answer.text).toContain(`<@${INSTALLER}>`);
    // The installer is a live mention where the person reads it too, never shown as raw "<@U…>".
    expect(JSON.stringify(answer.blocks)).toContain(`<@${INSTALLER}>`);
    expect(JSON.stringify(answer.blocks)).not.toContain('&lt;@');
    const helpFrom = h.fake.state.ephemerals.length;
    await user('U01ALICE').command('help', 'C01OPS');
    await waitFor(() => ephemeralSince(helpFrom, '/runbook'), 'help');
    expect(ephemeralSince(helpFrom, 'not connected')).toBeUndefined();
    // Nothing reached tenant A or B on behalf of this workspace.
    expect(t.emulator.tenant(KEY_B)!.requests.snapshot().total).toBe(0);
  });

  it('an admin connects from App Home; then commands reach that tenant only', async () => {
    const bob = user('U02BOB'); // is_admin in the fake Slack
    await bob.openHome();
    const homeId = await waitFor(() => h.fake.state.homeViews.U02BOB, 'home');
    const home = () => h.fake.state.views[homeId]!;
    await waitFor(() => JSON.stringify(home().view).includes(ACTIONS.connectOpen), 'Connect button');
    await bob.act({ kind: 'view', view: home() }, ACTIONS.connectOpen);
    const form = await waitFor(() => {
      const top = bob.topModal();
      return top && JSON.stringify(top.view).includes(BLOCKS.connectKey) ? top : undefined;
    }, 'connect form');
    await bob.submit(form.id, {
      [BLOCKS.connectKey]: { [ACTIONS.connectKey]: { type: 'plain_text_input', value: KEY_B } },
    });
    await waitFor(() => JSON.stringify(bob.topModal()?.view ?? {}).includes('Connected to'), 'connected');
    await waitFor(() => JSON.stringify(home().view).includes('Connected to'), 'home refreshed');
    expect(JSON.stringify(h.fake.state.calls)).not.toContain(KEY_B);

    const since = h.fake.state.ephemerals.length;
    await user('U01ALICE').command('list', 'C01OPS');
    const list = await waitFor(() => ephemeralSince(since, B_RUNBOOKS[0]!), 'tenant B list');
    expect(JSON.stringify(list.blocks)).toContain(B_RUNBOOKS[1]!);
    expect(JSON.stringify(list.blocks)).not.toContain('Find Unattached EBS Volumes');
  });

  it('says an execution of another tenant is not found', async () => {
    const other = [...t.emulator.tenant(KEY_A)!.executions.byId.keys()][0]!;
    const since = h.fake.state.ephemerals.length;
    await user('U01ALICE').command(`status ${other}`, 'C01OPS');
    const answer = await waitFor(() => ephemeralSince(since, other), 'status answer');
    expect(`${answer.text} ${JSON.stringify(answer.blocks)}`).toMatch(/not found|No execution/i);
    expect(JSON.stringify(answer.blocks)).not.toContain(
      t.emulator.tenant(KEY_A)!.executions.byId.get(other)!.workflowName,
    );
  });
});
