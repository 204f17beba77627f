// Deciding approval requests: only permitted approvers (view implied, never the requester) through the
// gate; the store's compare-and-set makes a double click (or two replicas) produce one run or one
// schedule. The records themselves live in src/policy/approvals.ts; this is what approving *does*.
import type { Workflow } from '../api/schemas.ts';
import { decodeAsk, expireRequests } from '../policy/approvals.ts';
import type { Approval } from '../store/store.ts';
import type { Actor } from './actor.ts';
import type { RunsDeps } from './deps.ts';
import { gate, runbookFacts } from './gate.ts';
import { loadRunbook, type Refusal, type RunResult, refused, startRun } from './run.ts';
import { type ScheduleResult, writeSchedule } from './schedules.ts';

export type DecisionResult =
  /** Already decided (by someone else, or expired) before this click. */
  | { kind: 'already'; approval: Approval }
  /** Lost the compare-and-set to a simultaneous decision. */
  | { kind: 'lost'; approval: Approval }
  | {
      kind: 'approved';
      approval: Approval;
      outcome: { kind: 'run'; result: RunResult } | { kind: 'schedule'; result: ScheduleResult };
    }
  | { kind: 'rejected'; approval: Approval }
  | Refusal;

type Loaded = { done: DecisionResult } | { approval: Approval; runbook: Workflow };

async function load(deps: RunsDeps, actor: Actor, approvalId: string, auditAction: string): Promise<Loaded> {
  const approval = await deps.access.store.approvals.get(approvalId);
  if (!approval) return { done: refused('not-found', 'That approval request no longer exists.') };
  if (approval.state !== 'pending') return { done: { kind: 'already', approval } };
  const runbook = (await deps.catalog.get(approval.runbookId)) ?? (await loadRunbook(deps, approval.runbookId));
  const verdict = await gate(deps, actor, {
    intent: 'approve',
    runbook: runbookFacts(deps, runbook),
    requesterId: approval.requesterId,
    auditAction,
    auditTarget: `approval ${approval.id} (${approval.runbookName})`,
  });
  if (!verdict.allowed) return { done: refused(verdict.reason, verdict.sentence) };
  return { approval, runbook };
}

/**
 * Approves a request and carries it out as the requester: the run (with requestId set), or the schedule.
 * `requesterEmail` is sent as userEmail on the run.
 */
export async function approveRequest(
  deps: RunsDeps,
  approver: Actor,
  approvalId: string,
  requesterEmail: (userId: string) => Promise<string | null>,
): Promise<DecisionResult> {
  const loaded = await load(deps, approver, approvalId, 'approval.approve');
  if ('done' in loaded) return loaded.done;
  const { approval, runbook } = loaded;
  // The compare-and-set is what makes a double click (or two replicas) produce one run.
  const won = await deps.access.store.approvals.decide(approval.id, 'approved', approver.userId, null, deps.now());
  if (!won) return { kind: 'lost', approval: (await deps.access.store.approvals.get(approval.id)) ?? approval };
  const ask = decodeAsk(approval);
  const requester: Actor = {
    userId: approval.requesterId,
    teamId: approval.requesterTeam,
    email: await requesterEmail(approval.requesterId).catch(() => null),
    groups: [],
    channelId: approval.channel || null,
    destinationChannel: approval.channel || null,
  };
  const request = { runbook, proxyId: approval.proxyId, params: ask.params };
  let outcome: Extract<DecisionResult, { kind: 'approved' }>['outcome'];
  let ok: boolean;
  let detail: string | null;
  let tid: string | null = null;
  if (ask.kind === 'schedule') {
    const result = await writeSchedule(deps, requester, { ...request, ...ask.schedule }, approver.userId);
    outcome = { kind: 'schedule', result };
    ok = result.kind === 'saved';
    detail = result.kind === 'saved' ? `schedule ${result.schedule.id}` : 'the schedule was not saved';
    await deps.access.store.approvals.setRunResult(
      approval.id,
      [],
      ok ? null : 'the schedule was not saved',
      deps.now(),
    );
  } else {
    const result = await startRun(deps, requester, request, { requestId: approval.id, approvedBy: approver.userId });
    outcome = { kind: 'run', result };
    ok = result.kind === 'started';
    const ids = result.kind === 'started' ? result.run.executionIds : [];
    detail = ok ? `executions ${ids.join(', ')}` : 'the run did not start';
    tid = result.kind === 'started' ? result.tid : null;
    await deps.access.store.approvals.setRunResult(approval.id, ids, ok ? null : 'the run did not start', deps.now());
  }
  await deps.access.audit.record({
    userId: approver.userId,
    teamId: approver.teamId,
    channel: approver.channelId,
    action: 'approval.approve',
    target: `approval ${approval.id} (${approval.runbookName})`,
    outcome: ok ? 'ok' : 'error',
    detail,
    tid,
  });
  return { kind: 'approved', approval: (await deps.access.store.approvals.get(approval.id)) ?? approval, outcome };
}

export async function rejectRequest(
  deps: RunsDeps,
  approver: Actor,
  approvalId: string,
  reason: string,
): Promise<DecisionResult> {
  const loaded = await load(deps, approver, approvalId, 'approval.reject');
  if ('done' in loaded) return loaded.done;
  const { approval } = loaded;
  const won = await deps.access.store.approvals.decide(approval.id, 'rejected', approver.userId, reason, deps.now());
  await deps.access.audit.record({
    userId: approver.userId,
    teamId: approver.teamId,
    channel: approver.channelId,
    action: 'approval.reject',
    target: `approval ${approval.id} (${approval.runbookName})`,
    outcome: won ? 'ok' : 'error',
    detail: won ? `reason: ${reason}` : 'already decided',
    tid: null,
  });
  const now = (await deps.access.store.approvals.get(approval.id)) ?? approval;
  return won ? { kind: 'rejected', approval: now } : { kind: 'lost', approval: now };
}

/** Expires overdue requests; returns those expired by this call (their messages need updating). */
export function expireApprovals(deps: RunsDeps): Promise<Approval[]> {
  return expireRequests(
    { store: deps.access.store, audit: deps.access.audit, approvalTtlMs: deps.access.approvalTtlMs },
    deps.now(),
  );
}
