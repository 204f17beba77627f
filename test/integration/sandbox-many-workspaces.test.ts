// The many-workspace sandbox's approvals (SANDBOX_MANY_WORKSPACES with nothing configured), through the
// real Bolt pipeline against the fake Slack: the first workspace is added, connected and given #approvals
// and Bob's group at start, as `npm start` does; a workspace added later has an approver of its own (Sid,
// in the second workspace's group), so a request made there can be approved there — the sandbox's default
// policy names no person of another workspace as the only approver. A restart keeps what was changed since.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_APPROVALS_CHANNEL, SANDBOX_MANY_WORKSPACES_POLICY_YAML } from '../../src/sandbox/sandbox-defaults.ts';
import { addFirstWorkspace, moveConnectionsToThisEmulator } from '../../src/sandbox/sandbox-workspaces.ts';
import type { SlackUser } from '../../src/sandbox/slack-user.ts';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import { waitFor, writePolicyFile } from '../support/bot-harness.ts';
import { API_KEY, type OAuthHarness, startOAuthHarness } from '../support/oauth-harness.ts';

const DRAIN = 'Drain Kubernetes Node';
let h: OAuthHarness;

beforeAll(async () => {
  // The sandbox's built-in policy, from a file here (the harness's runtime takes its policy from POLICY_FILE).
  h = await startOAuthHarness({
    env: { POLICY_FILE: writePolicyFile(SANDBOX_MANY_WORKSPACES_POLICY_YAML), RUNBOOK_PROXIES: 'proxy-dev=Dev proxy' },
  });
  await addFirstWorkspace(h.runtime, h.fake, { botOrigin: h.origin, apiKey: API_KEY, approvalSettings: true });
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

/** `/runbook run "Drain Kubernetes Node"` and Run as `person`; the approval request posted in `where`. */
async function requestDrain(person: SlackUser, userId: string, where: string, node: string) {
  const before = h.fake.state.messages[where]?.length ?? 0;
  await person.command(`run "${DRAIN}"`, 'C01OPS');
  const form = await waitFor(() => {
    const top = person.topModal();
    return top && JSON.stringify(top.view).includes('field_node_name') ? top : undefined;
  }, `${userId}'s run form`);
  await person.submit(form.id, {
    [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
    [BLOCKS.channel]: { [ACTIONS.channelSelect]: { type: 'conversations_select', selected_conversation: 'C01OPS' } },
    field_node_name: { value: { type: 'plain_text_input', value: node } },
  });
  return waitFor(
    () => h.fake.state.messages[where]?.slice(before).find((m) => JSON.stringify(m.blocks).includes(node)),
    `the approval request in ${where}`,
  );
}

const ranFor = (node: string) =>
  [...h.emulator.state.executions.byId.values()].filter((e) => String(e.received.params ?? '').includes(node));

describe('approvals in the many-workspace sandbox', () => {
  it("the first workspace: requests go to #approvals and only Bob's group approves", async () => {
    expect(await h.runtime.store.installationSettings.get('T0SANDBOX')).toMatchObject({
      approvalsChannel: SANDBOX_APPROVALS_CHANNEL,
      approverGroup: 'S0APPROVERS',
    });
    const alice = h.user('U01ALICE', 'T0SANDBOX');
    const request = await requestDrain(alice, 'U01ALICE', SANDBOX_APPROVALS_CHANNEL, 'node-first-1');
    const shown = JSON.stringify(request.blocks);
    expect(shown).toContain('S0APPROVERS');
    expect(shown).not.toContain('S0SECONDAPPROVERS');
    await h.user('U02BOB', 'T0SANDBOX').act({ kind: 'message', message: request }, ACTIONS.approvalApprove);
    const run = await waitFor(() => ranFor('node-first-1')[0], "Bob's approval runs it");
    expect(run.received.userId).toBe('U01ALICE');
  });

  it('a workspace added later: its own approver (Sid) approves its requests, by DM until it picks a channel', async () => {
    expect((await h.install('T0SECOND')).status).toBe(200);
    const sam = h.user('U11SAM', 'T0SECOND');
    const request = await requestDrain(sam, 'U11SAM', 'D12SID', 'node-second-1');
    expect(JSON.stringify(request.blocks)).toContain('S0SECONDAPPROVERS');
    // Only its own group: the policy names the others' too, but they are groups of other workspaces.
    expect(JSON.stringify(request.blocks)).not.toMatch(/S0APPROVERS|S0ACMEAPPROVERS/);
    await h.user('U12SID', 'T0SECOND').act({ kind: 'message', message: request }, ACTIONS.approvalApprove);
    const run = await waitFor(() => ranFor('node-second-1')[0], "Sid's approval runs it");
    expect(run.received.userId).toBe('U11SAM');
  });

  it('a Grid org added org-wide: a mention from one of its workspaces reaches the bot as the org', async () => {
    expect((await h.install('E0ACMEGRID', { connect: false })).status).toBe(200);
    const uma = h.user('U22UMA', 'T0GRIDB', { enterpriseId: 'E0ACMEGRID', isEnterpriseInstall: true });
    const since = h.fake.state.ephemerals.length;
    expect((await uma.mention('list', 'C01OPS')).status).toBe(200);
    // Authorized as the org's installation (not refused as "no installation for T0GRIDB"): it says who connects it.
    const answer = await waitFor(
      () => h.fake.state.ephemerals.slice(since).find((e) => e.user === 'U22UMA'),
      "the answer to Uma's mention",
    );
    expect(answer.text).toContain('not connected to a Runbook API yet');
  });

  it('a restart adds the first workspace again but keeps its connection and its settings as changed', async () => {
    const before = await h.runtime.tenants!.connections.status('T0SANDBOX');
    expect(before).not.toBeNull();
    const changed = {
      installationId: 'T0SANDBOX',
      approvalsChannel: 'C02DEPLOYS',
      approverGroup: 'S0APPROVERS',
      updatedBy: 'U02BOB',
      updatedAt: Date.now(),
    };
    await h.runtime.store.installationSettings.put(changed);
    await addFirstWorkspace(h.runtime, h.fake, { botOrigin: h.origin, apiKey: API_KEY, approvalSettings: true });
    expect(await h.runtime.store.installationSettings.get('T0SANDBOX')).toMatchObject({
      approvalsChannel: 'C02DEPLOYS',
    });
    expect((await h.runtime.tenants!.connections.status('T0SANDBOX'))?.connectedAt).toBe(before!.connectedAt);
  });

  it("a restart moves each stored connection to this run's built-in emulator, with its own key", async () => {
    // As an earlier run left it: the same sealed key, at the address of an emulator that is gone.
    const stored = (await h.runtime.store.apiConnections.get('T0SECOND'))!;
    await h.runtime.store.apiConnections.put({ ...stored, baseUrl: 'http://127.0.0.1:9' }, Date.now());
    await moveConnectionsToThisEmulator(h.runtime, h.fake);
    expect((await h.runtime.tenants!.connections.status('T0SECOND'))?.baseUrl).toBe(h.emulator.url);
    expect((await h.runtime.tenants!.connections.status('T0SECOND'))?.connectedBy).toBe(stored.connectedBy);
    // And it works: Sam's command reaches the API again.
    const since = h.fake.state.ephemerals.length;
    await h.user('U11SAM', 'T0SECOND').command('list', 'C01OPS');
    const answer = await waitFor(
      () => h.fake.state.ephemerals.slice(since).find((e) => e.user === 'U11SAM'),
      "Sam's list",
    );
    expect(JSON.stringify(answer)).toContain('runbooks');
  });

  it("a workspace's token finds only its own people by email, as Slack's (a run of another workspace's person shows the email)", async () => {
    const grant = [...h.fake.oauth.grants.values()].find((g) => g.installationId === 'T0SECOND' && !g.revoked)!;
    const lookup = async (email: string) => {
      const res = await fetch(
        `${h.fake.url.replace(/\/?$/, '/')}users.lookupByEmail?email=${encodeURIComponent(email)}`,
        {
          headers: { authorization: `Bearer ${grant.token}` },
        },
      );
      return (await res.json()) as { ok: boolean; error?: string; user?: { id: string } };
    };
    expect((await lookup('sam@example.com')).user?.id).toBe('U11SAM');
    expect(await lookup('alice@example.com')).toMatchObject({ ok: false, error: 'users_not_found' });
  });
});
