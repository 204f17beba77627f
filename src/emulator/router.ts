// Route table: method + path template → handler. Unknown paths are 404 and known paths with the
// wrong method are 405, both as rpcStatus bodies like grpc-gateway's.
import type { Faults } from './faults.ts';
import type { EmulatorState } from './state.ts';

export interface ResponseHeaderOut {
  tid: string;
  requestTid: string;
}

export interface AdminControls {
  getFaults(): Faults;
  setFaults(patch: Partial<Faults>): void;
  advance(ms: number): void;
}

export interface RouteContext {
  state: EmulatorState;
  pathParams: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  respHdr: ResponseHeaderOut;
  admin: AdminControls;
}

export interface RouteResponse {
  status?: number;
  body: unknown;
}

export type RouteHandler = (ctx: RouteContext) => RouteResponse;

export interface Route {
  method: string;
  /** e.g. "/v1alpha1/workflows/{workflowId}/run" — also the stats key. */
  template: string;
  handler: RouteHandler;
  pattern: RegExp;
  names: string[];
}

export function route(method: string, template: string, handler: RouteHandler): Route {
  const names: string[] = [];
  const source = template
    .split('/')
    .map((segment) => {
      const m = /^\{(\w+)\}$/.exec(segment);
      if (!m) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(m[1]!);
      return '([^/]+)';
    })
    .join('/');
  return { method, template, handler, pattern: new RegExp(`^${source}$`), names };
}

export type RouteMatch =
  | { kind: 'found'; route: Route; pathParams: Record<string, string> }
  | { kind: 'method-not-allowed'; allowed: string[]; template: string }
  | { kind: 'not-found' };

export function matchRoute(routes: readonly Route[], method: string, path: string): RouteMatch {
  const allowed: string[] = [];
  let template = '';
  for (const r of routes) {
    const m = r.pattern.exec(path);
    if (!m) continue;
    if (r.method === method) {
      const pathParams: Record<string, string> = {};
      r.names.forEach((name, i) => {
        pathParams[name] = safeDecode(m[i + 1]!);
      });
      return { kind: 'found', route: r, pathParams };
    }
    allowed.push(r.method);
    template = r.template;
  }
  return allowed.length > 0 ? { kind: 'method-not-allowed', allowed, template } : { kind: 'not-found' };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
