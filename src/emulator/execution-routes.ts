// /v1alpha1/executions: list (filter, order, timeRange, statusTable) and get (summary).
import { EXECUTION_FILTER_FIELDS, toWireExecution } from './execution-store.ts';
import { fieldMap, readFilter } from './filter.ts';
import {
  encodePageToken,
  parseBoolean,
  parseOrderBy,
  parsePageSize,
  parsePageToken,
  parseTimeRange,
  timeRangeStart,
} from './list-query.ts';
import { type Route, type RouteContext, type RouteResponse, route } from './router.ts';

const FIELDS = fieldMap(EXECUTION_FILTER_FIELDS);

function listExecutions({ state, query, respHdr }: RouteContext): RouteResponse {
  const pageSize = parsePageSize(query.get('pageSize'));
  const offset = parsePageToken(query.get('pageToken'));
  const order = parseOrderBy(query.get('orderBy'), 'descending');
  const timeRange = parseTimeRange(query.get('timeRange'));
  const terms = readFilter(query.get('filter') ?? '', FIELDS, state.filterMode);
  const result = state.executions.query({
    terms,
    fromMs: timeRangeStart(timeRange, state.clock.now()),
    order,
    offset,
    pageSize,
  });
  const end = Math.min(offset + pageSize, result.total);
  return {
    body: {
      respHdr,
      execution: result.items.map((r) => toWireExecution(r, false)),
      statusTable: result.statusTable,
      nextPageToken: end < result.total ? encodePageToken(end) : '',
      pageCount: Math.ceil(result.total / pageSize),
      aggregateTotalTable: state.executions.counts(),
    },
  };
}

function getExecution({ state, query, pathParams, respHdr }: RouteContext): RouteResponse {
  const summary = parseBoolean('summary', query.get('summary')) ?? false;
  const record = state.getExecution(pathParams.executionId!);
  return { body: { respHdr, execution: toWireExecution(record, summary) } };
}

export const executionRoutes: Route[] = [
  route('GET', '/v1alpha1/executions', listExecutions),
  route('GET', '/v1alpha1/executions/{executionId}', getExecution),
];
