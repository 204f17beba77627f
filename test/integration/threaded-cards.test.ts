// Cards of runs asked for in a thread stay in that thread, through the real Bolt pipeline and the fake
// Slack: `@runbook-bot watch <id>` and `@runbook-bot run …` written in a thread, the message shortcut on
// a reply in a thread, and the watcher posting a threaded card itself (also after a lost answer). The card
// goes into the thread, its edits update it there, and the result reply and output file go into the same
// thread, by its parent's ts (a reply's ts is no thread parent in Slack). `/runbook watch` stays top-level.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Workflow } from '../../src/api/schemas.ts';
import type { FakeMessage } from '../../src/sandbox/fake-slack-api.ts';
import { ACTIONS, BLOCKS, SHORTCUTS } from '../../src/slack/kit/ids.ts';
import {
  ephemeralContaining,
  type Harness,
  modalContaining,
  QUICK_WATCH_ENV,
  startHarness,
  waitFor,
} from '../support/bot-harness.ts';

let h: Harness;
let logs: Workflow;
let pods: Workflow;

beforeAll(async () => {
  h = await startHarness({ env: QUICK_WATCH_ENV });
  const page = await h.runtime.api.workflows.list({ isService: true, filter: '' });
  logs = page.items.find((w) => w.name === 'Collect Kubernetes Pod Logs')!;
  pods = page.items.find((w) => w.name === 'Find Crashlooping Pods')!;
});
afterAll(async () => {
  await h.stop();
});
afterEach(() => {
  h.fake.setFaults({});
});

const messagesIn = (channel: string): FakeMessage[] => h.fake.state.messages[channel] ?? [];
const cardsOf = (channel: string, id: string) =>
  messagesIn(channel).filter((m) => JSON.stringify(m.blocks ?? []).includes(`\`${id}\``));
/** chat.postMessage calls that carried the result reply (it names the run, the card is edited). */
const replyCalls = (id: string) =>
  h.fake.state.calls.filter(
    (c) => c.method === 'chat.postMessage' && c.ok && !c.args.blocks && String(c.args.text).includes(`\`${id}\``),
  );

async function finished(id: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    if ((await h.runtime.store.watches.get(id))?.state === 'finished') return;
    if (Date.now() > deadline) throw new Error(`watch ${id} did not finish`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function runThroughApi(runbook: Workflow, params: Record<string, unknown>): Promise<string> {
  const run = await h.runtime.api.workflows.run(runbook.id, { proxyId: 'proxy-dev', params });
  return run.executionIds[0]!;
}

/** The run's one card sits in the thread of `root` and ended; its reply (and file) went there by root's ts. */
async function endsInThread(id: string, channel: string, root: string): Promise<FakeMessage> {
  const cards = cardsOf(channel, id);
  expect(cards).toHaveLength(1);
  const card = cards[0]!;
  expect(card.thread_ts).toBe(root);
  expect(card.text).toMatch(/succeeded|failed/);
  const calls = replyCalls(id);
  expect(calls).toHaveLength(1);
  expect(calls[0]!.args.thread_ts).toBe(root);
  const reply = messagesIn(channel).find((m) => !m.blocks && m.text.includes(`\`${id}\``))!;
  expect(reply.thread_ts).toBe(root);
  return card;
}

/** Submits the open run form (result channel C01OPS); the card is in `root`'s thread and ends there. */
async function submitRunInThread(root: string): Promise<void> {
  const form = await waitFor(() => modalContaining(h, 'field_namespace'), 'run form');
  await h.user().submit(form.id, {
    [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
    [BLOCKS.channel]: { [ACTIONS.channelSelect]: { type: 'conversations_select', selected_conversation: 'C01OPS' } },
    field_namespace: { value: { type: 'plain_text_input', value: 'threaded' } },
  });
  const running = await waitFor(
    () => messagesIn('C01OPS').find((m) => m.thread_ts === root && m.text.includes(`${pods.name} is running`)),
    'running card in the thread',
  );
  const id = /`([^`]+)`/.exec(JSON.stringify(running.blocks))![1]!;
  h.clock.advance(60 * 60_000);
  await finished(id);
  expect((await endsInThread(id, 'C01OPS', root)).ts).toBe(running.ts);
}

describe('a card asked for in a thread stays in it', () => {
  it('`@runbook-bot watch` in a thread: running card, result, reply and output file in the thread', async () => {
    const id = await runThroughApi(logs, { namespace: 'web', simulate_duration_seconds: 60 });
    const root = h.fake.addUserMessage({ channel: 'C01OPS', user: 'U02BOB', text: 'payments are down' });
    await h.user().mention(`watch ${id}`, 'C01OPS', root.ts);
    const running = await waitFor(() => cardsOf('C01OPS', id)[0], 'running card');
    expect(running.text).toContain('is running');
    expect(running.thread_ts).toBe(root.ts);
    expect(await h.runtime.store.watches.get(id)).toMatchObject({ origin: 'adopted', threadTs: root.ts });

    h.clock.advance(60 * 60_000);
    await finished(id);
    const card = await endsInThread(id, 'C01OPS', root.ts);
    expect(card.ts).toBe(running.ts);
    // The long output as a file, shared into the same thread.
    const uploads = h.fake.state.calls.filter((c) => c.method === 'files.completeUploadExternal' && c.ok);
    const file = uploads.find((c) => c.args.channel_id === 'C01OPS' && c.args.thread_ts === root.ts);
    expect(file).toBeDefined();
    expect(uploads.filter((c) => c.args.thread_ts === running.ts)).toEqual([]);
  });

  it('`@runbook-bot watch` in a thread of a run already finished: the result card is posted in the thread', async () => {
    const id = await runThroughApi(pods, { simulate_outcome: 'failed', simulate_duration_seconds: 5 });
    h.clock.advance(60_000);
    const root = h.fake.addUserMessage({ channel: 'C01OPS', user: 'U02BOB', text: 'what failed?' });
    await h.user().mention(`watch ${id}`, 'C01OPS', root.ts);
    await finished(id);
    await endsInThread(id, 'C01OPS', root.ts);
  });

  it('`/runbook watch` (no thread) stays top-level: the reply threads under the card', async () => {
    const id = await runThroughApi(pods, { simulate_duration_seconds: 30 });
    await h.user().command(`watch ${id}`, 'C02DEPLOYS');
    const running = await waitFor(() => cardsOf('C02DEPLOYS', id)[0], 'running card');
    expect(running.thread_ts).toBeUndefined();
    h.clock.advance(60 * 60_000);
    await finished(id);
    expect(cardsOf('C02DEPLOYS', id).map((m) => [m.ts, m.thread_ts])).toEqual([[running.ts, undefined]]);
    expect(replyCalls(id).map((c) => c.args.thread_ts)).toEqual([running.ts]);
  });

  it('`@runbook-bot run` in a thread: the card and the result reply go into that thread', async () => {
    const alice = h.user();
    const root = h.fake.addUserMessage({ channel: 'C01OPS', user: 'U01ALICE', text: 'incident' });
    await alice.mention(`run "${pods.name}"`, 'C01OPS', root.ts);
    const prompt = await waitFor(
      () =>
        h.fake.state.ephemerals.find(
          (e) => e.thread_ts === root.ts && JSON.stringify(e.blocks).includes(ACTIONS.mentionOpenForm),
        ),
      'open-form prompt',
    );
    await alice.act({ kind: 'ephemeral', ephemeral: prompt }, ACTIONS.mentionOpenForm);
    await submitRunInThread(root.ts);
  });

  it('the message shortcut on a reply in a thread: the card goes into that thread', async () => {
    const root = h.fake.addUserMessage({ channel: 'C01OPS', user: 'U02BOB', text: 'pods crashlooping' });
    const reply = h.fake.addUserMessage({
      channel: 'C01OPS',
      user: 'U02BOB',
      text: 'namespace shortcut-thread',
      thread_ts: root.ts,
    });
    await h.user().messageShortcut(SHORTCUTS.runFromMessage, reply);
    const picker = await waitFor(() => modalContaining(h, BLOCKS.runbookPicker), 'picker');
    await h.user().act({ kind: 'view', view: picker }, ACTIONS.runbookPicker, {
      type: 'external_select',
      selected_option: { text: { type: 'plain_text', text: pods.name }, value: pods.id },
    });
    await submitRunInThread(root.ts);
  });

  it('the watcher posts a threaded card itself in the thread, read back there after a lost answer', async () => {
    const id = await runThroughApi(pods, { simulate_duration_seconds: 30 });
    const root = h.fake.addUserMessage({ channel: 'C02DEPLOYS', user: 'U02BOB', text: 'deploy thread' });
    // Its first post arrives but the answer is lost: the pacer reads the thread back and finds it.
    h.fake.setFaults({ lostAnswerNext: 1, methods: ['chat.postMessage'] });
    const before = h.fake.state.calls.length;
    await h.runtime.watcher!.started({
      runbookId: pods.id,
      runbookName: pods.name,
      proxyId: 'proxy-dev',
      startedBy: 'U01ALICE',
      teamId: 'T0SANDBOX',
      inputs: { simulate_duration_seconds: 30 },
      executionIds: [id],
      channel: 'C02DEPLOYS',
      threadTs: root.ts,
    });
    const running = await waitFor(() => cardsOf('C02DEPLOYS', id)[0], 'running card posted by the watcher');
    expect(running.thread_ts).toBe(root.ts);
    for (let i = 0; i < 200 && !(await h.runtime.store.watches.get(id))?.messageTs; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect((await h.runtime.store.watches.get(id))?.messageTs).toBe(running.ts);
    const reads = h.fake.state.calls.slice(before).filter((c) => c.method.startsWith('conversations.'));
    expect(reads.map((c) => [c.method, c.args.ts])).toContainEqual(['conversations.replies', root.ts]);
    h.clock.advance(60 * 60_000);
    await finished(id);
    expect((await endsInThread(id, 'C02DEPLOYS', root.ts)).ts).toBe(running.ts);
  });
});

it('a reply claimed by a process that died is looked for in the thread, then sent there once', async () => {
  const id = await runThroughApi(pods, { simulate_duration_seconds: 30 });
  const root = h.fake.addUserMessage({ channel: 'C01OPS', user: 'U02BOB', text: 'takeover' });
  await h.user().mention(`watch ${id}`, 'C01OPS', root.ts);
  await waitFor(() => cardsOf('C01OPS', id)[0], 'running card');
  // Its reply was claimed long ago and never completed: Slack is asked before it is sent.
  expect(await h.runtime.store.watches.claimReply(id, Date.now() - 10 * 60_000)).toBe(true);
  const before = h.fake.state.calls.length;
  h.clock.advance(60 * 60_000);
  await finished(id);
  await endsInThread(id, 'C01OPS', root.ts);
  const reads = h.fake.state.calls.slice(before).filter((c) => c.method === 'conversations.replies');
  expect(reads.map((c) => c.args.ts)).toEqual([root.ts]);
});

it('says where the watched run is when asked again in the thread', async () => {
  const id = await runThroughApi(pods, { simulate_duration_seconds: 30 });
  const root = h.fake.addUserMessage({ channel: 'C01OPS', user: 'U02BOB', text: 'again' });
  await h.user().mention(`watch ${id}`, 'C01OPS', root.ts);
  await waitFor(() => cardsOf('C01OPS', id)[0], 'running card');
  await h.user('U02BOB').mention(`watch ${id}`, 'C01OPS', root.ts);
  await waitFor(() => ephemeralContaining(h.fake, 'is already being watched', 'U02BOB'), 'already watched');
  expect(cardsOf('C01OPS', id)).toHaveLength(1);
});
