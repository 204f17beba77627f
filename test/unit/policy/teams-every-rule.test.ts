// `teams:` on every rule kind (permission rules, approval rules, change freezes), with one meaning: a
// workspace id, or a Grid org id meaning every workspace of that org. Judged where the run is (the actor's
// workspace and org, and the installation the policy is applied for); a workspace that cannot be told
// fails closed. A bad id stops the file from loading with a sentence naming the rule and its line. What a
// workspace's own settings may narrow follows the rules for its team only.
import { describe, expect, it } from 'vitest';
import { PolicyError, parsePolicy, policyGroups } from '../../../src/policy/load-policy.ts';
import type { FreezeScope, Place, RunbookFacts } from '../../../src/policy/policy.ts';
import { wideningSentence } from '../../../src/runs/installation-settings.ts';

const drain: RunbookFacts = {
  id: 'r1',
  name: 'Drain Node',
  tags: ['k8s'],
  categories: [],
  isService: true,
  requiresApproval: false,
};

const A = 'T0ALPHA';
const B = 'T0BETA';
const ORG = 'E0GRID';
const GA = 'T0GRIDA';
const GB = 'T0GRIDB';

const POLICY = `
approvers: { groups: [S0SRE] }
rules:
  - name: beta may not schedule
    effect: deny
    actions: [schedule]
    teams: [${B}]
  - name: grid leads approve
    effect: allow
    actions: [approve]
    groups: [S0GRIDLEADS]
    teams: [${ORG}]
approvals:
  - name: the grid org approves drains
    teams: [${ORG}]
    runbooks: { names: ["Drain *"] }
    approvers: { groups: [S0GRIDOPS] }
  - name: grid A needs two
    teams: [${GA}]
    runbooks: { names: ["Drain *"] }
    approvers: { groups: [S0GRIDOPS] }
    quorum: { approvals: 2 }
freezes:
  - name: alpha holiday
    teams: [${A}]
    start: 2026-12-20T00:00
    end: 2027-01-04T00:00
`;
const policy = parsePolicy(POLICY, 'policy.yaml');
const HOLIDAY = Date.parse('2026-12-24T12:00:00Z');
const runIn = (place: Place | undefined): FreezeScope => ({
  userId: 'U1',
  groups: [],
  channels: ['C1'],
  ...(place ? { place } : {}),
});
const person = (teamId: string | null, enterpriseId: string | null = null) => ({
  userId: 'U1',
  groups: [],
  channelId: 'C1',
  teamId,
  enterpriseId,
});

describe('a change freeze naming a team', () => {
  it("refuses A's run and lets B's", () => {
    expect(policy.freezeAt(runIn({ teamId: A }), drain, HOLIDAY)?.name).toBe('alpha holiday');
    expect(policy.freezeAt(runIn({ teamId: B }), drain, HOLIDAY)).toBeNull();
  });
  it('as each installation applies it: its own id counts where the run names no workspace', () => {
    expect(policy.forInstallation({ installationId: A, teamId: A }).freezeAt(runIn({}), drain, HOLIDAY)).not.toBeNull();
    expect(policy.forInstallation({ installationId: B, teamId: B }).freezeAt(runIn({}), drain, HOLIDAY)).toBeNull();
  });
  it('covers a run whose workspace is unknown (fails closed)', () => {
    expect(policy.freezeAt(runIn(undefined), drain, HOLIDAY)?.name).toBe('alpha holiday');
  });
  it('is listed only where it may apply', () => {
    expect(policy.freezesFor({ teamId: A }).map((w) => w.name)).toEqual(['alpha holiday']);
    expect(policy.freezesFor({ teamId: B })).toEqual([]);
  });
});

describe('an approval rule naming a Grid org', () => {
  it('applies in both workspaces of the org and not in B', () => {
    const inGa = policy.approvalFor(drain, { teamId: GA, enterpriseId: ORG });
    expect(inGa).toMatchObject({ required: true, approverGroups: ['S0GRIDOPS'] });
    expect(inGa.quorum.count).toBe(2);
    const inGb = policy.approvalFor(drain, { teamId: GB, enterpriseId: ORG });
    expect(inGb).toMatchObject({ required: true, approverGroups: ['S0GRIDOPS'] });
    expect(inGb.quorum.count).toBe(1);
    expect(policy.approvalFor(drain, { teamId: B })).toMatchObject({ required: false });
  });
  it("applies through an org-wide installation's own id, with the workspace acted in", () => {
    const orgWide = policy.forInstallation({ installationId: ORG, enterpriseId: ORG, teamId: null });
    expect(orgWide.approvalFor(drain, { teamId: GB })).toMatchObject({ required: true });
    expect(orgWide.approvalFor(drain, { teamId: GB }).quorum.count).toBe(1);
  });
  it('applies where the workspace is unknown (fails closed)', () => {
    expect(policy.approvalFor(drain)).toMatchObject({ required: true });
  });
  it('decides who approves where the request was made, not where the approver is', () => {
    const inGrid = { teamId: GB, enterpriseId: ORG };
    const sre = (where: ReturnType<typeof person>) => ({ ...where, userId: 'U2', groups: ['S0SRE'] });
    // Asked in B: no rule asks for approval there, so an approver of the org's workspace is not held to it.
    expect(policy.canApprove(sre(person(GB, ORG)), drain, 'U1', { teamId: B }).allowed).toBe(true);
    // Asked in the org: only S0GRIDOPS, wherever the approver clicks from.
    expect(policy.canApprove(sre(person(B)), drain, 'U1', inGrid)).toMatchObject({ allowed: false });
    expect(policy.canApprove(sre(person(GB, ORG)), drain, 'U1', inGrid)).toMatchObject({ allowed: false });
    const gridOps = { ...sre(person(B)), groups: ['S0GRIDOPS'] };
    expect(policy.canApprove(gridOps, drain, 'U1', inGrid).allowed).toBe(true);
  });
});

describe('a permission rule by team', () => {
  it('denies in the workspace it names only', () => {
    expect(policy.decide('schedule', person(B), drain)).toMatchObject({
      allowed: false,
      rule: 'beta may not schedule',
    });
    expect(policy.decide('schedule', person(A), drain)).toMatchObject({ allowed: true });
    expect(
      policy.forInstallation({ installationId: B, teamId: B }).decide('schedule', person(null), drain),
    ).toMatchObject({ allowed: false });
  });
});

describe('a bad team id', () => {
  const problemsOf = (text: string): string[] => {
    try {
      parsePolicy(text, 'policy.yaml');
    } catch (err) {
      expect(err).toBeInstanceOf(PolicyError);
      return (err as PolicyError).problems;
    }
    throw new Error('the policy loaded');
  };
  it('in a freeze, an approval rule or a rule: the file does not load, and the sentence names the rule and line', () => {
    const problems = problemsOf(`
freezes:
  - name: alpha holiday
    start: 2026-12-20T00:00
    end: 2027-01-04T00:00
    teams: [alpha]
approvals:
  - name: grid approves
    teams: [C0GRID]
rules:
  - name: beta denied
    effect: deny
    actions: [run]
    teams: []
`);
    expect(problems).toHaveLength(3);
    expect(problems).toEqual(
      expect.arrayContaining([
        'freezes.0.teams.0: must be a Slack workspace id like T012ABC or an Enterprise Grid org id like E012ABC (freeze “alpha holiday”, line 6)',
        'approvals.0.teams.0: must be a Slack workspace id like T012ABC or an Enterprise Grid org id like E012ABC (approval rule “grid approves”, line 9)',
        'rules.0.teams: must name at least one workspace or org id (leave teams out to cover every workspace) (rule “beta denied”, line 14)',
      ]),
    );
  });
});

describe("a workspace's settings only narrow what the rules for its team allow", () => {
  const access = (home: Place) => ({ policy: policy.forInstallation(home) });
  const group = (approverGroup: string) => ({ approvalsChannel: null, approverGroup });
  it("refuses a group named only by another team's rule", () => {
    const beta = access({ installationId: B, teamId: B });
    expect(wideningSentence(beta, null, group('S0SRE'))).toBeNull();
    expect(wideningSentence(beta, null, group('S0GRIDOPS'))).toMatchObject({ field: 'approverGroup' });
    expect(wideningSentence(beta, null, group('S0GRIDLEADS'))).toMatchObject({ field: 'approverGroup' });
    const grid = access({ installationId: ORG, enterpriseId: ORG, teamId: null });
    expect(wideningSentence(grid, null, group('S0GRIDOPS'))).toBeNull();
    expect(wideningSentence(grid, null, group('S0GRIDLEADS'))).toBeNull();
  });
  it('keeps the approval and the freeze its team must have', () => {
    const alpha = policy.forInstallation({ installationId: A, teamId: A }).narrowedTo('S0SRE');
    expect(alpha.freezeAt(runIn({ teamId: A }), drain, HOLIDAY)?.name).toBe('alpha holiday');
    const grid = policy
      .forInstallation({ installationId: ORG, enterpriseId: ORG, teamId: null })
      .narrowedTo('S0GRIDOPS');
    expect(grid.approvalFor(drain, { teamId: GA })).toMatchObject({ required: true, approverGroups: ['S0GRIDOPS'] });
    expect(grid.approvalFor(drain, { teamId: GA }).quorum.count).toBe(2);
  });
});

describe('the user groups an installation reads', () => {
  it("are those of rules that may apply to it: another team's group is not read with its token", () => {
    expect(policyGroups(policy).sort()).toEqual(['S0GRIDLEADS', 'S0GRIDOPS', 'S0SRE']);
    expect(policyGroups(policy.forInstallation({ installationId: B, teamId: B }))).toEqual(['S0SRE']);
    const grid = policy.forInstallation({ installationId: ORG, enterpriseId: ORG, teamId: null });
    expect(policyGroups(grid).sort()).toEqual(['S0GRIDLEADS', 'S0GRIDOPS', 'S0SRE']);
  });
});
