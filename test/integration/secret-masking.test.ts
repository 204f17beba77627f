// A runbook that echoes its secret inputs — as typed, base64 (standard, URL-safe, inside a longer
// encoded text) and URL-encoded — must not show them anywhere: the result card, the file in its
// thread, Full output, Find, /runbook status, the Workflow Builder step's output_tail, subscription
// notices, the log at debug level, and our store. Also for a card the bot delivers after a restart,
// for a run started outside Slack, and for a runbook without an input schema whose step was given
// `password` / `api_key`. Everything runs through the real Bolt pipeline (fake Slack, emulator).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ExecutionRecord } from '../../src/emulator/execution-store.ts';
import { stepDefinition } from '../../src/sandbox/workflow-steps.ts';
import { FIND_ACTION, FIND_BLOCK } from '../../src/slack/executions/output-pages.ts';
import { ACTIONS, BLOCKS, FUNCTIONS } from '../../src/slack/kit/ids.ts';
import {
  ephemeralContaining,
  type Harness,
  modalContaining,
  QUICK_WATCH_ENV,
  startHarness,
  waitFor,
} from '../support/bot-harness.ts';

const RUNBOOK = 'Check Disk Usage on Hosts'; // ssh_private_key is `type: secret`
const NO_SCHEMA = 'Rotate Nginx Logs'; // no input schema at all
/** Characters that base64 turns into + and /, and that URL-encoding changes. */
const SECRET = 'k3y P@ss/w+rd&x=ü?>~';
const PASSWORD = 'hunter2-Zebra!';
const API_KEY_VALUE = 'ak_live_0123456789abcdef';

/** Every form a leak would take. */
function forms(secret: string): string[] {
  const b64 = Buffer.from(secret, 'utf8').toString('base64');
  const basic = Buffer.from(`admin:${secret}`, 'utf8').toString('base64');
  return [
    secret,
    b64,
    b64.replace(/=+$/, ''),
    Buffer.from(secret, 'utf8').toString('base64url'),
    basic,
    encodeURIComponent(secret),
    new URLSearchParams({ s: secret }).toString().slice(2),
  ];
}

/** The output such a runbook prints: the simulated log, then every input echoed four ways. */
function echoing(record: ExecutionRecord, simulated: string): string {
  const lines = [simulated.trimEnd()];
  // Longer than the card shows: the file in the thread is uploaded too.
  for (let i = 0; i < 45; i++) lines.push(`padding line ${i}`);
  for (const [key, value] of Object.entries(record.params)) {
    if (typeof value !== 'string' || key.startsWith('simulate_')) continue;
    lines.push(
      `echo ${key}=${value}`,
      `echo ${key}.b64=${Buffer.from(value).toString('base64')}`,
      `echo ${key}.b64url=${Buffer.from(value).toString('base64url')}`,
      `echo ${key}.url=https://example.com/login?${key}=${encodeURIComponent(value)}&next=%2F`,
      `echo Authorization: Basic ${Buffer.from(`admin:${value}`).toString('base64')}`,
    );
  }
  lines.push(`last line: key was ${String(record.params.ssh_private_key ?? record.params.password ?? '')}`);
  return `${lines.join('\n')}\n`;
}

let h: Harness;
let dataDir: string;
/** Answers the bot gave in acks (Find's results come back that way). */
const acks: string[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'secret-masking-it-'));
  h = await startHarness({ env: { DATA_DIR: dataDir, SUBSCRIPTIONS_POLL_SECONDS: '0.05', ...QUICK_WATCH_ENV } });
  h.emulator.state.executions.outputOverride = echoing;
});
afterAll(async () => {
  await h?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const messagesIn = (channel: string) => h.fake.state.messages[channel] ?? [];

function executionOf(predicate: (e: ExecutionRecord) => boolean): Promise<ExecutionRecord> {
  return waitFor(() => [...h.emulator.state.executions.byId.values()].find(predicate), 'the execution');
}

async function runFromForm(channel: string, host: string): Promise<ExecutionRecord> {
  await h.user().command(`run "${RUNBOOK}"`, channel);
  const modal = await waitFor(() => modalContaining(h, 'meta_proxy'), 'run modal');
  await h.user().submit(modal.id, {
    [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
    [BLOCKS.channel]: { [ACTIONS.channelSelect]: { type: 'conversations_select', selected_conversation: channel } },
    field_hosts: { value: { type: 'plain_text_input', value: host } },
    field_ssh_private_key: { value: { type: 'plain_text_input', value: SECRET } },
  });
  return executionOf((e) => JSON.stringify(e.params.hosts) === JSON.stringify([host]));
}

async function finishedCard(channel: string, executionId: string) {
  return waitFor(
    () =>
      messagesIn(channel).find(
        (m) =>
          JSON.stringify(m.blocks ?? []).includes(executionId) && JSON.stringify(m.blocks ?? []).includes('*Output*'),
      ),
    'the result card',
    15_000,
  );
}

/** Everything the bot sent Slack, answered Slack with, logged, and stored. */
function everythingTheBotLeft(): string {
  const sent = [
    JSON.stringify(h.fake.state.calls.map((c) => ({ method: c.method, args: c.args }))),
    JSON.stringify(h.fake.state.responseUrlPosts),
    JSON.stringify(h.fake.state.messages),
    JSON.stringify(Object.values(h.fake.state.files).map((f) => [f.title, f.content])),
    JSON.stringify(Object.values(h.fake.state.functionExecutions).map((f) => [f.outputs, f.error])),
    ...acks,
    ...h.logs,
  ];
  const stored = readdirSync(dataDir)
    .filter((f) => f.startsWith('runbook-bot.sqlite'))
    .map(
      (f) =>
        readFileSync(path.join(dataDir, f)).toString('latin1') + readFileSync(path.join(dataDir, f)).toString('utf8'),
    );
  return [...sent, ...stored].join('\n');
}

it('an echoed secret appears on no surface, in no log line and not in the store', { timeout: 60_000 }, async () => {
  await h.user().command(`subscribe "${RUNBOOK}"`, 'C02DEPLOYS');
  await waitFor(() => ephemeralContaining(h.fake, 'gets results'), 'subscribed');

  // 1. Run from the form: card, file, Full output, Find, status.
  const run = await runFromForm('C01OPS', 'web-1');
  h.clock.advance(60 * 60_000);
  const card = await finishedCard('C01OPS', run.id);
  const cardText = JSON.stringify(card.blocks);
  expect(cardText).toContain('last line: key was ••••••');
  expect(cardText).toContain('echo ssh_private_key.b64=••••••');
  expect(cardText).toContain('echo ssh_private_key.url=https://example.com/login?ssh_private_key=••••••&amp;next=%2F');
  const file = await waitFor(
    () => messagesIn('C01OPS').find((m) => m.thread_ts === card.ts && m.files?.length)?.files?.[0],
    'the output file',
  );
  expect(file.content).toContain('echo ssh_private_key=••••••');
  expect(file.content).toContain('echo ssh_private_key.b64url=••••••');

  await h.user().act({ kind: 'message', message: card }, ACTIONS.executionOutput);
  const fullOutput = await waitFor(() => modalContaining(h, 'padding line 44'), 'Full output');
  expect(JSON.stringify(fullOutput.view)).toContain('echo ssh_private_key=••••••');

  await h.user().act({ kind: 'message', message: card }, ACTIONS.executionFind);
  const find = await waitFor(() => modalContaining(h, FIND_BLOCK), 'the Find form');
  const found = await h
    .user()
    .submit(find.id, { [FIND_BLOCK]: { [FIND_ACTION]: { type: 'plain_text_input', value: 'echo' } } });
  acks.push(found.body);
  expect(found.body).toContain('lines contain');

  await h.user().command(`status ${run.id}`, 'C01OPS');
  const status = await waitFor(() => ephemeralContaining(h.fake, 'padding line 44'), 'status');
  expect(JSON.stringify(status.blocks)).toContain('••••••');

  // 2. The subscription notice of that run.
  await waitFor(() => messagesIn('C02DEPLOYS').find((m) => JSON.stringify(m).includes(run.id)), 'the notice');

  // 3. A run started outside Slack (the API directly, as a script would): notice and status.
  const [runbook] = await h.runtime.deps.catalog.named(RUNBOOK);
  const outside = h.emulator.state.runWorkflow(runbook!.id, {
    proxyId: 'proxy-dev',
    params: JSON.stringify({ hosts: ['cron-1'], ssh_private_key: SECRET }),
    userEmail: 'script@example.com',
  });
  h.clock.advance(60 * 60_000);
  await waitFor(() => messagesIn('C02DEPLOYS').find((m) => JSON.stringify(m).includes(outside.id)), 'its notice');
  await h.user().command(`status ${outside.id}`, 'C01OPS');
  await waitFor(() => ephemeralContaining(h.fake, outside.id.slice(0, 8)), 'its status');

  // 4. The Workflow Builder step waits for its run: output_tail. And a runbook without a schema.
  const started = await h.user().runWorkflowStep(FUNCTIONS.runRunbook, stepDefinition(FUNCTIONS.runRunbook), {
    invoking_user: 'U01ALICE',
    runbook: RUNBOOK,
    inputs: JSON.stringify({ hosts: ['step-1'], ssh_private_key: SECRET }),
    channel: 'C01OPS',
    wait_for_completion: true,
  });
  const noSchema = await h.user().runWorkflowStep(FUNCTIONS.runRunbook, stepDefinition(FUNCTIONS.runRunbook), {
    invoking_user: 'U01ALICE',
    runbook: NO_SCHEMA,
    inputs: JSON.stringify({ password: PASSWORD, api_key: API_KEY_VALUE, target: 'edge-1' }),
    channel: 'C01OPS',
    wait_for_completion: true,
  });
  const stepRun = await executionOf((e) => JSON.stringify(e.params.hosts) === '["step-1"]');
  const noSchemaRun = await executionOf((e) => e.params.target === 'edge-1');
  const running = await waitFor(
    () => messagesIn('C01OPS').find((m) => JSON.stringify(m.blocks ?? []).includes(noSchemaRun.id)),
    'the running card without a schema',
  );
  expect(JSON.stringify(running.blocks)).toContain('edge-1');
  h.clock.advance(60 * 60_000);
  const stepEnd = await waitFor(
    () => h.fake.state.functionExecutions[started.started.execution.id]?.outputs,
    'the step outputs',
    15_000,
  );
  expect(String(stepEnd.output_tail)).toContain('last line: key was ••••••');
  await waitFor(() => h.fake.state.functionExecutions[noSchema.started.execution.id]?.outputs, 'the second step');
  const noSchemaCard = await finishedCard('C01OPS', noSchemaRun.id);
  expect(JSON.stringify(noSchemaCard.blocks)).toContain('Basic YWRtaW46••••••');
  await finishedCard('C01OPS', stepRun.id);

  // 5. A run whose card the bot delivers after a restart (a new process on the same store).
  const beforeRestart = await runFromForm('C01OPS', 'web-2');
  await waitFor(
    () => messagesIn('C01OPS').find((m) => JSON.stringify(m.blocks ?? []).includes(beforeRestart.id)),
    'its running card',
  );
  await h.restart();
  h.clock.advance(60 * 60_000);
  const afterRestart = await finishedCard('C01OPS', beforeRestart.id);
  expect(JSON.stringify(afterRestart.blocks)).toContain('last line: key was ••••••');
  await h.user().command(`status ${run.id}`, 'C01OPS');
  await waitFor(
    () => h.fake.state.responseUrlPosts.filter((p) => JSON.stringify(p).includes('padding line 44')).length >= 3,
    'status after the restart',
  );

  const everything = everythingTheBotLeft();
  for (const secret of [SECRET, PASSWORD, API_KEY_VALUE]) {
    for (const form of forms(secret)) expect(everything, `${secret} as ${form}`).not.toContain(form);
  }
  // Masking did happen where the secret was echoed (the test proves something).
  expect(everything).toContain('echo ssh_private_key.b64=••••••');
});

it('logs no Slack body that carries a view, a message or a step output, at any level', () => {
  const logged = h.logs.join('\n');
  // The debug log did see those calls (so the check below means something) ...
  expect(logged).toContain("apiCall('views.update') start");
  expect(logged).toContain("apiCall('chat.postMessage') start");
  expect(logged).toContain('http request body: [not logged]');
  // ... and kept none of their bodies.
  for (const body of ['"blocks"', '"view"', '"outputs"', 'padding line', 'output_tail']) {
    expect(logged, body).not.toContain(body);
  }
});
