// /v1alpha1/schedules: list, create, get, update (PATCH), delete.
import { CreateScheduleBody, ScheduleWrite } from '../api/schemas.ts';
import { fieldMap, readFilter } from './filter.ts';
import { parseBody } from './http-io.ts';
import { pageWindow, parseOrderBy, parsePageSize, parsePageToken } from './list-query.ts';
import { type Route, type RouteContext, type RouteResponse, route } from './router.ts';
import { invalidArgument } from './rpc-error.ts';
import { SCHEDULE_FILTER_FIELDS } from './schedule-book.ts';

const FIELDS = fieldMap(SCHEDULE_FILTER_FIELDS);

function listSchedules({ state, query, respHdr }: RouteContext): RouteResponse {
  const pageSize = parsePageSize(query.get('pageSize'));
  const offset = parsePageToken(query.get('pageToken'));
  const order = parseOrderBy(query.get('orderBy'), 'ascending');
  const records = state.schedules.select(readFilter(query.get('filter') ?? '', FIELDS, state.filterMode), order);
  const page = pageWindow(records.length, offset, pageSize);
  return {
    body: {
      respHdr,
      schedules: records.slice(page.start, page.end).map((r) => r.schedule),
      nextPageToken: page.nextPageToken,
      pageCount: page.pageCount,
      totalCount: records.length,
    },
  };
}

function createSchedule({ state, body, respHdr }: RouteContext): RouteResponse {
  const schedule = (body as { schedule?: unknown } | null)?.schedule;
  if (schedule === undefined || schedule === null) throw invalidArgument('schedule: is required');
  const parsed = parseBody(CreateScheduleBody, body);
  const record = state.createSchedule(parsed.schedule);
  return { body: { respHdr, schedule: record.schedule } };
}

function getSchedule({ state, pathParams, respHdr }: RouteContext): RouteResponse {
  return { body: { respHdr, schedule: state.getSchedule(pathParams.scheduleId!).schedule } };
}

function updateSchedule({ state, pathParams, body, respHdr }: RouteContext): RouteResponse {
  // The body is the Schedule itself; a {schedule: {...}} wrapper is accepted too.
  const inner = (body as { schedule?: unknown } | null)?.schedule;
  const payload = inner !== null && typeof inner === 'object' ? inner : body;
  const patch = parseBody(ScheduleWrite, payload);
  const record = state.updateSchedule(pathParams.scheduleId!, patch);
  return { body: { respHdr, schedule: record.schedule } };
}

function deleteSchedule({ state, pathParams, respHdr }: RouteContext): RouteResponse {
  state.deleteSchedule(pathParams.scheduleId!);
  return { body: { respHdr } };
}

export const scheduleRoutes: Route[] = [
  route('GET', '/v1alpha1/schedules', listSchedules),
  route('POST', '/v1alpha1/schedules', createSchedule),
  route('GET', '/v1alpha1/schedules/{scheduleId}', getSchedule),
  route('PATCH', '/v1alpha1/schedules/{scheduleId}', updateSchedule),
  route('DELETE', '/v1alpha1/schedules/{scheduleId}', deleteSchedule),
];
