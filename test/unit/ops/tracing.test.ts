import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunbookApi } from '../../../src/api/client.ts';
import { startTracing, type Tracing, traceStore } from '../../../src/ops/tracing.ts';
import { openStore } from '../../../src/store/open-store.ts';
import type { Store } from '../../../src/store/store.ts';

describe('tracing with an in-memory exporter', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing;
  let store: Store;
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  let baseUrl = '';
  /** Runs the tracing middleware as Bolt would, with only what it reads. */
  const slackRequest = (args: { body: Record<string, unknown>; next: () => Promise<void> }) =>
    tracing.middleware(args as unknown as Parameters<Tracing['middleware']>[0]);

  beforeAll(async () => {
    tracing = startTracing({ serviceName: 'runbook-bot-test', exporter });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    store = await openStore({
      kind: 'sqlite',
      path: path.join(mkdtempSync(path.join(tmpdir(), 'runbook-bot-trace-')), 'db.sqlite'),
    });
  });

  afterAll(async () => {
    await store.close();
    await tracing.shutdown();
    await new Promise((resolve) => server.close(resolve));
  });

  it('a Slack request is the parent of its Runbook API call and its store calls', async () => {
    const api = createRunbookApi({ baseUrl, apiKey: 'k', maxRetries: 0 });
    const traced = traceStore(store, tracing.tracer);
    await slackRequest({
      body: { command: '/runbook', text: 'list' },
      next: async () => {
        await api.workflows.list({ pageSize: 1 });
        await traced.cursors.set('c', 'v', Date.now());
        expect(await traced.cursors.get('c')).toBe('v');
      },
    });
    await api.close();

    const spans = exporter.getFinishedSpans();
    const byName = (name: string) => spans.find((s) => s.name === name) as ReadableSpan;
    const root = byName('slack command list');
    expect(root).toBeDefined();
    expect(root.kind).toBe(SpanKind.SERVER);
    expect(root.resource.attributes['service.name']).toBe('runbook-bot-test');

    const http = spans.find((s) => s.kind === SpanKind.CLIENT && s.attributes['http.request.method'] === 'GET');
    expect(http, spans.map((s) => s.name).join(', ')).toBeDefined();
    expect(String(http!.attributes['url.full'])).toContain('/v1alpha1/workflows');
    expect(http!.attributes['http.response.status_code']).toBe(200);
    expect(http!.parentSpanContext?.spanId).toBe(root.spanContext().spanId);

    for (const name of ['store cursors.set', 'store cursors.get']) {
      const span = byName(name);
      expect(span, name).toBeDefined();
      expect(span.attributes['db.system.name']).toBe('sqlite');
      expect(span.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    }

    // The trace goes along to the Runbook API (W3C traceparent).
    expect(String(seen.at(-1)?.traceparent)).toContain(root.spanContext().traceId);
  });

  it('a listener that throws marks its span as an error', async () => {
    exporter.reset();
    await expect(
      slackRequest({
        body: { type: 'view_submission', view: { callback_id: 'run_modal' } },
        next: async () => {
          throw new Error('boom');
        },
      }),
    ).rejects.toThrow('boom');
    const span = exporter.getFinishedSpans().find((s) => s.name === 'slack view_submission run_modal');
    expect(span?.status.code).toBe(2);
    expect(span?.events.some((e) => e.name === 'exception')).toBe(true);
  });
});
