// Everything the emulator knows: catalog, schedules, executions and request stats, plus the
// domain operations the routes call (run, schedule CRUD, firing). Routes parse HTTP; this decides.
import { randomUUID } from 'node:crypto';
import type { Schedule, ScheduleWrite } from '../api/schemas.ts';
import { buildCatalog, type WorkflowRecord } from './catalog.ts';
import { KNOWN_PROXIES } from './catalog-seed.ts';
import type { Clock } from './clock.ts';
import { parseCron } from './cron.ts';
import { type ExecutionRecord, ExecutionStore, type ReceivedRun } from './execution-store.ts';
import type { FilterMode } from './filter.ts';
import { RequestStats } from './request-stats.ts';
import { failedPrecondition, invalidArgument, notFound } from './rpc-error.ts';
import { planRun } from './run-outcome.ts';
import { ScheduleBook, type ScheduleRecord } from './schedule-book.ts';
import { WorkflowCatalog } from './workflow-catalog.ts';

export interface EmulatorStateOptions {
  /** Fills the state with its demo history before due runs settle (seed-history.ts; passed in, so this file does not import it back). */
  seed?: (state: EmulatorState, nowMs: number) => void;
  extraRunbooks?: number;
  /** Overrides the per-runbook default run duration. */
  defaultDurationMs?: number;
  /** How list routes treat `filter` (default `apply`); tests change it through `filterMode`. */
  filterMode?: FilterMode;
  /** A tenant's prefix for seeded ids (custom runbooks, demo schedules): '' for the default tenant. */
  idScope?: string;
  /** Only these seeded runbooks (by name); default every one. */
  runbooks?: readonly string[];
}

/** How a recorded run ends: its outcome, duration and (seeded history) what its failure says. */
export interface RunPlan {
  outcome: 'succeeded' | 'failed';
  durationMs: number;
  failure?: string;
}

/** Owner recorded on schedules created through the API key. */
export const API_KEY_USER_EMAIL = 'api-key@runbooks.local';
/** Safety cap on firings handled in one advance/tick. */
export const MAX_FIRINGS_PER_TICK = 1000;

const iso = (ms: number) => new Date(ms).toISOString();

/** Parses a params/inputs string: absent or "" → {}, otherwise it must be a JSON object. */
export function parseParamsObject(text: string | undefined, field: string): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidArgument(
      `${field}: must be a JSON object serialised as a string, e.g. "{\\"region\\":\\"us-east-1\\"}"`,
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidArgument(`${field}: must be a JSON object, got ${Array.isArray(value) ? 'an array' : typeof value}`);
  }
  return value as Record<string, unknown>;
}

export function proxyNameFor(proxyId: string): string {
  return KNOWN_PROXIES[proxyId] ?? proxyId;
}

export class EmulatorState {
  readonly clock: Clock;
  readonly workflows: WorkflowCatalog;
  readonly schedules = new ScheduleBook();
  readonly executions = new ExecutionStore();
  readonly requests = new RequestStats();
  /**
   * Ids the next runs take, first in first out (tests: two tenants handing out the same execution id, as two
   * real Runbook APIs may); empty: a fresh uuid each.
   */
  readonly nextExecutionIds: string[] = [];
  /** What the list routes do with a `filter` expression (filter.ts); settable at any time. */
  filterMode: FilterMode;
  /** Extra latency of this tenant's /v1alpha1 answers (a slow tenant beside fast ones); settable at any time. */
  latencyMs = 0;
  /** Prefix of this tenant's seeded ids, so two tenants never share a custom runbook or schedule id. */
  readonly idScope: string;
  readonly #defaultDurationMs: number | undefined;

  constructor(clock: Clock, options: EmulatorStateOptions = {}) {
    this.clock = clock;
    this.#defaultDurationMs = options.defaultDurationMs;
    this.filterMode = options.filterMode ?? 'apply';
    this.idScope = options.idScope ?? '';
    const nowMs = clock.now();
    this.workflows = new WorkflowCatalog(
      buildCatalog(nowMs, options.extraRunbooks ?? 0, {
        idScope: this.idScope,
        ...(options.runbooks ? { only: options.runbooks } : {}),
      }),
    );
    options.seed?.(this, nowMs);
    this.executions.settleDue(nowMs);
  }

  /** Brings the world up to now: due schedules fire, due runs finish. Called before every read. */
  catchUp(cap = MAX_FIRINGS_PER_TICK): number {
    const nowMs = this.clock.now();
    const fired = this.fireDueSchedules(nowMs, cap);
    this.executions.settleDue(nowMs);
    return fired;
  }

  getWorkflow(id: string): WorkflowRecord {
    const record = this.workflows.byId.get(id);
    if (!record) throw notFound(`workflow ${id} not found`);
    return record;
  }

  getExecution(id: string): ExecutionRecord {
    const record = this.executions.byId.get(id);
    if (!record) throw notFound(`execution ${id} not found`);
    return record;
  }

  getSchedule(id: string): ScheduleRecord {
    const record = this.schedules.byId.get(id);
    if (!record) throw notFound(`schedule ${id} not found`);
    return record;
  }

  /**
   * Starts one run of a runbook as the API does: checks it exists and may run, then records an
   * IN_PROGRESS execution. `received.params` (or `inputs` as an alias) must already be validated.
   */
  runWorkflow(workflowId: string, received: ReceivedRun): ExecutionRecord {
    const runbook = this.getWorkflow(workflowId);
    const { workflow } = runbook;
    if (workflow.executionDisabled) {
      throw failedPrecondition(`workflow ${workflowId} ("${workflow.name}") has execution disabled by its owner`);
    }
    if (workflow.runningDisabled || workflow.runningDisabledByFloatingEnv) {
      throw failedPrecondition(`workflow ${workflowId} ("${workflow.name}") cannot be run: running is disabled`);
    }
    const paramsText = received.params !== undefined && received.params !== '' ? received.params : received.inputs;
    const params = parseParamsObject(paramsText, received.params ? 'params' : 'inputs');
    return this.#startExecution(runbook, received, params, paramsText, this.clock.now(), {
      executor: received.userEmail || 'api-key',
      approver: received.requestId ? `approved via request ${received.requestId}` : '',
    });
  }

  /** Records a run that started at `atMs` (schedules and seeded history use past times). */
  startExecutionAt(
    runbook: WorkflowRecord,
    received: ReceivedRun,
    params: Record<string, unknown>,
    atMs: number,
    who: { executor: string; approver: string; type?: ExecutionRecord['type'] },
    plan?: RunPlan,
  ): ExecutionRecord {
    return this.#startExecution(runbook, received, params, received.params, atMs, who, plan);
  }

  #startExecution(
    runbook: WorkflowRecord,
    received: ReceivedRun,
    params: Record<string, unknown>,
    paramsText: string | undefined,
    atMs: number,
    who: { executor: string; approver: string; type?: ExecutionRecord['type'] },
    forcedPlan?: RunPlan,
  ): ExecutionRecord {
    const plan = forcedPlan ?? planRun(params, this.#defaultDurationMs ?? runbook.defaultDurationMs);
    const record = this.executions.add({
      id: this.nextExecutionIds.shift() ?? randomUUID(),
      workflowId: runbook.workflow.id,
      workflowName: runbook.workflow.name,
      version: runbook.workflow.currentVersion,
      // A planned failure may say its own reason (seeded history varies them).
      seed: forcedPlan?.failure ? { ...runbook.seed, failure: forcedPlan.failure } : runbook.seed,
      createMs: atMs,
      startMs: atMs,
      durationMs: plan.durationMs,
      plannedOutcome: plan.outcome,
      inputs: paramsText && paramsText.trim() !== '' ? paramsText : '{}',
      params,
      executor: who.executor,
      approver: who.approver,
      scheduleId: received.scheduleId ?? '',
      type: who.type ?? 'EXECUTION_TYPE_RUNBOOK',
      received: { ...received },
    });
    const lastRun = runbook.workflow.lastRun;
    if (!lastRun || Date.parse(lastRun) < atMs) runbook.workflow.lastRun = iso(atMs);
    return record;
  }

  createSchedule(write: ScheduleWrite, options: { id?: string; userEmail?: string; createdMs?: number } = {}) {
    const nowMs = this.clock.now();
    if (!write.runbookId) throw invalidArgument('schedule.runbookId: is required');
    if (write.schedule === undefined || write.schedule.trim() === '') {
      throw invalidArgument('schedule.schedule: is required (a five-field cron expression, evaluated in UTC)');
    }
    parseCron(write.schedule, 'schedule.schedule');
    if (write.params !== undefined) parseParamsObject(write.params, 'schedule.params');
    const runbook = this.getWorkflow(write.runbookId);
    const createdMs = options.createdMs ?? nowMs;
    const proxyId = write.proxyId ?? '';
    const schedule: Schedule = {
      id: options.id ?? randomUUID(),
      proxyId,
      proxyName: proxyNameFor(proxyId),
      runbookId: write.runbookId,
      runbookName: write.runbookName || runbook.workflow.name,
      inputSchema: write.inputSchema ?? '',
      params: write.params ?? '',
      schedule: write.schedule,
      lastRun: null,
      lastUpdated: iso(createdMs),
      userEmail: options.userEmail ?? API_KEY_USER_EMAIL,
    };
    return this.schedules.add(schedule, createdMs, nowMs);
  }

  /** PATCH: only proxyId, runbookId, runbookName, inputSchema, params and schedule change. */
  updateSchedule(id: string, patch: ScheduleWrite): ScheduleRecord {
    const record = this.getSchedule(id);
    if (patch.schedule !== undefined) parseCron(patch.schedule, 'schedule');
    if (patch.params !== undefined) parseParamsObject(patch.params, 'params');
    if (patch.runbookId !== undefined) this.getWorkflow(patch.runbookId);
    const nowMs = this.clock.now();
    this.schedules.update(
      record,
      patch,
      {
        proxyName: patch.proxyId !== undefined ? proxyNameFor(patch.proxyId) : undefined,
        lastUpdated: iso(nowMs),
      },
      nowMs,
    );
    return record;
  }

  deleteSchedule(id: string): void {
    if (!this.schedules.delete(id)) throw notFound(`schedule ${id} not found`);
  }

  /** Fires every due firing up to nowMs in time order (at most `cap`); returns how many fired. */
  fireDueSchedules(nowMs: number, cap = MAX_FIRINGS_PER_TICK): number {
    let fired = 0;
    while (fired < cap) {
      const due = this.schedules.nextDue(nowMs);
      if (!due) break;
      const firedMs = due.nextFireMs!;
      this.schedules.advancePast(due, firedMs);
      const runbook = this.workflows.byId.get(due.schedule.runbookId);
      // A schedule whose runbook vanished keeps ticking without runs, like a dangling cron entry.
      if (!runbook) continue;
      let params: Record<string, unknown> = {};
      try {
        params = parseParamsObject(due.schedule.params, 'params');
      } catch {
        params = {};
      }
      this.#startExecution(
        runbook,
        { proxyId: due.schedule.proxyId, params: due.schedule.params, scheduleId: due.schedule.id },
        params,
        due.schedule.params,
        firedMs,
        { executor: due.schedule.userEmail, approver: '' },
      );
      due.schedule.lastRun = iso(firedMs);
      fired++;
    }
    return fired;
  }
}
