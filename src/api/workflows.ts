// Workflows (runbooks): list, iterate, get, run. Paths and schemas only; the transport does the rest.
import { iterateList } from './paginate.ts';
import { pathSegment } from './path-segment.ts';
import type {
  CallOptions,
  GetWorkflowParams,
  GetWorkflowResult,
  ListWorkflowsParams,
  RunbookApi,
  RunWorkflowParams,
  RunWorkflowResult,
  WorkflowPage,
} from './runbook-api.ts';
import { GetWorkflowResponse, ListWorkflowsResponse, type RunWorkflowBody, RunWorkflowResponse } from './schemas.ts';
import type { Transport } from './transport.ts';

const PATH = '/v1alpha1/workflows';

export interface WorkflowsSettings {
  /** Also send the run values as `inputs` (a published example uses that name). */
  sendInputsField: boolean;
  maxPages: number;
}

/** The run body: only the fields given, `params` as a JSON string. reqHdr is added by the transport. */
export function buildRunBody(params: RunWorkflowParams, sendInputsField: boolean): Omit<RunWorkflowBody, 'reqHdr'> {
  const body: Omit<RunWorkflowBody, 'reqHdr'> = { proxyId: params.proxyId };
  if (params.params !== undefined) {
    const values = JSON.stringify(params.params);
    body.params = values;
    if (sendInputsField) body.inputs = values;
  }
  if (params.tenantId !== undefined) body.tenantId = params.tenantId;
  if (params.scheduleId !== undefined) body.scheduleId = params.scheduleId;
  if (params.userId !== undefined) body.userId = params.userId;
  if (params.requestId !== undefined) body.requestId = params.requestId;
  if (params.userEmail !== undefined) body.userEmail = params.userEmail;
  return body;
}

export function createWorkflowsApi(transport: Transport, settings: WorkflowsSettings): RunbookApi['workflows'] {
  async function list(params: ListWorkflowsParams = {}, call?: CallOptions): Promise<WorkflowPage> {
    const { data, tid } = await transport.request({
      method: 'GET',
      path: PATH,
      query: {
        filter: params.filter,
        pageSize: params.pageSize,
        pageToken: params.pageToken,
        isService: params.isService,
      },
      schema: ListWorkflowsResponse,
      call,
    });
    return {
      items: data.workflows,
      nextPageToken: data.nextPageToken,
      pageCount: data.pageCount,
      totalCount: data.totalCount,
      categoryCounts: data.categoryCounts,
      tid: data.respHdr.tid || tid,
    };
  }

  return {
    list,
    iterate: (params = {}, call) => iterateList(list, params, { path: PATH, maxPages: settings.maxPages, call }),
    async get(workflowId: string, params: GetWorkflowParams = {}, call?: CallOptions): Promise<GetWorkflowResult> {
      const { data } = await transport.request({
        method: 'GET',
        path: `${PATH}/${pathSegment('runbook', workflowId, { method: 'GET', path: PATH })}`,
        query: { isService: params.isService, tenantId: params.tenantId },
        schema: GetWorkflowResponse,
        call,
      });
      return { workflow: data.workflow, url: data.url };
    },
    async run(workflowId: string, params: RunWorkflowParams, call?: CallOptions): Promise<RunWorkflowResult> {
      const { data, tid } = await transport.request({
        method: 'POST',
        path: `${PATH}/${pathSegment('runbook', workflowId, { method: 'POST', path: PATH })}/run`,
        body: buildRunBody(params, settings.sendInputsField),
        schema: RunWorkflowResponse,
        call,
      });
      return { executionIds: data.executionIds, tid: data.respHdr.tid || tid };
    },
  };
}
