// /readyz and /metrics of the whole runtime. The store is Postgres behind a TCP proxy this test
// owns, so "Postgres is unreachable" is a cut proxy: the machine's shared server keeps running for
// everyone else's tests.
import { randomBytes } from 'node:crypto';
import { createServer, type Server, Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReadinessReport } from '../../src/ops/readiness.ts';
import { type Harness, startHarness } from '../support/bot-harness.ts';
import { TEST_DATABASE_URL } from '../support/test-database.ts';

const DATABASE_URL = TEST_DATABASE_URL;

/** A TCP proxy to Postgres that can be cut (every connection dropped, new ones refused) and restored. */
async function startCuttableProxy(target: URL) {
  let open = true;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    if (!open) {
      client.destroy();
      return;
    }
    const upstream = new Socket();
    sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    upstream.connect(Number(target.port || 5432), target.hostname, () => {
      client.pipe(upstream).pipe(client);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = new URL(target.toString());
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    cut() {
      open = false;
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
    restore() {
      open = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        open = false;
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

async function readyz(h: Harness): Promise<{ status: number; body: ReadinessReport }> {
  const res = await fetch(`http://127.0.0.1:${h.runtime.slackPort}/readyz`);
  return { status: res.status, body: (await res.json()) as ReadinessReport };
}

describe('readiness with the store behind a proxy', () => {
  const schema = `readyz_${randomBytes(6).toString('hex')}`;
  let proxy: Awaited<ReturnType<typeof startCuttableProxy>>;
  let h: Harness;

  beforeAll(async () => {
    proxy = await startCuttableProxy(new URL(DATABASE_URL));
    h = await startHarness({ env: { DATABASE_URL: proxy.url, DATABASE_SCHEMA: schema, WATCH_TICK_MS: '50' } });
  }, 30_000);

  afterAll(async () => {
    await h?.stop();
    await proxy?.close();
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }, 30_000);

  it('is ready, unready while Postgres cannot be reached, and ready again after', async () => {
    const before = await readyz(h);
    expect(before.status).toBe(200);
    expect(before.body.checks.store?.state).toBe('ok');
    expect(before.body.checks.watcher?.state).toBe('ok');
    expect(before.body.checks.runbookApi?.state).toBe('ok');

    proxy.cut();
    const during = await readyz(h);
    expect(during.status).toBe(503);
    expect(during.body.status).toBe('unready');
    expect(during.body.checks.store?.state).toBe('failing');
    // Liveness does not follow: the process is fine, restarting it would not bring Postgres back.
    expect((await fetch(`http://127.0.0.1:${h.runtime.slackPort}/healthz`)).status).toBe(200);

    proxy.restore();
    let after = await readyz(h);
    for (let i = 0; i < 100 && after.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 200));
      after = await readyz(h);
    }
    expect(after.status).toBe(200);
    expect(after.body.checks.store?.state).toBe('ok');
  }, 60_000);
});

describe('metrics of the interactive path', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  }, 30_000);
  afterAll(async () => h?.stop());

  it('counts commands by subcommand and outcome, and times Runbook API calls by operation', async () => {
    await h.user().command('list', 'C01OPS');
    // The listener goes on after Slack's ack; its count lands when it is done.
    let text = '';
    for (let i = 0; i < 100 && !text.includes('runbook_slack_requests_total{'); i++) {
      await new Promise((r) => setTimeout(r, 50));
      text = await (await fetch(`http://127.0.0.1:${h.runtime.slackPort}/metrics`)).text();
    }
    expect(text).toMatch(/runbook_slack_requests_total\{kind="command",name="list",outcome="ok"\} 1/);
    expect(text).toMatch(
      /runbook_api_request_duration_seconds_count\{operation="GET \/v1alpha1\/workflows",status="200"\} [1-9]/,
    );
    expect(text).toContain('runbook_approvals_pending 0');
    expect(text).toContain('runbook_slack_request_duration_seconds_bucket');
  });
});

describe('METRICS_PORT', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { METRICS_PORT: '0' } });
  }, 30_000);
  afterAll(async () => h?.stop());

  it('serves /metrics on its own port and not on the public one', async () => {
    expect(h.runtime.metricsPort).toBeGreaterThan(0);
    const own = await fetch(`http://127.0.0.1:${h.runtime.metricsPort}/metrics`);
    expect(own.status).toBe(200);
    expect(await own.text()).toContain('runbook_watch_pending');
    const pub = await fetch(`http://127.0.0.1:${h.runtime.slackPort}/metrics`);
    expect(pub.status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${h.runtime.slackPort}/readyz`)).status).toBe(200);
  });
});
