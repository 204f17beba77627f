// Many workspaces on two replicas sharing one Postgres schema: a real bot process (`node src/main.ts`)
// is turning workspace A's running cards into results (one edit at a time, slowed down) when A's
// app_uninstalled and tokens_revoked arrive at the other replica (in-process, through the real Bolt
// pipeline). Checked: once the revocation is stored, no call with A's token reaches Slack beyond the one
// in flight, A's remaining watches stop (no result, no card), workspace B's results keep arriving
// exactly once each, and the process stays up.
import { randomBytes } from 'node:crypto';
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

  bot = await spawnBot(
    {
      RUNBOOK_API_URL: h.emulator.url,
      RUNBOOK_API_KEY: 'test-api-key-0123456789',
      SLACK_CLIENT_ID: CLIENT_ID,
      SLACK_CLIENT_SECRET: CLIENT_SECRET,
      SLACK_STATE_SECRET: STATE_SECRET,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SECRETS_ENCRYPTION_KEY: KEY,
      SLACK_API_URL: h.fake.url,
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

  // Slack uninstalls A (its tokens die at once at Slack); the events reach the other replica.
  const events = h.fake.oauth.uninstall(A);
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
  console.info(
    `uninstall mid-post: ${refusedBefore} call(s) refused between Slack's revocation and the events, then ${afterA.length} call(s) with A's token after the revocation was stored: ${afterA.map((c) => `${c.method} ${c.ok ? 'ok' : c.error}`).join(', ')}`,
  );
  // At most the one call already in flight; none of them got through.
  expect(afterA.length, 'calls with A token after the revocation was stored').toBeLessThanOrEqual(1);
  expect(afterA.filter((c) => c.ok)).toEqual([]);
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
