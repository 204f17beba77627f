// Many workspaces, each on its own Runbook API tenant, running one runbook of the same name: each running
// card says how long that runbook usually takes in its own tenant, and the watcher (one routed client for
// every workspace) says "longer than usual" past each run's own tenant's p95, from what the card kept.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FakeMessage } from '../../src/sandbox/fake-slack-api.ts';
import { ACTIONS } from '../../src/slack/kit/ids.ts';
import { seedFinishedRuns } from '../support/health-harness.ts';
import { type OAuthHarness, startOAuthHarness, until } from '../support/oauth-harness.ts';

const KEY_B = 'tenant-b-key-0123456789';
const SCALE = 'Scale Kubernetes Deployment';

let h: OAuthHarness;
beforeAll(async () => {
  // Vacuum brings the tenant's demo schedules, whose proxy the workspace then offers.
  h = await startOAuthHarness({ tenants: { [KEY_B]: { name: 'beta', runbooks: [SCALE, 'Postgres Vacuum Analyze'] } } });
  expect((await h.install('T0SANDBOX')).status).toBe(200);
  expect((await h.install('T0SECOND', { connect: false })).status).toBe(200);
  expect((await h.runtime.tenants!.connections.connect('T0SECOND', { apiKey: KEY_B }, 'U11SAM')).ok).toBe(true);
});
afterAll(() => h?.stop());

async function runIn(userId: string, team: string, deployment: string) {
  const since = h.fake.state.ephemerals.length;
  await h
    .user(userId, team)
    .command(`run "${SCALE}" namespace=eta deployment=${deployment} replicas=2 --now`, 'C01OPS');
  const confirm = await until(
    async () =>
      h.fake.state.ephemerals
        .slice(since)
        .find((e) => e.user === userId && JSON.stringify(e.blocks ?? []).includes(ACTIONS.confirmRun)),
    'the confirmation',
  );
  await h.user(userId, team).act({ kind: 'ephemeral', ephemeral: confirm }, ACTIONS.confirmRun);
}

const cardOf = (executionId: string): FakeMessage | undefined =>
  (h.fake.state.messages.C01OPS ?? []).find((m) => !m.thread_ts && JSON.stringify(m.blocks).includes(executionId));

it('each workspace’s card says its own tenant’s usual duration, and "longer than usual" past its own p95', async () => {
  // Tenant A runs it in about half a second (p95 860 ms), tenant B in about 10 minutes.
  const tenantB = h.emulator.tenant(KEY_B)!;
  seedFinishedRuns(h.emulator.state, h.clock.now(), SCALE, 400);
  seedFinishedRuns(tenantB, h.clock.now(), SCALE, 10 * 60_000);
  await runIn('U11SAM', 'T0SECOND', 'eta-beta');
  await runIn('U01ALICE', 'T0SANDBOX', 'eta-alpha');
  const started = (state: typeof tenantB, mark: string) =>
    until(async () => [...state.executions.byId.values()].find((e) => String(e.received.params).includes(mark)), mark);
  const inA = await started(h.emulator.state, 'eta-alpha');
  const inB = await started(tenantB, 'eta-beta');
  const cardA = await until(async () => cardOf(inA.id), 'the card in the first workspace');
  const cardB = await until(async () => cardOf(inB.id), 'the card in the second workspace');
  expect(JSON.stringify(cardA.blocks)).toContain('usually takes about 1 s (median of the last 20 runs)');
  expect(JSON.stringify(cardB.blocks)).toContain('usually takes about 10 min (median of the last 20 runs)');

  // Past A's p95 the watcher says so on A's card; B's run, as old, is well within its own runbook's usual time.
  const late = await until(async () => {
    const card = cardOf(inA.id);
    return card && JSON.stringify(card.blocks).includes('running longer than usual') ? card : undefined;
  }, '"longer than usual" in the first workspace');
  expect(late.ts).toBe(cardA.ts);
  expect(JSON.stringify(cardOf(inB.id)!.blocks)).not.toContain('longer than usual');
  const watchB = await h.runtime.store.watches.get(inB.id, 'T0SECOND');
  expect(watchB?.eta?.medianMs).toBeGreaterThan(9 * 60_000);
});
