// Running a runbook: from the run form, from a schedule's Run now, and after an approval. Every path
// goes through the gate; a runbook that needs approval becomes an approval request instead of a run.
import { randomUUID } from 'node:crypto';
import { ConnectionError, describeApiError, InvalidIdError, NotFoundError, RunbookApiError } from '../api/errors.ts';
import type { Schedule, Workflow } from '../api/schemas.ts';
import { parseInputSchema } from '../forms/input-schema.ts';
import { labelInputs } from '../forms/labelled-inputs.ts';
import { maskSecretsAndEchoes } from '../forms/secret-values.ts';
import { createRequest, type ScheduleAsk } from '../policy/approvals.ts';
import type { Approval } from '../store/store.ts';
import { installationKey } from '../tenants/tenant-scope.ts';
import type { Actor } from './actor.ts';
import type { RunsDeps } from './deps.ts';
import { maskErrorSecrets } from './execution-secrets.ts';
import { approvalNeedFor, gate, placeOfActor, type RunApprovalNeed, runbookFacts } from './gate.ts';
import { type RunEntry, viaText, withVia } from './run-entry.ts';
import { intentParamsHash } from './run-intents.ts';
import { inSchemaOrder } from './run-params.ts';
import type { StartedRun } from './run-tracker.ts';
import { disabledReason, isRunnable } from './runnable.ts';

/** Why nothing happened, with the sentence for the person (never naming a runbook they may not view). */
export type Refusal = {
  kind: 'refused';
  reason:
    | 'hidden'
    | 'denied'
    | 'limited'
    | 'misdirected'
    | 'disabled'
    | 'invalid'
    | 'not-found'
    | 'late'
    | 'duplicate'
    | 'expired'
    | 'frozen';
  sentence: string;
};

export type RunResult =
  | { kind: 'started'; runbook: Workflow; run: StartedRun; tid: string | null }
  | { kind: 'approval-requested'; runbook: Workflow; approval: Approval; need: RunApprovalNeed }
  | { kind: 'failed'; runbook: Workflow; error: unknown }
  | Refusal;

export interface RunRequest {
  runbook: Workflow;
  proxyId: string;
  params: Record<string, unknown>;
  /** Where the run was started from, when not the channel itself (a thread, a message). */
  origin?: RunOrigin;
  /** The entry point (the run form's submission says `form` unless it was opened by Re-run). */
  via?: RunEntry;
}

/** A run request whose entry point is known: what `requestRun` and `startRun` take. */
export type EnteredRun = RunRequest & { via: RunEntry };

export interface RunOrigin {
  threadTs?: string | null;
  sourceLink?: string | null;
}

/** Loads one runbook with its input schema, the right way for service and custom runbooks. */
export async function loadRunbook(
  deps: Pick<RunsDeps, 'api' | 'catalog' | 'interactiveTimeoutMs'>,
  id: string,
): Promise<Workflow> {
  const isService = deps.catalog.isService(id);
  const { workflow } = await deps.api.workflows.get(id, isService === true ? { isService: true } : {}, {
    timeoutMs: deps.interactiveTimeoutMs,
  });
  return workflow;
}

export function maskedParams(runbook: Workflow, params: Record<string, unknown>): Record<string, unknown> {
  return maskSecretsAndEchoes(parseInputSchema(runbook.inputSchema), params);
}

/** The audit action of a run refused (or started) on any path; the entry point is named in its detail. */
export const RUN_AUDIT_ACTION = 'run.start';
/** The audit action of a run refused before it could start: at its form, or its `--now` / Run now confirmation. */
export const RUN_OPEN_AUDIT_ACTION = 'run.open';

/**
 * May the actor open the run form of this runbook (run, re-run, "Try again", the picker), or be shown the
 * confirmation of a run without a form (`--now`, an alias, Run now)? The same gate as a run, without
 * taking from the run limit; a denial is audited as `run.open`, naming the entry point (`via`).
 */
export async function checkRunForm(
  deps: RunsDeps,
  actor: Actor,
  runbook: Workflow,
  via: RunEntry,
): Promise<Refusal | { kind: 'ok'; need: RunApprovalNeed }> {
  const verdict = await gate(deps, actor, {
    intent: 'open-run',
    runbook: runbookFacts(deps, runbook),
    auditAction: RUN_OPEN_AUDIT_ACTION,
    via,
  });
  if (!verdict.allowed) return { kind: 'refused', reason: verdict.reason, sentence: verdict.sentence };
  return { kind: 'ok', need: verdict.approval };
}

export interface RunHooks {
  /**
   * Called once the gate has let the run through, before anything is started or requested (the Slack
   * layer closes the form here, so refusals can still be shown in it). Answering false abandons the run.
   */
  admitted?: () => Promise<boolean>;
  /**
   * Names one submission (Slack: the view id and hash). The store decides, across replicas: a second
   * call with the same key (a replayed or retried delivery) starts nothing.
   */
  submissionKey?: string;
}

/**
 * The run form was submitted with valid input: run it, or ask for approval. Whether approval is needed
 * is decided on a fresh copy of the runbook (the form's may be a minute old).
 */
export async function runFromForm(
  deps: RunsDeps,
  actor: Actor,
  request: RunRequest,
  hooks: RunHooks = {},
): Promise<RunResult> {
  return requestRun(
    deps,
    actor,
    { ...request, via: request.via ?? 'form' },
    {
      ...hooks,
      fresh: async (runbook) => {
        const fresh = await loadRunbook(deps, runbook.id).catch(() => runbook);
        return { ...fresh, requiresApproval: fresh.requiresApproval || runbook.requiresApproval };
      },
    },
  );
}

/**
 * Runs `request` for the actor: the gate (view, run here and where the result goes, the run limit), then
 * approval when the runbook needs it, else the run itself. A refusal is audited as `run.start` denied,
 * naming the entry point, whichever path it came from.
 */
export async function requestRun(
  deps: RunsDeps,
  actor: Actor,
  request: EnteredRun,
  hooks: RunHooks & { fresh?: (runbook: Workflow) => Promise<Workflow> } = {},
): Promise<RunResult> {
  const { runbook } = request;
  const verdict = await gate(deps, actor, {
    intent: 'run',
    runbook: runbookFacts(deps, runbook),
    auditAction: RUN_AUDIT_ACTION,
    via: request.via,
  });
  if (!verdict.allowed) return { kind: 'refused', reason: verdict.reason, sentence: verdict.sentence };
  if (!isRunnable(runbook)) {
    return {
      kind: 'refused',
      reason: 'disabled',
      sentence: `${runbook.name} cannot be run: ${disabledReason(runbook)}. Ask the runbook's owner to enable it.`,
    };
  }
  if (hooks.admitted && !(await hooks.admitted())) {
    return refused('late', 'Checking this took too long, so nothing was started. Try again in a moment.');
  }
  if (
    hooks.submissionKey &&
    !(await deps.access.store.notifications.claim(`submission:${hooks.submissionKey}`, deps.now()))
  ) {
    deps.logger.warn({ runbookId: runbook.id }, 'a submission arrived again; nothing more was started');
    return refused('duplicate', 'This form was already submitted, so nothing more was started.');
  }
  const current = hooks.fresh ? await hooks.fresh(runbook) : runbook;
  const need = hooks.fresh ? approvalNeedFor(deps, current, placeOfActor(actor)) : verdict.approval;
  if (need.required) {
    const approval = await askApproval(deps, actor, { ...request, runbook: current }, null);
    return { kind: 'approval-requested', runbook: current, approval, need };
  }
  return startRun(deps, actor, { ...request, runbook: current });
}

/** Stores an approval request for a run (schedule null) or for a schedule. */
export function askApproval(
  deps: RunsDeps,
  actor: Actor,
  request: RunRequest,
  schedule: ScheduleAsk | null,
): Promise<Approval> {
  return createRequest(
    {
      store: deps.access.store,
      audit: deps.access.audit,
      approvalTtlMs: deps.access.approvalTtlMs,
      apiAccount: deps.access.apiAccount ?? null,
    },
    {
      runbookId: request.runbook.id,
      runbookName: request.runbook.name,
      proxyId: request.proxyId,
      ask: schedule ? { kind: 'schedule', params: request.params, schedule } : { kind: 'run', params: request.params },
      paramsMasked: labelInputs(parseInputSchema(request.runbook.inputSchema), request.params),
      quorum: approvalNeedFor(deps, request.runbook, placeOfActor(actor)).quorum,
      requesterId: actor.userId,
      requesterTeam: actor.teamId,
      channel: actor.destinationChannel,
      actedIn: actor.channelId,
    },
    deps.now(),
  );
}

/**
 * Calls the Runbook API's run (the only call here that changes anything), audits it, and stores the watch
 * before anything is posted. Only after the gate; exported for approved requests.
 */
export async function startRun(
  deps: RunsDeps,
  actor: Actor,
  request: EnteredRun,
  approval: { requestId: string; approvedBy: string | readonly string[] } | null = null,
): Promise<RunResult> {
  const { runbook, proxyId } = request;
  const params = inSchemaOrder(parseInputSchema(runbook.inputSchema), request.params);
  const masked = maskedParams(runbook, params);
  // The entry point is the last part of the record: the one thing in which two paths' records may differ.
  const audit = (outcome: 'ok' | 'error', detail: string, tid: string | null) =>
    deps.access.audit.record({
      userId: actor.userId,
      teamId: actor.teamId,
      channel: actor.destinationChannel,
      action: RUN_AUDIT_ACTION,
      target: `${runbook.name} (${runbook.id})`,
      outcome,
      detail: withVia(detail, request.via, approval?.approvedBy),
      tid,
    });
  let executionIds: string[];
  let tid: string | null;
  // The intent is on record before the call: a crash while it is answered is reconciled at the next
  // start (run-intents.ts). Without a record, nothing is run.
  const intentId = randomUUID();
  try {
    await deps.access.store.intents.record(
      {
        id: intentId,
        userId: actor.userId,
        userEmail: actor.email ?? null,
        teamId: actor.teamId,
        runbookId: runbook.id,
        runbookName: runbook.name,
        proxyId,
        paramsHash: intentParamsHash(parseInputSchema(runbook.inputSchema), params),
        channel: actor.destinationChannel,
        inputsSummary: JSON.stringify(masked),
        // A run found after a crash is recorded naming its entry point, as this one would be.
        via: viaText(request.via, approval?.approvedBy),
        // The run goes to the Runbook API of the installation in scope: a restart looks for it there only.
        installationId: installationKey(),
      },
      deps.now(),
    );
  } catch (error) {
    deps.logger.error({ err: error, runbookId: runbook.id }, 'could not record the run before starting it');
    await audit('error', 'the run was not started: it could not be recorded first', null);
    return { kind: 'failed', runbook, error };
  }
  const settle = (state: 'started' | 'failed', ids: string[]) =>
    deps.access.store.intents
      .settle(intentId, state, ids, deps.now())
      .catch((err: unknown) => deps.logger.warn({ err, intentId }, 'could not settle a run intent'));
  try {
    const result = await deps.api.workflows.run(runbook.id, {
      proxyId,
      ...(Object.keys(params).length ? { params } : {}),
      userId: actor.userId,
      ...(actor.email ? { userEmail: actor.email } : {}),
      ...(approval ? { requestId: approval.requestId } : {}),
    });
    executionIds = result.executionIds;
    tid = result.tid ?? null;
  } catch (error) {
    maskErrorSecrets(error, parseInputSchema(runbook.inputSchema), params);
    deps.logger.warn({ err: error, runbookId: runbook.id }, 'run failed to start');
    // Refused for sure: nothing to reconcile. Otherwise (timeout, 5xx, dropped after sending) it may have
    // started: the intent stays open and reconciliation looks for its execution.
    if (definitelyNotStarted(error)) await settle('failed', []);
    const errorTid = (error as { tid?: unknown }).tid;
    await audit('error', describeApiError(error), typeof errorTid === 'string' ? errorTid : null);
    return { kind: 'failed', runbook, error };
  }
  await audit('ok', `executions ${executionIds.join(', ')}; proxy ${proxyId}; inputs ${JSON.stringify(masked)}`, tid);
  const run: StartedRun = {
    runbookId: runbook.id,
    runbookName: runbook.name,
    proxyId,
    proxyName: deps.proxies.nameOf(proxyId),
    startedBy: actor.userId,
    teamId: actor.teamId,
    inputs: labelInputs(parseInputSchema(runbook.inputSchema), params),
    executionIds,
    channel: actor.destinationChannel,
    ...(approval ? { approvedBy: approval.approvedBy } : {}),
    // A thread belongs to the channel acted in: a result sent elsewhere goes to that channel's top level.
    ...(request.origin?.threadTs && actor.destinationChannel === actor.channelId
      ? { threadTs: request.origin.threadTs }
      : {}),
    ...(request.origin?.sourceLink ? { sourceLink: request.origin.sourceLink } : {}),
  };
  // The watch is stored before anything is posted, so a crash later still gets a result. If the store
  // fails, the run is still going: the person must at least get its message and id.
  await deps.runs
    .started(run)
    .catch((err: unknown) =>
      deps.logger.error({ err, executionIds }, 'could not store the watch; the result will not be followed'),
    );
  await settle('started', executionIds);
  return { kind: 'started', runbook, run, tid };
}

/** A run call error after which the run certainly did not start (the API refused it, or it never left). */
function definitelyNotStarted(error: unknown): boolean {
  if (error instanceof ConnectionError) return !error.requestSent;
  if (error instanceof InvalidIdError) return true;
  if (!(error instanceof RunbookApiError)) return false;
  return error.status !== null && error.status >= 400 && error.status < 500 && error.status !== 408;
}

function parseParams(text: string): Record<string, unknown> | null {
  if (text.trim() === '') return {};
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A schedule's Run now: the schedule's runbook, proxy and params, through the same gate as the run form. */
export async function runScheduleNow(deps: RunsDeps, actor: Actor, scheduleId: string): Promise<RunResult> {
  let schedule: Schedule;
  try {
    schedule = await deps.api.schedules.get(scheduleId, { timeoutMs: deps.interactiveTimeoutMs });
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    return refused('not-found', 'That schedule no longer exists; run /runbook schedules to see the current list.');
  }
  const params = parseParams(schedule.params);
  if (params === null) {
    return refused(
      'invalid',
      'The parameters saved on this schedule are not valid JSON; edit the schedule to fix them.',
    );
  }
  if (!schedule.proxyId)
    return refused('invalid', 'This schedule has no proxy, so it cannot run; edit it to choose one.');
  const runbook = await loadRunbook(deps, schedule.runbookId);
  return requestRun(deps, actor, { runbook, proxyId: schedule.proxyId, params, via: 'schedule-run-now' });
}

export function refused(reason: Refusal['reason'], sentence: string): Refusal {
  return { kind: 'refused', reason, sentence };
}
