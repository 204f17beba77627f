// Where results may go, end to end through the real Bolt pipeline: a destination is checked like a
// permission (it exists, the bot can post there, whoever chose it is in it, a DM only one's own) when it
// is saved (`defaults --to`, alias `--to`), picked in the run form, given to a Workflow Builder step, and
// again whenever a saved one is used; approval requests never go to a channel's default destination.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeChannel } from '../../src/sandbox/fake-slack-state.ts';
import { stepDefinition } from '../../src/sandbox/workflow-steps.ts';
import { ACTIONS, BLOCKS, FUNCTIONS } from '../../src/slack/kit/ids.ts';
import { type Harness, modalContaining, startHarness, waitFor } from '../support/bot-harness.ts';
import { scaleFormValues } from '../support/run-form.ts';

// Drain Kubernetes Node needs approval (the API says so); Bob (S0APPROVERS) approves.
const POLICY = `
approvers: { groups: [S0APPROVERS] }
`;

/** Private, the bot is in it, Alice is not. */
const SECRET: FakeChannel = { id: 'C0SECRET', name: 'secret', is_private: true, members: ['U02BOB'] };
/** Private, Alice and Bob are in it (Alice leaves it in one test). */
const TEAM: FakeChannel = { id: 'C0TEAM', name: 'team', is_private: true, members: ['U01ALICE', 'U02BOB'] };

let h: Harness;
beforeAll(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'policy-'));
  writeFileSync(path.join(dir, 'policy.yaml'), POLICY);
  // No APPROVALS_CHANNEL; memberships are read afresh on every check (the cache is unit-tested).
  h = await startHarness({ env: { POLICY_FILE: path.join(dir, 'policy.yaml') }, runtime: { membershipTtlMs: 0 } });
});
afterAll(async () => {
  await h.stop();
});
beforeEach(async () => {
  h.fake.state.channels = h.fake.state.channels.filter((c) => !c.id.startsWith('C0S') && !c.id.startsWith('C0T'));
  h.fake.state.channels.push({ ...SECRET, members: [...SECRET.members!] }, { ...TEAM, members: [...TEAM.members!] });
  await h.runtime.store.channelDefaults.clear('C01OPS');
});

const SCALE = 'Scale Kubernetes Deployment';
const executionsOf = (name: string) =>
  [...h.emulator.state.executions.byId.values()].filter((e) => e.workflowName === name);
const postedIn = (channel: string, needle: string) =>
  (h.fake.state.messages[channel] ?? []).filter((m) => JSON.stringify([m.text, m.blocks]).includes(needle));
const denials = async (action: string) =>
  (await h.runtime.store.audit.recent(200)).filter((e) => e.action === action && e.outcome === 'denied');

/** Sends a command and waits for its own answer containing `needle` (not an earlier one). */
async function answer(user: string, text: string, needle: string) {
  const seen = new Set(h.fake.state.ephemerals.map((e) => e.ts));
  await h.user(user).command(text, 'C01OPS');
  return waitFor(
    () =>
      [...h.fake.state.ephemerals]
        .reverse()
        .find((e) => e.user === user && !seen.has(e.ts) && JSON.stringify([e.text, e.blocks]).includes(needle)),
    `answer to ${text}`,
  );
}

describe('saving a destination: defaults --to and alias --to', () => {
  it('a private channel the setter is not in is refused, audited, and not saved', async () => {
    const before = (await denials('defaults.set')).length;
    const reply = await answer('U01ALICE', 'defaults --to C0SECRET', 'Results cannot go there');
    expect(JSON.stringify(reply.blocks)).toContain('you are not a member of <#C0SECRET>');
    expect(await h.runtime.store.channelDefaults.get('C01OPS')).toBeNull();
    expect((await denials('defaults.set')).length).toBe(before + 1);

    await answer('U01ALICE', `alias add peek "${SCALE}" --to C0SECRET`, 'Results cannot go there');
    expect(await h.runtime.store.aliases.get('C01OPS', 'peek')).toBeNull();
    expect((await denials('alias.add')).length).toBeGreaterThan(0);
  });

  it("a DM id is refused: someone else's, and one's own too (a channel's saved runs are shared)", async () => {
    const other = await answer('U01ALICE', `alias add dm-bob "${SCALE}" --to D02BOB`, 'Results cannot go there');
    expect(JSON.stringify(other.blocks)).toContain('direct message');
    const own = await answer('U01ALICE', 'defaults --to D01ALICE', 'Results cannot go there');
    expect(JSON.stringify(own.blocks)).toContain('used by everyone in it');
    expect(await h.runtime.store.aliases.get('C01OPS', 'dm-bob')).toBeNull();
    expect(await h.runtime.store.channelDefaults.get('C01OPS')).toBeNull();
  });

  it('a channel id that does not exist (or a private one without the bot) is refused', async () => {
    const reply = await answer('U01ALICE', 'defaults --to C0NOSUCH1', 'Results cannot go there');
    expect(JSON.stringify(reply.blocks)).toContain('does not exist');
    h.fake.state.channels.push({ id: 'C0BOTLESS', name: 'botless', is_private: true, is_member: false });
    await answer('U01ALICE', `alias add hidden "${SCALE}" --to C0BOTLESS`, 'does not exist');
    expect(await h.runtime.store.channelDefaults.get('C01OPS')).toBeNull();
  });

  it('a channel the setter is in is saved', async () => {
    await answer('U01ALICE', 'defaults --to C0TEAM', 'Run defaults of this channel');
    expect((await h.runtime.store.channelDefaults.get('C01OPS'))?.resultChannel).toBe('C0TEAM');
  });
});

describe('the run form', () => {
  it('the channel picker set to a private channel the person is not in is refused on the field; nothing runs', async () => {
    const before = executionsOf(SCALE).length;
    await h.user('U01ALICE').command(`run "${SCALE}"`, 'C01OPS');
    const modal = await waitFor(() => modalContaining(h, 'field_namespace'), 'run form');
    const res = await h.user('U01ALICE').submit(modal.id, scaleFormValues('prod', 'C0SECRET', 'peek'));
    const body = JSON.parse(res.body) as { response_action?: string; errors?: Record<string, string> };
    expect(body.response_action).toBe('errors');
    expect(body.errors?.[BLOCKS.channel]).toContain('not a member of #C0SECRET');
    await new Promise((r) => setTimeout(r, 100));
    expect(executionsOf(SCALE)).toHaveLength(before);
    expect(postedIn('C0SECRET', SCALE)).toHaveLength(0);
    expect((await denials('run.start')).some((d) => d.detail?.includes('C0SECRET'))).toBe(true);
  });
});

describe('approval requests', () => {
  it('under a default destination go to the approvers by DM, never to the default destination', async () => {
    await answer('U01ALICE', 'defaults --to C02DEPLOYS', 'Run defaults of this channel');
    await h.user('U01ALICE').command('run "Drain Kubernetes Node"', 'C01OPS');
    const modal = await waitFor(() => modalContaining(h, 'field_node_name'), 'run form');
    expect(JSON.stringify(modal.view.blocks)).toContain('needs approval');
    await h.user('U01ALICE').submit(modal.id, {
      [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
      [BLOCKS.channel]: {
        [ACTIONS.channelSelect]: { type: 'conversations_select', selected_conversation: 'C02DEPLOYS' },
      },
      field_node_name: { value: { type: 'plain_text_input', value: 'node-under-default' } },
    });
    const request = await waitFor(() => postedIn('D02BOB', 'node-under-default')[0], 'the request in Bob’s DM');
    expect(JSON.stringify(request.blocks)).toContain(ACTIONS.approvalApprove);
    await new Promise((r) => setTimeout(r, 100));
    expect(postedIn('C02DEPLOYS', 'node-under-default')).toHaveLength(0);
    expect(postedIn('C01OPS', 'node-under-default')).toHaveLength(0);
  });
});

describe('a saved destination that no longer passes', () => {
  it('is refused when used, saying who set it; `defaults` and `alias list` show it as broken', async () => {
    await answer('U01ALICE', 'defaults --to C0TEAM', 'Run defaults of this channel');
    await answer('U01ALICE', `alias add team-scale "${SCALE}" namespace=prod --to C0TEAM`, 'Alias `team-scale`');
    // Alice leaves #team.
    const team = h.fake.state.channels.find((c) => c.id === 'C0TEAM')!;
    team.members = ['U02BOB'];
    const before = executionsOf(SCALE).length;

    const refused = await answer(
      'U02BOB',
      `run "${SCALE}" namespace=prod deployment=stale replicas=2 --now`,
      'Nothing ran.',
    );
    const text = JSON.stringify(refused.blocks);
    expect(text).toContain("this channel's run defaults by <@U01ALICE> no longer works");
    expect(text).toContain('<@U01ALICE> is not a member of <#C0TEAM>');
    expect(text).toContain('/runbook defaults --to #channel');

    const alias = await answer('U02BOB', 'team-scale deployment=stale replicas=2 --now', 'Nothing ran.');
    expect(JSON.stringify(alias.blocks)).toContain('alias `team-scale` by <@U01ALICE> no longer works');
    expect(executionsOf(SCALE)).toHaveLength(before);

    // Changing only the proxy keeps the result channel: Carol, not in #team, cannot answer for it.
    const kept = await answer('U03CAROL', 'defaults --proxy proxy-prod', 'Not saved');
    expect(JSON.stringify(kept.blocks)).toContain('keep their result channel');
    expect((await h.runtime.store.channelDefaults.get('C01OPS'))?.updatedBy).toBe('U01ALICE');

    const shown = await answer('U02BOB', 'defaults', 'Run defaults of this channel');
    expect(JSON.stringify(shown.blocks)).toContain('Broken:');
    const list = await answer('U02BOB', 'alias list', 'Aliases in this channel');
    expect(JSON.stringify(list.blocks)).toMatch(/team-scale.*Broken:.*<@U01ALICE>/);

    // The form opens on the channel acted in instead, saying why.
    await h.user('U02BOB').command(`run "${SCALE}"`, 'C01OPS');
    const form = await waitFor(() => modalContaining(h, 'field_namespace', 'U02BOB'), 'run form');
    const blocks = JSON.stringify(form.view.blocks);
    expect(blocks).toContain('no longer works');
    expect(blocks).toContain('"initial_conversation":"C01OPS"');
    expect((await denials('run.open')).length).toBeGreaterThan(0);
    await h.runtime.store.aliases.remove('C01OPS', 'team-scale');
  });
});

describe('the Workflow Builder step', () => {
  it('does not post its card in a private channel its actor is not in: the step fails, nothing runs', async () => {
    const before = executionsOf('Find Crashlooping Pods').length;
    const res = await h.user('U01ALICE').runWorkflowStep(FUNCTIONS.runRunbook, stepDefinition(FUNCTIONS.runRunbook), {
      invoking_user: 'U01ALICE',
      runbook: 'Find Crashlooping Pods',
      inputs: '{"namespace": "payments"}',
      channel: 'C0SECRET',
    });
    const id = res.started.execution.id;
    const ended = await waitFor(
      () => (h.fake.state.functionExecutions[id]?.state === 'failed' ? h.fake.state.functionExecutions[id] : null),
      'the step to fail',
    );
    expect(ended.error).toContain('not a member of #C0SECRET');
    expect(executionsOf('Find Crashlooping Pods')).toHaveLength(before);
    expect(h.fake.state.messages.C0SECRET ?? []).toHaveLength(0);
  });
});
