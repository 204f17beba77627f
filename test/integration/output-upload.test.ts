// A long output is kept: the run is submitted through the real Bolt pipeline, its result card shows
// only the tail, and the whole output lands in the card's thread as a text file uploaded with
// files.getUploadURLExternal + POST + files.completeUploadExternal — once. Then the bot "crashes"
// after the upload but before the reply (the watch is put back to active in the store, the reply
// removed from Slack) and restarts: the re-delivery sends the reply but never a second file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FakeMessage } from '../../src/sandbox/fake-slack-api.ts';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import { checkView } from '../../src/slack/kit/limits.ts';
import { type Harness, modalContaining, QUICK_WATCH_ENV, startHarness, waitFor } from '../support/bot-harness.ts';

let h: Harness;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'output-upload-it-'));
  h = await startHarness({ env: { DATA_DIR: dataDir, ...QUICK_WATCH_ENV } });
});
afterAll(async () => {
  await h?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const messagesIn = (channel: string): FakeMessage[] => h.fake.state.messages[channel] ?? [];
const threadOf = (channel: string, ts: string) => messagesIn(channel).filter((m) => m.thread_ts === ts && m.ts !== ts);
const calls = (method: string) => h.fake.state.calls.filter((c) => c.method === method && c.ok);

async function watchState(executionId: string): Promise<string | undefined> {
  return (await h.runtime.store.watches.get(executionId))?.state;
}

it('uploads a long output into the thread once, and not again after a restart', { timeout: 40_000 }, async () => {
  await h.user().command('run "Collect Kubernetes Pod Logs"', 'C01OPS');
  const modal = await waitFor(() => modalContaining(h, 'meta_proxy'), 'run modal');
  await h.user().submit(modal.id, {
    [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
    [BLOCKS.channel]: { [ACTIONS.channelSelect]: { type: 'conversations_select', selected_conversation: 'C01OPS' } },
    field_namespace: { value: { type: 'plain_text_input', value: 'web' } },
  });
  const running = await waitFor(
    () => messagesIn('C01OPS').find((m) => m.text.includes('Collect Kubernetes Pod Logs is running')),
    'running card',
  );
  const executionId = /`([^`]+)`/.exec(JSON.stringify(running.blocks))![1]!;
  h.clock.advance(60 * 60_000);
  await waitFor(() => threadOf('C01OPS', running.ts).some((m) => m.files?.length), 'the file in the thread', 15_000);
  let finished = false;
  for (let i = 0; i < 200 && !finished; i++) {
    finished = (await watchState(executionId)) === 'finished';
    if (!finished) await new Promise((r) => setTimeout(r, 25));
  }
  expect(finished).toBe(true);

  // The card shows a short tail and says where the rest is; the file holds the whole output.
  const card = messagesIn('C01OPS').find((m) => m.ts === running.ts)!;
  expect(JSON.stringify(card.blocks)).toContain('The whole output is in the thread as a file');
  const fileMessages = threadOf('C01OPS', running.ts).filter((m) => m.files?.length);
  expect(fileMessages).toHaveLength(1);
  const file = fileMessages[0]!.files![0]!;
  expect(file.name).toBe(`collect-kubernetes-pod-logs-${executionId.slice(0, 8)}.txt`);
  const execution = await h.runtime.api.executions.get(executionId);
  expect(file.content).toBe(execution.output);
  expect(file.content!.split('\n').length).toBeGreaterThan(400);
  expect(calls('files.getUploadURLExternal')).toHaveLength(1);
  expect(calls('files.completeUploadExternal')).toHaveLength(1);
  expect(calls('files.completeUploadExternal')[0]!.args).toMatchObject({ channel_id: 'C01OPS', thread_ts: running.ts });
  expect((await h.runtime.store.outputUploads.get(executionId))?.fileId).toBe(file.id);

  // Crash after the upload, before the reply: the watch is active and due again, the reply never sent.
  const reply = threadOf('C01OPS', running.ts).find((m) => !m.files)!;
  expect(reply.text).toContain('your run of *Collect Kubernetes Pod Logs* succeeded');
  const list = h.fake.state.messages.C01OPS!;
  list.splice(list.indexOf(reply), 1);
  const db = new DatabaseSync(path.join(dataDir, 'runbook-bot.sqlite'));
  db.prepare(
    `UPDATE watches SET state = 'active', next_check_at = 0, lease_owner = NULL, lease_until = NULL,
       reply_posted_at = NULL, final_status = NULL WHERE execution_id = ?`,
  ).run(executionId);
  db.close();

  await h.restart();
  await waitFor(() => threadOf('C01OPS', running.ts).some((m) => !m.files), 'the reply after the restart', 15_000);
  for (let i = 0; i < 200 && (await watchState(executionId)) !== 'finished'; i++) {
    await new Promise((r) => setTimeout(r, 25));
  }
  expect(await watchState(executionId)).toBe('finished');
  await new Promise((r) => setTimeout(r, 300));
  expect(threadOf('C01OPS', running.ts).filter((m) => m.files?.length)).toHaveLength(1);
  expect(threadOf('C01OPS', running.ts).filter((m) => !m.files)).toHaveLength(1);
  expect(calls('files.getUploadURLExternal')).toHaveLength(1);
  expect(calls('files.completeUploadExternal')).toHaveLength(1);
});

it('Find in output shows the matching lines; Full output pages through all of it', { timeout: 30_000 }, async () => {
  const card = messagesInCard();
  const executionId = /`([0-9a-f-]{36})`/.exec(JSON.stringify(card.blocks))![1]!;
  const output = (await h.runtime.api.executions.get(executionId)).output;
  const wanted = output.split('\n').filter((l) => l.includes('500')).length;
  expect(wanted).toBeGreaterThan(0);

  await h.user().act({ kind: 'message', message: card }, 'execution_find');
  const find = await waitFor(() => modalContaining(h, 'Lines containing'), 'the Find form');
  const res = await h
    .user()
    .submit(find.id, { meta_find: { find_text: { type: 'plain_text_input', value: ' 500 ' } } });
  // The bot answers the submission with the results under the form (response_action update).
  const answer = (typeof res.body === 'string' ? JSON.parse(res.body) : res.body) as {
    response_action: string;
    view: Parameters<typeof checkView>[0];
  };
  expect(answer.response_action).toBe('update');
  expect(checkView(answer.view)).toEqual([]);
  const text = JSON.stringify(answer.view);
  expect(text).toContain(`${wanted} lines contain`);
  expect(text).toContain('`500`');
  expect(text).not.toContain('Starting runbook');
  h.fake.closeModal('U01ALICE');

  await h.user().act({ kind: 'message', message: card }, 'execution_output');
  const last = await waitFor(() => modalContaining(h, 'Page '), 'the last page');
  const pages = Number(/Page (\d+) of (\d+)/.exec(JSON.stringify(last.view.blocks))![2]);
  expect(JSON.stringify(last.view.blocks)).toContain(`Page ${pages} of ${pages}`);
  expect(pages).toBeGreaterThan(1);
  await h.user().act({ kind: 'view', view: last }, (el) => el.action_id === 'output_page_prev');
  await waitFor(() => modalContaining(h, `Page ${pages - 1} of ${pages}`), 'the page before');
});

function messagesInCard(): FakeMessage {
  return messagesIn('C01OPS').find((m) => m.text.startsWith('Collect Kubernetes Pod Logs succeeded'))!;
}
