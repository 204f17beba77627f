// Wire schemas of the Runbook API, shared by the client (parsing responses) and the emulator
// (producing them), so the two cannot drift. Lenient where the wire is: unknown fields are
// dropped, unpopulated fields (absent, null) become "", [], false, 0. Strict where meaning is:
// types are checked and enum values outside the known set become 'unknown' instead of crashing.
import { z } from 'zod';

/** A string the server may leave unpopulated (absent or null) → "". */
export const str = z
  .string()
  .nullish()
  .transform((v) => v ?? '');

/** A timestamp (RFC 3339) the server may leave unset ("", null or absent) → null. */
export const timestamp = z
  .string()
  .nullish()
  .transform((v) => (v ? v : null));

export const bool = z
  .boolean()
  .nullish()
  .transform((v) => v ?? false);

export const strList = z
  .array(z.string())
  .nullish()
  .transform((v) => v ?? []);

/** int32 as grpc-gateway emits it: a number, or a numeric string. */
export const int32 = z
  .union([z.number().int(), z.string().regex(/^-?\d+$/)])
  .nullish()
  .transform((v) => (v == null ? 0 : Number(v)));

/** An enum whose unknown values are kept as 'unknown'. */
function lenientEnum<const T extends readonly string[]>(values: T) {
  return z
    .string()
    .nullish()
    .transform((v): T[number] | 'unknown' => {
      const value = v ?? values[0];
      return (values as readonly string[]).includes(value) ? (value as T[number]) : 'unknown';
    });
}

export const EXECUTION_STATUSES = [
  'EXECUTION_STATUS_UNSPECIFIED',
  'EXECUTION_STATUS_SUCCEEDED',
  'EXECUTION_STATUS_FAILED',
  'EXECUTION_STATUS_IN_PROGRESS',
] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number] | 'unknown';

export const EXECUTION_TYPES = [
  'EXECUTION_TYPE_UNSPECIFIED',
  'EXECUTION_TYPE_RUNBOOK',
  'EXECUTION_TYPE_ACTION',
] as const;
export type ExecutionType = (typeof EXECUTION_TYPES)[number] | 'unknown';

export const ResponseHeader = z
  .object({ tid: str, requestTid: str })
  .nullish()
  .transform((v) => v ?? { tid: '', requestTid: '' });
export type ResponseHeader = z.output<typeof ResponseHeader>;

export const EnvironmentStatus = z.object({
  environmentName: str,
  status: str,
  reason: strList,
});
export type EnvironmentStatus = z.output<typeof EnvironmentStatus>;

export const Workflow = z.object({
  name: str,
  id: str,
  description: str,
  tags: strList,
  currentVersion: str,
  createTime: timestamp,
  lastRun: timestamp,
  lastUpdated: timestamp,
  proxyId: str,
  inputSchema: str,
  requiresApproval: bool,
  runningDisabled: bool,
  parentId: str,
  isFolder: bool,
  path: str,
  enableEnvironment: bool,
  executionDisabled: bool,
  connectorTypes: strList,
  categories: strList,
  icon: str,
  environmentStatus: z
    .array(EnvironmentStatus)
    .nullish()
    .transform((v) => v ?? []),
  runningDisabledByFloatingEnv: bool,
});
export type Workflow = z.output<typeof Workflow>;

export const CountEntry = z.object({ name: str, count: str });
export type CountEntry = z.output<typeof CountEntry>;

export const Schedule = z.object({
  id: str,
  proxyId: str,
  proxyName: str,
  runbookId: str,
  runbookName: str,
  inputSchema: str,
  params: str,
  schedule: str,
  lastRun: timestamp,
  lastUpdated: timestamp,
  userEmail: str,
});
export type Schedule = z.output<typeof Schedule>;

export const Execution = z.object({
  id: str,
  workflowName: str,
  createTime: timestamp,
  startTime: timestamp,
  endTime: timestamp,
  duration: str,
  version: str,
  executionStatus: lenientEnum(EXECUTION_STATUSES),
  inputs: str,
  /** Raw as on the wire (base64 upstream); the client decodes it. Absent when summary=true. */
  output: str,
  executor: str,
  approver: str,
  reason: str,
  executionType: lenientEnum(EXECUTION_TYPES),
  /**
   * Not on the wire (the client sets or clears it): the output's size in bytes when the response
   * was over the body cap and `output` holds only its tail; absent when `output` is whole.
   */
  outputTruncatedBytes: z.number().optional(),
});
export type Execution = z.output<typeof Execution>;

const countMap = z
  .record(z.string(), int32)
  .nullish()
  .transform((v) => (v ?? {}) as Record<string, number>);

const list = <T extends z.ZodType>(item: T) =>
  z
    .array(item)
    .nullish()
    .transform((v) => (v ?? []) as z.output<T>[]);

export const ListWorkflowsResponse = z.object({
  respHdr: ResponseHeader,
  workflows: list(Workflow),
  nextPageToken: str,
  pageCount: int32,
  totalCount: int32,
  categoryCounts: list(CountEntry),
});
export type ListWorkflowsResponse = z.output<typeof ListWorkflowsResponse>;

export const GetWorkflowResponse = z.object({
  respHdr: ResponseHeader,
  workflow: Workflow,
  url: str,
});
export type GetWorkflowResponse = z.output<typeof GetWorkflowResponse>;

export const RunWorkflowResponse = z.object({
  respHdr: ResponseHeader,
  executionIds: strList,
});
export type RunWorkflowResponse = z.output<typeof RunWorkflowResponse>;

export const ListSchedulesResponse = z.object({
  respHdr: ResponseHeader,
  schedules: list(Schedule),
  nextPageToken: str,
  pageCount: int32,
  totalCount: int32,
});
export type ListSchedulesResponse = z.output<typeof ListSchedulesResponse>;

export const ScheduleResponse = z.object({
  respHdr: ResponseHeader,
  schedule: Schedule,
});
export type ScheduleResponse = z.output<typeof ScheduleResponse>;

export const EmptyResponse = z.object({ respHdr: ResponseHeader });
export type EmptyResponse = z.output<typeof EmptyResponse>;

export const ListExecutionsResponse = z.object({
  respHdr: ResponseHeader,
  execution: list(Execution),
  statusTable: countMap,
  nextPageToken: str,
  pageCount: int32,
  aggregateTotalTable: countMap,
});
export type ListExecutionsResponse = z.output<typeof ListExecutionsResponse>;

export const GetExecutionResponse = z.object({
  respHdr: ResponseHeader,
  execution: Execution,
});
export type GetExecutionResponse = z.output<typeof GetExecutionResponse>;

/** grpc-gateway error body. */
export const RpcStatus = z.object({
  code: int32,
  message: str,
  details: z
    .array(z.record(z.string(), z.unknown()))
    .nullish()
    .transform((v) => v ?? []),
});
export type RpcStatus = z.output<typeof RpcStatus>;

// ---- Request shapes (what the client sends, what the emulator accepts) ----

export const ORDER_BY = ['ascending', 'descending'] as const;
export type OrderBy = (typeof ORDER_BY)[number];

/** Accepted timeRange values (the contract leaves them unpublished; the emulator documents them). */
export const TIME_RANGES = ['last_month', 'last_year', 'all'] as const;
export type TimeRange = (typeof TIME_RANGES)[number];

export const RequestHeader = z.object({ tid: z.string().optional() }).optional();

export const RunWorkflowBody = z.object({
  reqHdr: RequestHeader,
  tenantId: z.string().optional(),
  proxyId: z.string(),
  params: z.string().optional(),
  inputs: z.string().optional(),
  scheduleId: z.string().optional(),
  userId: z.string().optional(),
  requestId: z.string().optional(),
  userEmail: z.string().optional(),
});
export type RunWorkflowBody = z.output<typeof RunWorkflowBody>;

/** Writable schedule fields (create and PATCH). */
export const ScheduleWrite = z.object({
  proxyId: z.string().optional(),
  runbookId: z.string().optional(),
  runbookName: z.string().optional(),
  inputSchema: z.string().optional(),
  params: z.string().optional(),
  schedule: z.string().optional(),
});
export type ScheduleWrite = z.output<typeof ScheduleWrite>;

export const CreateScheduleBody = z.object({
  reqHdr: RequestHeader,
  schedule: ScheduleWrite,
});
export type CreateScheduleBody = z.output<typeof CreateScheduleBody>;

/** gRPC status codes used by the service, and the HTTP status grpc-gateway maps each to. */
export const GRPC_CODES = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

export const HTTP_STATUS_FOR_GRPC: Record<number, number> = {
  0: 200,
  1: 499,
  2: 500,
  3: 400,
  4: 504,
  5: 404,
  6: 409,
  7: 403,
  8: 429,
  9: 400,
  10: 409,
  11: 400,
  12: 501,
  13: 500,
  14: 503,
  15: 500,
  16: 401,
};
