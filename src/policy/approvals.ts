// Approval requests as records: created pending, decided by a compare-and-set in the store (so one
// approval produces one run even when two approvers, or two replicas, click at once), expired when
// overdue. A request is either a run or a schedule (a schedule of a runbook that needs approval is
// created only when its request is approved). What happens on approval (the run, the schedule) is a
// use case in src/runs/, which calls this; nothing here knows Slack or the Runbook API.

import type { CardInputs } from '../forms/labelled-inputs.ts';
import type { Approval, Store } from '../store/store.ts';
import { currentInstallation } from '../tenants/tenant-scope.ts';
import type { AuditLog } from './audit-log.ts';
import { isQuorum, type Quorum } from './quorum.ts';

/** The schedule a request asks for (absent: the request is for a run now). */
export interface ScheduleAsk {
  cron: string;
  /** Editing this schedule; null: creating one. */
  scheduleId: string | null;
}

export type ApprovalAsk =
  | { kind: 'run'; params: Record<string, unknown> }
  | { kind: 'schedule'; params: Record<string, unknown>; schedule: ScheduleAsk };

/**
 * The stored `params` of a schedule request carry the schedule in an envelope under this key (the store's
 * approval record predates schedule requests; a run request stores its parameters as they are).
 */
const SCHEDULE_KEY = '$scheduleRequest';

export function encodeAsk(ask: ApprovalAsk): string {
  if (ask.kind === 'run') return JSON.stringify(ask.params);
  return JSON.stringify({ [SCHEDULE_KEY]: ask.schedule, params: ask.params });
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function decodeAsk(approval: Pick<Approval, 'params'>): ApprovalAsk {
  let raw: unknown;
  try {
    raw = JSON.parse(approval.params);
  } catch {
    raw = {};
  }
  if (!isRecord(raw)) return { kind: 'run', params: {} };
  const schedule = raw[SCHEDULE_KEY];
  if (isRecord(schedule) && typeof schedule.cron === 'string') {
    return {
      kind: 'schedule',
      params: isRecord(raw.params) ? raw.params : {},
      schedule: {
        cron: schedule.cron,
        scheduleId: typeof schedule.scheduleId === 'string' ? schedule.scheduleId : null,
      },
    };
  }
  return { kind: 'run', params: raw };
}

export interface ApprovalRecords {
  store: Store;
  audit: AuditLog;
  approvalTtlMs: number;
  /** Many workspaces: the Runbook API account the request is made under (kept with it). */
  apiAccount?: string | null;
}

export interface NewRequest {
  runbookId: string;
  runbookName: string;
  proxyId: string;
  ask: ApprovalAsk;
  /** The same parameters with secrets masked (shown to approvers, logged): under their titles, or plain. */
  paramsMasked: CardInputs;
  /** What it takes to approve (distinct approvers, groups to cover); absent: one approver. */
  quorum?: Quorum | null;
  requesterId: string;
  requesterTeam: string | null;
  /** Where the result goes ('' → a DM to the requester). */
  channel: string | null;
  /** Where the person asked, for the audit trail. */
  actedIn: string | null;
}

/** Stores a pending request and audits it. */
export async function createRequest(deps: ApprovalRecords, request: NewRequest, now: number): Promise<Approval> {
  const approval = await deps.store.approvals.create(
    {
      runbookId: request.runbookId,
      runbookName: request.runbookName,
      proxyId: request.proxyId,
      params: encodeAsk(request.ask),
      paramsMasked: JSON.stringify(request.paramsMasked),
      requesterId: request.requesterId,
      requesterTeam: request.requesterTeam,
      channel: request.channel ?? '',
      expiresAt: now + deps.approvalTtlMs,
      quorum: isQuorum(request.quorum) ? request.quorum : null,
      // Many workspaces: kept with the installation it is requested in (the request's scope).
      installationId: currentInstallation() ?? null,
      apiAccount: deps.apiAccount ?? null,
    },
    now,
  );
  const what = request.ask.kind === 'schedule' ? `schedule ${request.ask.schedule.cron}; ` : '';
  await deps.audit.record({
    userId: request.requesterId,
    teamId: request.requesterTeam,
    channel: request.actedIn,
    action: request.ask.kind === 'schedule' ? 'schedule.approval_requested' : 'run.approval_requested',
    target: `${request.runbookName} (${request.runbookId})`,
    outcome: 'ok',
    detail: `approval ${approval.id}; ${what}inputs ${JSON.stringify(request.paramsMasked)}`,
    tid: null,
  });
  return approval;
}

/** Marks overdue requests expired (each by compare-and-set, audited); returns those this call expired. */
export async function expireRequests(deps: ApprovalRecords, now: number, limit = 50): Promise<Approval[]> {
  const expired: Approval[] = [];
  for (const approval of await deps.store.approvals.listExpired(now, limit)) {
    if (!(await deps.store.approvals.decide(approval.id, 'expired', null, null, now))) continue;
    await deps.audit.record({
      userId: null,
      teamId: approval.requesterTeam,
      channel: approval.channel || null,
      action: 'approval.expire',
      target: `approval ${approval.id} (${approval.runbookName})`,
      outcome: 'ok',
      detail: null,
      tid: null,
    });
    expired.push(approval);
  }
  return expired;
}
