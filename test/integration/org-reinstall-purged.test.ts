// Many workspaces, an Enterprise Grid org installed org-wide: uninstalled, purged after DATA_RETENTION_DAYS
// (with the record of which of its workspaces used it), then installed again in the same process. A
// workspace of the org that had used it before is remembered again as the org's, so background work for
// it finds the installation: its new channel subscription is told of a run. (The process remembered that
// it had already written the workspace, so it never wrote it again, and every scan of the subscription
// found the workspace served by nothing.) End to end: Bolt's installer, the fake Slack, the scanner.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OAuthHarness, SCALE, scanPosition, startOAuthHarness, until } from '../support/oauth-harness.ts';
import { answer, postsNaming, runScaleThroughApi, textOf } from '../support/tenant-flows.ts';

const ORG = 'E0ACMEGRID';
const EVA = { id: 'U21EVA', team: 'T0GRIDA' };
let h: OAuthHarness;

beforeAll(async () => {
  h = await startOAuthHarness({ env: { DATA_RETENTION_DAYS: '0', SUBSCRIPTIONS_POLL_SECONDS: '0.05' } });
}, 30_000);
afterAll(() => h?.stop());

describe('an org-wide installation purged, then installed again', () => {
  it("its workspace's subscription made after the reinstall is served", async () => {
    expect((await h.install(ORG)).status).toBe(200);
    expect(textOf(await answer(h, EVA, 'help'))).toContain('/runbook');
    expect(await h.runtime.store.installations.installationOfTeam(EVA.team)).toBe(ORG);
    const events = h.fake.oauth.uninstall(ORG);
    expect(await h.deliver(events.appUninstalled)).toBe(200);
    expect(await h.deliver(events.tokensRevoked)).toBe(200);
    await until(async () => (await h.runtime.store.installations.get(ORG))?.sealed === null, 'the uninstall');
    await h.runtime.tick();
    expect(await h.runtime.store.installations.get(ORG)).toBeNull();
    expect(await h.runtime.store.installations.installationOfTeam(EVA.team)).toBeNull();

    expect((await h.install(ORG)).status).toBe(200);
    expect(textOf(await answer(h, EVA, `subscribe "${SCALE}"`, SCALE))).toContain(SCALE);
    expect(await h.runtime.store.installations.installationOfTeam(EVA.team)).toBe(ORG);
    await scanPosition(h, ORG); // the first scan takes what is there as history
    const run = runScaleThroughApi(h, 'mkorg');
    h.clock.advance(60 * 60_000);
    await until(async () => postsNaming(h, run, 'C01OPS').length === 1, "the notice of the org's run");
  });
});
