// /_admin: fault control, filter mode, clock advance and stats for tests that run the emulator in
// another process. Same key as the API; never subject to injected faults.
import { z } from 'zod';
import { FaultsPatch } from './faults.ts';
import { FILTER_MODES, type FilterMode } from './filter.ts';
import { parseBody } from './http-io.ts';
import { type Route, type RouteContext, type RouteResponse, route } from './router.ts';
import { failedPrecondition } from './rpc-error.ts';

const AdvanceBody = z.object({
  ms: z
    .number()
    .int()
    .min(0)
    .max(10 * 365 * 24 * 3600 * 1000),
});

function getFaults({ admin }: RouteContext): RouteResponse {
  return { body: admin.getFaults() };
}

function putFaults({ admin, body }: RouteContext): RouteResponse {
  admin.setFaults(parseBody(FaultsPatch, body));
  return { body: admin.getFaults() };
}

const FilterModeBody = z.object({ mode: z.enum(FILTER_MODES as [FilterMode, ...FilterMode[]]) }).strict();

function getFilterMode({ state }: RouteContext): RouteResponse {
  return { body: { mode: state.filterMode } };
}

function putFilterMode({ state, body }: RouteContext): RouteResponse {
  state.filterMode = parseBody(FilterModeBody, body).mode;
  return { body: { mode: state.filterMode } };
}

function advance({ admin, body, state }: RouteContext): RouteResponse {
  const { ms } = parseBody(AdvanceBody, body);
  try {
    admin.advance(ms);
  } catch (error) {
    throw failedPrecondition((error as Error).message);
  }
  return { body: { now: new Date(state.clock.now()).toISOString() } };
}

function stats({ state }: RouteContext): RouteResponse {
  const counts = state.executions.counts();
  return {
    body: {
      now: new Date(state.clock.now()).toISOString(),
      requests: state.requests.snapshot(),
      executions: { total: state.executions.size, byStatus: counts },
      schedules: { total: state.schedules.byId.size },
      workflows: { total: state.workflows.size },
    },
  };
}

function resetStats({ state }: RouteContext): RouteResponse {
  state.requests.reset();
  return { body: {} };
}

export const adminRoutes: Route[] = [
  route('GET', '/_admin/faults', getFaults),
  route('PUT', '/_admin/faults', putFaults),
  route('GET', '/_admin/filter-mode', getFilterMode),
  route('PUT', '/_admin/filter-mode', putFilterMode),
  route('POST', '/_admin/advance', advance),
  route('GET', '/_admin/stats', stats),
  route('POST', '/_admin/reset-stats', resetStats),
];
