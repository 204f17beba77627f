// Executions: kept in createTime order (append-mostly, so inserts are O(1) in practice) with a
// min-heap of in-progress runs by due time. Runs finish lazily: every read first settles the runs
// whose time has come (O(k log n) for k finished runs), so listing 10,000 executions never rescans
// them all for completion.
import type { Execution } from '../api/schemas.ts';
import type { RunbookSeed } from './catalog-seed.ts';
import type { FilterTerm } from './filter.ts';
import { normalizeEnumValue } from './filter.ts';
import { formatDuration, type Outcome, renderRunResult } from './run-outcome.ts';

export type LiveStatus = 'EXECUTION_STATUS_IN_PROGRESS' | 'EXECUTION_STATUS_SUCCEEDED' | 'EXECUTION_STATUS_FAILED';
export const LIVE_STATUSES: readonly LiveStatus[] = [
  'EXECUTION_STATUS_SUCCEEDED',
  'EXECUTION_STATUS_FAILED',
  'EXECUTION_STATUS_IN_PROGRESS',
];

/** What the run request carried, kept so tests can assert what the client sent. */
export interface ReceivedRun {
  proxyId: string;
  params?: string;
  inputs?: string;
  userId?: string;
  userEmail?: string;
  scheduleId?: string;
  requestId?: string;
  tenantId?: string;
}

export interface ExecutionRecord {
  id: string;
  workflowId: string;
  workflowName: string;
  version: string;
  seed: RunbookSeed;
  createMs: number;
  startMs: number;
  durationMs: number;
  plannedOutcome: Outcome;
  status: LiveStatus;
  endMs: number | null;
  /** Wire `inputs`: the params JSON string. */
  inputs: string;
  params: Record<string, unknown>;
  /** Plain-text output once finished ('' before). */
  outputText: string;
  /** Base64 of outputText, computed once. */
  outputBase64: string;
  reason: string;
  executor: string;
  approver: string;
  scheduleId: string;
  /** What ran: a whole runbook, or a single action of one (only seeded history has actions). */
  type: 'EXECUTION_TYPE_RUNBOOK' | 'EXECUTION_TYPE_ACTION';
  received: ReceivedRun;
  /** Lower-cased workflowName + executor for bare-word filter terms. */
  searchText: string;
}

export type NewExecution = Omit<
  ExecutionRecord,
  'status' | 'endMs' | 'outputText' | 'outputBase64' | 'reason' | 'searchText'
>;

export interface ExecutionQuery {
  terms: FilterTerm[];
  fromMs: number;
  order: 'ascending' | 'descending';
  offset: number;
  pageSize: number;
}

export interface ExecutionQueryResult {
  items: ExecutionRecord[];
  total: number;
  statusTable: Record<string, number>;
}

const dueMs = (r: ExecutionRecord) => r.startMs + r.durationMs;

/**
 * Replaces the bytes a finished run printed (tests and the sandbox: a runbook that echoes its inputs,
 * prints invalid UTF-8 or 10 MB). Given the record and the simulated output; null keeps it.
 */
export type OutputOverride = (record: ExecutionRecord, simulated: string) => Buffer | string | null;

export class ExecutionStore {
  readonly byId = new Map<string, ExecutionRecord>();
  /** See OutputOverride; unset by default. */
  outputOverride: OutputOverride | null = null;
  /** Sorted by createMs ascending; equal times keep insertion order. */
  readonly ordered: ExecutionRecord[] = [];
  readonly #pending: ExecutionRecord[] = [];
  readonly #counts: Record<LiveStatus, number> = {
    EXECUTION_STATUS_SUCCEEDED: 0,
    EXECUTION_STATUS_FAILED: 0,
    EXECUTION_STATUS_IN_PROGRESS: 0,
  };

  get size(): number {
    return this.ordered.length;
  }

  add(input: NewExecution): ExecutionRecord {
    const record: ExecutionRecord = {
      ...input,
      status: 'EXECUTION_STATUS_IN_PROGRESS',
      endMs: null,
      outputText: '',
      outputBase64: '',
      reason: '',
      searchText: `${input.workflowName}\n${input.executor}`.toLowerCase(),
    };
    this.byId.set(record.id, record);
    const last = this.ordered[this.ordered.length - 1];
    if (!last || last.createMs <= record.createMs) this.ordered.push(record);
    else this.ordered.splice(this.#upperBound(record.createMs), 0, record);
    this.#counts.EXECUTION_STATUS_IN_PROGRESS++;
    this.#heapPush(record);
    return record;
  }

  /**
   * Moves the end of runs still in progress (benchmarks: start thousands of runs, then let them end at
   * chosen moments once everything is set up). Ids not found or already finished are left alone.
   */
  retime(endAt: ReadonlyMap<string, number>): void {
    for (const [id, endMs] of endAt) {
      const record = this.byId.get(id);
      if (record && record.endMs === null) record.durationMs = Math.max(0, endMs - record.startMs);
    }
    // A sorted array is a valid min-heap.
    this.#pending.sort((a, b) => dueMs(a) - dueMs(b));
  }

  /** Finishes every run due at nowMs. */
  settleDue(nowMs: number): void {
    while (this.#pending.length > 0 && dueMs(this.#pending[0]!) <= nowMs) {
      const record = this.#heapPop()!;
      const result = renderRunResult({
        seed: record.seed,
        version: record.version,
        executionId: record.id,
        params: record.params,
        startMs: record.startMs,
        durationMs: record.durationMs,
        outcome: record.plannedOutcome,
      });
      record.status = record.plannedOutcome === 'failed' ? 'EXECUTION_STATUS_FAILED' : 'EXECUTION_STATUS_SUCCEEDED';
      record.endMs = dueMs(record);
      const override = this.outputOverride?.(record, result.output) ?? null;
      const bytes = Buffer.isBuffer(override) ? override : Buffer.from(override ?? result.output, 'utf8');
      record.outputText = Buffer.isBuffer(override) ? bytes.toString('utf8') : (override ?? result.output);
      record.outputBase64 = bytes.toString('base64');
      record.reason = result.reason;
      this.#counts.EXECUTION_STATUS_IN_PROGRESS--;
      this.#counts[record.status]++;
    }
  }

  /** Counts over every execution (aggregateTotalTable). */
  counts(): Record<string, number> {
    return { ...this.#counts };
  }

  query(q: ExecutionQuery): ExecutionQueryResult {
    const lo = Number.isFinite(q.fromMs) ? this.#lowerBound(q.fromMs) : 0;
    const hi = this.ordered.length;
    const statusTable: Record<string, number> = {
      EXECUTION_STATUS_SUCCEEDED: 0,
      EXECUTION_STATUS_FAILED: 0,
      EXECUTION_STATUS_IN_PROGRESS: 0,
    };
    if (q.terms.length === 0) {
      // Fast path: no scan for the page itself; counts come from the running totals when the
      // whole history is selected.
      const total = hi - lo;
      if (lo === 0) Object.assign(statusTable, this.#counts);
      else for (let i = lo; i < hi; i++) statusTable[this.ordered[i]!.status]!++;
      const items: ExecutionRecord[] = [];
      for (let k = q.offset; k < Math.min(total, q.offset + q.pageSize); k++) {
        items.push(this.ordered[q.order === 'ascending' ? lo + k : hi - 1 - k]!);
      }
      return { items, total, statusTable };
    }
    const matches: ExecutionRecord[] = [];
    const predicate = compileExecutionFilter(q.terms);
    for (let i = lo; i < hi; i++) {
      const record = this.ordered[i]!;
      if (predicate(record)) {
        matches.push(record);
        statusTable[record.status]!++;
      }
    }
    if (q.order === 'descending') matches.reverse();
    return { items: matches.slice(q.offset, q.offset + q.pageSize), total: matches.length, statusTable };
  }

  #lowerBound(ms: number): number {
    let lo = 0;
    let hi = this.ordered.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ordered[mid]!.createMs < ms) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #upperBound(ms: number): number {
    let lo = 0;
    let hi = this.ordered.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ordered[mid]!.createMs <= ms) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #heapPush(record: ExecutionRecord): void {
    const heap = this.#pending;
    heap.push(record);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (dueMs(heap[parent]!) <= dueMs(heap[i]!)) break;
      [heap[parent], heap[i]] = [heap[i]!, heap[parent]!];
      i = parent;
    }
  }

  #heapPop(): ExecutionRecord | undefined {
    const heap = this.#pending;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let smallest = i;
        if (l < heap.length && dueMs(heap[l]!) < dueMs(heap[smallest]!)) smallest = l;
        if (r < heap.length && dueMs(heap[r]!) < dueMs(heap[smallest]!)) smallest = r;
        if (smallest === i) break;
        [heap[smallest], heap[i]] = [heap[i]!, heap[smallest]!];
        i = smallest;
      }
    }
    return top;
  }
}

const STATUS_ALIASES: Record<string, LiveStatus> = {
  EXECUTION_STATUS_SUCCEEDED: 'EXECUTION_STATUS_SUCCEEDED',
  EXECUTION_STATUS_SUCCESS: 'EXECUTION_STATUS_SUCCEEDED',
  EXECUTION_STATUS_FAILED: 'EXECUTION_STATUS_FAILED',
  EXECUTION_STATUS_FAILURE: 'EXECUTION_STATUS_FAILED',
  EXECUTION_STATUS_IN_PROGRESS: 'EXECUTION_STATUS_IN_PROGRESS',
  EXECUTION_STATUS_RUNNING: 'EXECUTION_STATUS_IN_PROGRESS',
};

/** Field names accepted in execution filters → canonical name. */
export const EXECUTION_FILTER_FIELDS: Record<string, string[]> = {
  status: ['executionStatus'],
  workflowName: ['runbook', 'runbookName', 'name'],
  workflowId: ['runbookId'],
  executor: [],
  type: ['executionType'],
  id: [],
  scheduleId: ['schedule'],
};

function compileExecutionFilter(terms: FilterTerm[]): (r: ExecutionRecord) => boolean {
  const checks = terms.map((term): ((r: ExecutionRecord) => boolean) => {
    const lower = term.value.toLowerCase();
    switch (term.field) {
      case null:
        return (r) => r.searchText.includes(lower);
      case 'status': {
        const status = STATUS_ALIASES[normalizeEnumValue(term.value, 'EXECUTION_STATUS_')];
        // An unknown status matches nothing rather than erroring: the enum may grow upstream.
        return (r) => r.status === status;
      }
      case 'workflowName':
        return (r) => r.workflowName.toLowerCase().includes(lower);
      case 'workflowId':
        return (r) => r.workflowId === term.value;
      case 'executor':
        return (r) => r.executor.toLowerCase().includes(lower);
      case 'type': {
        const type = normalizeEnumValue(term.value, 'EXECUTION_TYPE_');
        return (r) => r.type === type;
      }
      case 'id':
        return (r) => r.id === term.value;
      case 'scheduleId':
        return (r) => r.scheduleId === term.value;
      default:
        return () => false;
    }
  });
  return (r) => checks.every((check) => check(r));
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** The wire Execution (grpc-gateway style). `summary` omits output entirely. */
export function toWireExecution(r: ExecutionRecord, summary: boolean): Execution | Omit<Execution, 'output'> {
  const wire: Omit<Execution, 'output'> & { output?: string } = {
    id: r.id,
    workflowName: r.workflowName,
    createTime: iso(r.createMs),
    startTime: iso(r.startMs),
    endTime: iso(r.endMs),
    duration: r.endMs === null ? '' : formatDuration(r.durationMs),
    version: r.version,
    executionStatus: r.status,
    inputs: r.inputs,
    executor: r.executor,
    approver: r.approver,
    reason: r.reason,
    executionType: r.type,
  };
  if (!summary) wire.output = r.outputBase64;
  return wire;
}
