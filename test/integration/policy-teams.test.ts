// One policy file for many workspaces, its rules naming teams, end to end through the real runtime (Bolt's
// OAuth installer, the fake Slack, the emulator serving a tenant per installation): two workspaces (A, B)
// and an Enterprise Grid org installed org-wide (G: workspaces GA and GB). A change freeze naming A refuses
// A's run and lets B's; an approval rule naming the Grid org holds in both of its workspaces and not in B; a
// permission rule naming one workspace holds there only (B may not schedule; GA may not read the audit
// trail, GB may). Each workspace's App Home settings only narrow: B cannot take the approver group of the
// org's rule, G can, and neither G's settings drop the org's approval nor A's escape A's freeze.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import { writePolicyFile } from '../support/bot-harness.ts';
import { API_KEY, DRAIN, type OAuthHarness, SCALE, startOAuthHarness, until } from '../support/oauth-harness.ts';
import { answer as answerIn, type Person, personIn, textOf } from '../support/tenant-flows.ts';
import { installAndConnect, KEY_B, KEY_G } from '../support/three-installations.ts';

const POLICY = `
contact: "#platform"
approvers: { users: [U02BOB, U22UMA], groups: [S0APPROVERS] }
rules:
  - name: second may not schedule
    effect: deny
    actions: [schedule]
    teams: [T0SECOND]
  - name: grid A does not read the audit trail
    effect: deny
    actions: [audit]
    teams: [T0GRIDA]
approvals:
  - name: the grid org approves scaling
    teams: [E0ACMEGRID]
    runbooks: { names: ["Scale *"] }
    approvers: { users: [U21EVA, U22UMA], groups: [S0GRIDOPS] }
freezes:
  - name: sandbox holiday
    teams: [T0SANDBOX]
    start: 2020-01-01T00:00
    end: 2099-01-01T00:00
    runbooks: { names: ["Scale *"] }
`;

const ALICE = { id: 'U01ALICE', team: 'T0SANDBOX' };
const BOB = { id: 'U02BOB', team: 'T0SANDBOX' };
const SAM = { id: 'U11SAM', team: 'T0SECOND' };
const EVA = { id: 'U21EVA', team: 'T0GRIDA' };
const UMA = { id: 'U22UMA', team: 'T0GRIDB' };

let h: OAuthHarness;
beforeAll(async () => {
  h = await startOAuthHarness({
    tenants: {
      [KEY_B]: { name: 'beta', runbooks: [SCALE, DRAIN] },
      [KEY_G]: { name: 'gamma', runbooks: [SCALE, DRAIN] },
    },
    env: { POLICY_FILE: writePolicyFile(POLICY), RUNBOOK_PROXIES: 'proxy-dev' },
  });
  // A group of the org's US workspace (as Slack's, it is listed only with the org's token and that team).
  h.fake.state.usergroups.S0GRIDOPS = { handle: 'gridops', users: [UMA.id], teamId: UMA.team };
  // Sam and Uma administer their workspaces (they may change its approval settings).
  for (const user of h.fake.state.users) if (user.id === SAM.id || user.id === UMA.id) user.is_admin = true;
  for (const [installation, apiKey] of [
    ['T0SANDBOX', API_KEY],
    ['T0SECOND', KEY_B],
    ['E0ACMEGRID', KEY_G],
  ] as const)
    await installAndConnect(h, installation, apiKey);
}, 30_000);
afterAll(() => h?.stop());

const userOf = (p: Person) => personIn(h, p);

const said = (who: Person, command: string, needle: RegExp) => answerIn(h, who, command, needle);
const answer = async (who: Person, command: string, needle: RegExp) => textOf(await said(who, command, needle));

const scaleNow = (who: { id: string; team: string }, deployment: string) =>
  said(
    who,
    `run "${SCALE}" namespace=prod deployment=${deployment} replicas=2 --now`,
    new RegExp(`${ACTIONS.confirmRun}|cannot run now|needs approval`),
  );
const runNow = async (who: { id: string; team: string }, deployment: string) => textOf(await scaleNow(who, deployment));

/** The approval settings form of `who`'s workspace, opened from App Home; the answer to submitting `group`. */
async function submitApproverGroup(who: { id: string; team: string }, group: string): Promise<string> {
  const person = userOf(who);
  await person.openHome();
  const homeId = await until(async () => h.fake.state.homeViews[who.id], `${who.id}'s home`);
  const home = () => h.fake.state.views[homeId]!;
  await until(async () => JSON.stringify(home().view).includes(ACTIONS.settingsOpen), 'Approval settings button');
  await person.act({ kind: 'view', view: home() }, ACTIONS.settingsOpen);
  const form = await until(async () => {
    const top = person.topModal();
    return top && JSON.stringify(top.view).includes(BLOCKS.settingsGroup) ? top : null;
  }, 'the settings form');
  const res = await person.submit(form.id, {
    [BLOCKS.settingsChannel]: {
      [ACTIONS.settingsChannel]: { type: 'conversations_select', selected_conversation: null },
    },
    [BLOCKS.settingsGroup]: { [ACTIONS.settingsGroup]: { type: 'plain_text_input', value: group } },
  });
  expect(res.status).toBe(200);
  return JSON.stringify((JSON.parse(res.body) as { view?: unknown }).view);
}

describe('policy rules naming teams, in two workspaces and a Grid org', () => {
  it("a freeze naming A refuses A's run and lets B's", async () => {
    expect(await runNow(ALICE, 'alpha-frozen')).toContain('change freeze “sandbox holiday”');
    const confirm = await scaleNow(SAM, 'beta-free');
    await userOf(SAM).act({ kind: 'ephemeral', ephemeral: confirm }, ACTIONS.confirmRun);
    const executions = () => [...h.emulator.tenant(KEY_B)!.executions.byId.values()];
    await until(async () => executions().find((e) => String(e.received.params).includes('beta-free')), "B's run");
    const inA = [...h.emulator.state.executions.byId.values()];
    expect(inA.find((e) => String(e.received.params).includes('alpha-frozen'))).toBeUndefined();
    const [denied] = await h.runtime.store.audit.recent(1, 'T0SANDBOX');
    expect(denied).toMatchObject({ userId: ALICE.id, outcome: 'denied' });
  });

  it('an approval rule naming the Grid org holds in both of its workspaces and not in B', async () => {
    for (const who of [EVA, UMA]) {
      expect(await runNow(who, `gamma-${who.id}`)).toContain('the grid org approves scaling');
    }
    expect(await runNow(SAM, 'beta-no-approval')).toContain(ACTIONS.confirmRun);
  });

  it('a permission rule by team holds in the workspace it names only', async () => {
    // The schedule form opens on a refusal for Sam, on the form for Alice.
    const formOf = async (who: { id: string; team: string }) => {
      const person = userOf(who);
      await person.command(`schedule "${SCALE}"`, 'C01OPS');
      return until(async () => {
        const top = person.topModal();
        const text = top ? JSON.stringify(top.view) : '';
        return /Not allowed|may not|cron/.test(text) ? text : null;
      }, `${who.id}'s schedule form`);
    };
    expect(await formOf(SAM)).toContain('second may not schedule');
    const alices = await formOf(ALICE);
    expect(alices).not.toContain('second may not schedule');
    expect(alices).toContain(BLOCKS.cron);
    const eva = await answer(EVA, 'audit', /udit/);
    expect(eva).toContain('grid A does not read the audit trail');
    // Uma, in the org's other workspace, reads it (and sees Eva's refusal in it).
    expect(await answer(UMA, 'audit', /udit/)).toMatch(/^Audit trail \(latest \d+\)/);
  });

  it("a workspace's settings only narrow what the rules for its team allow", async () => {
    // B cannot take the group only the Grid org's rule names; the org can.
    const refused = await submitApproverGroup(SAM, 'S0GRIDOPS');
    expect(refused).toContain('Nothing was saved');
    expect(await h.runtime.store.installationSettings.get('T0SECOND')).toBeNull();
    expect(await submitApproverGroup(UMA, 'S0GRIDOPS')).toContain('Saved.');
    expect(await h.runtime.store.installationSettings.get('E0ACMEGRID')).toMatchObject({ approverGroup: 'S0GRIDOPS' });
    expect(await submitApproverGroup(BOB, 'S0APPROVERS')).toContain('Saved.');
    // Narrowed, the org's runs still need its approval and A's still meet its freeze.
    expect(await runNow(EVA, 'gamma-narrowed')).toContain('the grid org approves scaling');
    expect(await runNow(ALICE, 'alpha-narrowed')).toContain('change freeze “sandbox holiday”');
  });
});
