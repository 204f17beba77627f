// An Enterprise Grid org installed org-wide is ONE tenant (one installation, one Runbook API key) however many
// of its workspaces follow runs: the watcher sweeps it with one listing of its API per sweep covering every
// workspace's watches, tells each run in the workspace (channel) it was followed in, and under a contended
// global ceiling gives it one tenant's share, as much as a workspace installed on its own. Through the real
// runtime (Bolt's OAuth installer, the fake Slack, the emulator serving each tenant by key); the yardstick
// is tenant B, a workspace with as many watches in one workspace, swept by the same passes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorState } from '../../src/emulator/state.ts';
import { type OAuthHarness, SCALE, startOAuthHarness, until } from '../support/oauth-harness.ts';
import { installAndConnect } from '../support/three-installations.ts';

const KEY_G = 'tenant-grid-sweep-key-0123456789';
const KEY_B = 'tenant-b-sweep-key-0123456789';
const TENANTS = { [KEY_G]: { name: 'grid', runbooks: [SCALE] }, [KEY_B]: { name: 'beta', runbooks: [SCALE] } };
const ORG = 'E0ACMEGRID';
/** The org's two workspaces, each following its runs in its own channel; B, a workspace installed alone. */
const WORKSPACES = [
  { installation: ORG, teamId: 'T0GRIDA', channel: 'C01OPS', startedBy: 'U21EVA' },
  { installation: ORG, teamId: 'T0GRIDB', channel: 'C02DEPLOYS', startedBy: 'U22UMA' },
] as const;
const B = { installation: 'T0SECOND', teamId: 'T0SECOND', channel: 'C01OPS', startedBy: 'U11SAM' };
type Place = (typeof WORKSPACES)[number] | typeof B;
const LIST = 'GET /v1alpha1/executions';
const GET = 'GET /v1alpha1/executions/{executionId}';

/** The describe block's harness: the org and B installed and connected; each tenant may spend 40 requests/s. */
function harness(globalRequestsPerSecond: string): () => OAuthHarness {
  let h: OAuthHarness | undefined;
  beforeAll(async () => {
    const env = { WATCH_REQUESTS_PER_SECOND: '40', WATCH_GLOBAL_REQUESTS_PER_SECOND: globalRequestsPerSecond };
    h = await startOAuthHarness({ tenants: TENANTS, env });
    await installAndConnect(h, ORG, KEY_G);
    await installAndConnect(h, 'T0SECOND', KEY_B);
    // The listings reach back to the oldest watch by the API's creation times: runs are created now.
    if (h.clock.now() < Date.now()) h.clock.advance(Date.now() - h.clock.now());
  }, 30_000);
  afterAll(() => h?.stop());
  return () => h!;
}

/** `n` runs started in each tenant (`org`: in G's, `alone`: in B's), and the two tenants. */
function runsInBoth(h: OAuthHarness, n: number) {
  const g = h.emulator.tenant(KEY_G)!;
  const b = h.emulator.tenant(KEY_B)!;
  return { g, b, org: startRuns(h, g, n), alone: startRuns(h, b, n) };
}

function startRuns(h: OAuthHarness, state: EmulatorState, n: number): string[] {
  const runbook = [...state.workflows.byId.values()].find((r) => r.workflow.name === SCALE)!;
  return Array.from(
    { length: n },
    () =>
      state.startExecutionAt(runbook, { proxyId: 'proxy-1' }, {}, h.clock.now(), {
        executor: 'ops@example.com',
        approver: '',
      }).id,
  );
}

/** Follows `ids` in `place`, kept for its installation; `messageTs`: a card already up (none to post). */
async function watch(h: OAuthHarness, ids: string[], place: Place, messageTs: string | null = null): Promise<void> {
  for (const executionId of ids) {
    await h.runtime.store.watches.insert(
      {
        installationId: place.installation,
        executionId,
        runbookId: 'rb',
        runbookName: SCALE,
        channel: place.channel,
        messageTs,
        startedBy: place.startedBy,
        teamId: place.teamId,
        proxyId: 'proxy-1',
        inputsSummary: '{}',
        origin: 'adopted',
        // First looks a few seconds on: until then, and after, the sweeps' listings are what look at them.
        nextCheckAt: Date.now() + (messageTs ? 10 * 60_000 : 3_000),
      },
      Date.now(),
    );
  }
}

/** Each execution's result card (posted, or its running card edited): the channel and installation it went to. */
function resultCards(h: OAuthHarness, ids: string[]): Map<string, { channel: unknown; installation?: string }> {
  const found = new Map<string, { channel: unknown; installation?: string }>();
  for (const call of h.fake.state.calls) {
    const card = (call.method === 'chat.postMessage' && !('thread_ts' in call.args)) || call.method === 'chat.update';
    if (!card || !call.ok) continue;
    const args = JSON.stringify(call.args);
    if (!/succeeded|failed/i.test(args)) continue;
    for (const id of ids)
      if (args.includes(id) && !found.has(id))
        found.set(id, { channel: call.args.channel, installation: call.installation });
  }
  return found;
}

/** Polls until `probe` holds, for up to `ms` (a few sweeps at a paced budget take seconds). */
async function waitFor(probe: () => boolean, what: string, ms = 30_000): Promise<void> {
  for (const end = Date.now() + ms; !probe(); ) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('an org-wide install following runs in two of its workspaces', () => {
  const harnessNow = harness('1000');

  it('is swept by one listing of its API per sweep, and each run is told in its own workspace', async () => {
    const h = harnessNow();
    const { g, b, org, alone } = runsInBoth(h, 40);
    g.requests.reset();
    b.requests.reset();
    const placeOf = new Map<string, Place>(org.map((id, i) => [id, WORKSPACES[i % 2]!]));
    for (const place of WORKSPACES)
      await watch(
        h,
        org.filter((id) => placeOf.get(id) === place),
        place,
      );
    await watch(h, alone, B);

    // The same passes sweep both tenants (40 running watches each, one page): B, one workspace, is listed once
    // a sweep; the org, two workspaces, once too, where a listing per workspace would read its API twice.
    await waitFor(() => b.requests.count(LIST) >= 4, 'four listings of tenant B');
    expect(g.requests.count(LIST)).toBeGreaterThanOrEqual(3);
    expect(g.requests.count(LIST)).toBeLessThanOrEqual(b.requests.count(LIST) + 1);
    expect(g.requests.count(GET)).toBeLessThan(org.length);

    h.clock.advance(60 * 60_000);
    const told = await until(async () => {
      const cards = resultCards(h, [...org, ...alone]);
      return cards.size === org.length + alone.length ? cards : null;
    }, 'every result');
    for (const id of org) expect(told.get(id)).toEqual({ channel: placeOf.get(id)!.channel, installation: ORG });
    for (const id of alone) expect(told.get(id)).toEqual({ channel: B.channel, installation: 'T0SECOND' });
    // The listing carried each finished run's output: no further request per run.
    expect(g.requests.count(GET)).toBeLessThan(org.length);
  }, 60_000);
});

describe('an org-wide install under a contended global ceiling', () => {
  // Each tenant could spend 40 requests/s; the deployment only 8: the ceiling is shared between tenants.
  const harnessNow = harness('8');

  it('gets one tenant’s share of it, as a workspace installed alone does, not one share per workspace', async () => {
    const h = harnessNow();
    // 400 running watches each (cards up): a sweep is a listing of 4 pages. The org's are spread over its two
    // workspaces, so a listing per workspace would also need 4 pages to find its own.
    const { g, b, org, alone } = runsInBoth(h, 400);
    for (const [i, place] of WORKSPACES.entries())
      await watch(
        h,
        org.filter((_, n) => n % 2 === i),
        place,
        '1.000',
      );
    await watch(h, alone, B, '1.000');
    await waitFor(() => g.requests.count(LIST) > 0 && b.requests.count(LIST) > 0, 'both tenants swept');

    const from = { g: g.requests.count(LIST), b: b.requests.count(LIST) };
    await waitFor(() => b.requests.count(LIST) - from.b >= 16, 'four sweeps of tenant B');
    const pages = { g: g.requests.count(LIST) - from.g, b: b.requests.count(LIST) - from.b };
    // Equal wants, equal shares: the org's pages keep pace with B's. A share per workspace would give it two
    // thirds of the ceiling to B's one third (twice B's pages).
    expect(pages.g).toBeLessThanOrEqual(pages.b * 1.5);
    expect(pages.g).toBeGreaterThanOrEqual(pages.b / 2);
    expect(g.requests.count(GET)).toBe(0);
  }, 60_000);
});
