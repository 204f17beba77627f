import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../../../src/sandbox/fake-slack-api.ts';

let fake: FakeSlack;
let client: WebClient;
beforeAll(async () => {
  fake = await startFakeSlack({ port: 0, botToken: 'xoxb-files' });
  client = new WebClient('xoxb-files', { slackApiUrl: fake.url, retryConfig: { retries: 0 } });
});
afterAll(() => fake.close());

it('takes a file through getUploadURLExternal, the upload POST and completeUploadExternal into a thread', async () => {
  const parent = await client.chat.postMessage({ channel: 'C01OPS', text: 'card' });
  const body = 'line 1\nline 2 <!channel>\n';
  const got = await client.files.getUploadURLExternal({ filename: 'out.txt', length: Buffer.byteLength(body) });
  expect(got.upload_url).toMatch(/\/upload\/F[A-Z0-9]+$/);
  // Completing before the bytes arrived is refused.
  await expect(
    client.files.completeUploadExternal({ files: [{ id: got.file_id! }], channel_id: 'C01OPS' }),
  ).rejects.toMatchObject({ data: { error: 'file_not_found' } });
  const posted = await fetch(got.upload_url!, { method: 'POST', body });
  expect(posted.status).toBe(200);
  expect(await posted.text()).toBe(`OK - ${Buffer.byteLength(body)}`);
  const done = await client.files.completeUploadExternal({
    files: [{ id: got.file_id!, title: 'Full output' }],
    channel_id: 'C01OPS',
    thread_ts: parent.ts!,
    initial_comment: 'Full output of X',
  });
  expect(done.files?.[0]).toMatchObject({ id: got.file_id, title: 'Full output' });
  const reply = fake.state.messages.C01OPS!.find((m) => m.thread_ts === parent.ts && m.ts !== parent.ts)!;
  expect(reply.text).toBe('Full output of X');
  expect(reply.files?.[0]).toMatchObject({ id: got.file_id, name: 'out.txt', content: body });
  // Readable back through the API (without the content) and downloadable.
  const replies = await client.conversations.replies({ channel: 'C01OPS', ts: parent.ts! });
  expect(replies.messages?.[1]?.files?.[0]?.name).toBe('out.txt');
  expect(await (await fetch(`${fake.origin}/files/${got.file_id}`)).text()).toBe(body);
  // A file is completed once.
  await expect(
    client.files.completeUploadExternal({ files: [{ id: got.file_id! }], channel_id: 'C01OPS' }),
  ).rejects.toMatchObject({ data: { error: 'file_already_completed' } });
  await expect(client.files.getUploadURLExternal({ filename: 'x.txt', length: 0 })).rejects.toMatchObject({
    data: { error: 'invalid_arguments' },
  });
});
