// Schedules: a schedule is a standing run, so creating or editing one passes the gate as `schedule` AND
// `run` (view implied). A runbook that needs approval is not scheduled at once: the schedule becomes an
// approval request, and approving it creates the schedule (runs/approvals.ts). Editing is checked against
// the runbook and params being saved, and against the schedule being changed (ownership, its runbook).
import { describeApiError, NotFoundError } from '../api/errors.ts';
import { type Schedule, type ScheduleWrite, Workflow } from '../api/schemas.ts';
import { parseInputSchema } from '../forms/input-schema.ts';
import { freezeEnd } from '../policy/freezes.ts';
import type { Approval } from '../store/store.ts';
import { installationKey } from '../tenants/tenant-scope.ts';
import type { Actor } from './actor.ts';
import type { RunsDeps } from './deps.ts';
import { maskErrorSecrets } from './execution-secrets.ts';
import { gate, type RunApprovalNeed, recordDenial, runbookFacts, scheduleFreeze } from './gate.ts';
import { askApproval, type Refusal, refused } from './run.ts';
import { inSchemaOrder } from './run-params.ts';
import { applyPause } from './schedule-pause-write.ts';

export interface ScheduleRequest {
  runbook: Workflow;
  proxyId: string;
  params: Record<string, unknown>;
  cron: string;
  /** Editing this schedule; null: a new one. */
  scheduleId: string | null;
}

export type ScheduleResult =
  | {
      kind: 'saved';
      schedule: Schedule;
      created: boolean;
      /** Created inside a change freeze that covers it: paused at once; what to tell the person. */
      frozen: string | null;
    }
  | { kind: 'approval-requested'; approval: Approval; need: RunApprovalNeed }
  | { kind: 'failed'; error: unknown }
  | Refusal;

/** A schedule's runbook as the policy judges it: the catalog's copy, else the id and name the schedule names. */
async function runbookOfSchedule(deps: RunsDeps, schedule: Schedule): Promise<Workflow> {
  return (
    (await deps.catalog.get(schedule.runbookId).catch(() => null)) ??
    Workflow.parse({ id: schedule.runbookId, name: schedule.runbookName || schedule.runbookId })
  );
}

/** Actions that would write the form's expression: refused while the schedule is paused. */
const EDITS = new Set(['schedule.open', 'schedule.update']);

/**
 * Editing a paused schedule is refused: the API holds the never-firing expression (schedule-pauses.ts),
 * so the form would show it, and saving any expression would un-pause it behind the store's back.
 */
async function refusePausedEdit(deps: RunsDeps, scheduleId: string): Promise<Refusal | null> {
  const pause = await deps.access.store.schedulePauses.get(scheduleId, installationKey());
  return pause
    ? refused('invalid', 'That schedule is paused; resume it from /runbook schedules first, then edit it.')
    : null;
}

/**
 * May the actor change (edit, delete, open the edit form of) this existing schedule? `schedule` on its
 * runbook (view implied), and with scheduleOwnersOnly, only its Slack creator.
 */
export async function checkScheduleChange(
  deps: RunsDeps,
  actor: Actor,
  schedule: Schedule,
  auditAction: string,
): Promise<Refusal | null> {
  const runbook = await runbookOfSchedule(deps, schedule);
  const target = `${runbook.name} (${runbook.id}) schedule ${schedule.id}`;
  const verdict = await gate(deps, actor, {
    intent: 'change-schedule',
    runbook: runbookFacts(deps, runbook),
    auditAction,
    auditTarget: target,
  });
  if (!verdict.allowed) return refused(verdict.reason, verdict.sentence);
  if (EDITS.has(auditAction)) {
    const paused = await refusePausedEdit(deps, schedule.id);
    if (paused) return paused;
  }
  if (deps.access.policy.scheduleOwnersOnly) {
    const owner = await deps.access.store.scheduleOwners.get(schedule.id, installationKey());
    if (owner && owner.userId !== actor.userId) {
      const sentence = `Only the person who created this schedule (${owner.userName ?? owner.userId}) may change it. Ask them, or ${deps.access.policy.contact}.`;
      await recordDenial(deps, actor, { action: auditAction, target, sentence });
      return refused('denied', sentence);
    }
  }
  return null;
}

/** Creates or edits a schedule, or turns it into an approval request when the runbook needs approval. */
export async function saveSchedule(deps: RunsDeps, actor: Actor, request: ScheduleRequest): Promise<ScheduleResult> {
  const action = request.scheduleId ? 'schedule.update' : 'schedule.create';
  const { runbook } = request;
  if (request.scheduleId) {
    let existing: Schedule;
    try {
      existing = await deps.api.schedules.get(request.scheduleId, { timeoutMs: deps.interactiveTimeoutMs });
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      return refused(
        'not-found',
        'That schedule no longer exists; it may have been deleted. Run /runbook schedules to see the current list.',
      );
    }
    const refusal = await checkScheduleChange(deps, actor, existing, action);
    if (refusal) return refusal;
  }
  const target = `${runbook.name} (${runbook.id})${request.scheduleId ? ` schedule ${request.scheduleId}` : ''}`;
  // A schedule is a standing run: no destination channel (the API runs it), so only where the person acts.
  const scheduler: Actor = { ...actor, destinationChannel: actor.channelId };
  const verdict = await gate(deps, scheduler, {
    intent: 'schedule',
    runbook: runbookFacts(deps, runbook),
    auditAction: action,
    auditTarget: target,
  });
  if (!verdict.allowed) return refused(verdict.reason, verdict.sentence);
  if (verdict.approval.required) {
    const approval = await askApproval(deps, scheduler, request, {
      cron: request.cron,
      scheduleId: request.scheduleId,
    });
    return { kind: 'approval-requested', approval, need: verdict.approval };
  }
  return writeSchedule(deps, actor, request);
}

/** The API call that creates or updates the schedule, audited; after the gate (or an approval) only. */
export async function writeSchedule(
  deps: RunsDeps,
  actor: Actor,
  request: ScheduleRequest,
  approvedBy: string | null = null,
): Promise<ScheduleResult> {
  const { runbook } = request;
  const action = request.scheduleId ? 'schedule.update' : 'schedule.create';
  const write: ScheduleWrite = {
    proxyId: request.proxyId,
    runbookId: runbook.id,
    runbookName: runbook.name,
    inputSchema: runbook.inputSchema,
    params: JSON.stringify(inSchemaOrder(parseInputSchema(runbook.inputSchema), request.params)),
    schedule: request.cron,
  };
  // An approved edit is carried out later: the schedule may have been paused meanwhile.
  if (request.scheduleId) {
    const paused = await refusePausedEdit(deps, request.scheduleId);
    if (paused) return paused;
  }
  const audit = (outcome: 'ok' | 'error', detail: string, tid: string | null, id: string | null) =>
    deps.access.audit.record({
      userId: actor.userId,
      teamId: actor.teamId,
      channel: actor.channelId,
      action,
      target: `${runbook.name} (${runbook.id})${id ? ` schedule ${id}` : ''}`,
      outcome,
      detail,
      tid,
    });
  let saved: Schedule;
  try {
    saved = request.scheduleId
      ? await deps.api.schedules.update(request.scheduleId, write)
      : await deps.api.schedules.create(write);
  } catch (error) {
    maskErrorSecrets(error, parseInputSchema(runbook.inputSchema), request.params);
    deps.logger.warn({ err: error, runbookId: runbook.id, scheduleId: request.scheduleId }, 'schedule was not saved');
    const errTid = (error as { tid?: unknown }).tid;
    await audit('error', describeApiError(error), typeof errTid === 'string' ? errTid : null, request.scheduleId);
    return { kind: 'failed', error };
  }
  deps.proxies.remember({ id: request.proxyId, name: saved.proxyName || request.proxyId });
  if (!request.scheduleId) {
    // Where it was made: a change freeze's pause and resume are said there.
    await deps.access.store.scheduleOwners.set(
      saved.id,
      { userId: actor.userId, teamId: actor.teamId, channel: actor.channelId },
      deps.now(),
      installationKey(),
    );
  }
  await audit(
    'ok',
    `${request.cron} on ${request.proxyId}${approvedBy ? `; approved by ${approvedBy}` : ''}`,
    null,
    saved.id,
  );
  const frozen = request.scheduleId ? null : await pauseIfFrozen(deps, actor, saved);
  return { kind: 'saved', schedule: saved, created: !request.scheduleId, frozen };
}

/**
 * A schedule created inside a change freeze that covers it is paused at once, as the freeze pauses the
 * schedules it finds at its start (the pause names the window, audited as the bot, resumed at its end), so
 * it never fires inside the window. Returns what to tell its creator; null when no freeze covers it. Should
 * the pause fail, the freeze's minute pass (applyFreezes) pauses it.
 */
async function pauseIfFrozen(deps: RunsDeps, actor: Actor, schedule: Schedule): Promise<string | null> {
  const { freeze } = await scheduleFreeze(deps, schedule, { groupsOf: async () => [...actor.groups] });
  if (!freeze) return null;
  const result = await applyPause(deps, { userId: '', teamId: actor.teamId, channelId: null }, schedule, {
    resumeAt: null,
    freeze: freeze.name,
    action: 'schedule.pause',
    detail: `was ${schedule.schedule}; created inside the change freeze “${freeze.name}”, paused until ${new Date(freeze.end).toISOString()}`,
  });
  if (result.kind !== 'paused') {
    deps.logger.warn(
      { scheduleId: schedule.id, result: result.kind },
      'a schedule made inside a freeze is not paused yet',
    );
    return null;
  }
  return `It is paused at once: the change freeze “${freeze.name}” is on until ${freezeEnd(freeze.end, actor.timeZone)}, and it resumes by itself then.`;
}

export type DeleteResult = { kind: 'deleted'; schedule: Schedule } | Refusal;

/** Deletes a schedule (a 404 means someone else was faster: not-found). */
export async function deleteSchedule(deps: RunsDeps, actor: Actor, scheduleId: string): Promise<DeleteResult> {
  let schedule: Schedule;
  try {
    schedule = await deps.api.schedules.get(scheduleId, { timeoutMs: deps.interactiveTimeoutMs });
    const refusal = await checkScheduleChange(deps, actor, schedule, 'schedule.delete');
    if (refusal) return refusal;
    await deps.api.schedules.delete(scheduleId);
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    return refused('not-found', 'That schedule no longer exists; the list below is up to date.');
  }
  await deps.access.store.scheduleOwners.remove(scheduleId, installationKey());
  // A paused schedule deleted is gone with its pause: nothing is left to resume.
  await deps.access.store.schedulePauses.remove(scheduleId, undefined, installationKey());
  await deps.access.audit.record({
    userId: actor.userId,
    teamId: actor.teamId,
    channel: actor.channelId,
    action: 'schedule.delete',
    target: `${schedule.runbookName} (${schedule.runbookId}) schedule ${scheduleId}`,
    outcome: 'ok',
    detail: schedule.schedule,
    tid: null,
  });
  return { kind: 'deleted', schedule };
}

/**
 * May the actor see the form for a new schedule of this runbook? The same gate as saving it (view,
 * schedule and run), so a person denied `run` is told before filling it in; audited as `schedule.open`.
 */
export async function checkScheduleForm(deps: RunsDeps, actor: Actor, runbook: Workflow): Promise<Refusal | null> {
  const verdict = await gate(deps, actor, {
    intent: 'schedule',
    runbook: runbookFacts(deps, runbook),
    auditAction: 'schedule.open',
  });
  return verdict.allowed ? null : refused(verdict.reason, verdict.sentence);
}
