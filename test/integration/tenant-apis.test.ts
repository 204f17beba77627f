// Many workspaces, each on its own Runbook API tenant, end to end through the real runtime (Bolt's OAuth
// installer, the fake Slack, the emulator serving two tenants by key): a workspace connected to tenant B
// lists B's catalog, its run starts in B and the watcher turns its card into the result with B's key;
// the other workspace stays on tenant A; an execution id of one is "not found" in the other.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIONS } from '../../src/slack/kit/ids.ts';
import { SUBSCRIPTIONS_CURSOR } from '../../src/watch/subscriptions.ts';
import { API_KEY, type OAuthHarness, resultCardOf, startOAuthHarness, until } from '../support/oauth-harness.ts';

const KEY_B = 'tenant-b-key-0123456789';
const SCALE = 'Scale Kubernetes Deployment';
const B_RUNBOOKS = [SCALE, 'Postgres Vacuum Analyze'];

let h: OAuthHarness;
beforeAll(async () => {
  h = await startOAuthHarness({
    tenants: { [KEY_B]: { name: 'beta', runbooks: B_RUNBOOKS } },
    env: { SUBSCRIPTIONS_POLL_SECONDS: '0.05' },
  });
  expect((await h.install('T0SANDBOX')).status).toBe(200);
  expect((await h.install('T0SECOND', { connect: false })).status).toBe(200);
});
afterAll(() => h?.stop());

const tenantB = () => h.emulator.tenant(KEY_B)!;
const ephemeralSince = (since: number, userId: string, needle: string) =>
  h.fake.state.ephemerals
    .slice(since)
    .find((e) => e.user === userId && `${e.text}${JSON.stringify(e.blocks ?? [])}`.includes(needle));

async function runIn(userId: string, team: string, deployment: string) {
  const since = h.fake.state.ephemerals.length;
  await h
    .user(userId, team)
    .command(`run "${SCALE}" namespace=prod deployment=${deployment} replicas=2 --now`, 'C01OPS');
  const confirm = await until(async () => ephemeralSince(since, userId, ACTIONS.confirmRun), 'the confirmation');
  await h.user(userId, team).act({ kind: 'ephemeral', ephemeral: confirm }, ACTIONS.confirmRun);
}

describe('each workspace on its own Runbook API tenant', () => {
  it('a workspace not connected yet says so; once connected it lists its own tenant’s catalog', async () => {
    let since = h.fake.state.ephemerals.length;
    await h.user('U11SAM', 'T0SECOND').command('list', 'C01OPS');
    await until(async () => ephemeralSince(since, 'U11SAM', 'not connected to a Runbook API yet'), 'not connected');
    expect(tenantB().requests.snapshot().total).toBe(0);

    const connected = await h.runtime.tenants!.connections.connect('T0SECOND', { apiKey: KEY_B }, 'U11SAM');
    expect(connected.ok).toBe(true);
    since = h.fake.state.ephemerals.length;
    await h.user('U11SAM', 'T0SECOND').command('list', 'C01OPS');
    const list = await until(async () => ephemeralSince(since, 'U11SAM', SCALE), 'tenant B list');
    expect(JSON.stringify(list.blocks)).toContain('Postgres Vacuum Analyze');
    expect(JSON.stringify(list.blocks)).not.toContain('Find Unattached EBS Volumes');
  });

  it('runs start in each workspace’s tenant and the watcher finishes each card with that tenant’s key', async () => {
    await runIn('U11SAM', 'T0SECOND', 'in-beta');
    await runIn('U01ALICE', 'T0SANDBOX', 'in-alpha');
    const inB = await until(
      async () => [...tenantB().executions.byId.values()].find((e) => String(e.received.params).includes('in-beta')),
      'the run in tenant B',
    );
    const inA = await until(
      async () =>
        [...h.emulator.state.executions.byId.values()].find((e) => String(e.received.params).includes('in-alpha')),
      'the run in tenant A',
    );
    // Nothing crossed: each run exists in its own tenant only.
    expect(
      [...h.emulator.state.executions.byId.values()].some((e) => String(e.received.params).includes('in-beta')),
    ).toBe(false);
    expect([...tenantB().executions.byId.values()].some((e) => String(e.received.params).includes('in-alpha'))).toBe(
      false,
    );
    h.clock.advance(60 * 60_000);
    const resultOf = (id: string) => resultCardOf(h, id);
    expect((await resultOf(inB.id)).installation).toBe('T0SECOND');
    expect((await resultOf(inA.id)).installation).toBe('T0SANDBOX');
  });

  it('an execution id of one tenant is not found in the other workspace', async () => {
    const ofA = [...h.emulator.state.executions.byId.values()].find((e) =>
      String(e.received.params).includes('in-alpha'),
    )!;
    const since = h.fake.state.ephemerals.length;
    await h.user('U11SAM', 'T0SECOND').command(`status ${ofA.id}`, 'C01OPS');
    const answer = await until(async () => ephemeralSince(since, 'U11SAM', ofA.id), 'the status answer');
    expect(answer.text).toMatch(/No execution has the id/);
    expect(JSON.stringify(answer.blocks)).not.toContain('in-alpha');
    expect(API_KEY).not.toBe(KEY_B);
  });

  it('/runbook audit shows each workspace its own trail only', async () => {
    const auditOf = async (userId: string, team: string) => {
      const since = h.fake.state.ephemerals.length;
      await h.user(userId, team).command('audit', 'C01OPS');
      const answer = await until(async () => ephemeralSince(since, userId, 'udit'), `${team}'s audit trail`);
      return `${answer.text}${JSON.stringify(answer.blocks)}`;
    };
    const second = await auditOf('U11SAM', 'T0SECOND');
    const first = await auditOf('U01ALICE', 'T0SANDBOX');
    // Lines read "<who> in <where> *<action>* · <target>"; the harness installs both workspaces as Alice.
    expect(second).toMatch(/<@U11SAM>[^\n"]*run\.start/);
    expect(second).not.toMatch(/<@U01ALICE>[^\n"]*run\.start/);
    expect(second).not.toContain('T0SANDBOX');
    expect(first).toMatch(/<@U01ALICE>[^\n"]*run\.start/);
    expect(first).not.toContain('U11SAM');
    expect(first).not.toContain('T0SECOND');
    const rows = await h.runtime.store.audit.recent(100);
    // Every entry names its installation: runs by who ran them, installs by where they were made.
    expect(
      rows
        .filter((e) => e.action === 'run.start')
        .map((e) => [e.userId, e.installationId])
        .sort(),
    ).toEqual([
      ['U01ALICE', 'T0SANDBOX'],
      ['U11SAM', 'T0SECOND'],
    ]);
    expect(
      rows
        .filter((e) => e.action === 'app.install')
        .map((e) => e.installationId)
        .sort(),
    ).toEqual(['T0SANDBOX', 'T0SECOND']);
    expect(rows.every((e) => e.installationId)).toBe(true);
  });

  it("a channel's subscription gets its own workspace's runs only, read from its own tenant", async () => {
    const VACUUM = 'Postgres Vacuum Analyze';
    await h.user('U11SAM', 'T0SECOND').command(`subscribe "${VACUUM}"`, 'C01OPS');
    await until(
      async () => (await h.runtime.store.subscriptions.listAll()).find((sub) => sub.teamId === 'T0SECOND'),
      'the subscription',
    );
    // The workspace's first scan sets its own baseline (its own cursor).
    await until(async () => h.runtime.store.cursors.get(SUBSCRIPTIONS_CURSOR, 'T0SECOND'), 'the first scan');
    const start = (state: typeof h.emulator.state) => {
      const runbook = [...state.workflows.byId.values()].find((r) => r.workflow.name === VACUUM)!;
      return state.runWorkflow(runbook.workflow.id, { proxyId: 'proxy-dev', params: '{"database":"app"}' });
    };
    const inA = start(h.emulator.state);
    const inB = start(tenantB());
    h.clock.advance(60 * 60_000);
    const posted = () => JSON.stringify(h.fake.state.calls.filter((c) => c.method === 'chat.postMessage' && c.ok));
    await until(async () => posted().includes(inB.id), 'the notice of the run in tenant B');
    expect(posted()).not.toContain(inA.id);
    const notice = h.fake.state.calls.find(
      (c) => c.method === 'chat.postMessage' && JSON.stringify(c.args).includes(inB.id),
    );
    expect(notice?.installation).toBe('T0SECOND');
  });

  it('a channel both workspaces share keeps each its own alias of one name; neither lists nor removes the other’s', async () => {
    const answer = async (userId: string, team: string, command: string, needle: string) => {
      const since = h.fake.state.ephemerals.length;
      await h.user(userId, team).command(command, 'C01OPS');
      const said = await until(async () => ephemeralSince(since, userId, needle), `${team}: ${command}`);
      return `${said.text}${JSON.stringify(said.blocks ?? [])}`;
    };
    await answer('U01ALICE', 'T0SANDBOX', `alias add shared-name "${SCALE}" deployment=alpha-web`, 'added');
    // The other workspace has no alias of that name here: its list is empty, using it is unknown.
    expect(await answer('U11SAM', 'T0SECOND', 'alias list', 'alias')).not.toContain('shared-name');
    expect(await answer('U11SAM', 'T0SECOND', 'alias remove shared-name', 'shared-name')).toMatch(/has no alias/);
    // Saving one of the same name there is a new alias, not a clash with (or a replacement of) the first.
    expect(
      await answer('U11SAM', 'T0SECOND', `alias add shared-name "${SCALE}" deployment=beta-web`, 'shared-name'),
    ).toContain('added');
    const rows = [
      ...(await h.runtime.store.aliases.listForChannel('C01OPS', 'T0SANDBOX')),
      ...(await h.runtime.store.aliases.listForChannel('C01OPS', 'T0SECOND')),
    ].map((a) => [a.name, a.teamId, a.params]);
    expect(rows).toEqual([
      ['shared-name', 'T0SANDBOX', '{"deployment":"alpha-web"}'],
      ['shared-name', 'T0SECOND', '{"deployment":"beta-web"}'],
    ]);
    expect(await answer('U01ALICE', 'T0SANDBOX', 'alias list', 'shared-name')).not.toContain('beta-web');
  });
});
