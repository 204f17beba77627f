import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createRunbookApi } from '../../../src/api/client.ts';
import {
  apiAddressesCheck,
  createReadiness,
  type ReadinessCheck,
  runbookApiCheck,
  slackConnectionCheck,
  watcherCheck,
} from '../../../src/ops/readiness.ts';

const ok = (name: string, critical = true): ReadinessCheck => ({ name, critical, run: async () => {} });
const failing = (name: string, critical: boolean, message = 'down'): ReadinessCheck => ({
  name,
  critical,
  run: async () => {
    throw new Error(message);
  },
});

describe('readiness', () => {
  it('is ready when every check passes', async () => {
    const report = await createReadiness([ok('store'), ok('runbookApi', false)]).check();
    expect(report).toMatchObject({ ready: true, status: 'ready' });
    expect(report.checks.store?.state).toBe('ok');
  });

  it('is unready when a critical check fails, and says why', async () => {
    const report = await createReadiness([failing('store', true, 'connection refused'), ok('watcher')]).check();
    expect(report).toMatchObject({ ready: false, status: 'unready' });
    expect(report.checks.store).toMatchObject({ state: 'failing', detail: 'connection refused' });
    expect(report.checks.watcher?.state).toBe('ok');
  });

  it('stays ready but degraded when only a non-critical check fails', async () => {
    const report = await createReadiness([ok('store'), failing('runbookApi', false)]).check();
    expect(report).toMatchObject({ ready: true, status: 'degraded' });
    expect(report.checks.runbookApi?.state).toBe('degraded');
  });

  it('counts a check that does not answer in time as failing', async () => {
    let aborted = false;
    const hanging: ReadinessCheck = {
      name: 'store',
      critical: true,
      run: (signal) =>
        new Promise(() => {
          signal.addEventListener('abort', () => {
            aborted = true;
          });
        }),
    };
    const report = await createReadiness([hanging], { timeoutMs: 30 }).check();
    expect(report.ready).toBe(false);
    expect(report.checks.store?.detail).toMatch(/no answer within 30 ms/);
    expect(aborted).toBe(true);
  });

  it('watcher: failing before the first round and when the last round is too old', async () => {
    let now = 1_000_000;
    let last: number | null = null;
    const check = watcherCheck(
      () => last,
      60_000,
      () => now,
    );
    await expect(check.run(new AbortController().signal)).rejects.toThrow(/not run yet/);
    last = now - 1_000;
    await expect(check.run(new AbortController().signal)).resolves.toBeUndefined();
    now += 120_000;
    await expect(check.run(new AbortController().signal)).rejects.toThrow(/121 s ago/);
  });

  it('Slack: follows the Socket Mode connection state', async () => {
    let up = false;
    const check = slackConnectionCheck(() => up);
    await expect(check.run(new AbortController().signal)).rejects.toThrow(/not open/);
    up = true;
    await expect(check.run(new AbortController().signal)).resolves.toBeUndefined();
  });

  it('Runbook API: degraded when it does not answer, the answer kept for a while', async () => {
    let now = 0;
    // Port 1 on loopback: nothing listens there, the connection is refused at once.
    const api = createRunbookApi({ baseUrl: 'http://127.0.0.1:1', apiKey: 'k', maxRetries: 0, timeoutMs: 500 });
    const check = runbookApiCheck(api, { cacheMs: 10_000, now: () => now });
    const report = await createReadiness([check]).check();
    expect(report).toMatchObject({ ready: true, status: 'degraded' });
    expect(report.checks.runbookApi?.detail).toMatch(/Runbook API unreachable/);
    now = 5_000;
    expect((await createReadiness([check]).check()).checks.runbookApi?.state).toBe('degraded');
    await api.close();
  });

  it('many workspaces: the allowed API addresses are checked without a key; any HTTP answer is reachable', async () => {
    const seen: Array<string | undefined> = [];
    const api = createServer((req, res) => {
      seen.push(req.headers.authorization ?? req.headers['x-api-key']?.toString());
      res.writeHead(401).end('{"error":"missing key"}');
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    const port = (api.address() as { port: number }).port;
    try {
      const up = await createReadiness([apiAddressesCheck([`http://127.0.0.1:${port}/v1`])]).check();
      expect(up).toMatchObject({ ready: true, status: 'ready' });
      expect(seen).toEqual([undefined]);
      // One address that does not answer degrades (never unready), naming its host only.
      const mixed = apiAddressesCheck([`http://127.0.0.1:${port}/v1`, 'http://user:pw@127.0.0.1:1/api']);
      const report = await createReadiness([mixed]).check();
      expect(report).toMatchObject({ ready: true, status: 'degraded' });
      expect(report.checks.runbookApi?.detail).toBe('Runbook API address unreachable: 127.0.0.1:1');
    } finally {
      await new Promise((resolve) => api.close(resolve));
    }
  });
});
