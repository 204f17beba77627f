// A workspace's own approval settings, end to end through the real Bolt pipeline against the fake Slack
// (many-workspace deps, the installation from Bolt's authorization): an admin opens Approval settings in
// App Home; a group the operator's policy does not name is refused with the sentence and nothing is saved;
// a channel and a policy-named group are saved and audited; then an approval request of that workspace
// goes to that channel, and only the group's members may approve.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackUser } from '../../src/sandbox/slack-user.ts';
import { createSlackApp, type SlackAppHandle } from '../../src/slack/app.ts';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import {
  BOT_TOKEN,
  type Harness,
  modalContaining,
  SIGNING_SECRET,
  startHarness,
  waitFor,
} from '../support/bot-harness.ts';
import { INSTALLER, KEY_A, startTenancyEnv, type TenancyEnv } from '../unit/slack/tenancy-env.ts';

// Bob and Carol may approve by the policy (S0APPROVERS, S0LEADS); the workspace narrows it to S0APPROVERS.
const POLICY = `
approvers: { groups: [S0APPROVERS, S0LEADS] }
`;

let h: Harness;
let t: TenancyEnv;
let app: SlackAppHandle;
let botUrl: string;
let team: string;
beforeAll(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'policy-'));
  writeFileSync(path.join(dir, 'policy.yaml'), POLICY);
  h = await startHarness({ env: { POLICY_FILE: path.join(dir, 'policy.yaml') } });
  h.fake.state.usergroups.S0LEADS = { handle: 'leads', users: ['U03CAROL'] };
  t = await startTenancyEnv(h.runtime.deps, h.runtime.store, { groupsFromPolicy: true });
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
  team = h.fake.state.teamId;
  const connected = await t.connections.connect(team, { apiKey: KEY_A, baseUrl: null }, INSTALLER);
  expect(connected.ok).toBe(true);
});
afterAll(async () => {
  await app?.stop();
  await t?.close();
  await h?.stop();
});

const user = (userId: string) => new SlackUser({ fake: h.fake, botUrl, signingSecret: SIGNING_SECRET, userId });
const DRAIN = 'Drain Kubernetes Node';

async function openSettings(userId: string) {
  const person = user(userId);
  await person.openHome();
  const homeId = await waitFor(() => h.fake.state.homeViews[userId], 'home');
  const home = () => h.fake.state.views[homeId]!;
  await waitFor(() => JSON.stringify(home().view).includes(ACTIONS.settingsOpen), 'Approval settings button');
  await person.act({ kind: 'view', view: home() }, ACTIONS.settingsOpen);
  const form = await waitFor(() => {
    const top = person.topModal();
    return top && JSON.stringify(top.view).includes(BLOCKS.settingsGroup) ? top : undefined;
  }, 'settings form');
  return { person, form, home };
}

async function answerOf(res: { status: number; body: string }): Promise<string> {
  expect(res.status).toBe(200);
  const answer = JSON.parse(res.body) as { response_action?: string; view?: unknown };
  expect(answer.response_action).toBe('update');
  return JSON.stringify(answer.view);
}

function values(channel: string | null, group: string) {
  return {
    [BLOCKS.settingsChannel]: {
      [ACTIONS.settingsChannel]: { type: 'conversations_select', selected_conversation: channel },
    },
    [BLOCKS.settingsGroup]: { [ACTIONS.settingsGroup]: { type: 'plain_text_input', value: group } },
  };
}

describe("a workspace's approval settings", () => {
  it('a member sees where requests go but no Approval settings button', async () => {
    await user('U01ALICE').openHome();
    const homeId = await waitFor(() => h.fake.state.homeViews.U01ALICE, 'home');
    await waitFor(() => JSON.stringify(h.fake.state.views[homeId]!.view).includes('Approval requests go'), 'line');
    expect(JSON.stringify(h.fake.state.views[homeId]!.view)).not.toContain(ACTIONS.settingsOpen);
  });

  it('refuses a group the policy does not name, with the sentence, and saves nothing', async () => {
    const { person, form } = await openSettings('U02BOB');
    // The answer replaces the form (response_action update): the same form, the sentence above it.
    const shown = await answerOf(await person.submit(form.id, values('C02DEPLOYS', 'S0NOTNAMED')));
    expect(shown).toContain('Nothing was saved');
    expect(shown).toContain(BLOCKS.settingsGroup);
    expect(shown).toContain('Approvers can only be narrowed to a user group');
    // The id typed, as typed: a group the workspace may not even have is no mention (Slack would show it as
    // a bare "@group" or nothing at all).
    expect(shown).toContain('`S0NOTNAMED` is not one of them');
    expect(shown).not.toContain('subteam^S0NOTNAMED');
    expect(await h.runtime.store.installationSettings.get(team)).toBeNull();
    const [entry] = await h.runtime.store.audit.recent(1);
    expect(entry).toMatchObject({ action: 'settings.update', outcome: 'denied', userId: 'U02BOB', target: team });
  });

  it('saves a channel and a policy-named group; the request goes there and only the group approves', async () => {
    const { person, form, home } = await openSettings('U02BOB');
    expect(await answerOf(await person.submit(form.id, values('C02DEPLOYS', 's0approvers')))).toContain('Saved.');
    expect(await h.runtime.store.installationSettings.get(team)).toMatchObject({
      approvalsChannel: 'C02DEPLOYS',
      approverGroup: 'S0APPROVERS',
      updatedBy: 'U02BOB',
    });
    await waitFor(() => JSON.stringify(home().view).includes('<#C02DEPLOYS>'), 'home shows the channel');
    const [entry] = await h.runtime.store.audit.recent(1);
    expect(entry).toMatchObject({ action: 'settings.update', outcome: 'ok', userId: 'U02BOB' });

    const deploysBefore = h.fake.state.messages.C02DEPLOYS?.length ?? 0;
    await user('U01ALICE').command(`run "${DRAIN}"`, 'C01OPS');
    const modal = await waitFor(() => modalContaining(h, 'field_node_name'), 'run modal');
    expect(JSON.stringify(modal.view.blocks)).toContain('<#C02DEPLOYS>');
    await user('U01ALICE').submit(modal.id, {
      [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
      [BLOCKS.channel]: { [ACTIONS.channelSelect]: { type: 'conversations_select', selected_conversation: 'C01OPS' } },
      field_node_name: { value: { type: 'plain_text_input', value: 'node-settings-1' } },
    });
    const request = await waitFor(
      () =>
        h.fake.state.messages.C02DEPLOYS?.slice(deploysBefore).find((m) =>
          JSON.stringify(m.blocks).includes('node-settings-1'),
        ),
      'approval request in the workspace channel',
    );
    expect(JSON.stringify(request.blocks)).toContain('S0APPROVERS');
    expect(JSON.stringify(request.blocks)).not.toContain('S0LEADS');
    const approvalId = JSON.stringify(request.blocks).match(/"action_id":"approval_approve","value":"([^"]+)"/)![1]!;
    for (let i = 0; !(await h.runtime.store.approvals.get(approvalId))?.approversTs; i++) {
      if (i > 400) throw new Error('timed out waiting for the approval message refs');
      await new Promise((r) => setTimeout(r, 25));
    }
    const ran = () =>
      [...t.emulator.tenant(KEY_A)!.executions.byId.values()].filter((e) => e.received.requestId === approvalId);
    // Carol may approve by the policy (S0LEADS), but this workspace narrowed approvers to S0APPROVERS.
    const carolFrom = h.fake.state.ephemerals.length;
    await user('U03CAROL').act({ kind: 'message', message: request }, ACTIONS.approvalApprove);
    await waitFor(
      () =>
        h.fake.state.ephemerals
          .slice(carolFrom)
          .find((e) => e.user === 'U03CAROL' && e.text.includes('not an approver')),
      'Carol refused',
    );
    expect(ran()).toHaveLength(0);
    await user('U02BOB').act({ kind: 'message', message: request }, ACTIONS.approvalApprove);
    const run = await waitFor(() => ran()[0], 'approved run');
    expect(run.received.userId).toBe('U01ALICE');
  });
});
