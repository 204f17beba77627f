// The Workflow Builder step "Run a runbook" end to end: function_executed sent by the fake Slack
// exactly as Slack does, through the real Bolt pipeline, the run on the emulator, and the step
// ended with functions.completeSuccess / completeError — once, also across a restart of the bot.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { type Emulator, ManualClock, startEmulator } from '../../src/emulator/server.ts';
import { createLogger } from '../../src/logger.ts';
import { type Runtime, startRuntime } from '../../src/runtime.ts';
import { type FakeSlack, startFakeSlack } from '../../src/sandbox/fake-slack-api.ts';
import type { FakeFunctionExecution } from '../../src/sandbox/fake-slack-state.ts';
import { SlackUser } from '../../src/sandbox/slack-user.ts';
import { stepDefinition } from '../../src/sandbox/workflow-steps.ts';
import { FUNCTIONS } from '../../src/slack/kit/ids.ts';
import { API_KEY, BOT_TOKEN, SIGNING_SECRET, START, waitFor } from '../support/bot-harness.ts';

const POLICY = `
rules:
  - name: carol may not run diagnostics
    effect: deny
    actions: [run]
    users: [U03CAROL]
    runbooks: { names: ["Find *"] }
`;

let emulator: Emulator;
let clock: ManualClock;
let fake: FakeSlack;
let runtime: Runtime;
let dataDir: string;

async function startBot(): Promise<void> {
  const config = loadConfig({
    RUNBOOK_API_URL: emulator.url,
    RUNBOOK_API_KEY: API_KEY,
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: fake.url,
    RUNBOOK_PROXIES: 'proxy-dev=Dev proxy,proxy-prod=Prod proxy',
    PORT: '0',
    DATA_DIR: dataDir,
    POLICY_FILE: path.join(dataDir, 'policy.yaml'),
    WATCH_FIRST_CHECK_MS: '30',
    WATCH_MAX_CHECK_MS: '150',
    WATCH_TICK_MS: '20',
    WATCH_SLACK_POST_INTERVAL_MS: '0',
    WATCH_SLACK_UPDATE_INTERVAL_MS: '0',
    LOG_LEVEL: 'warn',
  });
  const quiet = new Writable({ write: (_c, _e, done) => done() });
  runtime = await startRuntime(config, {
    logger: createLogger({ level: 'warn', secrets: [API_KEY, BOT_TOKEN], destination: quiet }),
  });
}

function person(id = 'U01ALICE'): SlackUser {
  const botUrl = `http://127.0.0.1:${runtime.slackPort}/slack/events`;
  return new SlackUser({ fake, botUrl, signingSecret: SIGNING_SECRET, userId: id });
}

beforeAll(async () => {
  clock = new ManualClock(START);
  emulator = await startEmulator({ port: 0, apiKey: API_KEY, clock });
  fake = await startFakeSlack({ port: 0, botToken: BOT_TOKEN });
  dataDir = mkdtempSync(path.join(tmpdir(), 'workflow-step-'));
  writeFileSync(path.join(dataDir, 'policy.yaml'), POLICY);
  await startBot();
});
afterAll(async () => {
  await runtime.stop();
  await fake.close();
  await emulator.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const definition = stepDefinition(FUNCTIONS.runRunbook);

async function runStep(inputs: Record<string, unknown>, user = 'U01ALICE') {
  const res = await person(user).runWorkflowStep(FUNCTIONS.runRunbook, definition, {
    invoking_user: user,
    ...inputs,
  });
  expect(res.status).toBe(200);
  return res.started.execution.id;
}

function stepRun(id: string): FakeFunctionExecution {
  return fake.state.functionExecutions[id]!;
}

const ended = (id: string) => (stepRun(id).state === 'running' ? undefined : stepRun(id));

function executionsOf(name: string) {
  return [...emulator.state.executions.byId.values()].filter((e) => e.workflowName === name);
}

describe('Workflow Builder step: Run a runbook', () => {
  it('waits for the run and completes with its outputs; the card is in the chosen channel', async () => {
    const id = await runStep({
      runbook: 'Find Crashlooping Pods',
      inputs: '{"namespace": "payments"}',
      channel: 'C02DEPLOYS',
      wait_for_completion: true,
    });
    const executionId = await waitFor(
      () => executionsOf('Find Crashlooping Pods').find((e) => JSON.stringify(e.received).includes('payments'))?.id,
      'the run',
    );
    const card = await waitFor(
      () => (fake.state.messages.C02DEPLOYS ?? []).find((m) => JSON.stringify(m.blocks).includes(executionId)),
      'the live card',
    );
    expect(stepRun(id).state).toBe('running');
    expect((await runtime.store.workflowSteps.get(id))?.executionId).toBe(executionId);
    clock.advance(60_000);
    const done = await waitFor(() => ended(id), 'the step to end', 15_000);
    expect(done.state).toBe('completed');
    expect(done.outputs).toMatchObject({ execution_id: executionId, status: 'succeeded' });
    expect(String(done.outputs?.card_link)).toContain(`/archives/C02DEPLOYS/p${card.ts.replace('.', '')}`);
    expect(String(done.outputs?.output_tail).length).toBeGreaterThan(0);
    expect(String(done.outputs?.output_tail).length).toBeLessThanOrEqual(1_000);
    // Exactly once: one completion call for this step.
    const calls = fake.state.calls.filter(
      (c) => c.method.startsWith('functions.') && c.args.function_execution_id === id,
    );
    expect(calls).toHaveLength(1);
    // The run is Alice's: her id and email went to the API.
    const received = emulator.state.executions.byId.get(executionId)!.received;
    expect(received).toMatchObject({ userId: 'U01ALICE', userEmail: 'alice@example.com' });
  });

  it('without waiting, completes as soon as the run starts', async () => {
    const id = await runStep({ runbook: 'Find Crashlooping Pods', inputs: '{"namespace": "web"}' });
    const done = await waitFor(() => ended(id), 'the step to end');
    expect(done).toMatchObject({ state: 'completed', outputs: { status: 'running' } });
    expect(emulator.state.executions.byId.has(String(done.outputs?.execution_id))).toBe(true);
  });

  it('survives a restart between the run starting and ending', async () => {
    const id = await runStep({
      runbook: 'Find Crashlooping Pods',
      inputs: '{"namespace": "restart-me"}',
      channel: 'C01OPS',
      wait_for_completion: true,
    });
    await waitFor(
      () => executionsOf('Find Crashlooping Pods').find((e) => JSON.stringify(e.received).includes('restart-me')),
      'the run',
    );
    await waitFor(
      () => (fake.state.messages.C01OPS ?? []).some((m) => JSON.stringify(m.blocks).includes('restart-me')),
      'card',
    );
    await runtime.stop();
    clock.advance(60_000);
    expect(stepRun(id).state).toBe('running');
    await startBot();
    const done = await waitFor(() => ended(id), 'the step to end after the restart', 15_000);
    expect(done).toMatchObject({ state: 'completed', outputs: { status: 'succeeded' } });
    expect(
      fake.state.calls.filter((c) => c.method.startsWith('functions.') && c.args.function_execution_id === id),
    ).toHaveLength(1);
  });

  it('fails the step with the policy sentence for a denied runbook, and starts nothing', async () => {
    const before = executionsOf('Find Crashlooping Pods').length;
    const id = await runStep({ runbook: 'Find Crashlooping Pods', inputs: '{"namespace": "x"}' }, 'U03CAROL');
    const done = await waitFor(() => ended(id), 'the step to fail');
    expect(done.state).toBe('failed');
    expect(done.error).toMatch(/carol may not run diagnostics/);
    expect(executionsOf('Find Crashlooping Pods')).toHaveLength(before);
    const audit = await runtime.store.audit.recent(5);
    expect(
      audit.find(
        (e) =>
          e.action === 'run.start' &&
          e.outcome === 'denied' &&
          e.userId === 'U03CAROL' &&
          e.detail?.endsWith('; via workflow-step'),
      ),
    ).toBeTruthy();
  });

  it('fails the step when the runbook needs approval (workflows do not wait), with no request made', async () => {
    const id = await runStep({ runbook: 'Drain Kubernetes Node', inputs: '{"node_name": "n1"}' });
    const done = await waitFor(() => ended(id), 'the step to fail');
    expect(done.state).toBe('failed');
    expect(done.error).toMatch(/needs approval/);
    expect(executionsOf('Drain Kubernetes Node')).toHaveLength(0);
  });

  it('fails the step on input values the schema refuses, before anything runs', async () => {
    const id = await runStep({ runbook: 'Find Crashlooping Pods', inputs: '{"namespace": 5}' });
    const done = await waitFor(() => ended(id), 'the step to fail');
    expect(done.error).toMatch(/Input values refused: namespace/);
    const bad = await runStep({ runbook: 'Find Crashlooping Pods', inputs: 'not json' });
    expect((await waitFor(() => ended(bad), 'fail')).error).toMatch(/JSON object/);
  });
});
