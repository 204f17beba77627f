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

/** Finished executions whose output was cut: kept so the same oversized body is never read twice. */
const CUT_CACHE_SIZE = 32;
const FINISHED = new Set(['EXECUTION_STATUS_SUCCEEDED', 'EXECUTION_STATUS_FAILED']);

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const utf8 = new TextDecoder('utf-8');
/** Decoded text with more than this share of replacement or control characters was not text in base64. */
const MAX_UNREADABLE_SHARE = 0.05;

/** Characters that say "these bytes were not text": U+FFFD and C0 controls other than tab, newline, CR, escape. */
function unreadableCount(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0xfffd || (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d && c !== 0x1b)) count++;
  }
  return count;
}

/**
 * base64 → UTF-8 text. Bytes that are not valid UTF-8 (a few invalid bytes in a log) become U+FFFD, and
 * NUL bytes too (Slack cannot show them), so such an output is still shown as text. Anything that is not
 * canonical base64, or whose bytes are mostly not text (more than 5% unreadable characters), is returned
 * unchanged: a service that already sends plain text must not have its output turned into garbage.
 */
export function decodeOutput(raw: string, options: { tail?: boolean } = {}): string {
  if (raw === '' || raw.length % 4 !== 0 || !BASE64.test(raw)) return raw;
  let bytes = Buffer.from(raw, 'base64');
  // Round-trip check rejects strings that only look like base64 (bad padding bits and the like).
  if (bytes.toString('base64') !== raw) return raw;
  if (options.tail) {
    // The tail of a cut output may start inside a UTF-8 character: drop its continuation bytes.
    let start = 0;
    while (start < 3 && start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++;
    bytes = bytes.subarray(start);
  }
  const text = utf8.decode(bytes);
  if (unreadableCount(text) > text.length * MAX_UNREADABLE_SHARE) return raw;
  return text.includes('\u0000') ? text.replaceAll('\u0000', '\uFFFD') : text;
}

export function createExecutionsApi(transport: Transport, settings: ExecutionsSettings): RunbookApi['executions'] {
  /** Decodes the output and says whether it was cut (its length before the cut, when it was). */
  const decode = (execution: Execution, truncated?: ReadonlyMap<string, number>): Execution => {
    const cutFrom = truncated?.get(execution.output);
    const base64 = settings.outputEncoding === 'base64';
    const output = base64 ? decodeOutput(execution.output, { tail: cutFrom !== undefined }) : execution.output;
    const { outputTruncatedBytes: _fromWire, ...rest } = execution;
    if (cutFrom === undefined) return { ...rest, output };
    const outputTruncatedBytes = base64 && output !== execution.output ? Math.floor((cutFrom * 3) / 4) : cutFrom;
    return { ...rest, output, outputTruncatedBytes };
  };
  const cutCache = new Map<string, Execution>();

  async function list(params: ListExecutionsParams = {}, call?: CallOptions): Promise<ExecutionPage> {
    const result = await transport.request({
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
    const { data, tid } = result;
    const { truncated } = result;
    return {
      items: data.execution.map((e) => decode(e, truncated)),
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
      const cached = cutCache.get(executionId);
      if (cached) {
        if (!params.summary) return cached;
        const { outputTruncatedBytes: _cut, ...summary } = cached;
        return { ...summary, output: '' };
      }
      const { data, truncated } = await transport.request({
        method: 'GET',
        path: `${PATH}/${pathSegment('execution', executionId, { method: 'GET', path: PATH })}`,
        // Only `summary=true` is sent: false is the server default.
        query: { summary: params.summary ? true : undefined },
        schema: GetExecutionResponse,
        call,
      });
      const execution = decode(data.execution, truncated);
      // A finished execution's cut output does not change: the next read (a retry, Full output,
      // Details) is served from here instead of downloading the same oversized body again.
      if (execution.outputTruncatedBytes !== undefined && FINISHED.has(execution.executionStatus)) {
        cutCache.delete(executionId);
        cutCache.set(executionId, execution);
        if (cutCache.size > CUT_CACHE_SIZE) cutCache.delete(cutCache.keys().next().value!);
      }
      return execution;
    },
  };
}
