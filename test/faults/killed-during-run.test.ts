// SIGKILL during the run call: the bot (a real process) is killed the moment the Runbook API has
// started the execution, before the answer to POST …/run reaches it. Nothing after the call ran: no
// watch, no audit, no card. Started again with the same store, the bot must find the execution from
// the intent it recorded before the call, report it (its card turns into the result in the channel
// the person chose) and audit it — under each way the Runbook API may treat the runbook-name filter the
// search sends (the emulator's filter modes: applied, ignored, read as plain terms, rejected with 400).
import { mkdtempSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, FILTER_MODES, startEmulator } from '../../src/emulator/server.ts';
import { type FakeSlack, startFakeSlack } from '../../src/sandbox/fake-slack-api.ts';
import { SlackUser } from '../../src/sandbox/slack-user.ts';
import { openStore } from '../../src/store/open-store.ts';
import { type BotProcess, FAST_WATCH_ENV, freePort, spawnBot, waitUntil } from '../support/process-harness.ts';
import { SCALE_RUNBOOK, scaleFormValues } from '../support/run-form.ts';

const API_KEY = 'killed-run-key-0123456789';
const BOT_TOKEN = 'xoxb-killed-run';
const SECRET = 'killed-run-signing-secret';

let emulator: Emulator;
let fake: FakeSlack;
let proxy: Server;
let bot: BotProcess | null = null;
let env: Record<string, string>;
/** Set by the test: runs when the emulator has answered a run call, before the bot sees the answer. */
let onRunAnswered: (() => Promise<void>) | null = null;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, apiKey: API_KEY });
  fake = await startFakeSlack({ port: 0, botToken: BOT_TOKEN });
  const target = new URL(emulator.url);
  proxy = createServer((req, res) => {
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (up) => {
        const isRun = req.method === 'POST' && /\/run$/.test(new URL(req.url ?? '/', 'http://p').pathname);
        const hook = isRun ? onRunAnswered : null;
        if (!hook) {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
          return;
        }
        onRunAnswered = null;
        up.resume();
        up.on('end', () => {
          void hook().then(() => res.destroy());
        });
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  env = {
    ...FAST_WATCH_ENV,
    RUNBOOK_API_URL: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    RUNBOOK_API_KEY: API_KEY,
    // A short call timeout makes the reconciliation grace (2 × timeout + 5 s) short.
    RUNBOOK_API_TIMEOUT_MS: '2000',
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_API_URL: fake.url,
    RUNBOOK_PROXIES: 'proxy-dev',
    LOG_LEVEL: 'warn',
    PORT: String(await freePort()),
  };
});

afterAll(async () => {
  await bot?.kill('SIGKILL');
  await new Promise((r) => proxy.close(r));
  await fake.close();
  await emulator.close();
});

describe.each(FILTER_MODES)('the Runbook API filter mode being %s', (mode) => {
  it('reports and audits after a restart a run whose call was answered while the bot was being killed', async () => {
    emulator.setFilterMode(mode);
    // A store of its own per mode: what one mode's run left must not help the next.
    const modeEnv = { ...env, DATA_DIR: mkdtempSync(path.join(tmpdir(), `runbook-bot-killed-${mode}-`)) };
    const namespace = `killed-mid-call-${mode}`;
    bot = await spawnBot(modeEnv, { timeoutMs: 20_000 });
    const alice = new SlackUser({
      fake,
      botUrl: `http://127.0.0.1:${bot.port}/slack/events`,
      signingSecret: SECRET,
      userId: 'U01ALICE',
    });
    // The previous mode's form was never closed (its bot was killed): wait for a new one.
    const earlier = alice.topModal()?.id;
    await alice.command(`run "${SCALE_RUNBOOK}"`, 'C01OPS');
    let modalId = '';
    await waitUntil(
      async () => {
        const top = alice.topModal();
        modalId = top && top.id !== earlier && JSON.stringify(top.view).includes('meta_proxy') ? top.id : '';
        return modalId !== '';
      },
      'run modal',
      15_000,
    );
    const killed = bot;
    onRunAnswered = () => killed.kill('SIGKILL');
    await alice.submit(modalId, scaleFormValues(namespace)).catch(() => undefined);
    await killed.exited;
    const started = () => [...emulator.state.executions.byId.values()].filter((e) => e.params.namespace === namespace);
    expect(started()).toHaveLength(1);
    const executionId = started()[0]!.id;
    const naming = () =>
      (fake.state.messages.C02DEPLOYS ?? []).filter((m) =>
        JSON.stringify(m.blocks ?? []).includes(`\`${executionId}\``),
      );
    expect(naming()).toEqual([]);

    bot = await spawnBot(modeEnv, { timeoutMs: 20_000 });
    // The card appears and turns into the result (runs last 2–18 s of real time).
    await waitUntil(
      async () => naming().some((m) => / (succeeded|failed)$/.test(m.text)),
      'the result card of the found run',
      60_000,
    );
    expect(naming().filter((m) => !(m.thread_ts && m.thread_ts !== m.ts))).toHaveLength(1);
    await bot.kill('SIGTERM');
    bot = null;

    const store = await openStore({ kind: 'sqlite', path: path.join(modeEnv.DATA_DIR, 'runbook-bot.sqlite') });
    try {
      const audit = await store.audit.recent(50);
      const found = audit.filter((a) => a.action === 'run.start' && a.detail?.includes(executionId));
      expect(found).toHaveLength(1);
      expect(found[0]).toMatchObject({ outcome: 'ok', userId: 'U01ALICE', channel: 'C02DEPLOYS' });
      expect(found[0]!.detail).toContain('found after a restart');
      expect(await store.intents.listOpen(Date.now() + 1, 10)).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
