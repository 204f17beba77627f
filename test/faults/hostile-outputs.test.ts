// A hostile Runbook API answer: an execution whose output is 500 MB. A proxy in front of the emulator
// streams that output (base64, as the service sends it) for one execution, with backpressure, so the
// only thing that could hold it all is the bot. The bot must post the result as truncated (its tail,
// with the notice), keep its memory bounded while the body streams in, and never download the same
// oversized body twice (the Full output button afterwards is served without a new download).
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ACTIONS } from '../../src/slack/kit/ids.ts';
import { type Harness, modalContaining, startHarness, waitFor } from '../support/bot-harness.ts';
import { executionMarked, openScaleForm, SCALE_RUNBOOK, scaleFormValues } from '../support/run-form.ts';

const OUTPUT_BYTES = 500 * 1024 * 1024;
const RUNBOOK = SCALE_RUNBOOK;
/** 3 MiB of text lines (a multiple of 3 bytes, so base64 blocks concatenate into valid base64). */
const BLOCK = Buffer.from(
  'x'
    .repeat(99)
    .concat('\n')
    .repeat((3 * 1024 * 1024) / 100 + 1),
).subarray(0, 3 * 1024 * 1024);
const BLOCK_BASE64 = Buffer.from(BLOCK.toString('base64'));
const END_BASE64 = Buffer.from(Buffer.from('THE END OF THE BIG OUTPUT\n').toString('base64'));

let h: Harness;
let proxy: Server;
let target = '';
const huge = new Set<string>();
let hugeDownloads = 0;

function forward(req: IncomingMessage, res: ServerResponse, rewrite?: (body: Buffer) => Buffer): void {
  const upstream = httpRequest(
    `${target}${req.url}`,
    { method: req.method, headers: { ...req.headers, host: new URL(target).host } },
    (up) => {
      if (!rewrite) {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
        return;
      }
      const chunks: Buffer[] = [];
      up.on('data', (c: Buffer) => chunks.push(c));
      up.on('end', () => {
        const body = rewrite(Buffer.concat(chunks));
        const { 'content-length': _length, ...headers } = up.headers;
        res.writeHead(up.statusCode ?? 502, headers);
        res.end(body);
      });
    },
  );
  upstream.on('error', () => res.destroy());
  req.pipe(upstream);
}

/** Streams `{"respHdr":…,"execution":{…,"output":"<500 MB base64>"}}`, honouring backpressure. */
async function streamHuge(execution: Record<string, unknown>, res: ServerResponse): Promise<void> {
  hugeDownloads++;
  const { output: _small, ...rest } = execution;
  res.writeHead(200, { 'content-type': 'application/json' });
  const head = JSON.stringify({ respHdr: { tid: 'huge', requestTid: '' }, execution: { ...rest, output: '' } });
  // Everything up to the output's opening quote, then the output, then the closing of the document.
  const at = head.lastIndexOf('"output":""') + '"output":"'.length;
  const write = (chunk: Buffer | string) =>
    res.write(chunk) ? Promise.resolve() : new Promise<void>((resolve) => res.once('drain', () => resolve()));
  await write(head.slice(0, at));
  for (let sent = 0; sent < OUTPUT_BYTES; sent += BLOCK.length) {
    if (res.destroyed) return;
    await write(BLOCK_BASE64);
  }
  await write(END_BASE64);
  res.end(head.slice(at));
}

/** The record the emulator holds, read through the API the bot uses. */
async function realExecution(req: IncomingMessage): Promise<Record<string, unknown>> {
  const res = await fetch(`${target}${req.url}`, {
    headers: { 'x-service-api-key': String(req.headers['x-service-api-key']) },
  });
  return ((await res.json()) as { execution: Record<string, unknown> }).execution;
}

beforeAll(async () => {
  proxy = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const id = url.pathname.match(/^\/v1alpha1\/executions\/([^/]+)$/)?.[1];
    if (req.method === 'GET' && id && huge.has(decodeURIComponent(id)) && url.searchParams.get('summary') !== 'true') {
      realExecution(req)
        .then((execution) => streamHuge(execution, res))
        .catch(() => res.destroy());
      return;
    }
    if (req.method === 'GET' && url.pathname === '/v1alpha1/executions') {
      // Lists carry outputs too: blank the huge one there, so only the single read sends it.
      forward(req, res, (body) => {
        const page = JSON.parse(body.toString('utf8')) as { execution?: Array<{ id: string; output: string }> };
        for (const e of page.execution ?? []) if (huge.has(e.id)) e.output = '';
        return Buffer.from(JSON.stringify(page));
      });
      return;
    }
    forward(req, res);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  h = await startHarness({
    apiUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    env: {
      LOG_LEVEL: 'warn',
      // The whole 500 MB body must stream within one attempt, even on a loaded machine.
      RUNBOOK_API_TIMEOUT_MS: '240000',
      WATCH_FIRST_CHECK_MS: '200',
      WATCH_MAX_CHECK_MS: '500',
      WATCH_TICK_MS: '50',
    },
  });
  target = h.emulator.url.replace(/\/$/, '');
});

afterAll(async () => {
  await h?.stop();
  await new Promise((r) => proxy.close(r));
});

it('posts a 500 MB output as truncated, with bounded memory, downloading it once', { timeout: 300_000 }, async () => {
  const modalId = await openScaleForm(h);
  await h.user().submit(modalId, scaleFormValues('big-output'));
  const execution = await executionMarked(h, 'big-output');
  huge.add(execution.id);
  const card = await waitFor(
    () => (h.fake.state.messages.C02DEPLOYS ?? []).find((m) => m.text === `${RUNBOOK} is running`),
    'running card',
  );

  // Memory while the body streams: sampled often, compared with before.
  global.gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  try {
    h.emulator.advance(60_000);
    await waitFor(
      () => {
        const now = (h.fake.state.messages.C02DEPLOYS ?? []).find((m) => m.ts === card.ts);
        return now && / (succeeded|failed)$/.test(now.text) ? now : undefined;
      },
      'result card',
      240_000,
    );
  } finally {
    clearInterval(sampler);
  }
  const result = (h.fake.state.messages.C02DEPLOYS ?? []).find((m) => m.ts === card.ts)!;
  const blocks = JSON.stringify(result.blocks);
  expect(blocks).toContain('THE END OF THE BIG OUTPUT');
  expect(blocks).toContain('too large to read whole');
  expect(blocks).toMatch(/about 50\d\.\d MB/);
  expect(hugeDownloads).toBe(1);
  const growthMb = (peak - baseline) / (1024 * 1024);
  if (process.env.TEST_PRINT_RSS) console.info(`RSS growth while streaming: ${growthMb.toFixed(0)} MB`);
  // The body is 667 MB of base64; reading it whole would need well over 1 GB.
  expect(growthMb, `RSS grew by ${growthMb.toFixed(0)} MB`).toBeLessThan(450);

  // Full output afterwards: shown from what was read, no second download.
  await h.user().act({ kind: 'message', message: result }, (el) => el.action_id === ACTIONS.executionOutput);
  const outputModal = await waitFor(() => modalContaining(h, 'THE END OF THE BIG OUTPUT'), 'output modal', 30_000);
  expect(JSON.stringify(outputModal.view)).toContain('last part');
  expect(hugeDownloads).toBe(1);
});
