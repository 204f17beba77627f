// Many workspaces: the operator's one policy file names approvers by user id (and user group) for every
// workspace, but a user id is a person of one workspace (or of a Grid org's workspaces). Through the real
// Bolt pipeline with two workspaces and a Grid org installed org-wide: a request is sent by DM only to the
// named approvers (and group members) who belong to the installation it was made in; a named approver of
// another workspace, even acting there where external users are allowed, neither sees it in App Home nor
// can approve it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../src/sandbox/fake-slack-state.ts';
import { ACTIONS } from '../../src/slack/kit/ids.ts';
import { writePolicyFile } from '../support/bot-harness.ts';
import {
  addZed,
  type OAuthHarness,
  publishedHomeOf,
  requestDrainApproval,
  startOAuthHarness,
  until,
} from '../support/oauth-harness.ts';

const GRID = { enterpriseId: 'E0ACMEGRID', isEnterpriseInstall: true };
const POLICY = `
contact: "#platform"
externalUsers: allow
approvers: { users: [U02BOB, U12ZED, U22UMA], groups: [S0MIXED] }
`;

type Person = { id: string; team: string };
const ALICE = { id: 'U01ALICE', team: 'T0SANDBOX' };
const BOB = { id: 'U02BOB', team: 'T0SANDBOX' };
const SAM = { id: 'U11SAM', team: 'T0SECOND' };
const ZED = { id: 'U12ZED', team: 'T0SECOND' };
const EVA = { id: 'U21EVA', team: 'T0GRIDA' };
const UMA = { id: 'U22UMA', team: 'T0GRIDB' };
const NAMED = [BOB.id, ZED.id, UMA.id, EVA.id];

let h: OAuthHarness;
beforeAll(async () => {
  h = await startOAuthHarness({ env: { POLICY_FILE: writePolicyFile(POLICY) } });
  addZed(h);
  // One group id the policy names, with people of every workspace in it (as an org-level group may have).
  h.fake.state.usergroups.S0MIXED = { handle: 'mixed', users: [BOB.id, ZED.id, EVA.id] };
  for (const target of ['T0SANDBOX', 'T0SECOND', 'E0ACMEGRID']) expect((await h.install(target)).status).toBe(200);
}, 30_000);
afterAll(() => h?.stop());

const userOf = (p: Person) => h.user(p.id, p.team, p.team.startsWith('T0GRID') ? GRID : undefined);

/** Who the bot opened a DM with, for `installation`, since call `since`. */
const dmsOf = (installation: string, since: number) =>
  h.fake.state.calls
    .slice(since)
    .filter((c) => c.method === 'conversations.open' && c.ok && c.installation === installation)
    .map((c) => String(c.args.users));

async function requestDrain(who: Person, node: string): Promise<{ message: FakeMessage; approvalId: string }> {
  const { message, approvalId } = await requestDrainApproval(h, userOf(who), node);
  // The requester's copy is DMed last: every approver's DM is out by then.
  await until(async () => (await h.runtime.store.approvals.get(approvalId))?.requesterTs, 'the requester’s copy');
  return { message, approvalId };
}

const homeOf = async (p: Person) => (await publishedHomeOf(h, userOf(p))).text;

describe('approvers named by user id or group, with many workspaces', () => {
  let requestA: { message: FakeMessage; approvalId: string };

  it("a workspace's request is DMed only to the named approvers and group members of that workspace", async () => {
    let since = h.fake.state.calls.length;
    requestA = await requestDrain(ALICE, 'alpha-node');
    expect(dmsOf('T0SANDBOX', since)).toContain(BOB.id);
    for (const other of [ZED.id, UMA.id, EVA.id]) expect(dmsOf('T0SANDBOX', since)).not.toContain(other);

    since = h.fake.state.calls.length;
    await requestDrain(SAM, 'beta-node');
    // Zed is named and in the group; Bob is named and in the group too, but is a person of another workspace.
    expect(dmsOf('T0SECOND', since)).toContain(ZED.id);
    for (const other of [BOB.id, UMA.id, EVA.id]) expect(dmsOf('T0SECOND', since)).not.toContain(other);

    // Nor is anyone of another workspace mentioned (a mention notifies) in what each installation posts.
    const mentioned = (installation: string) =>
      h.fake.state.calls
        .filter(
          (c) => (c.method === 'chat.postMessage' || c.method === 'chat.update') && c.installation === installation,
        )
        .map((c) => JSON.stringify(c.args))
        .join('');
    expect(mentioned('T0SANDBOX')).toContain(`<@${BOB.id}>`);
    for (const other of [ZED.id, UMA.id]) expect(mentioned('T0SANDBOX')).not.toContain(`<@${other}>`);
    expect(mentioned('T0SECOND')).toContain(`<@${ZED.id}>`);
    for (const other of [BOB.id, UMA.id]) expect(mentioned('T0SECOND')).not.toContain(`<@${other}>`);
  });

  it('an org-wide installation reaches the named approvers of every workspace of its org, and no one else', async () => {
    const since = h.fake.state.calls.length;
    await requestDrain(EVA, 'gamma-node');
    expect(dmsOf('E0ACMEGRID', since)).toContain(UMA.id);
    for (const other of [BOB.id, ZED.id]) expect(dmsOf('E0ACMEGRID', since)).not.toContain(other);
    // No approver of any workspace got another installation's request.
    const all = h.fake.state.calls.filter((c) => c.method === 'conversations.open' && c.ok);
    const crossing = all.filter((c) => {
      const who = String(c.args.users);
      const home = [ALICE, BOB, SAM, ZED, EVA, UMA].find((p) => p.id === who)?.team ?? '';
      const inst = home.startsWith('T0GRID') ? 'E0ACMEGRID' : home;
      return NAMED.includes(who) && c.installation !== inst;
    });
    expect(crossing.map((c) => [c.installation, c.args.users])).toEqual([]);
  });

  it('a named approver of another workspace acting in this one neither sees nor approves its request', async () => {
    const stranger = { id: ZED.id, team: 'T0SANDBOX' };
    expect(await homeOf(BOB)).toContain(requestA.approvalId);
    expect(await homeOf(stranger)).not.toContain(requestA.approvalId);

    const since = h.fake.state.ephemerals.length;
    await userOf(stranger).act({ kind: 'message', message: requestA.message }, ACTIONS.approvalApprove);
    const told = await until(
      async () => h.fake.state.ephemerals.slice(since).find((e) => e.user === ZED.id && /workspace/.test(e.text)),
      'the refusal',
    );
    expect(told.text).toContain('Only people of this workspace');
    const approval = await h.runtime.store.approvals.get(requestA.approvalId);
    expect(approval?.state).toBe('pending');
    expect(await h.runtime.store.approvals.votes(requestA.approvalId)).toEqual([]);
    expect(
      h.emulator.state.executions.byId.size === 0 ||
        ![...h.emulator.state.executions.byId.values()].some((e) => String(e.received.params).includes('alpha-node')),
    ).toBe(true);
    const denied = (await h.runtime.store.audit.recent(50)).find(
      (e) => e.action === 'approval.approve' && e.outcome === 'denied' && e.userId === ZED.id,
    );
    expect(denied?.detail).toContain('Only people of this workspace');

    // Reject shows the stranger nothing of it either (not even its runbook).
    const opened = h.fake.state.calls.length;
    await userOf(stranger).act({ kind: 'message', message: requestA.message }, ACTIONS.approvalReject);
    const modal = await until(
      async () => h.fake.state.calls.slice(opened).find((c) => c.method === 'views.open'),
      'the reject form',
    );
    // Told why (as Approve tells them), never that it does not exist.
    expect(JSON.stringify(modal.args)).toContain('Only people of this workspace');
    expect(JSON.stringify(modal.args)).not.toContain('no longer exists');
    expect(JSON.stringify(modal.args)).not.toContain('Drain');

    // Its own approver still approves it.
    await userOf(BOB).act({ kind: 'message', message: requestA.message }, ACTIONS.approvalApprove);
    await until(
      async () => (await h.runtime.store.approvals.get(requestA.approvalId))?.state === 'approved',
      'approved',
    );
  });

  it("in a Slack Connect channel shared by two installed workspaces, another workspace's approver is told whose request it is, audited", async () => {
    const request = await requestDrain(ALICE, 'delta-node');
    // Zed, an approver of T0SECOND, presses Approve on T0SANDBOX's request from his own workspace.
    const since = h.fake.state.ephemerals.length;
    await userOf(ZED).act({ kind: 'message', message: request.message }, ACTIONS.approvalApprove);
    const told = await until(
      async () => h.fake.state.ephemerals.slice(since).find((e) => e.user === ZED.id),
      'the refusal',
    );
    expect(told.text).toContain("made in another workspace: only that workspace's approvers can approve or reject it");
    expect(told.text).not.toContain('no longer exists');
    expect(told.text).not.toContain('Drain');
    expect(told.text).not.toContain('delta-node');

    const opened = h.fake.state.calls.length;
    await userOf(ZED).act({ kind: 'message', message: request.message }, ACTIONS.approvalReject);
    const modal = await until(
      async () => h.fake.state.calls.slice(opened).find((c) => c.method === 'views.open'),
      'the reject form',
    );
    const form = JSON.stringify(modal.args);
    expect(form).toContain('made in another workspace');
    expect(form).not.toContain('no longer exists');
    expect(form).not.toContain('Drain');

    // Nothing decided or voted; both clicks are in the audit trail as refusals, naming nothing but the id.
    expect((await h.runtime.store.approvals.get(request.approvalId))?.state).toBe('pending');
    expect(await h.runtime.store.approvals.votes(request.approvalId)).toEqual([]);
    const denials = (await h.runtime.store.audit.recent(100)).filter(
      (e) => e.userId === ZED.id && e.outcome === 'denied' && /another workspace/.test(e.detail ?? ''),
    );
    expect(denials.map((e) => [e.action, e.target]).sort()).toEqual([
      ['approval.approve', `approval ${request.approvalId}`],
      ['approval.reject', `approval ${request.approvalId}`],
    ]);

    // Its own approver still decides it.
    await userOf(BOB).act({ kind: 'message', message: request.message }, ACTIONS.approvalApprove);
    await until(
      async () => (await h.runtime.store.approvals.get(request.approvalId))?.state === 'approved',
      'approved',
    );
  });
});
