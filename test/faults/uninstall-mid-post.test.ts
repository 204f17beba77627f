// Many workspaces on two replicas sharing one Postgres schema: a real bot process (`node src/main.ts`)
// is turning workspace A's running cards into results (one edit at a time, slowed down) when A's
// app_uninstalled and tokens_revoked arrive at the other replica (in-process, through the real Bolt
// pipeline). Checked, per replica, that A's work stops at once: the process's calls pass through a
// recording proxy, and once Slack has answered it the first refusal of A's token, only the calls it had
// already started may still arrive (at most one per Slack lane the watcher runs for A, none on the lane
// that was refused); the other replica sends nothing with A's token after it stored the revocation. A's
// remaining watches stop (no result, no card), workspace B's results keep arriving exactly once each,
// and the process stays up.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  CLIENT_ID,
  CLIENT_SECRET,
  type OAuthHarness,
  SIGNING_SECRET,
  STATE_SECRET,
  startOAuthHarness,
  until,
} from '../support/oauth-harness.ts';
import {
  type BotProcess,
  countReports,
  FAST_WATCH_ENV,
  findRunMessages,
  pgAdmin,
  spawnBot,
  waitUntil,
} from '../support/process-harness.ts';
import { TEST_DATABASE_URL } from '../support/test-database.ts';

const SCALE = Math.max(0.1, Number(process.env.TEST_FAULTS_SCALE ?? 1));
const RUNS = Math.max(6, Math.round(12 * SCALE));
const SCHEMA = `test_uninstall_${randomBytes(6).toString('hex')}`;
const KEY = randomBytes(32).toString('base64');
const A = 'T0SECOND';
const B = 'T0SANDBOX';

let h: OAuthHarness;
let bot: BotProcess | undefined;
let proxy: Server | undefined;

/** Slack's answers that say a token is dead (src/tenants/revocation.ts). */
const DEAD = new Set(['token_revoked', 'invalid_auth', 'account_inactive', 'not_authed', 'app_uninstalled']);
/** Marks a call forwarded by the proxy in the fake's record (a query argument the fake keeps). */
const VIA = 'via_recording_proxy';

/** One call of the process, as the proxy saw it: `arrived` and `answered` on one sequence of events. */
interface ProxiedCall {
  method: string;
  channel: string | null;
  installation: string | null;
  arrived: number;
  answered: number | null;
  error: string | null;
}

/**
 * A proxy in front of the fake Slack for the bot process: it numbers every arrival and every answer on one
 * sequence, so "this call arrived after that answer left" is an order, not a time.
 */
async function recordingProxy(target: string): Promise<{ url: string; calls: ProxiedCall[] }> {
  const calls: ProxiedCall[] = [];
  let seq = 0;
  proxy = createServer((req, res) => {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const call: ProxiedCall = {
      method: (req.url ?? '').replace(/^\/api\//, '').replace(/\?.*$/, ''),
      channel: null,
      installation: (token && h.fake.oauth.grantOf(token)?.installationId) || null,
      arrived: ++seq,
      answered: null,
      error: null,
    };
    calls.push(call);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const raw = body.toString();
      call.channel = /(?:^|&)channel=([^&]+)/.exec(raw)?.[1] ?? /"channel":"([^"]+)"/.exec(raw)?.[1] ?? null;
      const headers = { ...req.headers } as Record<string, string>;
      delete headers.host;
      delete headers['content-length'];
      const url = new URL(req.url ?? '/', target);
      url.searchParams.set(VIA, '1');
      fetch(url, { method: req.method, headers, ...(body.length > 0 ? { body } : {}) })
        .then(async (answer) => {
          const text = await answer.text();
          try {
            const parsed = JSON.parse(text) as { error?: unknown };
            call.error = typeof parsed.error === 'string' ? parsed.error : null;
          } catch {
            call.error = `http_${answer.status}`;
          }
          call.answered = ++seq;
          const out: Record<string, string> = {};
          answer.headers.forEach((v, k) => {
            if (k !== 'content-length' && k !== 'content-encoding' && k !== 'transfer-encoding') out[k] = v;
          });
          res.writeHead(answer.status, out);
          res.end(text);
        })
        .catch(() => {
          call.answered = ++seq;
          call.error = 'proxy_error';
          res.destroy();
        });
    });
  });
  await new Promise<void>((resolve) => proxy!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/api/`, calls };
}

beforeAll(async () => {
  await pgAdmin(TEST_DATABASE_URL, `CREATE SCHEMA ${SCHEMA}`);
  // The in-process replica takes the events; its own watcher looks rarely, so the process does the posting.
  h = await startOAuthHarness({
    env: {
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_SCHEMA: SCHEMA,
      SECRETS_ENCRYPTION_KEY: KEY,
      WATCH_TICK_MS: '60000',
      WATCH_FIRST_CHECK_MS: '200',
      WATCH_MAX_CHECK_MS: '500',
      WATCH_LEASE_MS: '1500',
      // The runs are started through Slack by two people, more than the default ten a minute each.
      RUN_RATE_LIMIT_PER_MINUTE: '1000',
    },
  });
  for (const team of [A, B]) expect((await h.install(team)).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await bot?.kill('SIGKILL');
  await new Promise((r) => (proxy ? proxy.close(r) : r(undefined)));
  await h?.stop();
  await pgAdmin(TEST_DATABASE_URL, `DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
});

it(`a replica posting ${RUNS} results for A when A uninstalls at the other replica`, async () => {
  const ids: Record<string, string[]> = { [A]: [], [B]: [] };
  for (let i = 0; i < RUNS; i++) {
    ids[A]!.push((await h.runNow('U11SAM', A, `a${i}x`)).id);
    ids[B]!.push((await h.runNow('U01ALICE', B, `b${i}x`)).id);
  }
  // Every running card is up before the runs end.
  const cardsOf = (team: string) =>
    until(async () => {
      const found = findRunMessages(h.fake, ids[team]!);
      return found.length === RUNS && found;
    }, `${team}'s running cards`);
  const cards = { [A]: await cardsOf(A), [B]: await cardsOf(B) };
  const recorded = await recordingProxy(h.fake.url);

  bot = await spawnBot(
    {
      RUNBOOK_API_URL: h.emulator.url,
      RUNBOOK_API_KEY: 'test-api-key-0123456789',
      SLACK_CLIENT_ID: CLIENT_ID,
      SLACK_CLIENT_SECRET: CLIENT_SECRET,
      SLACK_STATE_SECRET: STATE_SECRET,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SECRETS_ENCRYPTION_KEY: KEY,
      SLACK_API_URL: recorded.url,
      SLACK_AUTHORIZATION_URL: `${h.fake.origin}/oauth/v2/authorize`,
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_SCHEMA: SCHEMA,
      LOG_LEVEL: 'warn',
      ...FAST_WATCH_ENV,
      // One result edit at a time, slowly: there is always a next one of A's waiting.
      WATCH_SLACK_UPDATE_INTERVAL_MS: '250',
    },
    { timeoutMs: 30_000 },
  );

  const aEdits = () =>
    h.fake.state.calls.filter((c) => c.installation === A && c.method === 'chat.update' && c.ok).length;
  // Every run ends now; the process starts turning cards into results.
  h.clock.advance(60 * 60_000);
  await waitUntil(async () => aEdits() >= 1, "A's first result card", 20_000).catch((err: Error) => {
    throw new Error(`${err.message}\n${bot?.output()}`);
  });

  // Slack uninstalls A (its tokens die at once at Slack). Its events lag (as Slack's can): the process
  // meets the dead token first, and whatever it still has queued for A would go out while they travel.
  const events = h.fake.oauth.uninstall(A);
  await waitUntil(
    async () => recorded.calls.some((c) => c.installation === A && c.error !== null && DEAD.has(c.error)),
    "the process's first refusal of A's token",
    20_000,
  );
  await new Promise((r) => setTimeout(r, 1_500));
  // The events reach the other replica.
  expect(await h.deliver(events.appUninstalled)).toBe(200);
  expect(await h.deliver(events.tokensRevoked)).toBe(200);
  await until(async () => (await h.runtime.store.installations.get(A))?.sealed === null, "A's tokens to go");
  const processedAt = h.fake.state.calls.length;
  const refusedBefore = h.fake.state.calls.filter((c) => c.installation === A && c.error === 'token_revoked').length;
  const resultsBefore = countReports(h.fake, cards[A]!);

  // B's results all arrive.
  await waitUntil(
    async () => [...countReports(h.fake, cards[B]!).values()].every((r) => r.resultEdits >= 1),
    "B's results",
    30_000,
  );
  // A's watches stop: none stays active.
  await waitUntil(
    async () => {
      for (const id of ids[A]!) if ((await h.runtime.store.watches.get(id, A))?.state === 'active') return false;
      return true;
    },
    "A's watches to stop",
    30_000,
  );
  // Let anything still queued in the process show itself.
  await new Promise((r) => setTimeout(r, 1_500));

  const afterA = h.fake.state.calls.slice(processedAt).filter((c) => c.installation === A);
  // The replica that took the events: nothing with A's token once it had stored the revocation (the fake
  // keeps the proxy's mark on the process's calls).
  expect(h.fake.state.calls.some((c) => c.installation === A && c.args[VIA] !== undefined)).toBe(true);
  const here = afterA.filter((c) => c.args[VIA] === undefined);
  expect(
    here.map((c) => c.method),
    'calls with A token from the replica that stored the revocation',
  ).toEqual([]);
  expect(afterA.filter((c) => c.ok)).toEqual([]);

  // The process: the calls it had in flight when Slack answered the first refusal of A's token (started
  // before it could know) are allowed; one it started after is not. Its Slack work for A runs in lanes
  // that each have one call out at a time (src/watch/slack-pacer.ts): one edit lane, one post lane per
  // channel. So beside the refused call, at most one call per other lane, and none on the refused lane.
  const mine = recorded.calls.filter((c) => c.installation === A);
  const laneOf = (c: ProxiedCall) => (c.method === 'chat.update' ? 'edits' : `post ${c.channel ?? c.method}`);
  const lanes = 1 + new Set(cards[A]!.map((c) => c.channel)).size;
  const refused = mine
    .filter((c) => c.error !== null && DEAD.has(c.error) && c.answered !== null)
    .sort((a, b) => a.answered! - b.answered!)[0];
  const describe = (cs: ProxiedCall[]) => cs.map((c) => `${c.method} ${c.error ?? 'ok'} #${c.arrived}`).join(', ');
  if (refused) {
    const inFlight = mine.filter((c) => c !== refused && (c.answered === null || c.answered > refused.answered!));
    console.info(
      `uninstall mid-post: ${refusedBefore} call(s) refused before the events were stored; the process's first refusal (${refused.method} #${refused.arrived}, answered #${refused.answered}), then in flight or later: ${describe(inFlight) || 'none'}`,
    );
    expect(
      describe(inFlight.filter((c) => c.arrived > refused.answered! && laneOf(c) === laneOf(refused))),
      'the refused lane sent again',
    ).toBe('');
    const perLane = new Map<string, number>();
    for (const c of inFlight) perLane.set(laneOf(c), (perLane.get(laneOf(c)) ?? 0) + 1);
    expect(
      [...perLane].filter(([, n]) => n > 1),
      `more than one call of a lane after the refusal: ${describe(inFlight)}`,
    ).toEqual([]);
    expect(inFlight.length, `calls after the refusal: ${describe(inFlight)}`).toBeLessThanOrEqual(lanes - 1);
  } else {
    // Never refused: it learned from the store, so it sent A's token only while Slack still took it.
    expect(describe(mine.filter((c) => c.error !== null))).toBe('');
  }
  // No result appeared for A after the revocation; B got each result exactly once.
  const resultsAfter = countReports(h.fake, cards[A]!);
  for (const [id, r] of resultsAfter) expect(r.resultEdits, id).toBe(resultsBefore.get(id)!.resultEdits);
  expect(
    [...resultsAfter.values()].some((r) => r.resultEdits === 0),
    'A had results left when it went',
  ).toBe(true);
  const wrongB = [...countReports(h.fake, cards[B]!)].filter(([, r]) => r.resultEdits !== 1 || r.replies > 1);
  expect(wrongB).toEqual([]);
  // Nothing crashed: the process is still healthy and logged no uncaught error.
  expect((await fetch(`http://127.0.0.1:${bot.port}/healthz`)).ok).toBe(true);
  expect(bot.output()).not.toMatch(/uncaught|unhandled/i);
}, 90_000);
