// The Runbook API emulator on node:http: every operation of the contract under /v1alpha1, an
// admin API under /_admin, and GET /healthz. Order per request: route match (404/405) → injected
// faults (/v1alpha1 only) → API key → body → catch up the clock (fire schedules, finish runs) →
// handler.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { GRPC_CODES } from '../api/schemas.ts';
import { adminRoutes } from './admin-routes.ts';
import { type Clock, isManualClock, systemClock } from './clock.ts';
import { executionRoutes } from './execution-routes.ts';
import { FaultInjector, type Faults } from './faults.ts';
import type { FilterMode } from './filter.ts';
import { readJsonBody, sendHtmlError, sendJson, sendRpcError } from './http-io.ts';
import { type AdminControls, matchRoute, type Route } from './router.ts';
import { grpcCodeForHttpStatus, RpcError, unauthenticated } from './rpc-error.ts';
import { scheduleRoutes } from './schedule-routes.ts';
import { seedHistory } from './seed-history.ts';
import { seedRecentHistory } from './seed-recent-history.ts';
import { EmulatorState, MAX_FIRINGS_PER_TICK } from './state.ts';
import { workflowRoutes } from './workflow-routes.ts';

export { SEEDED_RUNBOOK_NAMES } from './catalog.ts';
export type { Clock } from './clock.ts';
export { ManualClock, systemClock } from './clock.ts';
export type { Faults } from './faults.ts';
export { DEFAULT_FAULTS } from './faults.ts';
export { FILTER_MODES, type FilterMode } from './filter.ts';
export { EmulatorState } from './state.ts';

export const API_KEY_HEADER = 'x-service-api-key';

export interface EmulatorOptions {
  /** 0 = random (default 0). */
  port?: number;
  /** Default '127.0.0.1'. */
  host?: string;
  /** X-Service-API-Key must equal this, else 401 rpcStatus UNAUTHENTICATED. */
  apiKey: string;
  /** Default: the system clock. */
  clock?: Clock;
  /** Seed this many additional generated service runbooks (benchmarks: 10000). */
  extraRunbooks?: number;
  faults?: Partial<Faults>;
  /** Simulated run duration when the inputs don't steer it (default: 3000–15000 ms, stable per runbook). */
  defaultDurationMs?: number;
  /** What list routes do with `filter` (filter.ts): `apply` (default), `ignore`, `plain-terms`, `reject`. */
  filterMode?: FilterMode;
  /**
   * Adds ~540 finished runs of 7 runbooks over the last 30 days (seed-recent-history.ts), for health.
   * Off by default (tests count the base history); `npm start` and `npm run emulator` turn it on.
   */
  recentHistory?: boolean;
  /**
   * More tenants, each chosen by its own API key, as the real service takes the tenant from the key:
   * each has its own catalog (custom runbooks with their own ids), executions and schedules. `apiKey`
   * stays the default tenant, holding everything above.
   */
  tenants?: Record<string, TenantSeed>;
}

/** What one extra tenant starts with. */
export interface TenantSeed {
  /** Names the tenant: its custom runbooks and demo schedules get ids of their own from it. */
  name: string;
  /** Only the seeded runbooks with these names (default every one; `SEEDED_RUNBOOK_NAMES` lists them). */
  runbooks?: readonly string[];
  /** Generated service runbooks on top. */
  extraRunbooks?: number;
  /** The demo schedules and finished executions (default true). */
  history?: boolean;
}

export interface Emulator {
  /** e.g. http://127.0.0.1:43210 (no trailing slash). */
  url: string;
  /** Direct access for tests: workflows, schedules, executions, request log/counters (the default tenant). */
  state: EmulatorState;
  /** The state of the tenant an API key selects (the default tenant's for `apiKey`); undefined for an unknown key. */
  tenant(apiKey: string): EmulatorState | undefined;
  clock: Clock;
  setFaults(f: Partial<Faults>): void;
  /** Switches how list routes treat `filter` (every tenant) from the next request on. */
  setFilterMode(mode: FilterMode): void;
  /** Advance a ManualClock (throws for the system clock) and fire due schedules; executions finish lazily by clock. */
  advance(ms: number): void;
  /** Stops cleanly, destroying keep-alive sockets. */
  close(): Promise<void>;
}

const ROUTES: Route[] = [...workflowRoutes, ...scheduleRoutes, ...executionRoutes, ...adminRoutes];

export async function startEmulator(options: EmulatorOptions): Promise<Emulator> {
  const clock = options.clock ?? systemClock;
  const state = new EmulatorState(clock, {
    extraRunbooks: options.extraRunbooks,
    defaultDurationMs: options.defaultDurationMs,
    seed: options.recentHistory
      ? (seeded, nowMs) => {
          seedHistory(seeded, nowMs);
          seedRecentHistory(seeded, nowMs);
        }
      : seedHistory,
    ...(options.filterMode ? { filterMode: options.filterMode } : {}),
  });
  const tenants = new Map<string, EmulatorState>([[options.apiKey, state]]);
  for (const [apiKey, seed] of Object.entries(options.tenants ?? {})) {
    if (!apiKey || tenants.has(apiKey))
      throw new Error(`tenant "${seed.name}": its API key must be non-empty and unique`);
    tenants.set(
      apiKey,
      new EmulatorState(clock, {
        extraRunbooks: seed.extraRunbooks,
        defaultDurationMs: options.defaultDurationMs,
        ...(seed.history === false ? {} : { seed: seedHistory }),
        ...(options.filterMode ? { filterMode: options.filterMode } : {}),
        idScope: `${seed.name}:`,
        ...(seed.runbooks ? { runbooks: seed.runbooks } : {}),
      }),
    );
  }
  const catchUpAll = (cap?: number) => {
    for (const tenant of tenants.values()) tenant.catchUp(cap);
  };
  const faults = new FaultInjector(options.faults);
  const closing = new AbortController();
  const advance = (ms: number) => {
    if (!isManualClock(clock)) throw new Error('advance() needs a ManualClock; this emulator runs on the system clock');
    clock.advance(ms);
    catchUpAll(MAX_FIRINGS_PER_TICK);
  };
  const admin: AdminControls = {
    getFaults: () => faults.faults,
    setFaults: (patch) => faults.set(patch),
    advance,
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // Only reached if writing the response itself failed; the socket is beyond saving.
      if (!res.headersSent) sendRpcError(res, new RpcError(GRPC_CODES.INTERNAL, String(error)));
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://emulator.local');
    const path = url.pathname.length > 1 && url.pathname.endsWith('/') ? url.pathname.slice(0, -1) : url.pathname;
    let routeKey = `${method} (unmatched)`;
    let requestTid = url.searchParams.get('reqHdr.tid') ?? '';
    // Requests are counted by the tenant their key selects (unknown or missing keys: the default's).
    const key = req.headers[API_KEY_HEADER];
    const tenant = typeof key === 'string' ? tenants.get(key) : undefined;
    const finish = (status: number) =>
      (tenant ?? state).requests.record({ atMs: Date.now(), method, path, route: routeKey, status, requestTid });

    if (path === '/healthz') {
      routeKey = `${method} /healthz`;
      if (method !== 'GET') {
        sendRpcError(res, new RpcError(GRPC_CODES.UNIMPLEMENTED, 'Method Not Allowed'));
        return finish(501);
      }
      sendJson(res, 200, { status: 'ok' });
      return finish(200);
    }

    try {
      const match = matchRoute(ROUTES, method, path);
      if (match.kind === 'not-found') throw new RpcError(GRPC_CODES.NOT_FOUND, 'Not Found');
      if (match.kind === 'method-not-allowed') {
        routeKey = `${method} ${match.template}`;
        res.setHeader('allow', match.allowed.join(', '));
        sendJson(res, 405, { code: GRPC_CODES.UNIMPLEMENTED, message: 'Method Not Allowed', details: [] });
        return finish(405);
      }
      routeKey = `${method} ${match.route.template}`;

      if (path.startsWith('/v1alpha1/')) {
        const decision = faults.decide();
        if (decision.delayMs > 0) await sleep(decision.delayMs);
        // A slow tenant's own latency (the emulator's close cuts it short).
        if (tenant && tenant.latencyMs > 0)
          await sleep(tenant.latencyMs, undefined, { signal: closing.signal }).catch(() => {});
        if (decision.kind === 'drop') {
          req.socket.destroy();
          return finish(0);
        }
        if (decision.kind === 'rate-limit') {
          throw new RpcError(GRPC_CODES.RESOURCE_EXHAUSTED, 'rate limit exceeded, retry later', {
            'retry-after': String(decision.retryAfterSeconds),
          });
        }
        if (decision.kind === 'error') {
          if (decision.html) {
            sendHtmlError(res, decision.status);
            return finish(decision.status);
          }
          const error = new RpcError(grpcCodeForHttpStatus(decision.status), 'injected fault: upstream error');
          sendJson(res, decision.status, error.toBody());
          return finish(decision.status);
        }
      }

      if (!tenant) {
        throw unauthenticated(
          key === undefined ? 'missing X-Service-API-Key header' : 'invalid API key in X-Service-API-Key header',
        );
      }

      let body: unknown = {};
      if (method === 'POST' || method === 'PATCH' || method === 'PUT') {
        body = await readJsonBody(req);
        if (method === 'POST') {
          const tid = (body as { reqHdr?: { tid?: unknown } } | null)?.reqHdr?.tid;
          requestTid = typeof tid === 'string' ? tid : '';
        }
      }

      tenant.catchUp();
      const result = match.route.handler({
        state: tenant,
        pathParams: match.pathParams,
        query: url.searchParams,
        body,
        respHdr: { tid: randomUUID(), requestTid },
        admin,
      });
      const status = result.status ?? 200;
      sendJson(res, status, result.body);
      return finish(status);
    } catch (error) {
      const rpc =
        error instanceof RpcError
          ? error
          : new RpcError(GRPC_CODES.INTERNAL, `internal error: ${(error as Error)?.message ?? String(error)}`);
      sendRpcError(res, rpc);
      return finish(rpc.httpStatus);
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });

  // With the system clock, schedules fire on a 1-second tick; a ManualClock fires on advance()
  // (and on the next request after a direct clock change).
  const ticker = isManualClock(clock) ? null : setInterval(() => catchUpAll(), 1000);
  ticker?.unref();

  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closed: Promise<void> | null = null;

  return {
    url: `http://${host}:${address.port}`,
    state,
    tenant: (apiKey) => tenants.get(apiKey),
    clock,
    setFaults: (patch) => faults.set(patch),
    setFilterMode: (mode) => {
      for (const tenant of tenants.values()) tenant.filterMode = mode;
    },
    advance,
    close() {
      closed ??= new Promise<void>((resolve, reject) => {
        if (ticker) clearInterval(ticker);
        closing.abort();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
