// Many workspaces share one connection pool per Runbook API address (256 sockets). A workspace whose tenant
// hangs (or whose people spam heavy lists) must not hold them all: each installation's client has at most 32
// requests in flight, one over that answers "busy" at once, and another workspace's command is answered while
// the slow tenant's requests are still hanging. End to end: Bolt's pipeline, the fake Slack, the emulator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OAuthHarness, startOAuthHarness, until } from '../support/oauth-harness.ts';

const KEY_B = 'tenant-b-key-0123456789';
/** More than the shared pool's 256 sockets. */
const SPAM = 300;
const CAP = 32;

let h: OAuthHarness;
beforeAll(async () => {
  h = await startOAuthHarness({
    tenants: { [KEY_B]: { name: 'beta' } },
    // A's requests hang for a minute before the client gives up on them.
    env: { RUNBOOK_API_TIMEOUT_MS: '60000' },
  });
  expect((await h.install('T0SANDBOX')).status).toBe(200);
  expect((await h.install('T0SECOND', { connect: false })).status).toBe(200);
  expect((await h.runtime.tenants!.connections.connect('T0SECOND', { apiKey: KEY_B }, 'U11SAM')).ok).toBe(true);
});
afterAll(async () => {
  // A's hanging requests end when the emulator goes (the runtime waits for the work in hand when it stops).
  await h?.emulator.close();
  await h?.stop();
});

const textOf = (e: { text?: string; blocks?: unknown }) => `${e.text ?? ''}${JSON.stringify(e.blocks ?? [])}`;

describe('one slow tenant beside a fast one on the shared pool', () => {
  it('the emulator’s per-tenant latency slows only that tenant', async () => {
    h.emulator.state.latencyMs = 300;
    const since = h.fake.state.ephemerals.length;
    await h.user('U11SAM', 'T0SECOND').command('executions', 'C01OPS');
    await h.user('U01ALICE', 'T0SANDBOX').command('executions', 'C01OPS');
    const answered = await until(async () => {
      const mine = h.fake.state.ephemerals.slice(since).filter((e) => e.user === 'U11SAM' || e.user === 'U01ALICE');
      return mine.length === 2 ? mine : null;
    }, 'both lists');
    // B asked first and is not slowed; A's answer comes after its tenant's 300 ms.
    expect(answered.map((e) => e.user)).toEqual(['U11SAM', 'U01ALICE']);
    h.emulator.state.latencyMs = 0;
  });

  it('workspace A hanging on its API holds at most its share; workspace B’s command is answered meanwhile', async () => {
    h.emulator.state.latencyMs = 600_000;
    const since = h.fake.state.ephemerals.length;
    const alice = h.user('U01ALICE', 'T0SANDBOX');
    for (let i = 0; i < SPAM; i += 25) {
      await Promise.all(Array.from({ length: Math.min(25, SPAM - i) }, () => alice.command('executions', 'C01OPS')));
    }
    const fromA = () => h.fake.state.ephemerals.slice(since).filter((e) => e.user === 'U01ALICE');
    // Over its cap, A's people are told the API is busy at once instead of waiting behind their own requests.
    const busy = await until(async () => (fromA().length >= SPAM - CAP ? fromA() : null), 'A’s busy answers');
    expect(busy).toHaveLength(SPAM - CAP);
    for (const e of busy) expect(textOf(e)).toContain('The Runbook API is receiving too many requests');

    const sinceB = h.fake.state.ephemerals.length;
    await h.user('U11SAM', 'T0SECOND').command('executions', 'C01OPS');
    const answer = await until(
      async () => h.fake.state.ephemerals.slice(sinceB).find((e) => e.user === 'U11SAM'),
      'B’s executions list',
    );
    const idsOfB = [...h.emulator.tenant(KEY_B)!.executions.byId.keys()];
    expect(idsOfB.some((id) => textOf(answer).includes(id))).toBe(true);
    expect(textOf(answer)).not.toContain('Runbook API');
    // …while A's 32 requests are still hanging: none of them has been answered.
    expect(fromA()).toHaveLength(SPAM - CAP);
  });
});
