// Database rows (snake_case, as both drivers return them) to the store's domain objects. SQLite hands
// back booleans as 0/1 and Postgres as true/false; BIGINT arrives as a number from both drivers.
import type { SqlRow } from './sql-driver.ts';
import type {
  Approval,
  ApprovalState,
  AuditEntry,
  AuditOutcome,
  RunDraftRecord,
  ScheduleOwner,
  Subscription,
  Watch,
  WatchEta,
  WatchOrigin,
  WatchState,
} from './store.ts';

export const text = (value: unknown): string => String(value);
export const textOrNull = (value: unknown): string | null =>
  value === null || value === undefined ? null : String(value);
export const num = (value: unknown): number => Number(value);
export const numOrNull = (value: unknown): number | null =>
  value === null || value === undefined ? null : Number(value);

function parseIdList(value: unknown): string[] {
  if (typeof value !== 'string' || value === '') return [];
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
}

export function toWatch(row: SqlRow): Watch {
  return {
    installationId: text(row.installation_id),
    executionId: text(row.execution_id),
    runbookId: text(row.runbook_id),
    runbookName: text(row.runbook_name),
    channel: text(row.channel),
    messageTs: textOrNull(row.message_ts),
    threadTs: textOrNull(row.thread_ts),
    startedBy: textOrNull(row.started_by),
    teamId: textOrNull(row.team_id),
    proxyId: text(row.proxy_id),
    inputsSummary: text(row.inputs_summary),
    origin: text(row.origin) as WatchOrigin,
    state: text(row.state) as WatchState,
    nextCheckAt: num(row.next_check_at),
    attempts: num(row.attempts),
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
    leaseOwner: textOrNull(row.lease_owner),
    leaseUntil: numOrNull(row.lease_until),
    finalStatus: textOrNull(row.final_status),
    resultPostedAt: numOrNull(row.result_posted_at),
    replyPostedAt: numOrNull(row.reply_posted_at),
    sourceLink: textOrNull(row.source_link),
    approvedBy: parseIdList(row.approved_by),
    proxyName: textOrNull(row.proxy_name),
    startedAt: numOrNull(row.started_at),
    eta: toWatchEta(row),
  };
}

/** The usual duration a watch's card showed (migration 20); null when it showed none. */
function toWatchEta(row: SqlRow): WatchEta | null {
  const medianMs = numOrNull(row.eta_median_ms);
  const runs = numOrNull(row.eta_runs);
  if (medianMs === null || runs === null) return null;
  return { medianMs, p95Ms: numOrNull(row.eta_p95_ms), runs };
}

export function toSubscription(row: SqlRow): Subscription {
  return {
    channel: text(row.channel),
    runbookId: text(row.runbook_id),
    runbookName: text(row.runbook_name),
    failuresOnly: Boolean(row.failures_only),
    createdBy: text(row.created_by),
    teamId: textOrNull(row.team_id),
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
    installationId: text(row.installation_id),
  };
}

export function toScheduleOwner(row: SqlRow): ScheduleOwner {
  return {
    scheduleId: text(row.schedule_id),
    userId: text(row.user_id),
    teamId: textOrNull(row.team_id),
    userName: textOrNull(row.user_name),
    channel: textOrNull(row.channel),
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
  };
}

export function toApproval(row: SqlRow): Approval {
  return {
    id: text(row.id),
    runbookId: text(row.runbook_id),
    runbookName: text(row.runbook_name),
    proxyId: text(row.proxy_id),
    params: text(row.params),
    paramsMasked: text(row.params_masked),
    requesterId: text(row.requester_id),
    requesterTeam: textOrNull(row.requester_team),
    channel: text(row.channel),
    state: text(row.state) as ApprovalState,
    decidedBy: textOrNull(row.decided_by),
    reason: textOrNull(row.reason),
    createdAt: num(row.created_at),
    expiresAt: num(row.expires_at),
    decidedAt: numOrNull(row.decided_at),
    executionIds: parseIdList(row.execution_ids),
    error: textOrNull(row.error),
    ranAt: numOrNull(row.ran_at),
    approversChannel: textOrNull(row.approvers_channel),
    approversTs: textOrNull(row.approvers_ts),
    requesterChannel: textOrNull(row.requester_channel),
    requesterTs: textOrNull(row.requester_ts),
    quorum: parseStoredQuorum(row.quorum),
    ...(row.installation_id === null || row.installation_id === undefined
      ? {}
      : { installationId: text(row.installation_id) }),
    ...(row.api_account === null || row.api_account === undefined ? {} : { apiAccount: text(row.api_account) }),
  };
}

function parseStoredQuorum(value: unknown): Approval['quorum'] {
  if (typeof value !== 'string' || value === '') return null;
  try {
    const v = JSON.parse(value) as { count?: unknown; eachOf?: unknown };
    const count = typeof v.count === 'number' && Number.isInteger(v.count) && v.count >= 1 ? v.count : 1;
    const eachOf = Array.isArray(v.eachOf) ? v.eachOf.filter((g): g is string => typeof g === 'string') : [];
    return { count, eachOf };
  } catch {
    return null;
  }
}

export function toAuditEntry(row: SqlRow): AuditEntry {
  return {
    at: num(row.at),
    userId: textOrNull(row.user_id),
    teamId: textOrNull(row.team_id),
    channel: textOrNull(row.channel),
    action: text(row.action),
    target: textOrNull(row.target),
    outcome: text(row.outcome) as AuditOutcome,
    detail: textOrNull(row.detail),
    tid: textOrNull(row.tid),
    // Only where there is one (many-workspace mode), so single-workspace entries keep their shape.
    ...(row.installation_id === null || row.installation_id === undefined
      ? {}
      : { installationId: text(row.installation_id) }),
  };
}

export function toRunDraft(row: SqlRow): RunDraftRecord {
  return {
    id: text(row.id),
    runbookId: text(row.runbook_id),
    proxyId: textOrNull(row.proxy_id),
    channel: textOrNull(row.channel),
    params: text(row.params),
    createdAt: num(row.created_at),
    expiresAt: num(row.expires_at),
  };
}

/** The start times of a run_limits row; anything unreadable counts as no starts. */
export function parseStarts(value: unknown): number[] {
  if (typeof value !== 'string') return [];
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) ? parsed.filter((t): t is number => typeof t === 'number' && Number.isFinite(t)) : [];
  } catch {
    return [];
  }
}
