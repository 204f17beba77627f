// /v1alpha1/workflows: list, get, run.
import { RunWorkflowBody } from '../api/schemas.ts';
import { fieldMap, readFilter } from './filter.ts';
import { parseBody } from './http-io.ts';
import { pageWindow, parseBoolean, parsePageSize, parsePageToken } from './list-query.ts';
import { type Route, type RouteContext, type RouteResponse, route } from './router.ts';
import { invalidArgument, notFound } from './rpc-error.ts';
import { parseParamsObject } from './state.ts';
import { WORKFLOW_FILTER_FIELDS } from './workflow-catalog.ts';

const FIELDS = fieldMap(WORKFLOW_FILTER_FIELDS);

function listWorkflows({ state, query, respHdr }: RouteContext): RouteResponse {
  const isService = parseBoolean('isService', query.get('isService'));
  const pageSize = parsePageSize(query.get('pageSize'));
  const offset = parsePageToken(query.get('pageToken'));
  const filter = query.get('filter') ?? '';
  const terms = readFilter(filter, FIELDS, state.filterMode);
  // The memo key carries the mode: the same expression selects other rows under another mode.
  const { records, categoryCounts } = state.workflows.select(
    isService,
    `${state.filterMode}\u0000${filter.trim()}`,
    terms,
  );
  const page = pageWindow(records.length, offset, pageSize);
  return {
    body: {
      respHdr,
      workflows: records.slice(page.start, page.end).map((r) => r.workflow),
      nextPageToken: page.nextPageToken,
      pageCount: page.pageCount,
      totalCount: records.length,
      categoryCounts,
    },
  };
}

function getWorkflow({ state, query, pathParams, respHdr }: RouteContext): RouteResponse {
  const isService = parseBoolean('isService', query.get('isService'));
  const record = state.getWorkflow(pathParams.workflowId!);
  // With the flag set, only runbooks of that kind are found (custom runbooks: omit it).
  if (isService !== undefined && record.isService !== isService) {
    throw notFound(
      `workflow ${pathParams.workflowId} not found${isService ? ' among service runbooks' : ' among custom runbooks'}`,
    );
  }
  return { body: { respHdr, workflow: record.workflow, url: '' } };
}

function runWorkflow({ state, body, pathParams, respHdr }: RouteContext): RouteResponse {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw invalidArgument('body: must be a JSON object');
  const proxyId = (body as { proxyId?: unknown }).proxyId;
  if (proxyId === undefined || proxyId === null || proxyId === '') throw invalidArgument('proxyId is required');
  const run = parseBody(RunWorkflowBody, body);
  if (run.params !== undefined && run.params !== '') parseParamsObject(run.params, 'params');
  else if (run.inputs !== undefined) parseParamsObject(run.inputs, 'inputs');
  const execution = state.runWorkflow(pathParams.workflowId!, {
    proxyId: run.proxyId,
    params: run.params,
    inputs: run.inputs,
    userId: run.userId,
    userEmail: run.userEmail,
    scheduleId: run.scheduleId,
    requestId: run.requestId,
    tenantId: run.tenantId,
  });
  return { body: { respHdr, executionIds: [execution.id] } };
}

export const workflowRoutes: Route[] = [
  route('GET', '/v1alpha1/workflows', listWorkflows),
  route('GET', '/v1alpha1/workflows/{workflowId}', getWorkflow),
  route('POST', '/v1alpha1/workflows/{workflowId}/run', runWorkflow),
];
