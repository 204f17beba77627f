// Composition of the Runbook API client: one transport, one module per resource.
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { createExecutionsApi, type OutputEncoding } from './executions.ts';
import { DEFAULT_MAX_PAGES } from './paginate.ts';
import type { RunbookApi } from './runbook-api.ts';
import { createSchedulesApi } from './schedules.ts';
import { type AttemptRecord, createTransport } from './transport.ts';
import { createWorkflowsApi } from './workflows.ts';

export { apiAgent } from './transport.ts';

export interface RunbookApiOptions {
  /** e.g. http://127.0.0.1:4010 (with or without a trailing '/'; a path prefix is kept). */
  baseUrl: string;
  apiKey: string;
  /** Per attempt, default 10000. */
  timeoutMs?: number;
  /** Retries after the first attempt, default 3. */
  maxRetries?: number;
  /** Default base64: execution.output is decoded from base64 (kept as-is when it is not base64). */
  outputEncoding?: OutputEncoding;
  /** Also send run values as `inputs`. */
  sendInputsField?: boolean;
  /** Injected dispatcher (MockAgent in tests), left open by close(); default: a keep-alive Agent owned by the client. */
  dispatcher?: Dispatcher;
  /** Logs each attempt at debug (method, path, tid, status, ms, attempt) and each retry at warn. */
  logger?: Logger;
  /** For jitter (tests). */
  random?: () => number;
  /** Backoff sleep, injectable for tests; must reject when the signal aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Clock for Retry-After HTTP dates (tests); default Date.now. */
  now?: () => number;
  /** Safety limit for iterate(); default 1000 pages. */
  maxPages?: number;
  /** Told about every request attempt (latency metrics). */
  onAttempt?: (attempt: AttemptRecord) => void;
  /** Most bytes of one response kept in memory (default 4 MiB); beyond it an output keeps its tail. */
  maxBodyBytes?: number;
  /** Most requests in flight at once; one over it waits `inFlightWaitMs` (default 1000), then fails as busy. */
  maxInFlight?: number;
  inFlightWaitMs?: number;
}

export function createRunbookApi(options: RunbookApiOptions): RunbookApi {
  const transport = createTransport({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    timeoutMs: options.timeoutMs ?? 10_000,
    maxRetries: options.maxRetries ?? 3,
    dispatcher: options.dispatcher,
    logger: options.logger,
    random: options.random,
    sleep: options.sleep,
    now: options.now,
    onAttempt: options.onAttempt,
    maxBodyBytes: options.maxBodyBytes,
    maxInFlight: options.maxInFlight,
    inFlightWaitMs: options.inFlightWaitMs,
  });
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  return {
    workflows: createWorkflowsApi(transport, { sendInputsField: options.sendInputsField ?? false, maxPages }),
    schedules: createSchedulesApi(transport, { maxPages }),
    executions: createExecutionsApi(transport, { outputEncoding: options.outputEncoding ?? 'base64', maxPages }),
    close: () => transport.close(),
  };
}
