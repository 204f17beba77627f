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
}

export interface Emulator {
  /** e.g. http://127.0.0.1:43210 (no trailing slash). */
  url: string;
  /** Direct access for tests: workflows, schedules, executions, request log/counters. */
  state: EmulatorState;
  clock: Clock;
  setFaults(f: Partial<Faults>): void;
  /** Switches how list routes treat `filter` from the next request on. */
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
  const faults = new FaultInjector(options.faults);
  const advance = (ms: number) => {
    if (!isManualClock(clock)) throw new Error('advance() needs a ManualClock; this emulator runs on the system clock');
    clock.advance(ms);
    state.catchUp(MAX_FIRINGS_PER_TICK);
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
    const finish = (status: number) =>
      state.requests.record({ atMs: Date.now(), method, path, route: routeKey, status, requestTid });

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

      if (req.headers[API_KEY_HEADER] !== options.apiKey) {
        throw unauthenticated(
          req.headers[API_KEY_HEADER] === undefined
            ? 'missing X-Service-API-Key header'
            : 'invalid API key in X-Service-API-Key header',
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

      state.catchUp();
      const result = match.route.handler({
        state,
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
  const ticker = isManualClock(clock) ? null : setInterval(() => state.catchUp(), 1000);
  ticker?.unref();

  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closed: Promise<void> | null = null;

  return {
    url: `http://${host}:${address.port}`,
    state,
    clock,
    setFaults: (patch) => faults.set(patch),
    setFilterMode: (mode) => {
      state.filterMode = mode;
    },
    advance,
    close() {
      closed ??= new Promise<void>((resolve, reject) => {
        if (ticker) clearInterval(ticker);
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
