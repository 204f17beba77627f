// Replacing a workspace's Runbook API key, or disconnecting it, while things are open under it, end to end
// through the real runtime (Bolt's OAuth installer, the fake Slack, the emulator serving tenants by key).
// The Replace form says what is open and asks which account the new key is for. A rotated key of the same
// account carries everything on (the run's result card still comes). A key of another account ends what
// was open: the followed run's card is edited once to say it is no longer followed and where to look, the
// waiting request is closed and its requester told, the channel's subscription ends, and an Approve clicked
// afterwards runs nothing on either account. A request made under one account and approved under another
// (a race with the switch) is refused by the account it carries. Disconnect's confirmation lists what is
// open, and disconnecting ends it the same way.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EmulatorState } from '../../src/emulator/state.ts';
import type { SlackUser } from '../../src/sandbox/slack-user.ts';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import { writePolicyFile } from '../support/bot-harness.ts';
import {
  API_KEY,
  DRAIN,
  type OAuthHarness,
  openConnectForm,
  requestDrainApproval,
  resultCardOf,
  SCALE,
  startOAuthHarness,
  until,
} from '../support/oauth-harness.ts';
import { answer as answerOf, textOf } from '../support/tenant-flows.ts';

const KEY_B = 'tenant-b-replace-key-0123456789';
const WS = 'T0SANDBOX';
const ALICE = { id: 'U01ALICE', team: WS };
const POLICY = `
contact: "#platform"
approvers: { users: [U02BOB] }
`;

let h: OAuthHarness;
let tenantB: EmulatorState;
let bob: SlackUser;
let alice: SlackUser;
beforeAll(async () => {
  h = await startOAuthHarness({
    tenants: { [KEY_B]: { name: 'beta', runbooks: [SCALE, DRAIN] } },
    env: { SUBSCRIPTIONS_POLL_SECONDS: '0.05', POLICY_FILE: writePolicyFile(POLICY) },
  });
  expect((await h.install(WS)).status).toBe(200);
  bob = h.user('U02BOB', WS); // is_admin in the fake Slack
  alice = h.user(ALICE.id, WS);
  tenantB = h.emulator.tenant(KEY_B)!;
}, 30_000);
afterAll(() => h?.stop());

/** The running card's ts of execution `id` (stored with its watch once posted). */
const cardTs = (id: string) =>
  until(async () => (await h.runtime.store.watches.get(id, WS))?.messageTs, `the card of ${id}`);

/** Replace key from App Home as Bob: the form's text, then submitted with `apiKey` and the account answer. */
async function replaceKey(apiKey: string, account: 'same' | 'other'): Promise<string> {
  const form = await openConnectForm(h, bob);
  const text = JSON.stringify(form.view);
  await bob.submit(form.id, {
    [BLOCKS.connectKey]: { [ACTIONS.connectKey]: { type: 'plain_text_input', value: apiKey } },
    [BLOCKS.connectAccount]: {
      [ACTIONS.connectAccount]: { type: 'radio_buttons', selected_option: { value: account } },
    },
  });
  await until(async () => JSON.stringify(bob.topModal()?.view ?? {}).includes('Connected to'), 'connected');
  return text;
}

const updatesOf = (ts: string) =>
  h.fake.state.calls.filter((c) => c.method === 'chat.update' && c.ok && c.args.ts === ts);

it('a rotated key of the same account carries the followed run on: its result card still comes', async () => {
  const before = await h.runtime.tenants!.connections.status(WS);
  const run = await h.runNow(ALICE.id, WS, 'rotated-web');
  await cardTs(run.id);
  const form = await replaceKey(API_KEY, 'same');
  expect(form).toContain('1 run being followed');
  expect(form).toContain(BLOCKS.connectAccount);
  expect((await h.runtime.tenants!.connections.status(WS))!.account).toBe(before!.account);
  h.clock.advance(60 * 60_000);
  expect((await resultCardOf(h, run.id)).installation).toBe(WS);
  const ts = (await h.runtime.store.watches.get(run.id, WS))!.messageTs!;
  expect(updatesOf(ts).filter((c) => textOf(c.args).includes('no longer followed'))).toEqual([]);
});

it('a key of another account ends what was open: the card says so once, the request closes, nothing runs on the new account', async () => {
  const run = await h.runNow(ALICE.id, WS, 'switched-web');
  const ts = await cardTs(run.id);
  const request = await requestDrainApproval(h, alice, 'switched-node');
  const { approvalId } = request;
  // The approvers' copy as it was drawn (its buttons go when it is redrawn closed): a stale click on it.
  const message = structuredClone(request.message);
  await answerOf(h, ALICE, `subscribe "${SCALE}"`, SCALE, 'C01OPS');
  expect(await h.runtime.store.subscriptions.listAll(WS)).toHaveLength(1);
  // A schedule Alice made in Slack, and one she paused from Slack (its real times kept only by the bot).
  const at = Date.now();
  await h.runtime.store.scheduleOwners.set('sched-made', { userId: ALICE.id, teamId: WS }, at, WS);
  await h.runtime.store.schedulePauses.begin(
    {
      scheduleId: 'sched-paused',
      cron: '15 4 * * 1',
      runbookId: 'rb',
      runbookName: SCALE,
      pausedBy: ALICE.id,
      teamId: WS,
    },
    at,
    WS,
  );
  const sinceDm = h.fake.state.calls.length;
  /** A message posted since then that `matches` (a DM, or a channel told). */
  const postedSinceDm = (matches: (args: Record<string, unknown>) => boolean, what: string) =>
    until(
      async () => h.fake.state.calls.slice(sinceDm).find((c) => c.method === 'chat.postMessage' && matches(c.args)),
      what,
    );

  // Another account's key said to be of the same one: it does not see the followed run, so it is refused.
  const before = await h.runtime.tenants!.connections.status(WS);
  const wrong = await openConnectForm(h, bob);
  await bob.submit(wrong.id, {
    [BLOCKS.connectKey]: { [ACTIONS.connectKey]: { type: 'plain_text_input', value: KEY_B } },
    [BLOCKS.connectAccount]: {
      [ACTIONS.connectAccount]: { type: 'radio_buttons', selected_option: { value: 'same' } },
    },
  });
  await until(
    async () => JSON.stringify(bob.topModal()?.view ?? {}).includes('not of the same account'),
    'the same-account claim refused',
  );
  expect(await h.runtime.tenants!.connections.status(WS)).toEqual(before);
  expect((await h.runtime.store.watches.get(run.id, WS))!.state).toBe('active');
  await bob.close(bob.topModal()!.id);

  const form = await replaceKey(KEY_B, 'other');
  expect(form).toContain('1 run being followed');
  expect(form).toContain('1 approval request waiting');
  expect(form).toContain('1 channel subscription');
  expect(form).toContain('1 schedule paused from Slack');
  expect(form).toContain('1 schedule made in Slack');

  // The card: edited once to its final state, naming who replaced the connection and where to look.
  const edit = await until(
    async () => updatesOf(ts).find((c) => textOf(c.args).includes('no longer followed')),
    'the final card',
  );
  expect(textOf(edit.args)).toContain('<@U02BOB>');
  expect(textOf(edit.args)).toContain(h.emulator.url.replace(/\/+$/, ''));
  expect((await h.runtime.store.watches.get(run.id, WS))!.state).toBe('stale');
  // The request: closed, and its requester told.
  expect((await h.runtime.store.approvals.get(approvalId))!.state).toBe('expired');
  await postedSinceDm(
    (args) => textOf(args).includes('Your request to run') && textOf(args).includes('closed'),
    'the requester told',
  );
  // The subscription ended, and its channel was told.
  expect(await h.runtime.store.subscriptions.listAll(WS)).toEqual([]);
  await postedSinceDm(
    (args) => args.channel === 'C01OPS' && textOf(args).includes('no longer gets notices'),
    'the channel told',
  );

  // The schedules: their rows of the old account gone; who made or paused them told where they are now.
  const dmTo = (needle: string) => postedSinceDm((args) => textOf(args).includes(needle), needle);
  expect(textOf((await dmTo('sched-made')).args)).toContain('keep running in the previous Runbook API account');
  expect(textOf((await dmTo('sched-paused')).args)).toContain('15 4 * * 1');
  expect(await h.runtime.store.scheduleOwners.list(10, WS)).toEqual([]);
  expect(await h.runtime.store.schedulePauses.list(10, WS)).toEqual([]);

  // An Approve clicked on the old request afterwards runs nothing, on either account.
  const drainsBefore = [...h.emulator.state.executions.byId.values()].length;
  const sinceClick = h.fake.state.ephemerals.length;
  await bob.act({ kind: 'message', message }, ACTIONS.approvalApprove);
  const said = await until(
    async () => h.fake.state.ephemerals.slice(sinceClick).find((e) => e.user === 'U02BOB'),
    'the answer to the stale click',
  );
  expect(textOf(said)).toContain('Runbook API connection changed');
  // The approvers' copy was redrawn closed, for that reason (not "expired").
  const redrawn = h.fake.state.calls.find(
    (c) => c.method === 'chat.update' && c.ok && c.args.ts === message.ts && textOf(c.args).includes('Closed'),
  );
  expect(textOf(redrawn!.args)).toContain('Runbook API connection changed');
  await h.runtime.watcher!.idle();
  expect([...tenantB.executions.byId.values()]).toEqual([]);
  expect([...h.emulator.state.executions.byId.values()]).toHaveLength(drainsBefore);

  // The run finishing in the old account never turns the card into a result, and the card is edited once.
  h.clock.advance(60 * 60_000);
  await new Promise((r) => setTimeout(r, 300));
  await h.runtime.watcher!.idle();
  expect(updatesOf(ts).filter((c) => /succeeded|failed/i.test(textOf(c.args)))).toEqual([]);
  expect(updatesOf(ts).filter((c) => textOf(c.args).includes('no longer followed'))).toHaveLength(1);
});

it('a request made under one account is never run under another, even when it was not closed in time', async () => {
  // Connected to tenant B now (the previous test): a request asked there…
  const { message, approvalId } = await requestDrainApproval(h, alice, 'raced-node');
  // …then the account changes under it without the closing pass (a request that raced the switch).
  expect((await h.runtime.tenants!.connections.connect(WS, { apiKey: API_KEY }, 'U02BOB')).ok).toBe(true);
  const since = h.fake.state.ephemerals.length;
  await bob.act({ kind: 'message', message }, ACTIONS.approvalApprove);
  await until(
    async () =>
      h.fake.state.ephemerals
        .slice(since)
        .find((e) => e.user === 'U02BOB' && textOf(e).includes('previous Runbook API connection')),
    'the refusal',
  );
  expect((await h.runtime.store.approvals.get(approvalId))!.state).toBe('expired');
  const drains = [...h.emulator.state.executions.byId.values(), ...tenantB.executions.byId.values()].filter((e) =>
    String(e.received.params ?? '').includes('raced-node'),
  );
  expect(drains).toEqual([]);
});

it('Disconnect says what is open in its confirmation, and ends it the same way', async () => {
  const run = await h.runNow(ALICE.id, WS, 'removed-web');
  const ts = await cardTs(run.id);
  await bob.openHome();
  const home = await until(async () => {
    const view = h.fake.state.views[h.fake.state.homeViews.U02BOB ?? ''];
    return view && JSON.stringify(view.view).includes('1 run being followed') ? view : undefined;
  }, 'Disconnect’s confirmation with what is open');
  await bob.act({ kind: 'view', view: home }, ACTIONS.connectRemove);
  const edit = await until(
    async () => updatesOf(ts).find((c) => textOf(c.args).includes('no longer followed')),
    'the final card',
  );
  expect(textOf(edit.args)).toContain('removed by');
  expect(await h.runtime.tenants!.connections.status(WS)).toBeNull();
  expect((await h.runtime.store.watches.get(run.id, WS))!.state).toBe('stale');
});
