import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { plainMentions } from '../../../src/mentions.ts';
import { loadPolicy, PolicyError, parsePolicy } from '../../../src/policy/load-policy.ts';
import {
  APPROVERS_ELSEWHERE,
  describeApprovers,
  describeWhoApproves,
  Policy,
  PolicyFile,
  type RunbookFacts,
  type Subject,
} from '../../../src/policy/policy.ts';

const restart: RunbookFacts = {
  id: 'r1',
  name: 'Restart Kubernetes Deployment',
  tags: ['kubernetes', 'prod'],
  categories: ['CATEGORY_TYPE_SRE'],
  isService: true,
  requiresApproval: false,
};
const vacuum: RunbookFacts = {
  id: 'r2',
  name: 'Postgres Vacuum Analyze',
  tags: ['postgres'],
  categories: ['CATEGORY_TYPE_DEVOPS'],
  isService: false,
  requiresApproval: true,
};
const alice: Subject = { userId: 'U01ALICE', groups: [], channelId: 'C01OPS' };
const bob: Subject = { userId: 'U02BOB', groups: ['S0SRE'], channelId: 'C01OPS' };
const carol: Subject = { userId: 'U03CAROL', groups: [], channelId: 'C02DEPLOYS' };

const yaml = `
contact: "#platform-team"
default: allow
approvers: { users: [U02BOB] }
scheduleOwnersOnly: true
rules:
  - name: carol is read-only
    effect: deny
    actions: [run, schedule, approve]
    users: [U03CAROL]
  - name: only SRE restarts things
    effect: allow
    actions: [run]
    groups: [S0SRE]
    runbooks: { names: ["restart *"] }
  - name: nobody else restarts things
    effect: deny
    actions: [run]
    runbooks: { names: ["Restart *"] }
  - name: no custom runbooks from #deploys
    effect: deny
    actions: [view, run]
    channels: [C02DEPLOYS]
    runbooks: { kind: custom }
  - name: devops by tag and category
    effect: deny
    actions: [schedule]
    runbooks: { tags: [postgres], categories: [devops] }
  - name: by id
    effect: deny
    actions: [audit]
    runbooks: { ids: [r9] }
approvals:
  - name: prod needs a second pair of eyes
    runbooks: { tags: [prod] }
    approvers: { groups: [S0SRE] }
`;

describe('Policy rules', () => {
  const policy = parsePolicy(yaml, 'policy.yaml');

  it('users: a denied user gets the rule, the file and whom to ask', () => {
    const d = policy.decide('run', carol, vacuum);
    expect(d.allowed).toBe(false);
    if (!d.allowed) {
      expect(d.message).toBe(
        'You may not run Postgres Vacuum Analyze: denied by rule “carol is read-only” of policy.yaml. Ask #platform-team if you need access.',
      );
    }
  });

  it('groups and name patterns (case-insensitive globs), first match wins', () => {
    expect(policy.decide('run', bob, restart)).toEqual({ allowed: true, rule: 'only SRE restarts things' });
    expect(policy.decide('run', alice, restart)).toMatchObject({ allowed: false, rule: 'nobody else restarts things' });
  });

  it('channels and kind', () => {
    expect(policy.decide('view', { ...alice, channelId: 'C02DEPLOYS' }, vacuum)).toMatchObject({ allowed: false });
    expect(policy.decide('view', alice, vacuum)).toEqual({ allowed: true, rule: null });
  });

  it('tags and categories must both match when both are given', () => {
    expect(policy.decide('schedule', alice, vacuum)).toMatchObject({
      allowed: false,
      rule: 'devops by tag and category',
    });
    expect(policy.decide('schedule', alice, { ...vacuum, categories: ['CATEGORY_TYPE_SRE'] })).toMatchObject({
      allowed: true,
    });
  });

  it('ids, and a runbook rule never matches an action without a runbook', () => {
    expect(policy.decide('audit', alice, { ...restart, id: 'r9' })).toMatchObject({ allowed: false });
    expect(policy.decide('audit', alice, null)).toEqual({ allowed: true, rule: null });
  });

  it('default deny applies when no rule matches', () => {
    const strict = parsePolicy('default: deny\nrules: [{name: readers, effect: allow, actions: [view]}]', 'p.yaml');
    expect(strict.decide('view', alice, restart)).toMatchObject({ allowed: true });
    const run = strict.decide('run', alice, restart);
    expect(run).toMatchObject({ allowed: false, rule: null });
    if (!run.allowed) expect(run.message).toContain('the default rule');
  });

  it('approval: from the API flag with top-level approvers, and from approval rules', () => {
    expect(policy.approvalFor(vacuum)).toEqual({
      required: true,
      reasons: ['the runbook requires approval'],
      approverUsers: ['U02BOB'],
      approverGroups: [],
      quorum: { count: 1, eachOf: [] },
    });
    expect(policy.approvalFor(restart)).toEqual({
      required: true,
      reasons: ['rule “prod needs a second pair of eyes”'],
      approverUsers: [],
      approverGroups: ['S0SRE'],
      quorum: { count: 1, eachOf: [] },
    });
    expect(policy.approvalFor({ ...restart, tags: [] }).required).toBe(false);
  });

  it('approvers: never the requester, only listed approvers, and approve rules apply', () => {
    expect(policy.canApprove(bob, restart, 'U02BOB')).toMatchObject({ allowed: false });
    expect(policy.canApprove(bob, restart, 'U01ALICE')).toMatchObject({ allowed: true });
    const notListed = policy.canApprove(alice, restart, 'U02BOB');
    expect(notListed.allowed).toBe(false);
    if (!notListed.allowed) expect(plainMentions(notListed.message)).toContain('members of <!subteam^S0SRE>');
    expect(policy.canApprove({ ...carol, groups: ['S0SRE'] }, restart, 'U01ALICE')).toMatchObject({ allowed: false });
  });

  it('quorum: the strictest of the matching rules; groups to cover may approve', () => {
    const strict = new Policy(
      PolicyFile.parse({
        approvers: { users: ['U02BOB'] },
        quorum: { approvals: 2 },
        approvals: [
          { name: 'prod', runbooks: { tags: ['prod'] }, quorum: { approvals: 1, oneFromEach: ['S0DBA', 'S0SEC'] } },
        ],
      }),
      'test',
    );
    expect(strict.approvalFor(vacuum).quorum).toEqual({ count: 2, eachOf: [] });
    const both = strict.approvalFor({ ...vacuum, tags: ['prod'] });
    expect(both.quorum).toEqual({ count: 2, eachOf: ['S0DBA', 'S0SEC'] });
    expect(both.approverGroups).toEqual(['S0DBA', 'S0SEC']);
    expect(strict.canApprove({ ...carol, groups: ['S0DBA'] }, { ...vacuum, tags: ['prod'] }, 'U01ALICE')).toMatchObject(
      {
        allowed: true,
      },
    );
    expect(PolicyFile.safeParse({ quorum: { approvals: 0 } }).success).toBe(false);
  });

  it('scheduleOwnersOnly and contact', () => {
    expect(policy.scheduleOwnersOnly).toBe(true);
    expect(policy.contact).toBe('#platform-team');
  });
});

describe('default policy (no file)', () => {
  const policy = Policy.permissive();
  it('allows everything to everyone, approval only where the API asks, never self-approval', () => {
    for (const action of ['view', 'run', 'schedule', 'approve', 'audit'] as const) {
      expect(policy.decide(action, alice, restart)).toEqual({ allowed: true, rule: null });
    }
    expect(policy.approvalFor(restart).required).toBe(false);
    expect(policy.approvalFor(vacuum)).toMatchObject({ required: true, approverUsers: [], approverGroups: [] });
    expect(policy.canApprove(alice, vacuum, 'U01ALICE').allowed).toBe(false);
    expect(policy.canApprove(bob, vacuum, 'U01ALICE').allowed).toBe(true);
    expect(policy.scheduleOwnersOnly).toBe(false);
    expect(describeApprovers(policy.approvalFor(vacuum))).toBe('anyone but the requester');
  });
});

describe('loading', () => {
  it('reports every problem with its place in the file', () => {
    const bad = `
rules:
  - name: x
    effect: maybe
    actions: [run, fly]
    users: [alice]
approvers: { users: [U1] }
colour: blue
`;
    try {
      parsePolicy(bad, 'policy.yaml');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(PolicyError);
      const problems = (err as PolicyError).problems.join('\n');
      expect(problems).toContain('rules.0.effect');
      expect(problems).toContain('rules.0.actions.1');
      expect(problems).toContain('rules.0.users.0: must be a Slack user id');
      expect(problems).toContain('colour');
    }
  });

  it('reads YAML and JSON files, and an unreadable file is an error', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'policy-'));
    await writeFile(path.join(dir, 'p.json'), JSON.stringify({ default: 'deny' }));
    expect((await loadPolicy(path.join(dir, 'p.json'))).decide('run', alice, restart).allowed).toBe(false);
    await expect(loadPolicy(path.join(dir, 'missing.yaml'))).rejects.toThrow(/cannot be read: ENOENT/);
    await expect(loadPolicy(null)).resolves.toBeInstanceOf(Policy);
    await writeFile(path.join(dir, 'broken.yaml'), 'rules: [');
    await expect(loadPolicy(path.join(dir, 'broken.yaml'))).rejects.toThrow(/not valid YAML/);
  });
});

describe('who approves, in words', () => {
  const need = (approverUsers: string[], approverGroups: string[], count: number, eachOf: string[] = []) => ({
    approverUsers,
    approverGroups,
    quorum: { count, eachOf },
  });
  const say = (n: ReturnType<typeof need>) => plainMentions(describeWhoApproves(n));
  it('says "or" only when one approval is enough', () => {
    expect(say(need(['U02BOB', 'U03CAROL'], [], 1))).toBe('<@U02BOB> or <@U03CAROL> can approve it');
  });
  it('says both / 2 of / all of when a quorum needs several', () => {
    expect(say(need(['U02BOB', 'U03CAROL'], [], 2))).toBe('it needs approval from both <@U02BOB> and <@U03CAROL>');
    expect(say(need(['U01A', 'U02B', 'U03C'], [], 2))).toBe('it needs approval from 2 of <@U01A>, <@U02B> and <@U03C>');
    expect(say(need(['U01A', 'U02B', 'U03C'], [], 3))).toBe(
      'it needs approval from all of <@U01A>, <@U02B> and <@U03C>',
    );
    expect(say(need([], ['S0SRE'], 2, ['S0DBA']))).toBe(
      'it needs 2 approvals from members of <!subteam^S0SRE>, one from each of <!subteam^S0DBA>',
    );
  });
  it("names only the installation's own people; the others still count, and none here is never 'anyone'", () => {
    const users = new Set(['U01A']);
    const here = (n: ReturnType<typeof need>) => plainMentions(describeWhoApproves(n, { groups: null, users }));
    expect(here(need(['U01A', 'U02B', 'U03C'], [], 1))).toBe('<@U01A> can approve it');
    expect(here(need(['U01A', 'U02B'], [], 2))).toBe(
      'it needs approval from both <@U01A> and a person of another workspace',
    );
    expect(here(need(['U01A', 'U02B', 'U03C'], [], 2))).toBe(
      'it needs approval from 2 of <@U01A> and 2 people of other workspaces',
    );
    expect(here(need(['U02B', 'U03C'], [], 2))).toBe(`it needs 2 approvals from ${APPROVERS_ELSEWHERE}`);
    expect(here(need(['U02B'], [], 1))).toBe(`${APPROVERS_ELSEWHERE} can approve it`);
    expect(plainMentions(describeApprovers(need(['U02B'], ['S0SRE'], 1), { groups: new Map(), users }))).toBe(
      APPROVERS_ELSEWHERE,
    );
  });
});
