// Two workspaces and one Enterprise Grid org (installed org-wide), each connected to its own Runbook API
// tenant, end to end through the real runtime (Bolt's OAuth installer, the fake Slack, the emulator serving
// three tenants by key). In each: a run (`--now` + Run), a schedule (the form), a channel subscription, a run
// that needs approval approved by that installation's approver, and the watcher's result card. Then every
// surface × {same installation, other installation}: each sees its own records, and another's ids are
// "not found" / absent there.
// A and B share C01OPS (Slack Connect) and both subscribe it to the same runbook: each installation keeps its
// own subscription there (B is not told "Updated"), lists only its own, and gets notices of its own tenant's
// runs only, each posted with its own token.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { KnownBlock } from '@slack/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorState } from '../../src/emulator/state.ts';
import type { FakeMessage } from '../../src/sandbox/fake-slack-state.ts';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import {
  API_KEY,
  DRAIN,
  KEY_B,
  KEY_G,
  type OAuthHarness,
  personIn,
  resultCardOf,
  SCALE,
  startOAuthHarness,
  textOf,
  until,
} from '../support/oauth-harness.ts';
import { submit as stateOf } from '../unit/forms/slack-state.ts';

const POLICY = `
contact: "#platform"
approvers: { users: [U02BOB, U12ZED, U22UMA] }
`;

interface Inst {
  key: 'A' | 'B' | 'G';
  installation: string;
  apiKey: string;
  requester: { id: string; team: string };
  approver: { id: string; team: string };
  /** A runbook only this installation's tenant has (A's tenant has the whole seed catalog). */
  own: string | null;
  tag: string;
  channel: string;
  runId?: string;
  approvedId?: string;
  scheduleId?: string;
}

const A: Inst = {
  key: 'A',
  installation: 'T0SANDBOX',
  apiKey: API_KEY,
  requester: { id: 'U01ALICE', team: 'T0SANDBOX' },
  approver: { id: 'U02BOB', team: 'T0SANDBOX' },
  own: null,
  tag: 'alpha',
  channel: 'C01OPS',
};
const B: Inst = {
  key: 'B',
  installation: 'T0SECOND',
  apiKey: KEY_B,
  requester: { id: 'U11SAM', team: 'T0SECOND' },
  approver: { id: 'U12ZED', team: 'T0SECOND' },
  own: 'Postgres Vacuum Analyze',
  tag: 'beta',
  // Shared with A (Slack Connect): both subscribe it to the same runbook.
  channel: 'C01OPS',
};
const G: Inst = {
  key: 'G',
  installation: 'E0ACMEGRID',
  apiKey: KEY_G,
  requester: { id: 'U21EVA', team: 'T0GRIDA' },
  // The approver is in the org's other workspace: the one org-wide installation serves both.
  approver: { id: 'U22UMA', team: 'T0GRIDB' },
  own: 'Find Unattached EBS Volumes',
  tag: 'gamma',
  channel: 'C03APPROVALS',
};
const ALL = [A, B, G];

let h: OAuthHarness;
beforeAll(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'policy-'));
  writeFileSync(path.join(dir, 'policy.yaml'), POLICY);
  h = await startOAuthHarness({
    tenants: {
      [KEY_B]: { name: 'beta', runbooks: [SCALE, DRAIN, 'Postgres Vacuum Analyze'] },
      [KEY_G]: { name: 'gamma', runbooks: [SCALE, DRAIN, 'Find Unattached EBS Volumes'] },
    },
    env: { SUBSCRIPTIONS_POLL_SECONDS: '0.05', POLICY_FILE: path.join(dir, 'policy.yaml') },
  });
  // A second person in the second workspace, to approve Sam's requests there.
  h.fake.state.users.push({
    id: 'U12ZED',
    name: 'zed',
    real_name: 'Zed Second',
    email: 'zed@example.com',
    tz: 'Europe/London',
    tz_label: 'Greenwich Mean Time',
    tz_offset: 0,
    team_id: 'T0SECOND',
  });
  for (const channel of h.fake.state.channels) if (!channel.is_private) channel.members?.push('U12ZED');
  for (const inst of ALL) {
    expect((await h.install(inst.installation, { connect: false })).status).toBe(200);
    const connected = await h.runtime.tenants!.connections.connect(
      inst.installation,
      { apiKey: inst.apiKey },
      'U0HARNESS',
    );
    expect(connected.ok).toBe(true);
  }
}, 30_000);
afterAll(() => h?.stop());

const tenantOf = (inst: Inst): EmulatorState =>
  inst.apiKey === API_KEY ? h.emulator.state : h.emulator.tenant(inst.apiKey)!;
const userOf = (p: { id: string; team: string }) => personIn(h, p);

/** Sends `/runbook <command>` as `who` and returns the answer (ephemeral) that contains `needle`. */
async function answer(who: { id: string; team: string }, command: string, needle: string | RegExp, channel = 'C01OPS') {
  const since = h.fake.state.ephemerals.length;
  await userOf(who).command(command, channel);
  const said = await until(
    async () =>
      h.fake.state.ephemerals
        .slice(since)
        .find(
          (e) =>
            e.user === who.id && (typeof needle === 'string' ? textOf(e).includes(needle) : needle.test(textOf(e))),
        ),
    `${who.team}: ${command}`,
  );
  return textOf(said);
}

const executionWith = (inst: Inst, needle: string) =>
  [...tenantOf(inst).executions.byId.values()].find((e) => String(e.received.params ?? '').includes(needle));

async function runNow(inst: Inst, deployment = `${inst.tag}-web`) {
  const since = h.fake.state.ephemerals.length;
  const who = inst.requester;
  await userOf(who).command(`run "${SCALE}" namespace=prod deployment=${deployment} replicas=2 --now`, 'C01OPS');
  const confirm = await until(
    async () =>
      h.fake.state.ephemerals.slice(since).find((e) => e.user === who.id && textOf(e).includes(ACTIONS.confirmRun)),
    'the confirmation',
  );
  await userOf(who).act({ kind: 'ephemeral', ephemeral: confirm }, ACTIONS.confirmRun);
  return until(async () => executionWith(inst, deployment), `${inst.key}'s run`);
}

async function requestDrain(inst: Inst, node: string): Promise<{ message: FakeMessage; approvalId: string }> {
  const who = userOf(inst.requester);
  await who.command(`run "${DRAIN}"`, 'C01OPS');
  const modal = await until(async () => {
    const top = who.topModal();
    return top && JSON.stringify(top.view).includes('field_node_name') ? top : null;
  }, 'the drain form');
  expect(JSON.stringify(modal.view.blocks)).toContain('needs approval');
  await who.submit(modal.id, {
    ...(stateOf(modal.view.blocks as KnownBlock[]) as Record<string, Record<string, Record<string, unknown>>>),
    [BLOCKS.channel]: { [ACTIONS.channelSelect]: { type: 'conversations_select', selected_conversation: 'C01OPS' } },
    field_node_name: { value: { type: 'plain_text_input', value: node } },
  });
  const message = await until(
    async () =>
      Object.values(h.fake.state.messages)
        .flat()
        .find(
          (m) =>
            JSON.stringify(m.blocks ?? []).includes(node) && JSON.stringify(m.blocks).includes(ACTIONS.approvalApprove),
        ),
    `${inst.key}'s approval request`,
  );
  const approvalId = JSON.stringify(message.blocks).match(/"action_id":"approval_approve","value":"([^"]+)"/)![1]!;
  return { message, approvalId };
}

describe('two workspaces and a Grid org, each on its own Runbook API tenant', () => {
  it('in each: run, schedule, subscribe, approve and watch, all in its own tenant', async () => {
    for (const inst of ALL) {
      // Run (--now + Run).
      inst.runId = (await runNow(inst)).id;

      // Schedule through the form.
      const who = userOf(inst.requester);
      await who.command(`schedule "${SCALE}"`, 'C01OPS');
      const form = await until(async () => {
        const top = who.topModal();
        return top && JSON.stringify(top.view).includes(BLOCKS.cron) ? top : null;
      }, `${inst.key}'s schedule form`);
      const before = tenantOf(inst).schedules.byId.size;
      await who.submit(form.id, {
        ...stateOf(form.view.blocks as KnownBlock[], { [BLOCKS.preset]: { selected_option: { value: 'custom' } } }),
        [BLOCKS.cron]: { [ACTIONS.cronInput]: { type: 'plain_text_input', value: '15 4 * * *' } },
        field_namespace: { value: { type: 'plain_text_input', value: 'prod' } },
        field_deployment: { value: { type: 'plain_text_input', value: `${inst.tag}-nightly` } },
        field_replicas: { value: { type: 'number_input', value: '3' } },
      } as Record<string, Record<string, Record<string, unknown>>>);
      const schedule = await until(
        async () =>
          tenantOf(inst).schedules.byId.size > before &&
          [...tenantOf(inst).schedules.byId.values()].find((s) => JSON.stringify(s).includes(`${inst.tag}-nightly`)),
        `${inst.key}'s schedule`,
      );
      inst.scheduleId =
        (schedule as unknown as { schedule: { id: string } }).schedule?.id ?? (schedule as { id?: string }).id;

      // Subscribe the channel (A and B the same one: each adds its own, neither updates the other's).
      const subscribed = await answer(inst.requester, `subscribe "${SCALE}"`, SCALE, inst.channel);
      expect(subscribed).not.toContain('Updated');
      await until(
        async () =>
          (await h.runtime.store.subscriptions.listAll()).find(
            (s) => s.installationId === inst.installation && s.channel === inst.channel,
          ),
        `${inst.key}'s subscription`,
      );

      // A run that needs approval, approved by this installation's approver.
      const { message } = await requestDrain(inst, `${inst.tag}-node`);
      await userOf(inst.approver).act({ kind: 'message', message }, ACTIONS.approvalApprove);
      inst.approvedId = (
        await until(async () => executionWith(inst, `${inst.tag}-node`), `${inst.key}'s approved run`)
      ).id;
    }
    // Nothing crossed: each tenant holds only its own installation's executions and schedules.
    for (const inst of ALL)
      for (const other of ALL.filter((o) => o !== inst)) {
        expect(executionWith(other, `${inst.tag}-`)).toBeUndefined();
        expect(JSON.stringify([...tenantOf(other).schedules.byId.values()])).not.toContain(`${inst.tag}-nightly`);
      }
    // Watch: each result card is edited with its own installation's token.
    h.clock.advance(60 * 60_000);
    for (const inst of ALL) {
      expect((await resultCardOf(h, inst.runId!)).installation).toBe(inst.installation);
      expect((await resultCardOf(h, inst.approvedId!)).installation).toBe(inst.installation);
    }
  }, 25_000);

  it('a channel shared by A and B: each subscription gets its own tenant’s runs only, with its own token', async () => {
    const shared = [A, B];
    const runs = new Map<Inst, string>();
    for (const inst of shared) runs.set(inst, (await runNow(inst, `${inst.tag}-shared`)).id);
    h.clock.advance(60 * 60_000);
    const noticesOf = (id: string) =>
      h.fake.state.calls.filter(
        (c) =>
          c.method === 'chat.postMessage' &&
          c.ok &&
          c.args.channel === 'C01OPS' &&
          JSON.stringify(c.args).includes(id) &&
          /Succeeded|Failed|succeeded|failed/.test(JSON.stringify(c.args)) &&
          !JSON.stringify(c.args).includes(ACTIONS.confirmRun),
      );
    for (const inst of shared) {
      const id = runs.get(inst)!;
      const notices = await until(async () => {
        const found = noticesOf(id);
        return found.length > 0 ? found : null;
      }, `${inst.key}'s notice`);
      // Posted by its own installation's subscription only: never with the other workspace's token.
      expect(notices.map((c) => c.installation)).toEqual(notices.map(() => inst.installation));
    }
  }, 20_000);

  describe.each(ALL.map((inst) => [inst.key, inst] as const))('records of %s', (_key, inst) => {
    const others = () => ALL.filter((o) => o !== inst);

    it('catalog (list): its own tenant’s runbooks only', async () => {
      for (const viewer of ALL) {
        const list = await answer(viewer.requester, 'list', /\S/);
        if (inst.own && viewer !== inst) expect(list).not.toContain(inst.own);
        if (inst.own && viewer === inst) expect(list).toContain(inst.own);
      }
    });

    it('status <execution id>: shown in its own installation, not found in the others', async () => {
      const same = await answer(inst.requester, `status ${inst.runId}`, inst.runId!);
      expect(same).toContain(`${inst.tag}-web`);
      for (const other of others()) {
        const said = await answer(other.requester, `status ${inst.runId}`, inst.runId!);
        expect(said).toMatch(/No execution has the id/);
        expect(said).not.toContain(`${inst.tag}-web`);
      }
    });

    it('schedules list: its own schedule, absent in the others', async () => {
      expect(await answer(inst.requester, `schedules "${SCALE}"`, /chedule/)).toContain('15 4 * * *');
      for (const other of others()) {
        const said = await answer(other.requester, `schedules "${SCALE}"`, /chedule/);
        expect(said).not.toContain(`${inst.tag}-nightly`);
        if (inst.scheduleId) expect(said).not.toContain(inst.scheduleId);
      }
    });

    it('subscriptions list: its own subscription only', async () => {
      const rows = await h.runtime.store.subscriptions.listAll(inst.installation);
      expect(rows.map((s) => [s.channel, s.createdBy])).toEqual([[inst.channel, inst.requester.id]]);
      const listed = await answer(inst.requester, 'subscriptions', /ubscri/, inst.channel);
      expect(listed).toContain(SCALE);
      expect(listed).toContain(`<@${inst.requester.id}>`);
      for (const other of others()) expect(listed).not.toContain(`<@${other.requester.id}>`);
    });

    it('aliases: one of the same name per installation, never another’s', async () => {
      await answer(inst.requester, `alias add same-${inst.tag} "${SCALE}" deployment=${inst.tag}-alias`, 'added');
      expect(await answer(inst.requester, 'alias list', `same-${inst.tag}`)).toContain(`${inst.tag}-alias`);
      for (const other of others()) {
        expect(await answer(other.requester, 'alias list', /alias/)).not.toContain(`same-${inst.tag}`);
        expect(await answer(other.requester, `alias remove same-${inst.tag}`, `same-${inst.tag}`)).toMatch(
          /has no alias/,
        );
      }
    });

    it('audit: its own trail only', async () => {
      const same = await answer(inst.requester, 'audit', 'udit');
      expect(same).toMatch(new RegExp(`<@${inst.requester.id}>[^\\n"]*run\\.start`));
      for (const other of others()) {
        const said = await answer(other.requester, 'audit', 'udit');
        // (The harness installs everything as Alice: her app.install entries name where, not who.)
        expect(said).not.toMatch(new RegExp(`<@${inst.requester.id}>[^\\n"]*(run|alias|approval|schedule)`));
        expect(said).not.toMatch(new RegExp(`<@${inst.approver.id}>[^\\n"]*(run|alias|approval|schedule)`));
        expect(said).not.toContain(`${inst.tag}-`);
      }
    });

    it('App Home: a pending approval reaches its own approver only', async () => {
      const { approvalId } = await requestDrain(inst, `${inst.tag}-pending`);
      const homeOf = async (p: { id: string; team: string }) => {
        const before = h.fake.state.calls.length;
        await userOf(p).openHome();
        const call = await until(
          async () =>
            h.fake.state.calls
              .slice(before)
              .find((c) => c.method === 'views.publish' && c.ok && JSON.stringify(c.args).includes(p.id)),
          `${p.id}'s home`,
        );
        return JSON.stringify(call.args);
      };
      expect(await homeOf(inst.approver)).toContain(approvalId);
      for (const other of others()) expect(await homeOf(other.approver)).not.toContain(approvalId);
    });
  });
});
