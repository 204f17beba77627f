// Schedules: list, iterate, create, get, update, delete. Paths and schemas only.
import type { HttpMethod } from './errors.ts';
import { iterateList } from './paginate.ts';
import { pathSegment } from './path-segment.ts';
import type { CallOptions, ListSchedulesParams, Page, RunbookApi } from './runbook-api.ts';
import {
  EmptyResponse,
  ListSchedulesResponse,
  type Schedule,
  ScheduleResponse,
  type ScheduleWrite,
} from './schemas.ts';
import type { Transport } from './transport.ts';

const PATH = '/v1alpha1/schedules';

export interface SchedulesSettings {
  maxPages: number;
}

const WRITABLE_FIELDS = ['proxyId', 'runbookId', 'runbookName', 'inputSchema', 'params', 'schedule'] as const;

/** Only the writable fields that were given: read-only fields and unset values are never sent. */
export function pickWritable(schedule: ScheduleWrite): ScheduleWrite {
  const out: ScheduleWrite = {};
  for (const key of WRITABLE_FIELDS) {
    const value = schedule[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

export function createSchedulesApi(transport: Transport, settings: SchedulesSettings): RunbookApi['schedules'] {
  const itemPath = (id: string, method: HttpMethod) => `${PATH}/${pathSegment('schedule', id, { method, path: PATH })}`;

  async function list(params: ListSchedulesParams = {}, call?: CallOptions): Promise<Page<Schedule>> {
    const { data, tid } = await transport.request({
      method: 'GET',
      path: PATH,
      query: {
        filter: params.filter,
        pageSize: params.pageSize,
        pageToken: params.pageToken,
        orderBy: params.orderBy,
      },
      schema: ListSchedulesResponse,
      call,
    });
    return {
      items: data.schedules,
      nextPageToken: data.nextPageToken,
      pageCount: data.pageCount,
      totalCount: data.totalCount,
      tid: data.respHdr.tid || tid,
    };
  }

  return {
    list,
    iterate: (params = {}, call) => iterateList(list, params, { path: PATH, maxPages: settings.maxPages, call }),
    async create(schedule: ScheduleWrite, call?: CallOptions): Promise<Schedule> {
      const { data } = await transport.request({
        method: 'POST',
        path: PATH,
        body: { schedule: pickWritable(schedule) },
        schema: ScheduleResponse,
        call,
      });
      return data.schedule;
    },
    async get(scheduleId: string, call?: CallOptions): Promise<Schedule> {
      const { data } = await transport.request({
        method: 'GET',
        path: itemPath(scheduleId, 'GET'),
        schema: ScheduleResponse,
        call,
      });
      return data.schedule;
    },
    async update(scheduleId: string, patch: ScheduleWrite, call?: CallOptions): Promise<Schedule> {
      const { data } = await transport.request({
        method: 'PATCH',
        path: itemPath(scheduleId, 'PATCH'),
        body: pickWritable(patch),
        schema: ScheduleResponse,
        call,
      });
      return data.schedule;
    },
    async delete(scheduleId: string, call?: CallOptions): Promise<void> {
      await transport.request({ method: 'DELETE', path: itemPath(scheduleId, 'DELETE'), schema: EmptyResponse, call });
    },
  };
}
