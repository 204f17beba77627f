// Two workspaces on two Runbook API tenants that hand out the SAME execution id (each tenant is its own API):
// through the real runtime (Bolt's OAuth installer, the fake Slack, the emulator serving both tenants by key),
// both runs are watched, each result card and reply goes once into its own workspace with its own token, and
// neither watch overwrites the other; `/runbook watch <id>` in one workspace never finds the other's; a
// restart reconciles each installation's run intents against its own API only; an uninstall stops that
// installation's watches only.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EmulatorState } from '../../src/emulator/state.ts';
import { parseInputSchema } from '../../src/forms/input-schema.ts';
import { intentParamsHash } from '../../src/runs/run-intents.ts';
import { ACTIONS } from '../../src/slack/kit/ids.ts';
import { type OAuthHarness, startOAuthHarness, until } from '../support/oauth-harness.ts';

const KEY_B = 'tenant-b-same-id-key-0123456789';
const SCALE = 'Scale Kubernetes Deployment';
const DRAIN = 'Drain Kubernetes Node';
const A = { installation: 'T0SANDBOX', user: 'U01ALICE' };
const BOT_B = { userId: 'U0BOTSECOND', botId: 'B0BOTSECOND' };
const B = { installation: 'T0SECOND', user: 'U11SAM' };

let h: OAuthHarness;
let tenantB: EmulatorState;
beforeAll(async () => {
  // Vacuum brings the tenant's demo schedules, whose proxy the workspace then offers.
  h = await startOAuthHarness({
    tenants: { [KEY_B]: { name: 'beta', runbooks: [SCALE, DRAIN, 'Postgres Vacuum Analyze'] } },
  });
  tenantB = h.emulator.tenant(KEY_B)!;
  expect((await h.install(A.installation)).status).toBe(200);
  // As in Slack, each workspace's installation has its own bot user: B's posts are not A's.
  h.fake.oauth.setBot(B.installation, BOT_B);
  expect((await h.install(B.installation, { connect: false })).status).toBe(200);
  expect((await h.runtime.tenants!.connections.connect(B.installation, { apiKey: KEY_B }, B.user)).ok).toBe(true);
}, 30_000);
afterAll(() => h?.stop());

const tenantOf = (who: typeof A) => (who === A ? h.emulator.state : tenantB);

/** `/runbook run … --now` and Run, as `who`, in C01OPS (shared by both workspaces): the execution. */
async function runIn(who: typeof A, deployment: string) {
  const since = h.fake.state.ephemerals.length;
  const user = h.user(who.user, who.installation);
  await user.command(`run "${SCALE}" namespace=same deployment=${deployment} replicas=2 --now`, 'C01OPS');
  const confirm = await until(
    async () =>
      h.fake.state.ephemerals
        .slice(since)
        .find((e) => e.user === who.user && JSON.stringify(e.blocks ?? []).includes(ACTIONS.confirmRun)),
    'the confirmation',
  );
  await user.act({ kind: 'ephemeral', ephemeral: confirm }, ACTIONS.confirmRun);
  return until(
    async () =>
      [...tenantOf(who).executions.byId.values()].find((e) => String(e.received.params ?? '').includes(deployment)),
    `the run in ${who.installation}`,
  );
}

/** `/runbook <command>` as `who`: the answer. */
async function answer(who: typeof A, command: string, needle: RegExp): Promise<string> {
  const since = h.fake.state.ephemerals.length;
  await h.user(who.user, who.installation).command(command, 'C01OPS');
  const said = await until(
    async () =>
      h.fake.state.ephemerals
        .slice(since)
        .find((e) => e.user === who.user && needle.test(`${e.text ?? ''}${JSON.stringify(e.blocks ?? [])}`)),
    `${who.installation}: ${command}`,
  );
  return `${said.text ?? ''}${JSON.stringify(said.blocks ?? [])}`;
}

const callsNaming = (id: string) => h.fake.state.calls.filter((c) => c.ok && JSON.stringify(c.args).includes(id));

it('both tenants hand out execution X: both are watched, each result goes once into its own workspace with its own token', async () => {
  h.emulator.state.nextExecutionIds.push('ex-same');
  tenantB.nextExecutionIds.push('ex-same');
  expect((await runIn(A, 'alpha-same')).id).toBe('ex-same');
  expect((await runIn(B, 'beta-same')).id).toBe('ex-same');
  const watchA = await until(async () => h.runtime.store.watches.get('ex-same', A.installation), 'A’s watch');
  const watchB = await until(async () => h.runtime.store.watches.get('ex-same', B.installation), 'B’s watch');
  expect(watchA).toMatchObject({ startedBy: A.user, teamId: A.installation });
  expect(watchB).toMatchObject({ startedBy: B.user, teamId: B.installation });
  // Each workspace's running card, posted with its own token.
  const cardA = (await until(async () => h.runtime.store.watches.get('ex-same', A.installation), 'A’s card'))!;
  const tsA = (await until(
    async () => (await h.runtime.store.watches.get('ex-same', A.installation))?.messageTs,
    'A’s card',
  ))!;
  const tsB = (await until(
    async () => (await h.runtime.store.watches.get('ex-same', B.installation))?.messageTs,
    'B’s card',
  ))!;
  expect(cardA.executionId).toBe('ex-same');
  expect(tsA).not.toBe(tsB);
  const running = callsNaming('ex-same').filter((c) => c.method === 'chat.postMessage' && !('thread_ts' in c.args));
  expect(running.map((c) => c.installation).sort()).toEqual([A.installation, B.installation].sort());

  h.clock.advance(60 * 60_000);
  for (const who of [A, B]) {
    await until(
      async () => (await h.runtime.store.watches.get('ex-same', who.installation))?.state === 'finished',
      `${who.installation}'s watch to finish`,
    );
  }
  await h.runtime.watcher!.idle();
  // One result card per workspace: its own running card edited, with its own token.
  const edits = callsNaming('ex-same').filter(
    (c) => c.method === 'chat.update' && /succeeded|failed/i.test(JSON.stringify(c.args)),
  );
  expect(edits.map((c) => [c.installation, c.args.ts]).sort()).toEqual(
    [
      [A.installation, tsA],
      [B.installation, tsB],
    ].sort(),
  );
  // One reply per workspace, in its own card's thread, with its own token.
  const replies = callsNaming('ex-same').filter((c) => c.method === 'chat.postMessage' && 'thread_ts' in c.args);
  expect(replies.map((c) => [c.installation, c.args.thread_ts]).sort()).toEqual(
    [
      [A.installation, tsA],
      [B.installation, tsB],
    ].sort(),
  );
  expect(String(replies.find((c) => c.installation === A.installation)?.args.text)).toContain(`<@${A.user}>`);
  expect(String(replies.find((c) => c.installation === B.installation)?.args.text)).toContain(`<@${B.user}>`);
  // Neither row was overwritten by the other.
  expect(await h.runtime.store.watches.get('ex-same', A.installation)).toMatchObject({
    startedBy: A.user,
    messageTs: tsA,
    state: 'finished',
  });
  expect(await h.runtime.store.watches.get('ex-same', B.installation)).toMatchObject({
    startedBy: B.user,
    messageTs: tsB,
    state: 'finished',
  });
  expect(await h.runtime.store.watches.get('ex-same')).toBeNull();
});

// C01OPS is shared (Slack Connect) by both workspaces: reading it back shows A's bot's messages to B too.
const postsNaming = (id: string) =>
  (h.fake.state.messages.C01OPS ?? []).filter((m) => JSON.stringify([m.text, m.blocks ?? []]).includes(`\`${id}\``));

it("an unknown outcome of B's card post: reading the shared channel back does not take A's card for B's", async () => {
  h.emulator.state.nextExecutionIds.push('ex-card-lost');
  tenantB.nextExecutionIds.push('ex-card-lost');
  await runIn(A, 'alpha-lost-card');
  const tsA = await until(
    async () => (await h.runtime.store.watches.get('ex-card-lost', A.installation))?.messageTs,
    'A’s card',
  );
  // B's running card post is answered with a 503 (Slack did not keep it): the outcome is unknown to B, which
  // reads the channel back to know. A's card there names the same execution.
  h.fake.setFaults({ serverErrorNext: 1, methods: ['chat.postMessage'] });
  await runIn(B, 'beta-lost-card');
  const tsB = await until(
    async () => (await h.runtime.store.watches.get('ex-card-lost', B.installation))?.messageTs,
    'B’s card',
  );
  h.fake.setFaults({});
  // B's card is B's own message, not A's; it is there once.
  expect(tsB).not.toBe(tsA);
  const cards = postsNaming('ex-card-lost').filter((m) => !m.thread_ts);
  expect(cards.map((m) => [m.user, m.ts]).sort()).toEqual(
    [
      ['U0BOT', tsA],
      [BOT_B.userId, tsB],
    ].sort(),
  );
  h.clock.advance(60 * 60_000);
  for (const who of [A, B]) {
    await until(
      async () => (await h.runtime.store.watches.get('ex-card-lost', who.installation))?.resultPostedAt,
      `${who.installation}'s result`,
    );
  }
  await h.runtime.watcher!.idle();
  // Each result went onto its own card, with its own token: none was lost on the other's card.
  const edits = callsNaming('ex-card-lost').filter(
    (c) => c.method === 'chat.update' && /succeeded|failed/i.test(JSON.stringify(c.args)),
  );
  expect(edits.filter((c) => !c.ok)).toEqual([]);
  expect(edits.map((c) => [c.installation, c.args.ts]).sort()).toEqual(
    [
      [A.installation, tsA],
      [B.installation, tsB],
    ].sort(),
  );
});

it("an unknown outcome of B's result reply: A's finished card in the shared channel is not taken for B's reply", async () => {
  h.emulator.state.nextExecutionIds.push('ex-reply-lost');
  tenantB.nextExecutionIds.push('ex-reply-lost');
  const runA = await runIn(A, 'alpha-lost-reply');
  // B's run starts just before A's ends, so A's ends (and is posted) first.
  h.clock.advance(runA.durationMs - 1);
  await runIn(B, 'beta-lost-reply');
  const tsB = await until(
    async () => (await h.runtime.store.watches.get('ex-reply-lost', B.installation))?.messageTs,
    'B’s card',
  );
  // A's run ends: its card in the shared channel turns into a result naming the same execution.
  h.clock.advance(1);
  await until(
    async () => (await h.runtime.store.watches.get('ex-reply-lost', A.installation))?.replyPostedAt,
    'A’s reply',
  );
  expect((await h.runtime.store.watches.get('ex-reply-lost', B.installation))?.state).toBe('active');
  await h.runtime.watcher!.idle();
  // B's reply is answered with a 503 (not kept): B reads back, and must not take A's card for its reply.
  h.fake.setFaults({ serverErrorNext: 1, methods: ['chat.postMessage'] });
  h.clock.advance(60 * 60_000);
  await until(
    async () => (await h.runtime.store.watches.get('ex-reply-lost', B.installation))?.state === 'finished',
    'B’s watch to finish',
  );
  await h.runtime.watcher!.idle();
  h.fake.setFaults({});
  const repliesInB = postsNaming('ex-reply-lost').filter((m) => m.thread_ts === tsB);
  expect(repliesInB.map((m) => m.user)).toEqual([BOT_B.userId]);
});

it("/runbook watch in B: A's execution is not found; its own execution of the same id is B's, not A's", async () => {
  const onlyA = await runIn(A, 'alpha-only');
  await until(async () => (await h.runtime.store.watches.get(onlyA.id, A.installation))?.messageTs, 'A’s card');
  expect(await answer(B, `watch ${onlyA.id}`, /not found|couldn.t find|no execution/i)).toContain(onlyA.id);
  expect(await h.runtime.store.watches.get(onlyA.id, B.installation)).toBeNull();
  // A's execution id is watched in A; B's tenant starts one of its own with that id outside Slack: B's /runbook
  // watch adopts B's (it is not "already being watched" in A's channel), and A's watch is left as it was.
  const runbook = [...tenantB.workflows.byId.values()].find((r) => r.workflow.name === SCALE)!;
  tenantB.nextExecutionIds.push(onlyA.id);
  tenantB.startExecutionAt(runbook, { proxyId: 'proxy-1' }, {}, h.clock.now(), {
    executor: 'sam@example.com',
    approver: '',
  });
  const since = h.fake.state.ephemerals.length;
  await h.user(B.user, B.installation).command(`watch ${onlyA.id}`, 'C01OPS');
  const adopted = await until(async () => h.runtime.store.watches.get(onlyA.id, B.installation), 'B’s adopted watch');
  expect(adopted).toMatchObject({ origin: 'adopted', teamId: B.installation });
  // Its running card, in B with B's token; B was never told "already being watched" (A's watch).
  const card = await until(
    async () =>
      callsNaming(onlyA.id).find(
        (c) => c.method === 'chat.postMessage' && c.installation === B.installation && !('thread_ts' in c.args),
      ),
    'B’s running card',
  );
  expect(JSON.stringify(card.args)).toContain('is running');
  expect(JSON.stringify(h.fake.state.ephemerals.slice(since))).not.toMatch(/already/);
  expect(await h.runtime.store.watches.get(onlyA.id, A.installation)).toMatchObject({
    origin: 'slack',
    startedBy: A.user,
  });
});

it('a restart reconciles each installation’s run intents against its own API only', async () => {
  // A crash left three runs unsettled. A's and B's each started an execution with the same id in their own
  // tenant; B's Drain started nothing in B's tenant — A's tenant has a matching Drain, which is not B's.
  const scaleIn = (state: EmulatorState) => [...state.workflows.byId.values()].find((r) => r.workflow.name === SCALE)!;
  const drainInA = [...h.emulator.state.workflows.byId.values()].find((r) => r.workflow.name === DRAIN)!;
  const at = h.clock.now();
  const params = { namespace: 'lost', deployment: 'lost-web', replicas: 2 };
  const received = { proxyId: 'proxy-1', params: JSON.stringify(params) };
  const who = { executor: 'ops@example.com', approver: '' };
  for (const state of [h.emulator.state, tenantB]) {
    state.nextExecutionIds.push('ex-lost');
    state.startExecutionAt(scaleIn(state), received, params, at, who);
  }
  h.emulator.state.startExecutionAt(drainInA, received, params, at, who);
  const intent = (id: string, who: typeof A, runbook: { id: string; name: string; inputSchema?: string }) => ({
    id,
    userId: who.user,
    userEmail: null,
    teamId: who.installation,
    runbookId: runbook.id,
    runbookName: runbook.name,
    proxyId: 'proxy-1',
    paramsHash: intentParamsHash(parseInputSchema(runbook.inputSchema ?? ''), params),
    channel: 'C01OPS',
    inputsSummary: '{}',
    via: 'form',
    installationId: who.installation,
  });
  const { intents } = h.runtime.store;
  await intents.record(intent('intent-a', A, scaleIn(h.emulator.state).workflow), at);
  await intents.record(intent('intent-b', B, scaleIn(tenantB).workflow), at);
  await intents.record(intent('intent-b-drain', B, { ...drainInA.workflow, id: 'drain-b' }), at);

  await h.runtime.tick();

  expect(await intents.get('intent-a')).toMatchObject({ state: 'reconciled', executionIds: ['ex-lost'] });
  expect(await intents.get('intent-b')).toMatchObject({ state: 'reconciled', executionIds: ['ex-lost'] });
  // Looked for in B's own API, where nothing started: lost, though A's API holds a run just like it.
  expect(await intents.get('intent-b-drain')).toMatchObject({ state: 'lost', executionIds: [] });
  expect(await h.runtime.store.watches.get('ex-lost', A.installation)).toMatchObject({ startedBy: A.user });
  expect(await h.runtime.store.watches.get('ex-lost', B.installation)).toMatchObject({ startedBy: B.user });
  // Each found run's card goes to its own workspace, with its own token.
  const cards = await until(async () => {
    const found = callsNaming('ex-lost').filter((c) => c.method === 'chat.postMessage' && !('thread_ts' in c.args));
    return found.length >= 2 && found;
  }, 'the found runs’ cards');
  expect(cards.map((c) => c.installation).sort()).toEqual([A.installation, B.installation].sort());
});

it('an uninstall stops that installation’s watches only: the other’s watch of the same id is delivered', async () => {
  h.emulator.state.nextExecutionIds.push('ex-both');
  tenantB.nextExecutionIds.push('ex-both');
  await runIn(A, 'alpha-both');
  await runIn(B, 'beta-both');
  for (const who of [A, B]) {
    await until(async () => (await h.runtime.store.watches.get('ex-both', who.installation))?.messageTs, 'the cards');
  }
  const events = h.fake.oauth.uninstall(B.installation);
  expect(await h.deliver(events.appUninstalled)).toBe(200);
  // At once, before any run ends: B's watch is over, A's goes on.
  await until(
    async () => (await h.runtime.store.watches.get('ex-both', B.installation))?.state === 'stale',
    'B’s watch to stop',
  );
  expect((await h.runtime.store.watches.get('ex-both', A.installation))?.state).toBe('active');
  h.clock.advance(60 * 60_000);
  await until(
    async () => (await h.runtime.store.watches.get('ex-both', A.installation))?.state === 'finished',
    'A’s watch to finish',
  );
  await h.runtime.watcher!.idle();
  const results = callsNaming('ex-both').filter(
    (c) => c.method === 'chat.update' && /succeeded|failed/i.test(JSON.stringify(c.args)),
  );
  expect(results.map((c) => c.installation)).toEqual([A.installation]);
  expect((await h.runtime.store.watches.get('ex-both', B.installation))?.resultPostedAt).toBeNull();
});
