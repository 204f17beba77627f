// A picture in a message, against the fake Slack Web API: the PNG goes up with the current upload flow
// and stays the bot's own file, the message shows it through `slack_file`, an image Slack has not
// processed yet is waited for, and without the image the numbers still arrive with one sentence.
import { Writable } from 'node:stream';
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { renderHealthChart } from '../../../../src/health/chart.ts';
import { createLogger } from '../../../../src/logger.ts';
import { type FakeSlack, startFakeSlack } from '../../../../src/sandbox/fake-slack-api.ts';
import { type ImageMessage, postWithImage, uploadImage } from '../../../../src/slack/kit/post-image.ts';

const logger = createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, done) => done() }) });
let clock = 1_700_000_000_000;
let fake: FakeSlack;
let client: WebClient;
let png: Buffer;
const slept: number[] = [];
// The fake's clock moves only when the code under test waits: deterministic "processing" of uploads.
const sleep = async (ms: number) => {
  slept.push(ms);
  clock += ms;
};

beforeAll(async () => {
  fake = await startFakeSlack({ port: 0, botToken: 'xoxb-img', now: () => clock, fileProcessingMs: 1_200 });
  client = new WebClient('xoxb-img', { slackApiUrl: fake.url, retryConfig: { retries: 0 } });
  png = await renderHealthChart({
    runbookName: 'Restart Pods',
    days: [{ day: '2026-11-01', succeeded: 3, failed: 1, other: 0, medianMs: 240_000 }],
  });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  slept.length = 0;
});

const message: ImageMessage = {
  text: 'Restart Pods: 4 runs, 75% succeeded',
  blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*Restart Pods*: 4 runs, 75% succeeded' } }],
  title: 'Restart Pods, last 30 days',
  altText: 'Runs per day by outcome and median duration',
  withoutImage: 'The chart could not be shown; the numbers are above.',
};

it('uploads the PNG as the bot’s own file and shows it in an image block once Slack has processed it', async () => {
  const fileId = await uploadImage(client, logger, { png, filename: 'health.png', title: 'Restart Pods health' });
  expect(fileId).toMatch(/^F[A-Z0-9]{8,}$/);
  const file = fake.state.files[fileId!]!;
  expect(file).toMatchObject({ mimetype: 'image/png', filetype: 'png', shared: true, size: png.length });
  expect(fake.state.fileBytes[fileId!]!.equals(png)).toBe(true);
  // Shared nowhere by the upload itself: no message carries it.
  expect(Object.values(fake.state.messages).flat()).toHaveLength(0);

  const result = await postWithImage(client, logger, 'C01OPS', message, fileId, { sleep });
  expect(result).toMatchObject({ kind: 'posted', channel: 'C01OPS', fileId });
  // 1.2 s of processing: refused at 0 and 0.5 s, shown at 1.5 s.
  expect(slept).toEqual([500, 1000]);
  const refusals = fake.state.calls.filter((c) => c.method === 'chat.postMessage' && !c.ok);
  expect(refusals.map((c) => c.error)).toEqual(['invalid_blocks', 'invalid_blocks']);
  const posted = fake.state.messages.C01OPS!;
  expect(posted).toHaveLength(1);
  expect(posted[0]!.text).toBe(message.text);
  expect(posted[0]!.blocks).toEqual([
    message.blocks[0],
    {
      type: 'image',
      slack_file: { id: fileId },
      alt_text: message.altText,
      title: { type: 'plain_text', text: message.title },
    },
  ]);
});

it('posts the numbers with one sentence when Slack never takes the image', async () => {
  const fileId = await uploadImage(client, logger, { png, filename: 'health.png', title: 'x' });
  const result = await postWithImage(client, logger, 'C01OPS', message, fileId, { sleep, notReadyWaitsMs: [100] });
  expect(result.kind).toBe('posted_without_image');
  expect(slept).toEqual([100]);
  const [posted] = fake.state.messages.C01OPS!;
  expect(JSON.stringify(posted!.blocks)).not.toContain('slack_file');
  expect(posted!.blocks).toEqual([
    message.blocks[0],
    { type: 'context', elements: [{ type: 'mrkdwn', text: message.withoutImage }] },
  ]);
});

it('a failed upload gives no file id, and the message still carries the numbers', async () => {
  fake.setFaults({ serverErrorNext: 1, methods: ['files.getUploadURLExternal'] });
  const fileId = await uploadImage(client, logger, { png, filename: 'health.png', title: 'x' });
  expect(fileId).toBeNull();
  const result = await postWithImage(client, logger, 'C01OPS', message, fileId, { sleep });
  expect(result.kind).toBe('posted_without_image');
  expect(slept).toEqual([]);
  expect(JSON.stringify(fake.state.messages.C01OPS![0]!.blocks)).toContain(message.withoutImage);
});

it('a message Slack refuses for its channel is not retried as if the image were the problem', async () => {
  const fileId = await uploadImage(client, logger, { png, filename: 'health.png', title: 'x' });
  clock += 5_000;
  const result = await postWithImage(client, logger, 'C0NOSUCH', message, fileId, { sleep });
  expect(result).toEqual({ kind: 'refused', code: 'channel_not_found' });
  expect(slept).toEqual([]);
});

it('the fake refuses a slack_file that is not an image the bot uploaded', async () => {
  const got = await client.files.getUploadURLExternal({ filename: 'notes.txt', length: 5 });
  await fetch(got.upload_url!, { method: 'POST', body: 'hello' });
  await client.files.completeUploadExternal({ files: [{ id: got.file_id! }] });
  clock += 5_000;
  for (const ref of [{ id: got.file_id! }, { id: 'FNOSUCHFILE1' }]) {
    await expect(
      client.chat.postMessage({
        channel: 'C01OPS',
        text: 'x',
        blocks: [{ type: 'image', slack_file: ref, alt_text: 'x' }],
      }),
    ).rejects.toMatchObject({
      data: { error: 'invalid_blocks', errors: ['invalid slack file [json-pointer:/blocks/0/slack_file]'] },
    });
  }
  await expect(
    client.chat.postMessage({
      channel: 'C01OPS',
      text: 'x',
      blocks: [{ type: 'image', slack_file: { id: 'not-an-id' }, alt_text: 'x' }],
    }),
  ).rejects.toMatchObject({ data: { error: 'invalid_blocks' } });
});
