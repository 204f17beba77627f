// Switching a deployment from one workspace to many: the first many-workspace start finds no installation
// yet, so the single workspace's open watches and run intents (kept for '') stay unassigned. They are assigned
// when the workspace's installation is stored (the install completes), not only at the next start: a
// `/runbook watch` of such a run right after the install finds its watch and never starts a second one.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type OAuthHarness, startOAuthHarness, until } from '../support/oauth-harness.ts';

const TEAM = 'T0SANDBOX';
const USER = 'U01ALICE';
const SCALE = 'Scale Kubernetes Deployment';

let h: OAuthHarness;
beforeAll(async () => {
  h = await startOAuthHarness();
}, 30_000);
afterAll(() => h?.stop());

/** A long run in the emulator, and the open watch of it that a single-workspace bot left (kept for ''). */
async function leftBySingleWorkspace(executionId: string, messageTs: string) {
  const runbook = [...h.emulator.state.workflows.byId.values()].find((r) => r.workflow.name === SCALE)!;
  h.emulator.state.nextExecutionIds.push(executionId);
  h.emulator.state.startExecutionAt(
    runbook,
    { proxyId: 'proxy-1' },
    {},
    h.clock.now(),
    { executor: 'alice@example.com', approver: '' },
    { outcome: 'succeeded', durationMs: 24 * 60 * 60_000 },
  );
  // The bot's own clock (the emulator's is its own).
  const now = Date.now();
  await h.runtime.store.watches.insert(
    {
      executionId,
      runbookId: runbook.workflow.id,
      runbookName: SCALE,
      channel: 'C01OPS',
      messageTs,
      startedBy: USER,
      teamId: TEAM,
      proxyId: 'proxy-1',
      inputsSummary: '{}',
      origin: 'slack',
      nextCheckAt: now + 24 * 60 * 60_000,
    },
    now,
  );
  return { runbook, now };
}

/** `/runbook watch <id>` in the workspace: what it answered. */
async function watchCommand(executionId: string): Promise<string> {
  const since = h.fake.state.ephemerals.length;
  await h.user(USER, TEAM).command(`watch ${executionId}`, 'C01OPS');
  const said = await until(
    async () => h.fake.state.ephemerals.slice(since).find((e) => e.user === USER),
    'the answer to /runbook watch',
  );
  return `${said.text ?? ''}${JSON.stringify(said.blocks ?? [])}`;
}

/** Posts naming the execution: a second watch would post its running card. */
const postsNaming = (id: string) =>
  h.fake.state.calls.filter((c) => c.method === 'chat.postMessage' && JSON.stringify(c.args).includes(id));

it('the single workspace’s open watch and run intent are its installation’s once it is installed: no second watch', async () => {
  const { watches, intents } = h.runtime.store;
  // Left by the single-workspace run of the bot: kept for '' (the single workspace), its team known.
  const { runbook, now } = await leftBySingleWorkspace('ex-before-switch', '1700000000.000100');
  await intents.record(
    {
      id: 'intent-before-switch',
      userId: USER,
      userEmail: null,
      teamId: TEAM,
      runbookId: runbook.workflow.id,
      runbookName: SCALE,
      proxyId: 'proxy-1',
      paramsHash: 'x',
      channel: 'C01OPS',
      inputsSummary: '{}',
      via: 'form',
    },
    now,
  );
  expect(await watches.get('ex-before-switch')).toMatchObject({ installationId: '' });

  // The workspace installs the app (no restart follows).
  expect((await h.install(TEAM)).status).toBe(200);
  expect(await watches.get('ex-before-switch', TEAM)).toMatchObject({ startedBy: USER, origin: 'slack' });
  expect(await watches.get('ex-before-switch')).toBeNull();
  expect(await intents.get('intent-before-switch')).toMatchObject({ installationId: TEAM });

  // `/runbook watch` of that run in the workspace: the watch it already has, not a second one.
  expect(await watchCommand('ex-before-switch')).toMatch(/already being watched/);
  expect(await watches.get('ex-before-switch', TEAM)).toMatchObject({
    origin: 'slack',
    messageTs: '1700000000.000100',
  });
  expect(await watches.get('ex-before-switch')).toBeNull();
  expect(postsNaming('ex-before-switch')).toEqual([]);
});

it('a watch the single workspace left that is not assigned yet is still found by /runbook watch in its workspace', async () => {
  // Written for '' after the install's assignment ran (by a replica still in single-workspace mode, say).
  await leftBySingleWorkspace('ex-unassigned', '1700000000.000200');
  expect(await watchCommand('ex-unassigned')).toMatch(/already being watched/);
  expect(await h.runtime.store.watches.get('ex-unassigned', TEAM)).toBeNull();
  expect(await h.runtime.store.watches.get('ex-unassigned')).toMatchObject({ origin: 'slack', teamId: TEAM });
  expect(postsNaming('ex-unassigned')).toEqual([]);
});
