// Many workspaces, an Enterprise Grid org installed org-wide: the org admin removes the app from one of the
// org's workspaces (team_access_revoked) and later adds it back (team_access_granted), through the real Bolt
// pipeline against the fake Slack. The removed workspace's work stops at once (its watch ends without a card,
// its subscription hears nothing) while the org's other workspace goes on; the event retried changes nothing
// again; added back, its subscription is found again and hears of runs that end from then on. And the
// watcher: one wrong "no installation serves this workspace" for a workspace still installed does not end
// its watch: the result card still arrives.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEAM_ACCESS_EVENTS } from '../../src/slack/installs.ts';
import { ACTIONS } from '../../src/slack/kit/ids.ts';
import {
  type OAuthHarness,
  resultCardOf,
  SCALE,
  scanPosition,
  startOAuthHarness,
  until,
} from '../support/oauth-harness.ts';
import { answer, type Person, personIn, postsNaming, runScaleThroughApi, textOf } from '../support/tenant-flows.ts';

const ORG = 'E0ACMEGRID';
const EVA: Person = { id: 'U21EVA', team: 'T0GRIDA' };
const UMA: Person = { id: 'U22UMA', team: 'T0GRIDB' };
let h: OAuthHarness;

beforeAll(async () => {
  h = await startOAuthHarness({ env: { SUBSCRIPTIONS_POLL_SECONDS: '0.05' } });
  for (const target of [ORG, 'T0SECOND']) expect((await h.install(target)).status).toBe(200);
}, 30_000);
afterAll(() => h?.stop());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `/runbook run … --now` and Run as `who` (in the org when theirs is one of its workspaces): the execution. */
async function runNow(who: Person, deployment: string, channel = 'C01OPS'): Promise<string> {
  const user = personIn(h, who);
  const seen = h.fake.state.ephemerals.length;
  await user.command(`run "${SCALE}" namespace=prod deployment=${deployment} replicas=2 --now`, channel);
  const confirm = await until(
    async () =>
      h.fake.state.ephemerals
        .slice(seen)
        .reverse()
        .find((e) => e.user === who.id && JSON.stringify(e.blocks ?? []).includes(ACTIONS.confirmRun)),
    `${who.id}'s confirmation`,
  );
  await user.act({ kind: 'ephemeral', ephemeral: confirm }, ACTIONS.confirmRun);
  const run = await until(
    async () =>
      [...h.emulator.state.executions.byId.values()].find((e) => String(e.received.params ?? '').includes(deployment)),
    'the run',
  );
  return run.id;
}

const watchOf = (id: string) => h.runtime.store.watches.get(id, ORG);
const audited = async (action: string) =>
  (await h.runtime.store.audit.recent(200)).filter((e) => e.action === action).map((e) => e.target);

describe('a workspace removed from an org-wide install, then added back', () => {
  it('the manifests’ team access events are the ones handled', () => {
    expect(TEAM_ACCESS_EVENTS).toEqual(['team_access_revoked', 'team_access_granted']);
  });

  it('its work stops at once, the other workspace goes on; a retry is safe; added back, it is found again', async () => {
    expect(textOf(await answer(h, EVA, `subscribe "${SCALE}"`, SCALE))).toContain(SCALE);
    expect(textOf(await answer(h, UMA, `subscribe "${SCALE}"`, SCALE, 'C02DEPLOYS'))).toContain(SCALE);
    expect(await h.runtime.store.installations.installationOfTeam(EVA.team)).toBe(ORG);
    const evaRun = await runNow(EVA, 'eva-removed');
    const umaRun = await runNow(UMA, 'uma-stays', 'C02DEPLOYS');
    await until(async () => (await watchOf(evaRun))?.messageTs, "Eva's running card");
    await until(async () => (await watchOf(umaRun))?.messageTs, "Uma's running card");
    await scanPosition(h, ORG); // the first subscription scan takes what is there as history

    const removal = h.fake.oauth.teamAccess(ORG, [EVA.team], 'team_access_revoked');
    expect(await h.deliver(removal)).toBe(200);
    const stopped = await until(async () => {
      const w = await watchOf(evaRun);
      return w?.state === 'stale' ? w : null;
    }, "Eva's watch to end");
    expect(stopped.resultPostedAt).toBeNull();
    expect(await h.runtime.store.installations.installationOfTeam(EVA.team)).toBeNull();
    // Slack's retry of the same event (and a second event of the same removal) changes nothing more.
    expect(await h.deliver(removal)).toBe(200);
    expect(await h.deliver(h.fake.oauth.teamAccess(ORG, [EVA.team], 'team_access_revoked'))).toBe(200);
    await sleep(100);
    expect(await audited('app.team_removed')).toEqual([EVA.team]);
    // The org keeps its tokens: its other workspace's run gets its card, Eva's none.
    const meanwhile = runScaleThroughApi(h, 'mk-meanwhile');
    h.clock.advance(60 * 60_000);
    await resultCardOf(h, umaRun);
    await until(async () => postsNaming(h, meanwhile, 'C02DEPLOYS').length === 1, "Uma's notice");
    await sleep(300);
    expect(postsNaming(h, meanwhile, 'C01OPS')).toEqual([]);
    const evaCards = h.fake.state.calls.filter(
      (c) =>
        c.method === 'chat.update' &&
        JSON.stringify(c.args).includes(evaRun) &&
        /Succeeded|Failed/.test(JSON.stringify(c.args)),
    );
    expect(evaCards).toEqual([]);
    expect((await h.runtime.store.installations.get(ORG))?.sealed).not.toBeNull();
    // Its rows are kept: the subscription is still there.
    const kept = await h.runtime.store.subscriptions.listAll(ORG);
    expect(kept.filter((s) => s.teamId === EVA.team).map((s) => s.channel)).toEqual(['C01OPS']);

    // Added back by the org admin: found again, and told of runs that end from then on.
    expect(await h.deliver(h.fake.oauth.teamAccess(ORG, [EVA.team], 'team_access_granted'))).toBe(200);
    await until(
      async () => (await h.runtime.store.installations.installationOfTeam(EVA.team)) === ORG,
      'the workspace to be served again',
    );
    expect(await audited('app.team_added')).toEqual([EVA.team]);
    await sleep(300);
    const after = runScaleThroughApi(h, 'mk-after');
    h.clock.advance(60 * 60_000);
    await until(async () => postsNaming(h, after, 'C01OPS').length === 1, "Eva's notice after the grant");
    expect(postsNaming(h, meanwhile, 'C01OPS')).toEqual([]);
    // A late retry of the removal, sent before the grant, leaves it served.
    expect(await h.deliver(removal)).toBe(200);
    await sleep(100);
    expect(await h.runtime.store.installations.installationOfTeam(EVA.team)).toBe(ORG);
  });

  it('one wrong "no installation serves it" for an installed workspace: its watch is kept and the card arrives', async () => {
    const id = await runNow({ id: 'U11SAM', team: 'T0SECOND' }, 'sam-once-wrong');
    await until(async () => (await h.runtime.store.watches.get(id, 'T0SECOND'))?.messageTs, "Sam's running card");
    const records = h.runtime.store.installations;
    const real = records.installationOfTeam.bind(records);
    // Wrong for the second workspace until the watcher has met the wrong answer (while the run still runs).
    const met = () => h.logs.some((l) => l.includes('still installed; watch kept'));
    let wrong = 0;
    records.installationOfTeam = async (teamId) => {
      if (teamId === 'T0SECOND' && !met()) {
        wrong += 1;
        return null;
      }
      return real(teamId);
    };
    try {
      // What this process keeps (30 s) is dropped until a lookup reaches the store (one in flight may refill it).
      await until(async () => {
        h.runtime.tenants!.clients.forget('T0SECOND');
        return met() || (await h.runtime.store.watches.get(id, 'T0SECOND'))?.state !== 'active';
      }, 'the watcher to meet the wrong answer');
      expect(wrong).toBeGreaterThan(0);
      expect((await h.runtime.store.watches.get(id, 'T0SECOND'))?.state).toBe('active');
      h.clock.advance(60 * 60_000);
      expect((await resultCardOf(h, id)).installation).toBe('T0SECOND');
      const watch = await until(async () => {
        const w = await h.runtime.store.watches.get(id, 'T0SECOND');
        return w?.state !== 'active' ? w : null;
      }, 'the watch to end');
      expect(watch.state).toBe('finished');
    } finally {
      records.installationOfTeam = real;
    }
  });

  it('as Slack’s reference shows it (a workspace in the envelope, not is_enterprise_install): the removed workspace’s queued Slack work is dropped unsent, the other’s goes out', async () => {
    const evaRun = await runNow(EVA, 'eva-queued');
    const umaRun = await runNow(UMA, 'uma-queued', 'C02DEPLOYS');
    await until(async () => (await watchOf(evaRun))?.messageTs, "Eva's running card");
    await until(async () => (await watchOf(umaRun))?.messageTs, "Uma's running card");
    // Slack rate-limits every post and edit: both results wait in the pacer, retried after Retry-After.
    h.fake.setFaults({ ratelimitedRate: 1, retryAfterSeconds: 2, methods: ['chat.update', 'chat.postMessage'] });
    h.clock.advance(60 * 60_000);
    // Each card's edit refused once (a subscription's notice names the run too: the card's channel tells).
    const limited = (id: string, channel: string) => (c: (typeof h.fake.state.calls)[number]) =>
      c.status === 429 &&
      c.method === 'chat.update' &&
      c.args.channel === channel &&
      JSON.stringify(c.args).includes(id);
    await until(async () => h.fake.state.calls.some(limited(evaRun, 'C01OPS')), "Eva's result held back");
    await until(async () => h.fake.state.calls.some(limited(umaRun, 'C02DEPLOYS')), "Uma's result held back");
    await sleep(200); // the refused edit is back in its lane, waiting out Retry-After

    // Named by the very workspace removed, as in Slack's example: the org-wide installation is found.
    const from = h.fake.state.calls.length;
    const removals = () => h.logs.filter((l) => l.includes("a workspace removed from the org's install"));
    const before = removals().length;
    expect(await h.deliver(h.fake.oauth.teamAccess(ORG, [EVA.team], 'team_access_revoked', EVA.team))).toBe(200);
    // What the pacer still held of Eva's (her card's edit, her reply) went nowhere.
    const removed = await until(async () => removals()[before], 'the removal');
    expect(JSON.parse(removed)).toMatchObject({ teamId: EVA.team, stopped: 1 });
    expect(JSON.parse(removed).dropped).toBeGreaterThan(0);
    expect(await h.runtime.store.installations.installationOfTeam(EVA.team)).toBeNull();
    h.fake.setFaults({});
    await resultCardOf(h, umaRun);
    await sleep(2_500); // past Retry-After: anything of Eva's still held would go now
    // Nothing of Eva's run in her channel (Uma's subscription in hers still hears of it).
    const evaSent = h.fake.state.calls
      .slice(from)
      .filter((c) => c.ok && c.args.channel === 'C01OPS' && JSON.stringify(c.args).includes(evaRun));
    expect(evaSent).toEqual([]);
    expect((await watchOf(evaRun))?.resultPostedAt).toBeNull();

    // Added back, named by the org's other workspace: served again.
    expect(await h.deliver(h.fake.oauth.teamAccess(ORG, [EVA.team], 'team_access_granted', UMA.team))).toBe(200);
    await until(
      async () => (await h.runtime.store.installations.installationOfTeam(EVA.team)) === ORG,
      'the workspace to be served again',
    );
  }, 30_000);

  it('after the org is uninstalled, a removal is a no-op and answered 200', async () => {
    const events = h.fake.oauth.uninstall(ORG);
    expect(await h.deliver(events.tokensRevoked)).toBe(200);
    await until(async () => (await h.runtime.store.installations.get(ORG))?.sealed === null, 'the uninstall');
    expect(await h.deliver(h.fake.oauth.teamAccess(ORG, [UMA.team], 'team_access_revoked'))).toBe(200);
    expect(await h.deliver(events.appUninstalled)).toBe(200);
    await sleep(100);
    expect(await audited('app.team_removed')).toEqual([EVA.team, EVA.team]);
  });
});
