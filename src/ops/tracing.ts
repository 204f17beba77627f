// Opt-in tracing with the official OpenTelemetry SDK: on when OTEL_EXPORTER_OTLP_ENDPOINT is set.
// Spans: one per request from Slack (a Bolt global middleware), one per Runbook API request (the
// undici instrumentation, through undici's diagnostics channels; the W3C traceparent header goes
// along), and one per store call (a wrapper around the Store). Off, none of this is loaded into the
// request path: the middleware is not added and the store is not wrapped.
import { context, propagation, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, SimpleSpanProcessor, type SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import packageJson from '../../package.json' with { type: 'json' };
import type { Store } from '../store/store.ts';
import { classifySlackRequest } from './interactive-metrics.ts';

export interface TracingSetup {
  serviceName: string;
  /** OTLP/HTTP base, e.g. http://otel-collector:4318 (spans go to <endpoint>/v1/traces). */
  endpoint?: string;
  /** Instead of OTLP (tests: an InMemorySpanExporter); spans are exported as each one ends. */
  exporter?: SpanExporter;
}

export interface Tracing {
  tracer: Tracer;
  /** Bolt global middleware: a span per request from Slack, parent of everything done for it. */
  middleware: Middleware<AnyMiddlewareArgs>;
  /** The same store, with a span around every call. */
  traceStore(store: Store): Store;
  /** Flushes what is buffered and unregisters everything. */
  shutdown(): Promise<void>;
}

export function startTracing(setup: TracingSetup): Tracing {
  const exporter =
    setup.exporter ?? new OTLPTraceExporter({ url: `${(setup.endpoint ?? '').replace(/\/+$/, '')}/v1/traces` });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': setup.serviceName, 'service.version': packageJson.version }),
    spanProcessors: [setup.exporter ? new SimpleSpanProcessor({ exporter }) : new BatchSpanProcessor({ exporter })],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  const unregister = registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [new UndiciInstrumentation()],
  });
  const tracer = provider.getTracer('runbook-bot', packageJson.version);

  const middleware: Middleware<AnyMiddlewareArgs> = async ({ body, next }) => {
    const { kind, name } = classifySlackRequest(body as unknown as Record<string, unknown>);
    await tracer.startActiveSpan(
      `slack ${kind} ${name}`,
      { kind: SpanKind.SERVER, attributes: { 'slack.request.kind': kind, 'slack.request.name': name } },
      async (span) => {
        try {
          await next();
        } catch (err) {
          span.recordException(err as Error);
          span.setStatus({ code: SpanStatusCode.ERROR });
          throw err;
        } finally {
          span.end();
        }
      },
    );
  };

  return {
    tracer,
    middleware,
    traceStore: (store) => traceStore(store, tracer),
    async shutdown() {
      unregister();
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/** The same store, with a span around every call (`store watches.claimDue`). */
export function traceStore(store: Store, tracer: Tracer): Store {
  const wrapGroup = <T extends object>(group: string, target: T): T =>
    new Proxy(target, {
      get(obj, prop) {
        const value = Reflect.get(obj, prop, obj);
        if (typeof value !== 'function' || typeof prop !== 'string') return value;
        return (...args: unknown[]) =>
          tracer.startActiveSpan(
            `store ${group}.${prop}`,
            { kind: SpanKind.CLIENT, attributes: { 'db.system.name': store.kind } },
            async (span) => {
              try {
                return await (value as (...a: unknown[]) => Promise<unknown>).apply(obj, args);
              } catch (err) {
                span.recordException(err as Error);
                span.setStatus({ code: SpanStatusCode.ERROR });
                throw err;
              } finally {
                span.end();
              }
            },
          );
      },
    });
  // Every sub-store (watches, approvals, …, and any added later) is wrapped once, on first use;
  // the store's own methods (migrate, close) run on the real object.
  const wrapped = new Map<string, object>();
  return new Proxy(store, {
    get(obj, prop) {
      const value = Reflect.get(obj, prop, obj);
      if (typeof prop !== 'string') return value;
      if (typeof value === 'function') return value.bind(obj);
      if (value === null || typeof value !== 'object') return value;
      const known = wrapped.get(prop);
      if (known) return known;
      const group = wrapGroup(prop, value);
      wrapped.set(prop, group);
      return group;
    },
  });
}
