// Many workspaces: the operator's one policy names approver users, and a user id is a person of one
// workspace — in a Slack Connect channel a mention of another company's person leaks and may notify them.
// Through the real Bolt pipeline with two workspaces (A, B) and a Grid org installed org-wide (G), the policy
// naming each one's approver: no surface of A names B's or G's (run form, the waiting notice, the request
// and its updates, the requester's copy, App Home, show, help, a refusal and its audit row, a break-glass
// refusal, the Workflow step); where every approver named is elsewhere it says so, never "anyone"; a
// quorum still counts the people it does not name.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../src/sandbox/fake-slack-state.ts';
import { ACTIONS } from '../../src/slack/kit/ids.ts';
import {
  decisionUpdates,
  refusedDrainStep,
  shownFromNow,
  shownToAll,
  startThreeWithPolicy,
} from '../support/approver-surfaces.ts';
import {
  DRAIN,
  type OAuthHarness,
  publishedHomeOf,
  requestDrainApproval,
  SCALE,
  until,
} from '../support/oauth-harness.ts';
import { answer, type Person, personIn, textOf } from '../support/tenant-flows.ts';
import { INSTALLED, type Installed } from '../support/three-installations.ts';

const { A, B, G } = INSTALLED;
const CAROL: Person = { id: 'U03CAROL', team: 'T0SANDBOX' };
const LOGS = 'Collect Kubernetes Pod Logs';
const FROZEN = 'Rotate Nginx Logs';
const HOUR = 60 * 60_000;
const POLICY = `
contact: "#platform"
approvers: { users: [${A.approver.id}, ${B.approver.id}, ${G.approver.id}] }
approvals:
  - name: two of them
    runbooks: { names: ["${SCALE}"] }
    quorum: { approvals: 2 }
  - name: only B's approver
    runbooks: { names: ["${LOGS}"] }
    approvers: { users: [${B.approver.id}] }
freezes:
  - name: Users freeze
    start: "${new Date(Date.now() - 24 * HOUR).toISOString()}"
    end: "${new Date(Date.now() + 24 * HOUR).toISOString()}"
    runbooks: { names: ["${FROZEN}"] }
`;
const APPROVERS = [A, B, G].map((inst) => inst.approver.id);
const ELSEWHERE = 'nobody in this workspace (the policy names approvers of other workspaces only)';

let h: OAuthHarness;
beforeAll(async () => {
  h = await startThreeWithPolicy(POLICY);
}, 30_000);
afterAll(() => h?.stop());

const userOf = (p: Person) => personIn(h, p);
/** The approvers a text mentions (each once). */
const mentioned = (text: string) => [
  ...new Set([...text.matchAll(/<@(U\w+)>/g)].map((m) => m[1]!).filter((id) => APPROVERS.includes(id))),
];
/** The approvers of other installations than `inst` that a text mentions. */
const othersIn = (inst: Installed, text: string) => mentioned(text).filter((id) => id !== inst.approver.id);

/** The form of `runbook` as `who` opens it (closed again): its text. */
async function formOf(who: Person, runbook: string): Promise<string> {
  const user = userOf(who);
  await user.command(`run "${runbook}"`, 'C01OPS');
  const form = await until(async () => {
    const top = user.topModal();
    const text = JSON.stringify(top?.view ?? {});
    return text.includes(`*${runbook}*`) && text.includes('needs approval') ? top : null;
  }, `the form of ${runbook}`);
  h.fake.closeModal(who.id);
  return JSON.stringify(form.view);
}

const requests: Partial<Record<'A' | 'B' | 'G', { message: FakeMessage; approvalId: string; form: string }>> = {};

describe('approver users, per installation', () => {
  it.each([A, B, G])("$key's run form, waiting notice and request name only its own approver", async (inst) => {
    const shown = shownFromNow(h);
    const request = await requestDrainApproval(h, userOf(inst.requester), `node-${inst.key}`);
    requests[inst.key] = request;
    expect(request.form).toContain(`<@${inst.approver.id}> can approve it`);
    expect(mentioned(request.form)).toEqual([inst.approver.id]);
    expect(mentioned(textOf(request.message))).toEqual([inst.approver.id]);
    // The notice where the requester typed: who it waits for.
    const waiting = await until(
      async () => shown(inst.requester.id).find((t) => t.includes('waiting for it')),
      'the waiting notice',
    );
    expect(mentioned(waiting)).toEqual([inst.approver.id]);
  });

  it.each([A, B, G])("$key's quorum counts every approver but names only its own", async (inst) => {
    const form = await formOf(inst.requester, SCALE);
    expect(form).toContain(`it needs approval from 2 of <@${inst.approver.id}> and 2 people of other workspaces`);
    expect(mentioned(form)).toEqual([inst.approver.id]);
  });

  it('where every approver named is of another workspace it says so, never "anyone"', async () => {
    expect(await formOf(B.requester, LOGS)).toContain(`<@${B.approver.id}> can approve it`);
    for (const inst of [A, G]) {
      const form = await formOf(inst.requester, LOGS);
      expect(form).toContain(`${ELSEWHERE} can approve it`);
      expect(form).not.toContain('anyone');
      expect(mentioned(form)).toEqual([]);
    }
  });

  it("A's other surfaces name no other workspace's approver: App Home, show, help, refusals, audit, step", async () => {
    expect(othersIn(A, (await publishedHomeOf(h, userOf(A.approver))).text)).toEqual([]);
    expect(othersIn(A, (await publishedHomeOf(h, userOf(A.requester))).text)).toEqual([]);
    expect(othersIn(A, textOf(await answer(h, A.requester, `show "${DRAIN}"`, DRAIN)))).toEqual([]);
    expect(othersIn(A, textOf(await answer(h, A.requester, 'help', /\S/)))).toEqual([]);
    // Carol (of A, no approver) clicks Approve on A's request: refused, naming A's approver only; audited so.
    const shown = shownFromNow(h);
    await userOf(CAROL).act({ kind: 'message', message: requests.A!.message }, ACTIONS.approvalApprove);
    const refusal = await until(
      async () => shown(CAROL.id).find((t) => t.includes('not an approver')),
      "Carol's refusal",
    );
    expect(mentioned(refusal)).toEqual([A.approver.id]);
    const [denied] = await h.runtime.store.audit.recent(1, A.installation);
    expect(denied).toMatchObject({ userId: CAROL.id, outcome: 'denied' });
    expect(othersIn(A, JSON.stringify(denied))).toEqual([]);
    // Carol may not break the freeze: who may is A's approver only.
    const glass = textOf(await answer(h, CAROL, `freezes break "${FROZEN}" --reason "users"`, /may not break/));
    expect(mentioned(glass)).toEqual([A.approver.id]);
    expect(othersIn(A, textOf(await answer(h, A.approver, 'audit', /udit/)))).toEqual([]);
    // The Workflow step needing approval is refused without naming another's approver.
    const error = await refusedDrainStep(h, A.requester);
    expect(error).toContain('needs approval');
    expect(othersIn(A, error)).toEqual([]);
  });

  it("the decision's updates name only A's approver; nothing sent with A's token names another's", async () => {
    const since = h.fake.state.calls.length;
    await userOf(A.approver).act({ kind: 'message', message: requests.A!.message }, ACTIONS.approvalApprove);
    const updates = await decisionUpdates(h, A.installation, since);
    for (const update of updates) expect(othersIn(A, JSON.stringify(update.args))).toEqual([]);
    // Every call with A's token, and everything shown to A's people: no other workspace's approver.
    const named = h.fake.state.calls
      .filter((c) => c.installation === A.installation)
      .flatMap((c) => othersIn(A, JSON.stringify(c.args)).map((id) => `${c.method}: ${id}`));
    expect(named).toEqual([]);
    expect(othersIn(A, shownToAll(h, [A.requester.id, A.approver.id, CAROL.id]))).toEqual([]);
  });
});
