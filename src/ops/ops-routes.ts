// The operator's HTTP endpoints: /readyz next to Bolt's routes, and /metrics either there too or on
// a port of its own (METRICS_PORT) so that it need not be reachable from where Slack calls in.
// /healthz (alive) is served by the Slack app itself (src/slack/app.ts).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { CustomRoute } from '@slack/bolt';
import type { Registry } from 'prom-client';
import type { Readiness } from './readiness.ts';

/** Paths the deployment files may probe; test/unit/deploy checks them against these. */
export const PROBE_PATHS = { liveness: '/healthz', readiness: '/readyz', metrics: '/metrics' } as const;

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

export function readinessHandler(readiness: Readiness): Handler {
  return (_req, res) => {
    readiness
      .check()
      .then((report) => sendJson(res, report.ready ? 200 : 503, report))
      .catch((err: unknown) =>
        sendJson(res, 503, {
          ready: false,
          status: 'unready',
          error: err instanceof Error ? err.message : String(err),
        }),
      );
  };
}

export function metricsHandler(registry: Registry): Handler {
  return (_req, res) => {
    registry
      .metrics()
      .then((text) => {
        res.writeHead(200, { 'content-type': registry.contentType });
        res.end(text);
      })
      .catch(() => {
        res.writeHead(500);
        res.end();
      });
  };
}

/** Routes for the public port: /readyz always, /metrics unless it has a port of its own. */
export function opsRoutes(options: {
  readiness: Readiness;
  registry: Registry;
  metricsOnPublicPort: boolean;
}): CustomRoute[] {
  const routes: CustomRoute[] = [
    { path: PROBE_PATHS.readiness, method: ['GET'], handler: readinessHandler(options.readiness) },
  ];
  if (options.metricsOnPublicPort) {
    routes.push({ path: PROBE_PATHS.metrics, method: ['GET'], handler: metricsHandler(options.registry) });
  }
  return routes;
}

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/** /metrics alone on its own port (METRICS_PORT); everything else there is 404. */
export async function startMetricsServer(port: number, registry: Registry): Promise<MetricsServer> {
  const serveMetrics = metricsHandler(registry);
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === PROBE_PATHS.metrics) return serveMetrics(req, res);
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
