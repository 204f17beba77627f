// Many workspaces: a form (modal) opened in one installation is sealed for that installation. A's form
// (its private_metadata: runbook, channel, thread, the channel default's author) submitted as a view of
// B's installation is refused as a form that cannot be verified: nothing runs in either tenant, nothing is
// posted. Submitted as A's view (app_installed_team_id A, which Bolt authorizes) by a person of B, it is
// A's installation judging an outside person (here refused by the external-users rule). The same form
// submitted in its own workspace still runs, so the refusal is the seal's, not a broken form.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorState } from '../../src/emulator/state.ts';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import { DRAIN, type OAuthHarness, SCALE, until } from '../support/oauth-harness.ts';
import { scaleFormValues } from '../support/run-form.ts';
import { startTwoTenants, WORKSPACE_A, WORKSPACE_B } from '../support/tenant-flows.ts';

let h: OAuthHarness;
let tenantB: EmulatorState;
beforeAll(async () => {
  ({ h, tenantB } = await startTwoTenants('tenant-b-key-0123456789', [SCALE, DRAIN]));
}, 30_000);
afterAll(() => h?.stop());

const alice = () => h.user(WORKSPACE_A.user, WORKSPACE_A.installation);
const sam = () => h.user(WORKSPACE_B.user, WORKSPACE_B.installation);
const runsWith = (tenant: EmulatorState, marker: string) =>
  [...tenant.executions.byId.values()].filter((e) => e.params.namespace === marker);
/** The form's fields as filled: `marker` as the namespace, results to C01OPS, the proxy it offers (or proxy-dev typed). */
function filled(form: { view: Record<string, unknown> }, marker: string) {
  type Block = { block_id?: string; element?: { type?: string; initial_option?: { value: string } } };
  const proxy = (form.view.blocks as Block[]).find((b) => b.block_id === BLOCKS.proxy)!.element!;
  const state =
    proxy.type === 'static_select'
      ? { type: 'static_select', selected_option: { value: proxy.initial_option!.value } }
      : { type: 'plain_text_input', value: 'proxy-dev' };
  return { ...scaleFormValues(marker, 'C01OPS'), [BLOCKS.proxy]: { [ACTIONS.proxySelect]: state } };
}

/** Nothing marked `marker` ran in either tenant or was posted (a run would have reached a tenant by now). */
async function nothingStarted(marker: string, callsBefore: number) {
  await new Promise((r) => setTimeout(r, 300));
  expect(runsWith(h.emulator.state, marker)).toEqual([]);
  expect(runsWith(tenantB, marker)).toEqual([]);
  const posted = h.fake.state.calls
    .slice(callsBefore)
    .filter((c) => c.method.startsWith('chat.') && JSON.stringify(c.args).includes(marker));
  expect(posted).toEqual([]);
}

/** Alice's Scale form opened in C01OPS. */
async function alicesForm() {
  const a = alice();
  h.fake.closeModal(WORKSPACE_A.user);
  await a.command(`run "${SCALE}"`, 'C01OPS');
  const form = await until(async () => {
    const top = a.topModal();
    return top && JSON.stringify(top.view).includes(BLOCKS.channel) ? top : null;
  }, "Alice's form");
  expect(String(form.view.private_metadata ?? '')).not.toBe('');
  return form;
}

describe("a form of one installation submitted from another's workspace", () => {
  it("Alice's run form submitted as the second installation's view is refused; nothing runs anywhere", async () => {
    const form = await alicesForm();
    // The same view, sent as one of B's installation (Bolt then authorizes B's token): A's private_metadata in B.
    h.fake.state.views[form.id]!.installedTeamId = WORKSPACE_B.installation;
    const callsBefore = h.fake.state.calls.length;
    const answer = await sam().submit(form.id, filled(form, 'mkcrossform'));
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('This form could not be verified, so nothing was done.');
    await nothingStarted('mkcrossform', callsBefore);
  });

  it("Alice's run form submitted as her installation's view by Sam: judged in A as an outside person, refused", async () => {
    const form = await alicesForm();
    const callsBefore = h.fake.state.calls.length;
    await sam().submit(form.id, filled(form, 'mkoutside'));
    const told = await until(
      async () =>
        h.fake.state.calls
          .slice(callsBefore)
          .find((c) => c.method === 'chat.postMessage' && JSON.stringify(c.args).includes('another organisation')),
      'the refusal',
    );
    expect(told.installation).toBe(WORKSPACE_A.installation);
    await nothingStarted('mkoutside', callsBefore);
  });

  it('the same form submitted by Alice in her own workspace runs in her tenant', async () => {
    const form = await alicesForm();
    const answer = await alice().submit(form.id, filled(form, 'mkownform'));
    expect(answer.status).toBe(200);
    expect(JSON.stringify(answer.json ?? {})).not.toContain('could not be verified');
    await until(async () => runsWith(h.emulator.state, 'mkownform').length === 1, 'her run');
    expect(runsWith(tenantB, 'mkownform')).toEqual([]);
  });

  it("Sam's own form in his workspace is verified as his installation's", async () => {
    const s = sam();
    await s.command(`run "${SCALE}"`, 'C01OPS');
    const form = await until(async () => {
      const top = s.topModal();
      return top && JSON.stringify(top.view).includes(BLOCKS.channel) ? top : null;
    }, "Sam's form");
    await s.submit(form.id, filled(form, 'mksamform'));
    await until(async () => runsWith(tenantB, 'mksamform').length === 1, "Sam's run in his tenant");
    expect(runsWith(h.emulator.state, 'mksamform')).toEqual([]);
  });
});
