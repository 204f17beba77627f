// The typed surface of the Runbook API client: every operation of the contract, with every
// request parameter. Resource modules implement it on top of the transport (transport.ts);
// the Slack app, watcher and benchmarks depend only on this interface.
import type { CountEntry, Execution, OrderBy, Schedule, ScheduleWrite, TimeRange, Workflow } from './schemas.ts';

/** Options every call accepts. */
export interface CallOptions {
  signal?: AbortSignal;
  /** Per-call timeout override in milliseconds. */
  timeoutMs?: number;
  /** Request tid to send (a fresh one is generated when omitted). */
  tid?: string;
}

export interface Page<T> {
  items: T[];
  nextPageToken: string;
  pageCount: number;
  totalCount: number;
  /** tid of the response (respHdr.tid), for support. */
  tid: string;
}

export interface ListWorkflowsParams {
  /** true: service-provided runbooks; false: the caller's custom runbooks; omitted: server default. */
  isService?: boolean;
  filter?: string;
  pageSize?: number;
  pageToken?: string;
}

export interface WorkflowPage extends Page<Workflow> {
  categoryCounts: CountEntry[];
}

export interface GetWorkflowParams {
  isService?: boolean;
  tenantId?: string;
}

export interface GetWorkflowResult {
  workflow: Workflow;
  url: string;
}

export interface RunWorkflowParams {
  proxyId: string;
  /** Form values; sent as `params` (a JSON string) and, when the client is configured so, also as `inputs`. */
  params?: Record<string, unknown>;
  tenantId?: string;
  scheduleId?: string;
  userId?: string;
  userEmail?: string;
  requestId?: string;
}

export interface RunWorkflowResult {
  executionIds: string[];
  tid: string;
}

export interface ListSchedulesParams {
  filter?: string;
  pageSize?: number;
  pageToken?: string;
  orderBy?: OrderBy;
}

export interface ListExecutionsParams {
  filter?: string;
  pageSize?: number;
  pageToken?: string;
  orderBy?: OrderBy;
  timeRange?: TimeRange;
}

export interface ExecutionPage extends Page<Execution> {
  statusTable: Record<string, number>;
  aggregateTotalTable: Record<string, number>;
}

export interface GetExecutionParams {
  /** true: details without the output field (cheap status checks). */
  summary?: boolean;
}

export interface RunbookApi {
  workflows: {
    list(params?: ListWorkflowsParams, options?: CallOptions): Promise<WorkflowPage>;
    /** Every workflow across pages (follows nextPageToken, guards against a repeating token). */
    iterate(params?: Omit<ListWorkflowsParams, 'pageToken'>, options?: CallOptions): AsyncIterable<Workflow>;
    get(workflowId: string, params?: GetWorkflowParams, options?: CallOptions): Promise<GetWorkflowResult>;
    /** Never retried unless the request provably never reached the server. */
    run(workflowId: string, params: RunWorkflowParams, options?: CallOptions): Promise<RunWorkflowResult>;
  };
  schedules: {
    list(params?: ListSchedulesParams, options?: CallOptions): Promise<Page<Schedule>>;
    iterate(params?: Omit<ListSchedulesParams, 'pageToken'>, options?: CallOptions): AsyncIterable<Schedule>;
    /** Never retried unless the request provably never reached the server. */
    create(schedule: ScheduleWrite, options?: CallOptions): Promise<Schedule>;
    get(scheduleId: string, options?: CallOptions): Promise<Schedule>;
    update(scheduleId: string, patch: ScheduleWrite, options?: CallOptions): Promise<Schedule>;
    delete(scheduleId: string, options?: CallOptions): Promise<void>;
  };
  executions: {
    list(params?: ListExecutionsParams, options?: CallOptions): Promise<ExecutionPage>;
    iterate(params?: Omit<ListExecutionsParams, 'pageToken'>, options?: CallOptions): AsyncIterable<Execution>;
    /** `output` comes back decoded (base64 → text unless the client is configured for plain text). */
    get(executionId: string, params?: GetExecutionParams, options?: CallOptions): Promise<Execution>;
  };
  /** Closes the keep-alive connection pool. */
  close(): Promise<void>;
}
