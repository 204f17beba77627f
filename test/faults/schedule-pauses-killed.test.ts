// Pausing and resuming schedules when the bot (a real process, on Postgres) is SIGKILLed at each crash
// point of the protocol (src/runs/schedule-pauses.ts: intent recorded → PATCH → settled):
//   - pause: killed once the API has taken the never-firing expression, before the bot saw the answer
//     (the API changed, the store still says `pausing`); and killed before the PATCH left (the store
//     says `pausing`, the API unchanged);
//   - resume, the reverse: killed after the API took the real expression back (`resuming`), and before;
//   - a skip timer across a restart: skipped, killed, its run passes while the bot is down;
//   - two replicas resuming the same schedules at once (two clicks, one per replica).
// A proxy in front of the emulator kills the bot at the chosen PATCH. Afterwards: no schedule lost (every
// real expression is in the API or in the store, paused ones never fire), none doubled (no schedule
// created, each resume PATCHed once by the replicas' race, each resumed schedule fires once a day), and
// every change audited once.
import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, ManualClock, startEmulator } from '../../src/emulator/server.ts';
import { NEVER_FIRES } from '../../src/runs/schedule-pause-write.ts';
import { type FakeSlack, startFakeSlack } from '../../src/sandbox/fake-slack-api.ts';
import type { FakeEphemeral } from '../../src/sandbox/fake-slack-state.ts';
import { SlackUser } from '../../src/sandbox/slack-user.ts';
import { ACTIONS } from '../../src/slack/kit/ids.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';
import { type BotProcess, freePort, pgAdmin, spawnBot, waitUntil } from '../support/process-harness.ts';
import { TEST_DATABASE_URL } from '../support/test-database.ts';

const SCALE = Math.max(0.1, Number(process.env.TEST_FAULTS_SCALE ?? 1));
/** Schedules both replicas race to resume. */
const RACED = Math.max(2, Math.round(4 * SCALE));
const API_KEY = 'pause-kill-key-0123456789';
const BOT_TOKEN = 'xoxb-pause-kill';
const SECRET = 'pause-kill-signing-secret';
const SCHEMA = `test_pauses_${randomBytes(6).toString('hex')}`;
const VACUUM = 'Postgres Vacuum Analyze';
const DAY = 24 * 3_600_000;

type Hook = { scheduleId: string; when: 'before-send' | 'after-apply'; kill: () => Promise<void> };

let emulator: Emulator;
let clock: ManualClock;
let fake: FakeSlack;
let proxy: Server;
let store: Store;
let env: Record<string, string>;
const bots: BotProcess[] = [];
let hook: Hook | null = null;
/** Every PATCH of a schedule that reached the emulator: [schedule id, expression]. */
const patches: Array<[string, string]> = [];

beforeAll(async () => {
  clock = new ManualClock(Date.UTC(2026, 10, 26, 12, 0, 0));
  emulator = await startEmulator({ port: 0, apiKey: API_KEY, clock });
  fake = await startFakeSlack({ port: 0, botToken: BOT_TOKEN });
  const target = new URL(emulator.url);
  proxy = createServer((req, res) => {
    const match = req.method === 'PATCH' ? /\/schedules\/([^/?]+)/.exec(req.url ?? '') : null;
    const armed = match && hook?.scheduleId === decodeURIComponent(match[1]!) ? hook : null;
    if (armed) hook = null;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (armed?.when === 'before-send') {
        // Killed before the PATCH reached the API: nothing changed there.
        void armed.kill().then(() => res.destroy());
        return;
      }
      const upstream = httpRequest(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (up) => {
          if (match && (up.statusCode ?? 500) < 300) {
            // The expression sent, at the top level or inside a `schedule` object (either is the contract's).
            const sent = JSON.parse(body.toString() || '{}') as { schedule?: string | { schedule?: string } };
            const expression = typeof sent.schedule === 'string' ? sent.schedule : (sent.schedule?.schedule ?? '');
            patches.push([decodeURIComponent(match[1]!), expression]);
          }
          if (!armed) {
            res.writeHead(up.statusCode ?? 502, up.headers);
            up.pipe(res);
            return;
          }
          // The API applied it; the bot dies before it reads the answer.
          up.resume();
          up.on('end', () => void armed.kill().then(() => res.destroy()));
        },
      );
      upstream.on('error', () => res.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  await pgAdmin(TEST_DATABASE_URL, `CREATE SCHEMA ${SCHEMA}`);
  store = await openStore({ kind: 'postgres', url: TEST_DATABASE_URL, schema: SCHEMA });
  env = {
    RUNBOOK_API_URL: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    RUNBOOK_API_KEY: API_KEY,
    // The reconciliation grace is 2 × the call timeout + 5 s: 7 s here.
    RUNBOOK_API_TIMEOUT_MS: '1000',
    RUNBOOK_API_MAX_RETRIES: '0',
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_API_URL: fake.url,
    RUNBOOK_PROXIES: 'proxy-dev,proxy-prod',
    DATABASE_URL: TEST_DATABASE_URL,
    DATABASE_SCHEMA: SCHEMA,
    LOG_LEVEL: 'warn',
  };
});

afterAll(async () => {
  for (const bot of bots) await bot.kill('SIGKILL');
  await new Promise((r) => proxy?.close(r));
  await store?.close();
  await fake?.close();
  await emulator?.close();
  await pgAdmin(TEST_DATABASE_URL, `DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
});

async function startBot(): Promise<BotProcess> {
  const bot = await spawnBot({ ...env, PORT: String(await freePort()) }, { timeoutMs: 30_000 });
  bots.push(bot);
  return bot;
}

const until = (probe: () => boolean | Promise<boolean>, what: string, ms: number) =>
  waitUntil(async () => probe(), what, ms);

const userOn = (bot: BotProcess, userId = 'U01ALICE') =>
  new SlackUser({ fake, botUrl: `http://127.0.0.1:${bot.port}/slack/events`, signingSecret: SECRET, userId });

function vacuumId(): string {
  return [...emulator.state.workflows.byId.values()].find((w) => w.workflow.name === VACUUM)!.workflow.id;
}

function newSchedule(cron: string, database: string): string {
  return emulator.state.createSchedule({
    runbookId: vacuumId(),
    runbookName: VACUUM,
    proxyId: 'proxy-prod',
    params: JSON.stringify({ database }),
    schedule: cron,
  }).schedule.id;
}

/** A schedule already paused (as a completed Pause leaves it): the API never fires it, the store keeps it. */
async function pausedSchedule(cron: string, database: string): Promise<string> {
  const id = newSchedule(cron, database);
  const now = Date.now();
  await store.schedulePauses.begin(
    { scheduleId: id, cron, runbookId: vacuumId(), runbookName: VACUUM, pausedBy: 'U01ALICE', teamId: null },
    now,
  );
  emulator.state.updateSchedule(id, { schedule: NEVER_FIRES });
  await store.schedulePauses.move(id, 'pausing', 'paused', now);
  return id;
}

const cronOf = (id: string) => emulator.state.schedules.byId.get(id)!.schedule.schedule;

/** The schedules list the bot shows, once it names every one of `ids`. */
async function listShowing(bot: BotProcess, ids: string[]): Promise<FakeEphemeral> {
  const before = fake.state.ephemerals.length;
  await userOn(bot).command(`schedules "${VACUUM}"`, 'C01OPS');
  let found: FakeEphemeral | undefined;
  await until(
    () => {
      found = fake.state.ephemerals.slice(before).find((e) => ids.every((id) => JSON.stringify(e.blocks).includes(id)));
      return Boolean(found);
    },
    'the schedules list',
    20_000,
  );
  return found!;
}

const on = (id: string, actionId: string) => (el: { action_id?: string; value?: string }) =>
  el.action_id === actionId && Boolean(el.value?.includes(id));

/** Clicks `action` on schedule `id` with the bot armed to be killed at that schedule's PATCH. */
async function clickAndDie(bot: BotProcess, id: string, action: string, when: Hook['when']): Promise<void> {
  const list = await listShowing(bot, [id]);
  let killed = false;
  hook = {
    scheduleId: id,
    when,
    kill: async () => {
      await bot.kill('SIGKILL');
      killed = true;
    },
  };
  await userOn(bot)
    .act({ kind: 'ephemeral', ephemeral: list }, on(id, action))
    .catch(() => undefined);
  await until(() => killed, 'the kill', 20_000);
  await bot.exited;
}

async function auditOf(id: string, action: string) {
  return (await store.audit.recent(500)).filter(
    (e) => e.action === action && e.outcome === 'ok' && e.target?.includes(id),
  );
}

function runsWith(database: string): number {
  emulator.state.catchUp();
  return [...emulator.state.executions.byId.values()].filter(
    (e) => (e.params as { database?: string }).database === database,
  ).length;
}

describe('schedules paused and resumed across SIGKILLs and two replicas', () => {
  it('loses none, doubles none', async () => {
    const pausedAfterApply = newSchedule('0 5 * * *', 'pause-after-apply');
    const pausedBeforeSend = newSchedule('10 5 * * *', 'pause-before-send');
    const resumedAfterApply = await pausedSchedule('20 5 * * *', 'resume-after-apply');
    const resumedBeforeSend = await pausedSchedule('30 5 * * *', 'resume-before-send');
    const skipped = newSchedule('40 5 * * *', 'skipped');
    const raced = await Promise.all(
      Array.from({ length: RACED }, (_, i) => pausedSchedule(`${50 + i} 5 * * *`, `raced-${i}`)),
    );
    const created = emulator.state.schedules.byId.size;

    // Life 1: a skip (the timer is stored), then Pause killed once the API has the never-firing expression.
    let bot = await startBot();
    const list = await listShowing(bot, [skipped]);
    await userOn(bot).act({ kind: 'ephemeral', ephemeral: list }, on(skipped, ACTIONS.scheduleSkip));
    await until(async () => (await store.schedulePauses.get(skipped))?.state === 'paused', 'the skip', 20_000);
    expect((await store.schedulePauses.get(skipped))!.resumeAt).not.toBeNull();
    await clickAndDie(bot, pausedAfterApply, ACTIONS.schedulePause, 'after-apply');
    expect(cronOf(pausedAfterApply)).toBe(NEVER_FIRES);
    expect(await store.schedulePauses.get(pausedAfterApply)).toMatchObject({ state: 'pausing', cron: '0 5 * * *' });

    // Life 2: Pause killed before the PATCH left.
    bot = await startBot();
    await clickAndDie(bot, pausedBeforeSend, ACTIONS.schedulePause, 'before-send');
    expect(cronOf(pausedBeforeSend)).toBe('10 5 * * *');
    expect(await store.schedulePauses.get(pausedBeforeSend)).toMatchObject({ state: 'pausing' });

    // Life 3: Resume killed once the API has the real expression back (the reverse).
    bot = await startBot();
    await clickAndDie(bot, resumedAfterApply, ACTIONS.scheduleResume, 'after-apply');
    expect(cronOf(resumedAfterApply)).toBe('20 5 * * *');
    expect(await store.schedulePauses.get(resumedAfterApply)).toMatchObject({ state: 'resuming', cron: '20 5 * * *' });

    // Life 4: Resume killed before the PATCH left.
    bot = await startBot();
    await clickAndDie(bot, resumedBeforeSend, ACTIONS.scheduleResume, 'before-send');
    expect(cronOf(resumedBeforeSend)).toBe(NEVER_FIRES);
    expect(await store.schedulePauses.get(resumedBeforeSend)).toMatchObject({ state: 'resuming' });

    // While the bot is down, the skipped run's time passes (its timer is due).
    await pgAdmin(
      TEST_DATABASE_URL,
      `UPDATE ${SCHEMA}.schedule_pauses SET resume_at = ${Date.now() - 1000} WHERE schedule_id = '${skipped}'`,
    );

    // Two replicas start together: within the reconciliation grace, every crash is finished and the due
    // skip resumed, once.
    const [a, b] = await Promise.all([startBot(), startBot()]);
    await until(
      async () => {
        const rows = await Promise.all(
          [pausedAfterApply, pausedBeforeSend, resumedAfterApply, resumedBeforeSend, skipped].map((id) =>
            store.schedulePauses.get(id),
          ),
        );
        const settled = rows[0]?.state === 'paused' && rows[1]?.state === 'paused' && !rows[2] && !rows[3] && !rows[4];
        // Each settlement is audited just after it.
        const pauses = await Promise.all(
          [pausedAfterApply, pausedBeforeSend].map((id) => auditOf(id, 'schedule.pause')),
        );
        const resumes = await Promise.all(
          [resumedAfterApply, resumedBeforeSend, skipped].map((id) => auditOf(id, 'schedule.resume')),
        );
        return settled && [...pauses, ...resumes].every((a) => a.length > 0);
      },
      'every crash finished',
      40_000,
    );
    expect([cronOf(pausedAfterApply), cronOf(pausedBeforeSend)]).toEqual([NEVER_FIRES, NEVER_FIRES]);
    expect(await store.schedulePauses.get(pausedAfterApply)).toMatchObject({ cron: '0 5 * * *' });
    expect(await store.schedulePauses.get(pausedBeforeSend)).toMatchObject({ cron: '10 5 * * *' });
    expect([cronOf(resumedAfterApply), cronOf(resumedBeforeSend), cronOf(skipped)]).toEqual([
      '20 5 * * *',
      '30 5 * * *',
      '40 5 * * *',
    ]);
    // The skip resumed once, by one replica.
    expect(patches.filter(([id, cron]) => id === skipped && cron === '40 5 * * *')).toHaveLength(1);
    for (const id of [pausedAfterApply, pausedBeforeSend]) expect(await auditOf(id, 'schedule.pause')).toHaveLength(1);
    for (const id of [resumedAfterApply, resumedBeforeSend, skipped]) {
      expect(await auditOf(id, 'schedule.resume')).toHaveLength(1);
    }

    // Two clicks on Resume of each schedule at once, one on each replica: each is resumed once.
    const shown = await listShowing(a, raced);
    await Promise.all(
      raced.flatMap((id, i) =>
        [a, b].map((bot, k) =>
          userOn(bot).act({ kind: 'ephemeral', ephemeral: shown }, on(id, ACTIONS.scheduleResume), {
            action_ts: `1764158400.${String(i * 2 + k).padStart(6, '0')}`,
          }),
        ),
      ),
    );
    await until(
      async () => {
        // The row goes once the API holds the real expression; its audit entry follows.
        const rows = await Promise.all(raced.map((id) => store.schedulePauses.get(id)));
        const audits = await Promise.all(raced.map((id) => auditOf(id, 'schedule.resume')));
        return rows.every((r) => r === null) && audits.every((a) => a.length > 0);
      },
      'the raced resumes',
      20_000,
    );
    for (const [i, id] of raced.entries()) {
      expect(cronOf(id)).toBe(`${50 + i} 5 * * *`);
      expect(patches.filter(([p, cron]) => p === id && cron !== NEVER_FIRES)).toHaveLength(1);
      expect(await auditOf(id, 'schedule.resume')).toHaveLength(1);
    }

    // None lost, none doubled: no schedule was created, and over a day each live one fires once.
    expect(emulator.state.schedules.byId.size).toBe(created);
    const databases = ['pause-after-apply', 'pause-before-send', 'resume-after-apply', 'resume-before-send', 'skipped'];
    const before = new Map([...databases, ...raced.map((_, i) => `raced-${i}`)].map((d) => [d, runsWith(d)]));
    clock.advance(DAY);
    expect(runsWith('pause-after-apply') - before.get('pause-after-apply')!).toBe(0);
    expect(runsWith('pause-before-send') - before.get('pause-before-send')!).toBe(0);
    for (const d of ['resume-after-apply', 'resume-before-send', 'skipped', ...raced.map((_, i) => `raced-${i}`)]) {
      expect(runsWith(d) - before.get(d)!, d).toBe(1);
    }
  });
});
