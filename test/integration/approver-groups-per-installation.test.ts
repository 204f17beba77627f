// Many workspaces: the operator's one policy names each workspace's approver group, but a user group is a
// group of one workspace — another's is no group here, and in a Slack Connect channel its mention would
// notify another company's people. Through the real Bolt pipeline with two workspaces (A, B) and a Grid
// org installed org-wide (G), each with a group of its own in the fake Slack (which, as Slack, lists and
// reads a group only with a token of its workspace; an org token names the workspace with team_id): no
// surface of A names or mentions B's or G's group (run form, request and its updates, the requester's copy,
// App Home and its approval settings, `show`, help, a refusal and its audit row, the Workflow step), and
// the approvers a request is sent to are members of its own installation's group only, read with its token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../src/sandbox/fake-slack-state.ts';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import {
  decisionUpdates,
  refusedDrainStep,
  shownFromNow,
  shownToAll,
  startThreeWithPolicy,
} from '../support/approver-surfaces.ts';
import { DRAIN, type OAuthHarness, publishedHomeOf, requestDrainApproval, until } from '../support/oauth-harness.ts';
import { answer, type Person, personIn, textOf } from '../support/tenant-flows.ts';
import { INSTALLED } from '../support/three-installations.ts';

const { A, B, G } = INSTALLED;
const CAROL: Person = { id: 'U03CAROL', team: 'T0SANDBOX' };
/** Each installation's approver group, of the workspace its approver is in (G's: the org's other one). */
const GROUP = { A: 'S0AAPPROVERS', B: 'S0BAPPROVERS', G: 'S0GAPPROVERS' } as const;
const POLICY = `
contact: "#platform"
approvers: { groups: [${GROUP.A}, ${GROUP.B}, ${GROUP.G}] }
`;
const OTHERS_OF_A = [GROUP.B, GROUP.G];
const GROUP_B = GROUP.B;

let h: OAuthHarness;
beforeAll(async () => {
  h = await startThreeWithPolicy(POLICY, (harness) => {
    for (const inst of [A, B, G]) {
      harness.fake.state.usergroups[GROUP[inst.key]] = {
        handle: `approvers-${inst.key.toLowerCase()}`,
        users: [inst.approver.id],
        teamId: inst.approver.team,
      };
    }
  });
}, 30_000);
afterAll(() => h?.stop());

const userOf = (p: Person) => personIn(h, p);
/**
 * The groups a text names (as a mention or by id) — but for B's id as A's admin typed it into the settings
 * form, quoted back to them (and in the audit trail) as their input, never as a mention.
 */
const mentions = (text: string) =>
  [...text.replaceAll(`\`${GROUP_B}\``, '').matchAll(/S0[A-Z]APPROVERS/g)].map((m) => m[0]);

/** Who the bot opened a DM with, with `installation`'s token, since call `since`. */
const dmsOf = (installation: string, since: number) =>
  h.fake.state.calls
    .slice(since)
    .filter((c) => c.method === 'conversations.open' && c.ok && c.installation === installation)
    .map((c) => String(c.args.users));

/** The group member lookups made with `installation`'s token since `since`: group and the team named. */
const groupReadsOf = (installation: string, since: number) =>
  h.fake.state.calls
    .slice(since)
    .filter((c) => c.method === 'usergroups.users.list' && c.installation === installation)
    .map((c) => ({ group: String(c.args.usergroup), team: c.args.team_id ?? null, ok: c.ok }));

const requests: Partial<Record<'A' | 'B' | 'G', { message: FakeMessage; approvalId: string; form: string }>> = {};

describe('approver groups, per installation', () => {
  it.each([A, B, G])("$key's run form and request name only its own group; only its members get it", async (inst) => {
    const since = h.fake.state.calls.length;
    const request = await requestDrainApproval(h, userOf(inst.requester), `node-${inst.key}`);
    requests[inst.key] = request;
    expect(mentions(request.form)).toEqual([GROUP[inst.key]]);
    expect(request.form).toContain(`<!subteam^${GROUP[inst.key]}>`);
    expect(new Set(mentions(textOf(request.message)))).toEqual(new Set([GROUP[inst.key]]));
    // The request reaches the installation's own approver (its group's one member), by DM with its token.
    await until(
      async () => (await h.runtime.store.approvals.get(request.approvalId))?.requesterTs,
      'the requester’s copy',
    );
    expect(new Set(dmsOf(inst.installation, since))).toEqual(new Set([inst.approver.id, inst.requester.id]));
    expect(request.message.channel).toBe(h.fake.state.ims[inst.approver.id]);
    // Only its own group's members were read, with its token (an org's with the group's workspace).
    const reads = groupReadsOf(inst.installation, since);
    expect(reads.length).toBeGreaterThan(0);
    for (const read of reads) {
      expect(read).toMatchObject({ group: GROUP[inst.key], ok: true });
      // Named where the install is org-wide (Slack requires it of an org token); else its own, if any.
      if (inst.key === 'G') expect(read.team).toBe(inst.approver.team);
      else expect([null, inst.installation]).toContain(read.team);
    }
  });

  it("A's other surfaces name no other workspace's group: App Home, settings, show, help, a refusal, audit", async () => {
    const alice = userOf(A.requester);
    const bob = userOf(A.approver);
    // App Home of A's approver (the request waiting for him) and of its requester.
    expect(mentions((await publishedHomeOf(h, bob)).text).filter((g) => g !== GROUP.A)).toEqual([]);
    expect(mentions((await publishedHomeOf(h, alice)).text).filter((g) => g !== GROUP.A)).toEqual([]);
    // Approval settings (Bob is A's admin): the groups it may narrow to are A's own.
    const homeId = await until(async () => h.fake.state.homeViews[A.approver.id], "Bob's home");
    await bob.act({ kind: 'view', view: h.fake.state.views[homeId]! }, ACTIONS.settingsOpen);
    const form = await until(async () => {
      const top = bob.topModal();
      return top && JSON.stringify(top.view).includes(BLOCKS.settingsGroup) ? top : null;
    }, 'the settings form');
    expect(mentions(JSON.stringify(form.view))).toContain(GROUP.A);
    expect(mentions(JSON.stringify(form.view)).filter((g) => g !== GROUP.A)).toEqual([]);
    // Choosing B's group is refused, in a sentence that names A's only.
    const res = await bob.submit(form.id, {
      [BLOCKS.settingsChannel]: {
        [ACTIONS.settingsChannel]: { type: 'conversations_select', selected_conversation: null },
      },
      [BLOCKS.settingsGroup]: { [ACTIONS.settingsGroup]: { type: 'plain_text_input', value: GROUP.B } },
    });
    expect(res.body).toContain('Nothing was saved');
    expect(res.body).toContain(`\`${GROUP.B}\``);
    expect(new Set(mentions(res.body))).toEqual(new Set([GROUP.A]));
    expect(await h.runtime.store.installationSettings.get(A.installation)).toBeNull();
    // show and help.
    const shown = textOf(await answer(h, A.requester, `show "${DRAIN}"`, DRAIN));
    expect(mentions(shown).filter((g) => g !== GROUP.A)).toEqual([]);
    expect(mentions(textOf(await answer(h, A.requester, 'help', /\S/)))).toEqual([]);
    // Carol (of A, in no group) clicks Approve on A's request: refused, naming A's group only, and audited so.
    const shownToCarol = shownFromNow(h);
    await userOf(CAROL).act({ kind: 'message', message: requests.A!.message }, ACTIONS.approvalApprove);
    const refusal = await until(
      async () => shownToCarol(CAROL.id).find((t) => t.includes('not an approver')),
      "Carol's refusal",
    );
    expect(new Set(mentions(refusal))).toEqual(new Set([GROUP.A]));
    const [denied] = await h.runtime.store.audit.recent(1, A.installation);
    expect(denied).toMatchObject({ userId: CAROL.id, outcome: 'denied' });
    expect(mentions(JSON.stringify(denied))).toEqual([GROUP.A]);
    expect(mentions(textOf(await answer(h, A.approver, 'audit', /udit/))).filter((g) => g !== GROUP.A)).toEqual([]);
  });

  it("A's Workflow step, refused as it needs approval, names no other workspace's group", async () => {
    const error = await refusedDrainStep(h, A.requester);
    // It sends the person to the form (which names A's group, above) and names no group itself.
    expect(error).toContain('needs approval');
    expect(mentions(error)).toEqual([]);
  });

  it("the decision's updates name only A's group; nothing sent with A's token names another's", async () => {
    const since = h.fake.state.calls.length;
    await userOf(A.approver).act({ kind: 'message', message: requests.A!.message }, ACTIONS.approvalApprove);
    const updates = await decisionUpdates(h, A.installation, since);
    for (const update of updates)
      expect(mentions(JSON.stringify(update.args)).filter((g) => g !== GROUP.A)).toEqual([]);
    // Every call with A's token, and everything shown to A's people: no other workspace's group.
    const withA = h.fake.state.calls.filter((c) => c.installation === A.installation);
    const named = withA.flatMap((c) => mentions(JSON.stringify(c.args)).map((g) => `${c.method}: ${g}`));
    expect(named.filter((line) => OTHERS_OF_A.some((g) => line.endsWith(g)))).toEqual([]);
    const shown = shownToAll(h, [A.requester.id, A.approver.id, CAROL.id]);
    expect(mentions(shown).filter((g) => g !== GROUP.A)).toEqual([]);
  });
});
