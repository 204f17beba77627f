// `npm start` as a person runs it: the start script's own command line, in a directory holding a
// .env file, so the variables come from that file and nowhere else.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../support/process-harness.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const startScript: string = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.start;

/** Runs the start script's command in a fresh directory with this .env; resolves on `until` or exit. */
function runStart(dotenv: string, until: RegExp, timeoutMs = 30_000) {
  const dir = mkdtempSync(path.join(tmpdir(), 'runbook-bot-start-'));
  symlinkSync(path.join(ROOT, 'src'), path.join(dir, 'src'));
  writeFileSync(path.join(dir, '.env'), `${dotenv}\nDATA_DIR=${path.join(dir, 'data')}\n`);
  const [command, ...args] = startScript.split(/\s+/);
  expect(command).toBe('node');
  // Only PATH and HOME from outside: everything else must come from .env.
  const child = spawn(process.execPath, args, {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const done = new Promise<{ output: string; code: number | null }>((resolve) => {
    const timer = setTimeout(() => resolve({ output, code: null }), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += String(chunk);
      if (until.test(output)) {
        clearTimeout(timer);
        resolve({ output, code: null });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ output, code });
    });
  });
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  return { done, stop };
}

describe('npm start', () => {
  it('reads .env: SANDBOX_PORT from the file moves the sandbox there', async () => {
    const sandboxPort = await freePort();
    const port = await freePort();
    const run = runStart(`SANDBOX_PORT=${sandboxPort}\nPORT=${port}`, /Open http:\/\/localhost:\d+/);
    try {
      const { output } = await run.done;
      expect(output).toContain(`Open http://localhost:${sandboxPort} to try the bot`);
      const page = await fetch(`http://127.0.0.1:${sandboxPort}/`);
      expect(page.status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    } finally {
      await run.stop();
    }
  }, 60_000);

  it('SANDBOX_MANY_WORKSPACES: the built-in emulator also serves the second tenant, and a workspace without the bot is told so', async () => {
    const sandboxPort = await freePort();
    const run = runStart(
      `SANDBOX_PORT=${sandboxPort}\nPORT=${await freePort()}\nSANDBOX_MANY_WORKSPACES=true\nLOG_FORMAT=json`,
      /Open http:\/\/localhost:\d+/,
    );
    try {
      const { output } = await run.done;
      expect(output).toContain(`Open http://localhost:${sandboxPort} to try the bot`);
      const emulatorUrl = output.match(/"url":"(http:\/\/127\.0\.0\.1:\d+)","msg":"built-in Runbook API emulator/)?.[1];
      expect(emulatorUrl).toBeDefined();
      const list = (key: string) =>
        fetch(`${emulatorUrl}/v1alpha1/executions`, { headers: { 'x-service-api-key': key } }).then((r) => r.status);
      // The key README tells people to paste in the second workspace's Home opens a tenant of its own.
      expect(await list('second-tenant-key')).toBe(200);
      expect(await list('no-such-key')).toBe(401);
      const origin = `http://127.0.0.1:${sandboxPort}`;
      const sent = await fetch(`${origin}/api/command`, {
        method: 'POST',
        headers: { origin, 'content-type': 'application/json' },
        body: JSON.stringify({ user: 'U11SAM', channel: 'C01OPS', text: '/runbook list' }),
      });
      expect(sent.status).toBe(200);
      const state = (await (await fetch(`${origin}/api/state?user=U11SAM`)).json()) as {
        ephemerals: Array<{ text: string }>;
      };
      expect(state.ephemerals.map((e) => e.text)).toEqual([
        '/runbook is not a valid command in Second workspace. Runbook Bot is not in Second workspace yet: click Add to Slack next to it under Workspaces, then try again.',
      ]);
    } finally {
      await run.stop();
    }
  }, 60_000);

  it('a taken port stops start-up with the variable to change', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, resolve));
    const address = blocker.address();
    const taken = typeof address === 'object' && address ? address.port : 0;
    const run = runStart(`SANDBOX_PORT=${taken}\nPORT=${await freePort()}`, /$^/);
    try {
      const { output, code } = await run.done;
      expect(code).toBe(1);
      expect(output).toContain(`port ${taken} is already in use: set SANDBOX_PORT to a free port`);
    } finally {
      await run.stop();
      await new Promise((resolve) => blocker.close(resolve));
    }
  }, 60_000);

  it('with OTEL_EXPORTER_OTLP_ENDPOINT set, spans reach the collector over OTLP/HTTP', async () => {
    const received: Array<{ path: string; body: string }> = [];
    const collector = createHttpServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += String(chunk);
      });
      req.on('end', () => {
        received.push({ path: req.url ?? '', body });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const address = collector.address();
    const endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const run = runStart(
      `SANDBOX_PORT=${await freePort()}\nPORT=${await freePort()}\nOTEL_EXPORTER_OTLP_ENDPOINT=${endpoint}\nOTEL_SERVICE_NAME=bot-under-test`,
      /Open http:\/\/localhost:\d+/,
    );
    try {
      const { output } = await run.done;
      expect(output).toContain('tracing on');
      // The watcher reads the store every tick; the batch processor sends within a few seconds.
      for (let i = 0; i < 150 && !received.some((r) => r.body.includes('store ')); i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
      const batch = received.find((r) => r.body.includes('store '));
      expect(batch?.path).toBe('/v1/traces');
      expect(batch?.body).toContain('bot-under-test');
    } finally {
      await run.stop();
      await new Promise((resolve) => collector.close(resolve));
    }
  }, 60_000);

  it('many workspaces with only RUNBOOK_API_URLS and no RUNBOOK_API_KEY: starts, no built-in emulator, /readyz checks those addresses without a key', async () => {
    const seen: Array<{ path: string; key: boolean }> = [];
    const api = createHttpServer((req, res) => {
      seen.push({ path: req.url ?? '', key: Boolean(req.headers.authorization || req.headers['x-api-key']) });
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end('{"error":"unauthorized"}');
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    const address = api.address();
    const apiUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/v1`;
    const port = await freePort();
    const run = runStart(
      [
        `PORT=${port}`,
        'SLACK_CLIENT_ID=111.222',
        'SLACK_CLIENT_SECRET=client-secret-value',
        'SLACK_STATE_SECRET=state-secret-of-enough-length',
        'SLACK_SIGNING_SECRET=signing-secret',
        `SECRETS_ENCRYPTION_KEY=${Buffer.alloc(32, 9).toString('base64')}`,
        `RUNBOOK_API_URLS=${apiUrl},http://127.0.0.1:1/unreachable`,
      ].join('\n'),
      /Slack app listening|"level":"?(error|fatal)/,
    );
    try {
      const { output, code } = await run.done;
      expect(code, output).toBeNull();
      expect(output).toContain('Slack app listening');
      expect(output).not.toContain('built-in Runbook API emulator started');
      const res = await fetch(`http://127.0.0.1:${port}/readyz`);
      const body = (await res.json()) as { status: string; checks: Record<string, { state: string; detail?: string }> };
      // The store is real and ready; of the two addresses one answers (401 without a key), one does not.
      expect(res.status).toBe(200);
      expect(body.checks.store?.state).toBe('ok');
      expect(body.checks.runbookApi).toMatchObject({
        state: 'degraded',
        detail: 'Runbook API address unreachable: 127.0.0.1:1',
      });
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.every((r) => r.path === '/v1' && !r.key)).toBe(true);
    } finally {
      await run.stop();
      await new Promise((resolve) => api.close(resolve));
    }
  }, 60_000);
});
