// Two workspaces and one Enterprise Grid org (installed org-wide), each connected to its own Runbook API
// tenant, end to end through the real runtime (Bolt's OAuth installer, the fake Slack, the emulator serving
// three tenants by key). In each: a run (`--now` + Run), a schedule (the form), a channel subscription, a run
// that needs approval approved by that installation's approver, and the watcher's result card. Every
// record kind × every surface × {same installation, other installation} is isolation-table.test.ts.
// A and B share C01OPS (Slack Connect) and both subscribe it to the same runbook: each installation keeps its
// own subscription there (B is not told "Updated"), lists only its own, and gets notices of its own tenant's
// runs only, each posted with its own token.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorState } from '../../src/emulator/state.ts';
import type { FakeMessage } from '../../src/sandbox/fake-slack-state.ts';
import { ACTIONS } from '../../src/slack/kit/ids.ts';
import { writePolicyFile } from '../support/bot-harness.ts';
import {
  API_KEY,
  addZed,
  DRAIN,
  type OAuthHarness,
  requestDrainApproval,
  resultCardOf,
  SCALE,
  scheduleThroughForm,
  startOAuthHarness,
  until,
} from '../support/oauth-harness.ts';
import { answer as answerOf, type Person, personIn, textOf } from '../support/tenant-flows.ts';
import { INSTALLED, type Installed, installAndConnect, KEY_B, KEY_G, ONLY_IN } from '../support/three-installations.ts';

const POLICY = `
contact: "#platform"
approvers: { users: [U02BOB, U12ZED, U22UMA] }
`;

interface Inst extends Installed {
  apiKey: string;
  /** A runbook only this installation's tenant has (A's tenant has the whole seed catalog). */
  own: string | null;
  tag: string;
  channel: string;
  runId?: string;
  approvedId?: string;
  scheduleId?: string;
}

const A: Inst = { ...INSTALLED.A, apiKey: API_KEY, own: null, tag: 'alpha', channel: 'C01OPS' };
// B's channel is shared with A (Slack Connect): both subscribe it to the same runbook.
const B: Inst = { ...INSTALLED.B, apiKey: KEY_B, own: ONLY_IN.B, tag: 'beta', channel: 'C01OPS' };
const G: Inst = { ...INSTALLED.G, apiKey: KEY_G, own: ONLY_IN.G, tag: 'gamma', channel: 'C03APPROVALS' };
const ALL = [A, B, G];

let h: OAuthHarness;
beforeAll(async () => {
  h = await startOAuthHarness({
    tenants: {
      [KEY_B]: { name: 'beta', runbooks: [SCALE, DRAIN, ONLY_IN.B] },
      [KEY_G]: { name: 'gamma', runbooks: [SCALE, DRAIN, ONLY_IN.G] },
    },
    env: { SUBSCRIPTIONS_POLL_SECONDS: '0.05', POLICY_FILE: writePolicyFile(POLICY) },
  });
  // A second person in the second workspace, to approve Sam's requests there.
  addZed(h);
  for (const inst of ALL) await installAndConnect(h, inst.installation, inst.apiKey);
}, 30_000);
afterAll(() => h?.stop());

const tenantOf = (inst: Inst): EmulatorState =>
  inst.apiKey === API_KEY ? h.emulator.state : h.emulator.tenant(inst.apiKey)!;
const userOf = (p: Person) => personIn(h, p);
const answer = async (who: Person, command: string, needle: string | RegExp, channel = 'C01OPS') =>
  textOf(await answerOf(h, who, command, needle, channel));

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
  const { message, approvalId, form } = await requestDrainApproval(h, userOf(inst.requester), node);
  expect(form).toContain('needs approval');
  return { message, approvalId };
}

describe('two workspaces and a Grid org, each on its own Runbook API tenant', () => {
  it('in each: run, schedule, subscribe, approve and watch, all in its own tenant', async () => {
    for (const inst of ALL) {
      // Run (--now + Run).
      inst.runId = (await runNow(inst)).id;

      // Schedule through the form.
      const before = tenantOf(inst).schedules.byId.size;
      await scheduleThroughForm(userOf(inst.requester), SCALE, '15 4 * * *', {
        field_namespace: { value: { type: 'plain_text_input', value: 'prod' } },
        field_deployment: { value: { type: 'plain_text_input', value: `${inst.tag}-nightly` } },
        field_replicas: { value: { type: 'number_input', value: '3' } },
      });
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
});
