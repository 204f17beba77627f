// Many workspaces: an operator removes the address a workspace is connected to from RUNBOOK_API_URLS, and
// an admin reconnects it later. Its channel subscription, kept meanwhile, goes on from the reconnect, as a
// first subscription starts from "now": the runs that ended while the address was withdrawn are not all
// posted into the channel at once afterwards, and a run that ends after the reconnect is. End to end:
// Bolt's installer, the subscription scanner, the emulator's API.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '../../src/tenants/secret-box.ts';
import { API_KEY, type OAuthHarness, SCALE, scanPosition, startOAuthHarness, until } from '../support/oauth-harness.ts';
import { answer, postsNaming, runScaleThroughApi, textOf } from '../support/tenant-flows.ts';

const KEY = randomBytes(32);
const TEAM = 'T0SANDBOX';
let h: OAuthHarness;

beforeAll(async () => {
  h = await startOAuthHarness({
    env: { SECRETS_ENCRYPTION_KEY: KEY.toString('base64'), SUBSCRIPTIONS_POLL_SECONDS: '0.05' },
  });
  expect((await h.install(TEAM)).status).toBe(200);
}, 30_000);
afterAll(() => h?.stop());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a subscription of a workspace whose address was withdrawn, then reconnected', () => {
  it('is told of runs that end after the reconnect, not of those that ended meanwhile', async () => {
    expect(textOf(await answer(h, { id: 'U01ALICE', team: TEAM }, `subscribe "${SCALE}"`, SCALE))).toContain(SCALE);
    await scanPosition(h, TEAM); // the first scan takes what is there as history
    const before = runScaleThroughApi(h, 'mkbefore');
    h.clock.advance(60 * 60_000);
    await until(async () => postsNaming(h, before, 'C01OPS').length === 1, 'the notice of the run before');

    // The operator removes its address (the connection as saved, to an address no longer listed).
    await h.runtime.store.apiConnections.put(
      {
        ...(await h.runtime.store.apiConnections.get(TEAM))!,
        baseUrl: 'http://127.0.0.1:9',
        sealedKey: createSecretBox({ key: KEY }).seal(API_KEY),
      },
      Date.now(),
    );
    await scanPosition(h, TEAM, true); // scans go on meanwhile (each finds no API to read)
    const meanwhile = runScaleThroughApi(h, 'mkmeanwhile');
    h.clock.advance(60 * 60_000);
    await sleep(300);
    const connected = await h.runtime.tenants!.connections.connect(TEAM, { apiKey: API_KEY }, 'U02BOB');
    expect(connected.ok).toBe(true);
    await scanPosition(h, TEAM); // the first scan since: what ended meanwhile is history
    const after = runScaleThroughApi(h, 'mkafter');
    h.clock.advance(60 * 60_000);
    await until(async () => postsNaming(h, after, 'C01OPS').length === 1, 'the notice of the run after the reconnect');
    await sleep(300);
    expect(postsNaming(h, meanwhile, 'C01OPS')).toEqual([]);
  });
});
