// Who can be an actor, through the real Bolt pipeline: the Workflow Builder step runs as the person Slack
// attests started the workflow (never its "Run as" input), a workflow nobody started runs only as the
// identity the policy names for that (or fails saying so); bots, the bot itself and Slackbot never act; a
// person of another organisation (Slack Connect) is refused and audited unless the policy allows external
// users, while a member of a sibling workspace of the same Enterprise Grid org is not external.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackUser } from '../../src/sandbox/slack-user.ts';
import { stepDefinition } from '../../src/sandbox/workflow-steps.ts';
import { FUNCTIONS } from '../../src/slack/kit/ids.ts';
import { type Harness, person, SIGNING_SECRET, startHarness, waitFor } from '../support/bot-harness.ts';

const definition = stepDefinition(FUNCTIONS.runRunbook);

async function harnessWith(policy: string): Promise<Harness> {
  const dir = mkdtempSync(path.join(tmpdir(), 'who-acts-'));
  writeFileSync(path.join(dir, 'policy.yaml'), policy);
  const h = await startHarness({ env: { POLICY_FILE: path.join(dir, 'policy.yaml'), ...QUICK } });
  // This workspace is one of Acme's Enterprise Grid org (set before the bot first asks auth.test).
  h.fake.state.enterpriseId = 'E0ACME';
  h.fake.state.users.push(
    person('U07AUTOMATION', 'automation'),
    person('U08SIBLING', 'sibling', { team_id: 'T0ACMEEU', enterprise_id: 'E0ACME' }),
    person('U09PARTNER', 'partner', { team_id: 'T0PARTNER', enterprise_id: 'E0PARTNER' }),
  );
  // #ops is shared with them (Slack Connect, and the sibling workspace).
  h.fake.state.channels.find((c) => c.id === 'C01OPS')!.members!.push('U08SIBLING', 'U09PARTNER');
  return h;
}

const QUICK = { WATCH_FIRST_CHECK_MS: '30', WATCH_TICK_MS: '20' };

function from(h: Harness, userId: string, teamId?: string): SlackUser {
  return new SlackUser({
    fake: h.fake,
    botUrl: h.botUrl,
    signingSecret: SIGNING_SECRET,
    userId,
    ...(teamId ? { teamId } : {}),
  });
}

async function runStep(
  h: Harness,
  startedBy: string,
  inputs: Record<string, unknown>,
  options: { startedBy?: 'person' | 'nobody' } = {},
) {
  const res = await from(h, startedBy).runWorkflowStep(FUNCTIONS.runRunbook, definition, inputs, options);
  expect(res.status).toBe(200);
  const id = res.started.execution.id;
  return waitFor(() => {
    const run = h.fake.state.functionExecutions[id]!;
    return run.state === 'running' ? undefined : run;
  }, 'the step to end');
}

const runsOf = (h: Harness, node: string) =>
  [...h.emulator.state.executions.byId.values()].filter((e) => JSON.stringify(e.received).includes(node));

const ephemeralTo = (h: Harness, user: string, needle: string) =>
  h.fake.state.ephemerals.find((e) => e.user === user && JSON.stringify([e.text, e.blocks]).includes(needle));

describe('with an identity for unattended workflows (and external users denied by default)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harnessWith('unattendedWorkflowsRunAs: U07AUTOMATION\n');
  });
  afterAll(async () => {
    await h.stop();
  });

  const step = (node: string, extra: Record<string, unknown> = {}) => ({
    runbook: 'Find Crashlooping Pods',
    inputs: JSON.stringify({ namespace: node }),
    ...extra,
  });

  it('"Run as" another person does not make that person the actor: the step fails and nothing runs', async () => {
    const done = await runStep(h, 'U02BOB', step('ns-run-as-carol', { invoking_user: 'U03CAROL' }));
    expect(done.state).toBe('failed');
    expect(done.error).toMatch(/"Run as" names someone other than the person who started the workflow/);
    expect(done.error).toMatch(/set "Started by" to "Person who used this workflow"/);
    expect(runsOf(h, 'ns-run-as-carol')).toEqual([]);
  });

  it('"Run as" the bot user fails the same way', async () => {
    const done = await runStep(h, 'U02BOB', step('ns-run-as-bot', { invoking_user: h.fake.state.botUserId }));
    expect(done.state).toBe('failed');
    expect(runsOf(h, 'ns-run-as-bot')).toEqual([]);
  });

  it('an old step whose "Run as" is the person who started it still runs, as them', async () => {
    const done = await runStep(h, 'U02BOB', step('ns-old-step', { invoking_user: 'U02BOB' }));
    expect(done.state).toBe('completed');
    const [run] = runsOf(h, 'ns-old-step');
    expect(run?.executor).toBe('bob@example.com');
  });

  it('a scheduled workflow (nobody started it) runs as the policy\'s identity, not its "Run as"', async () => {
    const refused = await runStep(h, 'U01ALICE', step('ns-scheduled-alice', { invoking_user: 'U01ALICE' }), {
      startedBy: 'nobody',
    });
    expect(refused.state).toBe('failed');
    expect(refused.error).toMatch(/Slack does not say who started this workflow/);
    expect(runsOf(h, 'ns-scheduled-alice')).toEqual([]);

    const done = await runStep(h, 'U01ALICE', step('ns-scheduled'), { startedBy: 'nobody' });
    expect(done.state).toBe('completed');
    expect(runsOf(h, 'ns-scheduled')[0]?.executor).toBe('automation@example.com');
  });

  it('a mention from Slackbot or the bot itself is never acted on', async () => {
    for (const bot of ['USLACKBOT', h.fake.state.botUserId]) {
      const { message } = await from(h, bot).mention('subscribe "Find Crashlooping Pods"', 'C02DEPLOYS');
      await new Promise((r) => setTimeout(r, 200));
      expect(h.fake.state.ephemerals.filter((e) => e.thread_ts === message.ts)).toEqual([]);
    }
    expect(await h.runtime.store.subscriptions.listForChannel('C02DEPLOYS')).toEqual([]);
  });

  it('a Slack Connect mention and command are refused privately and audited; nothing happens', async () => {
    const partner = from(h, 'U09PARTNER', 'T0PARTNER');
    await partner.mention('subscribe "Find Crashlooping Pods"', 'C01OPS');
    const told = await waitFor(() => ephemeralTo(h, 'U09PARTNER', 'from another organisation'), 'the refusal');
    expect(told.channel).toBe('C01OPS');
    await partner.command('run "Find Crashlooping Pods" namespace=x --now', 'C01OPS');
    await waitFor(
      () =>
        h.fake.state.responseUrlPosts.some(
          (p) => p.user === 'U09PARTNER' && /another organisation/.test(p.body.text ?? ''),
        ),
      'the command refused',
    );
    expect(await h.runtime.store.subscriptions.listForChannel('C01OPS')).toEqual([]);
    const audit = (await h.runtime.store.audit.recent(50)).filter((e) => e.userId === 'U09PARTNER');
    expect(audit.map((e) => [e.action, e.outcome, e.target])).toEqual([
      ['slack.external', 'denied', '/runbook'],
      ['slack.external', 'denied', 'app_mention'],
    ]);
    expect(audit[0]?.teamId).toBe('T0PARTNER');
  });

  it('a member of a sibling workspace of the same org is not external: answered', async () => {
    const { message } = await from(h, 'U08SIBLING', 'T0ACMEEU').mention('help', 'C01OPS');
    const answer = await waitFor(
      () => h.fake.state.ephemerals.find((e) => e.user === 'U08SIBLING' && e.thread_ts === message.ts),
      'the answer',
    );
    expect(JSON.stringify(answer.blocks)).toContain('/runbook list');
  });
});

describe('with no identity for unattended workflows, and external users allowed', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harnessWith('externalUsers: allow\n');
  });
  afterAll(async () => {
    await h.stop();
  });

  it('a scheduled workflow fails with a sentence saying so', async () => {
    const done = await runStep(
      h,
      'U01ALICE',
      { runbook: 'Find Crashlooping Pods', inputs: '{"namespace": "ns-nobody"}' },
      { startedBy: 'nobody' },
    );
    expect(done.state).toBe('failed');
    expect(done.error).toMatch(/Nobody started this workflow.*names no one to run such workflows as/);
    expect(runsOf(h, 'ns-nobody')).toEqual([]);
  });

  it('a person of another organisation is answered where the policy allows external users', async () => {
    const { message } = await from(h, 'U09PARTNER', 'T0PARTNER').mention('help', 'C01OPS');
    await waitFor(
      () => h.fake.state.ephemerals.find((e) => e.user === 'U09PARTNER' && e.thread_ts === message.ts),
      'the answer',
    );
  });
});
