import { Writable } from 'node:stream';
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.ts';
import { type FakeSlack, startFakeSlack } from '../../../src/sandbox/fake-slack-api.ts';
import { openStore } from '../../../src/store/open-store.ts';
import type { Store } from '../../../src/store/store.ts';
import {
  MAX_OUTPUT_FILE_BYTES,
  outputFileBody,
  outputFileName,
  uploadOutputOnce,
} from '../../../src/watch/output-upload.ts';

const logger = createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, done) => done() }) });
let fake: FakeSlack;
let store: Store;
let slack: WebClient;
beforeAll(async () => {
  fake = await startFakeSlack({ port: 0, botToken: 'xoxb-up' });
  store = await openStore({ kind: 'sqlite', path: ':memory:' });
  slack = new WebClient('xoxb-up', {
    slackApiUrl: fake.url,
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 0 },
  });
});
afterAll(async () => {
  await store.close();
  await fake.close();
});

const LONG = Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n');
const deps = () => ({ store, slack, logger, now: () => 1_000 });
const run = (executionId: string, output = LONG) => ({
  executionId,
  runbookName: 'Restart Pods!',
  channel: 'C01OPS',
  threadTs: '1.000001',
  output,
});

it('a short output the card cuts (9 lines) is not uploaded: Full output shows it', async () => {
  const nine = Array.from({ length: 9 }, (_, i) => `line ${i}`).join('\n');
  expect(await uploadOutputOnce(deps(), run('e-nine', nine))).toBe('not_needed');
  expect(await store.outputUploads.get('e-nine')).toBeNull();
});

it('uploads only output longer than the card, and only once', async () => {
  expect(await uploadOutputOnce(deps(), run('e-short', 'ok'))).toBe('not_needed');
  expect(await uploadOutputOnce(deps(), run('e-1'))).toBe('uploaded');
  expect(await uploadOutputOnce(deps(), run('e-1'))).toBe('already_claimed');
  expect((await store.outputUploads.get('e-1'))?.fileId).toMatch(/^F/);
});

it('gives the claim back when Slack refused, keeps it when the outcome is unknown', async () => {
  fake.setFaults({ ratelimitedNext: 1, methods: ['files.getUploadURLExternal'] });
  expect(await uploadOutputOnce(deps(), run('e-2'))).toBe('failed');
  expect(await store.outputUploads.get('e-2')).toBeNull();
  fake.setFaults({ serverErrorNext: 1, methods: ['files.completeUploadExternal'] });
  expect(await uploadOutputOnce(deps(), run('e-2'))).toBe('unknown');
  expect(await store.outputUploads.get('e-2')).toMatchObject({ fileId: null });
  expect(await uploadOutputOnce(deps(), run('e-2'))).toBe('already_claimed');
  fake.setFaults({});
});

it('names the file after the runbook and keeps the tail of a huge output', () => {
  expect(outputFileName('Restart Pods!', '3f2b9c1e-0d4a')).toBe('restart-pods-3f2b9c1e.txt');
  const huge = `${'x'.repeat(100)}\n`.repeat(Math.ceil((MAX_OUTPUT_FILE_BYTES * 1.5) / 101));
  const body = outputFileBody(huge);
  expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_OUTPUT_FILE_BYTES + 100);
  expect(body.startsWith('[… the first ')).toBe(true);
  expect(body.endsWith(`${'x'.repeat(100)}\n`)).toBe(true);
});
