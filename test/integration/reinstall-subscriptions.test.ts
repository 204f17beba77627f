// Many workspaces: Remove, then Add to Slack again. Background work finds the workspace installed again at
// once (a run started right after the reinstall gets its result card; while uninstalled, every pass had
// found it gone, and that answer was kept for 30 s and ended the new run's watch). A channel subscription
// kept through the uninstall goes on from the reinstall, as a first subscription starts from "now": the
// runs that ended while the app was not installed are not posted into the channel afterwards (weeks of
// them, up to DATA_RETENTION_DAYS), and a run that ends after the reinstall is. End to end: Bolt's
// installer, the watcher, the subscription scanner, the fake Slack's app_uninstalled and tokens_revoked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type OAuthHarness,
  resultCardOf,
  SCALE,
  scanPosition,
  startOAuthHarness,
  until,
} from '../support/oauth-harness.ts';
import { answer, postsNaming, runScaleThroughApi, textOf } from '../support/tenant-flows.ts';

const TEAM = 'T0SANDBOX';
const ALICE = { id: 'U01ALICE', team: TEAM };
let h: OAuthHarness;

beforeAll(async () => {
  h = await startOAuthHarness({ env: { SUBSCRIPTIONS_POLL_SECONDS: '0.05' } });
  expect((await h.install(TEAM)).status).toBe(200);
}, 30_000);
afterAll(() => h?.stop());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a subscription found again at a reinstall', () => {
  it('tells a run that ends while installed', async () => {
    expect(textOf(await answer(h, ALICE, `subscribe "${SCALE}"`, SCALE))).toContain(SCALE);
    await scanPosition(h, TEAM); // the first scan takes what is already there as history
    const before = runScaleThroughApi(h, 'mkbefore');
    h.clock.advance(60 * 60_000);
    await until(async () => postsNaming(h, before, 'C01OPS').length === 1, 'the notice of the run before');
  });

  it('after an uninstall and a reinstall: a run at once gets its card; not the runs that ended meanwhile, those after', async () => {
    const events = h.fake.oauth.uninstall(TEAM);
    expect(await h.deliver(events.appUninstalled)).toBe(200);
    expect(await h.deliver(events.tokensRevoked)).toBe(200);
    await until(async () => (await h.runtime.store.installations.get(TEAM))?.sealed === null, 'the uninstall');
    await scanPosition(h, TEAM, true); // scans go on meanwhile (each finds the workspace gone)
    const meanwhile = runScaleThroughApi(h, 'mkmeanwhile');
    h.clock.advance(60 * 60_000);
    await sleep(300);
    expect((await h.install(TEAM, { connect: false })).status).toBe(200);
    // Its subscription is there again.
    expect((await h.runtime.store.subscriptions.listAll(TEAM)).map((s) => s.channel)).toContain('C01OPS');
    // A run from Slack right away: followed to its result card.
    const fromSlack = await h.runNow('U01ALICE', TEAM, 'mkright-after');
    await scanPosition(h, TEAM); // the first scan since: what ended meanwhile is history
    const after = runScaleThroughApi(h, 'mkafter');
    h.clock.advance(60 * 60_000);
    expect((await resultCardOf(h, fromSlack.id)).installation).toBe(TEAM);
    await until(async () => postsNaming(h, after, 'C01OPS').length === 1, 'the notice of the run after the reinstall');
    await sleep(300);
    expect(postsNaming(h, meanwhile, 'C01OPS')).toEqual([]);
  });
});
