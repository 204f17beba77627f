// The watcher end to end in-process: runs started through Slack (or startRun directly) finish on
// the emulator's manual clock, and the running message in the fake Slack becomes the result card
// with exactly one thread reply mentioning whoever started it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WebClient } from '@slack/web-api';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Workflow } from '../../src/api/schemas.ts';
import { actor } from '../../src/runs/actor.ts';
import { startRun } from '../../src/runs/run.ts';
import type { FakeMessage } from '../../src/sandbox/fake-slack-api.ts';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import { checkBlocks } from '../../src/slack/kit/limits.ts';
import { postRunningCard } from '../../src/slack/kit/run-start.ts';
import {
  BOT_TOKEN,
  type Harness,
  modalContaining,
  QUICK_WATCH_ENV,
  startHarness,
  waitFor,
} from '../support/bot-harness.ts';

let h: Harness;
let dataDir: string;
let client: WebClient;
let runbook: Workflow;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'watcher-it-'));
  h = await startHarness({ env: { DATA_DIR: dataDir, ...QUICK_WATCH_ENV } });
  client = new WebClient(BOT_TOKEN, { slackApiUrl: h.fake.url });
  const page = await h.runtime.api.workflows.list({ isService: true, filter: '' });
  runbook = page.items.find((w) => w.name === 'Find Crashlooping Pods') ?? page.items[0]!;
});
afterAll(async () => {
  await h.stop();
  rmSync(dataDir, { recursive: true, force: true });
});
afterEach(() => {
  h.fake.setFaults({});
});

const messagesIn = (channel: string): FakeMessage[] => h.fake.state.messages[channel] ?? [];
// Replies, not the output file the watcher shares into the thread when the output is long.
const repliesTo = (channel: string, ts: string) =>
  messagesIn(channel).filter((m) => m.thread_ts === ts && m.ts !== ts && !m.files);
const cardFor = (channel: string, executionId: string) =>
  messagesIn(channel).find((m) => !m.thread_ts && JSON.stringify(m.blocks ?? []).includes(executionId));

async function waitDone(executionId: string) {
  const deadline = Date.now() + 8_000;
  for (;;) {
    const watch = await h.runtime.store.watches.get(executionId);
    if (watch && watch.state !== 'active') return watch;
    if (Date.now() > deadline) throw new Error(`watch ${executionId} did not finish`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function start(params: Record<string, unknown>, channel: string | null, userId = 'U03CAROL') {
  const who = actor({ userId, teamId: 'T0SANDBOX', groups: [], channelId: channel });
  const result = await startRun(h.runtime.deps, who, { runbook, proxyId: 'proxy-dev', params, via: 'form' });
  if (result.kind !== 'started') throw new Error(`the run did not start: ${result.kind}`);
  await postRunningCard(h.runtime.deps, client, result.run);
  return result.run.executionIds[0]!;
}

/** A run the watcher is told of with no card posted (startRun never did); `first` runs before it is. */
async function startedWithoutCard(first?: () => void): Promise<string> {
  const { executionIds } = await h.runtime.api.workflows.run(runbook.id, {
    proxyId: 'proxy-dev',
    params: { simulate_duration_seconds: 30 },
  });
  const id = executionIds[0]!;
  first?.();
  await h.runtime.watcher!.started({
    runbookId: runbook.id,
    runbookName: runbook.name,
    proxyId: 'proxy-dev',
    startedBy: 'U01ALICE',
    teamId: 'T0SANDBOX',
    inputs: { simulate_duration_seconds: 30 },
    executionIds: [id],
    channel: 'C02DEPLOYS',
  });
  return id;
}

/** The run ends: its one card in C02DEPLOYS (the running one) shows the result, with one reply. */
async function endsOnOneCard(id: string, running: FakeMessage): Promise<void> {
  h.clock.advance(60_000);
  await waitDone(id);
  const cards = messagesIn('C02DEPLOYS').filter((m) => !m.thread_ts && JSON.stringify(m.blocks).includes(id));
  expect(cards.map((m) => m.ts)).toEqual([running.ts]);
  expect(cards[0]!.text).toContain('succeeded');
  expect(repliesTo('C02DEPLOYS', running.ts)).toHaveLength(1);
}

describe('execution watcher', () => {
  it('turns the running message of a run submitted through the modal into the result card, with one reply', async () => {
    await h.user().command('run "Scale Kubernetes Deployment"', 'C01OPS');
    const modal = await waitFor(() => modalContaining(h, 'meta_proxy'), 'run modal');
    await h.user().submit(modal.id, {
      [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
      [BLOCKS.channel]: {
        [ACTIONS.channelSelect]: { type: 'conversations_select', selected_conversation: 'C02DEPLOYS' },
      },
      field_namespace: { value: { type: 'plain_text_input', value: 'web' } },
      field_deployment: { value: { type: 'plain_text_input', value: 'api' } },
      field_replicas: { value: { type: 'number_input', value: '3' } },
    });
    const running = await waitFor(
      () => messagesIn('C02DEPLOYS').find((m) => m.text.includes('Scale Kubernetes Deployment is running')),
      'running message',
    );
    const executionId = /`([^`]+)`/.exec(JSON.stringify(running.blocks))![1]!;
    // Still running: checks happen, nothing changes.
    await new Promise((r) => setTimeout(r, 200));
    expect(running.text).toContain('is running');

    h.clock.advance(60 * 60_000);
    await waitDone(executionId);
    const card = cardFor('C02DEPLOYS', executionId)!;
    expect(card.ts).toBe(running.ts);
    expect(card.text).toContain('succeeded');
    expect(JSON.stringify(card.blocks)).toContain('*Output*');
    expect(card.history.length).toBe(1);
    expect(checkBlocks(card.blocks as never, 'message')).toEqual([]);
    const replies = repliesTo('C02DEPLOYS', running.ts);
    expect(replies).toHaveLength(1);
    expect(replies[0]!.text).toContain('<@U01ALICE> your run of *Scale Kubernetes Deployment* succeeded');

    // Nothing more arrives later.
    await new Promise((r) => setTimeout(r, 300));
    expect(repliesTo('C02DEPLOYS', running.ts)).toHaveLength(1);
    expect(cardFor('C02DEPLOYS', executionId)!.history.length).toBe(1);
  });

  it('shows the reason of a failed run and pings the person once', async () => {
    const id = await start({ simulate_outcome: 'failed', simulate_duration_seconds: 5 }, 'C01OPS');
    const running = await waitFor(() => cardFor('C01OPS', id), 'running card');
    h.clock.advance(10_000);
    const watch = await waitDone(id);
    expect(watch.state).toBe('finished');
    expect(watch.finalStatus).toBe('EXECUTION_STATUS_FAILED');
    const card = cardFor('C01OPS', id)!;
    expect(card.text).toContain('failed');
    expect(JSON.stringify(card.blocks)).toContain('*Reason*');
    const replies = repliesTo('C01OPS', running.ts);
    expect(replies.map((r) => r.text)).toEqual([`<@U03CAROL> your run of *${runbook.name}* failed (\`${id}\`)`]);
  });

  it('still reports exactly once when Slack rate-limits the edit and the reply', async () => {
    const id = await start({ simulate_duration_seconds: 1 }, 'C01OPS');
    const running = await waitFor(() => cardFor('C01OPS', id), 'running card');
    h.fake.setFaults({ ratelimitedNext: 2, retryAfterSeconds: 1, methods: ['chat.update', 'chat.postMessage'] });
    h.clock.advance(5_000);
    await waitDone(id);
    const limited = h.fake.state.calls.filter((c) => c.error === 'ratelimited');
    expect(limited.length).toBeGreaterThanOrEqual(2);
    expect(cardFor('C01OPS', id)!.text).toContain('succeeded');
    expect(repliesTo('C01OPS', running.ts)).toHaveLength(1);
  });

  it('sends the result to a DM when the run had no channel', async () => {
    const id = await start({ simulate_duration_seconds: 1 }, null, 'U02BOB');
    const running = await waitFor(() => cardFor('D02BOB', id), 'running card in the DM');
    h.clock.advance(5_000);
    await waitDone(id);
    expect(cardFor('D02BOB', id)!.text).toContain('succeeded');
    expect(repliesTo('D02BOB', running.ts)).toHaveLength(1);
  });

  it('posts the running card once when Slack kept refusing it at the start, without waiting for a dead claimant', async () => {
    // startRun's post is rate-limited on each of its attempts: it did not arrive, so the watcher posts it.
    const before = h.fake.state.calls.length;
    h.fake.setFaults({ ratelimitedNext: 3, retryAfterSeconds: 1, methods: ['chat.postMessage'] });
    const id = await start({ simulate_duration_seconds: 30 }, 'C02DEPLOYS');
    expect(h.fake.state.calls.slice(before).filter((c) => c.error === 'ratelimited')).toHaveLength(3);
    const running = await waitFor(() => cardFor('C02DEPLOYS', id), 'running card posted by the watcher');
    expect(running.text).toContain('is running');
    await endsOnOneCard(id, running);
  });

  it('posts the running message itself when startRun never did, then the result', async () => {
    const id = await startedWithoutCard();
    const running = await waitFor(() => cardFor('C02DEPLOYS', id), 'running card posted by the watcher');
    expect(running.text).toContain('is running');
    h.clock.advance(60_000);
    await waitDone(id);
    expect(cardFor('C02DEPLOYS', id)!.text).toContain('succeeded');
    expect(cardFor('C02DEPLOYS', id)!.ts).toBe(running.ts);
    expect(repliesTo('C02DEPLOYS', running.ts)).toHaveLength(1);
  });

  // The watcher holds the card claim while it posts; when Slack surely did not take any of its attempts it
  // gives the claim back, so its next look posts the card instead of waiting out a dead claimant (3 min).
  it.each([
    ['rate-limited on every attempt', { ratelimitedNext: 5, retryAfterSeconds: 1 }, 'ratelimited'],
    ['answered 5xx on every attempt, each read back and absent', { serverErrorNext: 5 }, 'http_503'],
  ])(
    'posts its own running card soon after its own posts were %s',
    async (_what, faults, error) => {
      const before = h.fake.state.calls.length;
      const id = await startedWithoutCard(() => h.fake.setFaults({ ...faults, methods: ['chat.postMessage'] }));
      const running = await waitFor(
        () => cardFor('C02DEPLOYS', id),
        'running card posted again by the watcher',
        30_000,
      );
      const posts = h.fake.state.calls.slice(before).filter((c) => c.method === 'chat.postMessage');
      // Its whole first round of attempts was refused, then one post went through.
      expect(posts.map((c) => c.error ?? 'ok')).toEqual([error, error, error, error, error, 'ok']);
      await endsOnOneCard(id, running);
    },
    40_000,
  );
});
