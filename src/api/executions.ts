// Executions: list, iterate, get. `output` arrives base64-encoded (declared `format: byte`
// upstream) and leaves here as text, in lists and single reads alike.
import { iterateList } from './paginate.ts';
import { pathSegment } from './path-segment.ts';
import type {
  CallOptions,
  ExecutionPage,
  GetExecutionParams,
  ListExecutionsParams,
  RunbookApi,
} from './runbook-api.ts';
import { type Execution, GetExecutionResponse, ListExecutionsResponse } from './schemas.ts';
import type { Transport } from './transport.ts';

const PATH = '/v1alpha1/executions';

export type OutputEncoding = 'base64' | 'plain';

export interface ExecutionsSettings {
  outputEncoding: OutputEncoding;
  maxPages: number;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * base64 → UTF-8 text. Anything that is not canonical base64 of valid UTF-8 is returned unchanged:
 * a service that already sends plain text must not have its output turned into garbage.
 */
export function decodeOutput(raw: string): string {
  if (raw === '' || raw.length % 4 !== 0 || !BASE64.test(raw)) return raw;
  const bytes = Buffer.from(raw, 'base64');
  // Round-trip check rejects strings that only look like base64 (bad padding bits and the like).
  if (bytes.toString('base64') !== raw) return raw;
  try {
    return utf8.decode(bytes);
  } catch {
    return raw;
  }
}

export function createExecutionsApi(transport: Transport, settings: ExecutionsSettings): RunbookApi['executions'] {
  const decode = (execution: Execution): Execution =>
    settings.outputEncoding === 'base64' ? { ...execution, output: decodeOutput(execution.output) } : execution;

  async function list(params: ListExecutionsParams = {}, call?: CallOptions): Promise<ExecutionPage> {
    const { data, tid } = await transport.request({
      method: 'GET',
      path: PATH,
      query: {
        filter: params.filter,
        pageSize: params.pageSize,
        pageToken: params.pageToken,
        orderBy: params.orderBy,
        timeRange: params.timeRange,
      },
      schema: ListExecutionsResponse,
      call,
    });
    return {
      items: data.execution.map(decode),
      nextPageToken: data.nextPageToken,
      pageCount: data.pageCount,
      // The executions list has no totalCount on the wire; the status table's counts add up to it.
      totalCount: Object.values(data.statusTable).reduce((sum, n) => sum + n, 0),
      statusTable: data.statusTable,
      aggregateTotalTable: data.aggregateTotalTable,
      tid: data.respHdr.tid || tid,
    };
  }

  return {
    list,
    iterate: (params = {}, call) => iterateList(list, params, { path: PATH, maxPages: settings.maxPages, call }),
    async get(executionId: string, params: GetExecutionParams = {}, call?: CallOptions): Promise<Execution> {
      const { data } = await transport.request({
        method: 'GET',
        path: `${PATH}/${pathSegment('execution', executionId, { method: 'GET', path: PATH })}`,
        // Only `summary=true` is sent: false is the server default.
        query: { summary: params.summary ? true : undefined },
        schema: GetExecutionResponse,
        call,
      });
      return decode(data.execution);
    },
  };
}
