// The policy across many workspaces: rules that name `teams`, and a workspace's approver group that only
// narrows who approves (never wider than the file); its settings applied to a workspace's access.
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../../src/policy/load-policy.ts';
import type { RunbookFacts } from '../../../src/policy/policy.ts';
import type { RunsAccess } from '../../../src/runs/deps.ts';
import { wideningSentence, withInstallationSettings } from '../../../src/runs/installation-settings.ts';

const gated: RunbookFacts = {
  id: 'r1',
  name: 'Drain Node',
  tags: ['k8s'],
  categories: [],
  isService: true,
  requiresApproval: true,
};
const dbOnly: RunbookFacts = { ...gated, id: 'r2', name: 'Vacuum', tags: ['db'], requiresApproval: false };

const POLICY = `
approvers: { users: [U0LEAD], groups: [S0SRE, S0OPS] }
approvals:
  - name: db needs dba
    runbooks: { tags: [db] }
    approvers: { groups: [S0DBA] }
rules:
  - name: acme eu may not run
    effect: deny
    actions: [run]
    teams: [T0ACMEEU]
`;

const subject = (teamId?: string | null) => ({ userId: 'U1', groups: [], channelId: 'C1', teamId });

describe('teams in policy rules', () => {
  const policy = parsePolicy(POLICY, 'policy.yaml');
  it('applies a rule only to the workspaces it names', () => {
    expect(policy.decide('run', subject('T0ACMEEU'), gated)).toMatchObject({ allowed: false });
    expect(policy.decide('run', subject('T0OTHER'), gated)).toMatchObject({ allowed: true });
  });
  it('a deny rule naming teams holds where the workspace is unknown (fails closed)', () => {
    expect(policy.decide('run', subject(undefined), gated)).toMatchObject({ allowed: false });
  });
  it('refuses a team id that is not one', () => {
    expect(() => parsePolicy('rules: [{name: x, effect: deny, actions: [run], teams: [C01]}]', 'p.yaml')).toThrow(
      /workspace id/,
    );
  });
});

describe("a workspace's approver group", () => {
  const policy = parsePolicy(POLICY, 'policy.yaml');
  it('narrows the approvers of runs the group may approve to its members only', () => {
    const narrowed = policy.narrowedTo('S0SRE');
    expect(narrowed.approvalFor(gated)).toMatchObject({ approverUsers: [], approverGroups: ['S0SRE'] });
    const lead = { userId: 'U0LEAD', groups: [], channelId: null };
    expect(policy.canApprove(lead, gated, 'U9').allowed).toBe(true);
    expect(narrowed.canApprove(lead, gated, 'U9').allowed).toBe(false);
    expect(narrowed.canApprove({ ...lead, userId: 'U2', groups: ['S0SRE'] }, gated, 'U9').allowed).toBe(true);
  });
  it('leaves runs whose approvers do not include the group as the file has them (never wider)', () => {
    const narrowed = policy.narrowedTo('S0SRE');
    expect(narrowed.approvalFor(dbOnly)).toMatchObject({ approverGroups: ['S0DBA'] });
    expect(narrowed.canApprove({ userId: 'U2', groups: ['S0SRE'], channelId: null }, dbOnly, 'U9').allowed).toBe(false);
  });
  it('refuses a group the file does not name, and a channel where the operator names one', () => {
    expect(wideningSentence({ policy }, null, { approvalsChannel: null, approverGroup: 'S0SRE' })).toBeNull();
    expect(wideningSentence({ policy }, null, { approvalsChannel: null, approverGroup: 'S0NEW' })).toMatchObject({
      field: 'approverGroup',
    });
    expect(wideningSentence({ policy }, 'C0OPER', { approvalsChannel: 'C0MINE', approverGroup: null })).toMatchObject({
      field: 'approvalsChannel',
      sentence: expect.stringContaining('APPROVALS_CHANNEL'),
    });
    expect(wideningSentence({ policy }, null, { approvalsChannel: 'C0MINE', approverGroup: null })).toBeNull();
  });
  it("applies stored settings only where they still narrow: the operator's channel wins", () => {
    const access = { policy, approvalsChannel: null } as unknown as RunsAccess;
    const record = {
      installationId: 'T1',
      approvalsChannel: 'C0MINE',
      approverGroup: 'S0GONE',
      updatedBy: 'U1',
      updatedAt: 1,
    };
    const mine = withInstallationSettings(access, null, record);
    expect(mine.approvalsChannel).toBe('C0MINE');
    expect(mine.policy).toBe(policy); // a group the file no longer names is not applied
    const operators = withInstallationSettings({ ...access, approvalsChannel: 'C0OPER' }, 'C0OPER', {
      ...record,
      approverGroup: 'S0OPS',
    });
    expect(operators.approvalsChannel).toBe('C0OPER');
    expect(operators.policy.approverGroup).toBe('S0OPS');
  });
});
