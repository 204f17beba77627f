// Deciding approval requests: only permitted approvers (view implied, never the requester) through the
// gate; the store's compare-and-set makes a double click (or two replicas) produce one run or one
// schedule. The records themselves live in src/policy/approvals.ts; this is what approving *does*.
import type { Workflow } from '../api/schemas.ts';
import { type ApprovalAsk, decodeAsk, expireRequests } from '../policy/approvals.ts';
import { type ApprovalNeed, describeApprovers, type GroupsHere, type Place } from '../policy/policy.ts';
import { evaluateQuorum, isQuorum, type QuorumState, SINGLE_APPROVER, type Vote } from '../policy/quorum.ts';
import type { Approval, ApprovalMessages } from '../store/store.ts';
import { currentInstallation } from '../tenants/tenant-scope.ts';
import type { Actor } from './actor.ts';
import type { RunsDeps } from './deps.ts';
import { approvalNeedFor, freezeCheck, gate, NOT_A_MEMBER, placeOfActor, recordDenial, runbookFacts } from './gate.ts';
import { loadRunbook, type Refusal, type RunResult, refused, startRun } from './run.ts';
import { disabledReason, isRunnable } from './runnable.ts';
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
  /** A quorum request: this approval is recorded, more are needed (or this person had already approved). */
  | { kind: 'voted'; approval: Approval; progress: QuorumState; again: boolean }
  | Refusal;

/** Where a request's quorum stands (a request without one needs its single approver). */
export async function approvalProgress(deps: RunsDeps, approval: Approval): Promise<QuorumState> {
  const votes = await deps.access.store.approvals.votes(approval.id);
  const approvers = votes.length || !approval.decidedBy ? votes : [{ userId: approval.decidedBy, groups: [], at: 0 }];
  return evaluateQuorum(approval.quorum ?? SINGLE_APPROVER, approvers);
}

/**
 * With a quorum, the click is a vote: recorded once per person while the request is open. Only the click
 * that finds the quorum met goes on to decide (and the store's compare-and-set still picks one winner
 * when the last two approvals land at once). Returns null when the quorum is met by this vote.
 */
async function voteTowardsQuorum(
  deps: RunsDeps,
  approver: Actor,
  approval: Approval,
): Promise<Extract<DecisionResult, { kind: 'voted' | 'already' }> | null> {
  const store = deps.access.store.approvals;
  const added = await store.vote(approval.id, approver.userId, approver.groups, deps.now());
  const current = (await store.get(approval.id)) ?? approval;
  if (!added && current.state !== 'pending') return { kind: 'already', approval: current };
  const progress = evaluateQuorum(approval.quorum ?? SINGLE_APPROVER, await store.votes(approval.id));
  if (progress.met) return null;
  await auditDecision(deps, approver, approval, 'approval.vote', 'ok', progressDetail(progress), null);
  return { kind: 'voted', approval: current, progress, again: !added };
}

function progressDetail(progress: QuorumState): string {
  const groups = progress.missingGroups.length ? ` (from ${progress.missingGroups.join(', ')})` : '';
  return `${progress.approvers.length} approved; ${progress.missingCount} more needed${groups}`;
}

/** The audit record of an approver's decision (or vote) on a request. */
function auditDecision(
  deps: RunsDeps,
  approver: Actor,
  approval: Approval,
  action: string,
  outcome: 'ok' | 'error',
  detail: string | null,
  tid: string | null,
): Promise<void> {
  return deps.access.audit.record({
    userId: approver.userId,
    teamId: approver.teamId,
    channel: approver.channelId,
    action,
    target: `approval ${approval.id} (${approval.runbookName})`,
    outcome,
    detail,
    tid,
  });
}

type Loaded = { done: DecisionResult } | { approval: Approval; runbook: Workflow };

/** The reason kept on a request closed because the workspace's Runbook API account changed. */
export const ACCOUNT_CHANGED = 'the workspace’s Runbook API connection changed';

/**
 * Many workspaces: a request asked under another Runbook API account than the one connected now (a key of
 * another account, or none). Requests from before accounts were kept, and one workspace, are not judged.
 */
export function madeUnderAnotherAccount(deps: Pick<RunsDeps, 'access'>, approval: Approval): boolean {
  const now = deps.access.apiAccount;
  return now !== undefined && approval.apiAccount !== undefined && approval.apiAccount !== now;
}

function expiredRefusal(): Refusal {
  return refused(
    'expired',
    'This approval request has expired, so nothing was recorded; ask the requester to submit it again.',
  );
}

/** Reads a voter's user groups now (not from a cache); absent: the groups recorded with the vote. */
export type FreshGroups = (userId: string) => Promise<readonly string[]>;

/**
 * The votes that still count when the quorum is decided, on current facts: each voter's user groups are
 * read again and the voter must still be allowed to view and approve the request (judged in the channel
 * the deciding click came from). A vote that no longer counts is withdrawn and audited; the deciding
 * approver's own, refused, answers with the sentence.
 */
async function currentVotes(
  deps: RunsDeps,
  approver: Actor,
  approval: Approval,
  runbook: Workflow,
  votes: readonly Vote[],
  freshGroups: FreshGroups | undefined,
): Promise<{ votes: Vote[] } | Refusal> {
  const facts = runbookFacts(deps, runbook);
  const { policy } = deps.access;
  const kept: Vote[] = [];
  for (const vote of votes) {
    const groups = freshGroups ? [...(await freshGroups(vote.userId))] : vote.groups;
    // A voter of this installation: judged in the deciding approver's workspace; who approves, where asked.
    const subject = { ...placeOfActor(approver), userId: vote.userId, groups, channelId: approver.channelId };
    const view = policy.decide('view', subject, facts);
    const approve = view.allowed
      ? policy.canApprove(subject, facts, approval.requesterId, requestPlace(approval))
      : view;
    if (approve.allowed) {
      kept.push({ ...vote, groups });
      continue;
    }
    await deps.access.store.approvals.withdrawVote(approval.id, vote.userId);
    if (vote.userId === approver.userId) {
      const sentence = approve.message;
      await recordDenial(deps, approver, {
        action: 'approval.approve',
        target: `approval ${approval.id} (${approval.runbookName})`,
        sentence,
      });
      return refused(view.allowed ? 'denied' : 'hidden', sentence);
    }
    await deps.access.audit.record({
      userId: vote.userId,
      teamId: approver.teamId,
      channel: approver.channelId,
      action: 'approval.vote_withdrawn',
      target: `approval ${approval.id} (${approval.runbookName})`,
      outcome: 'denied',
      detail: `no longer counts: ${approve.message}`,
      tid: null,
    });
  }
  return { votes: kept };
}

/**
 * Where a request was made, for the policy's `teams:` (who approves, a freeze): the requester's workspace.
 * (Its Grid org and installation are the deciding request's: the same installation serves both.)
 */
function requestPlace(approval: Pick<Approval, 'requesterTeam'>): Place {
  return { teamId: approval.requesterTeam };
}

/** Many workspaces: a request of another installation is, here, one that does not exist. */
function ofThisInstallation(approval: Approval | null): Approval | null {
  const current = currentInstallation();
  return approval && (!current || approval.installationId === current) ? approval : null;
}

/**
 * Many workspaces, a Slack Connect channel shared by two installations: a person of one pressed a button
 * of the other's request. Said as it is (the message they look at already shows whose it is), and
 * nothing more of the request.
 */
export const OTHER_WORKSPACE_REQUEST =
  "That approval request was made in another workspace: only that workspace's approvers can approve or reject it.";

/**
 * Why a person cannot decide request `approvalId` that `findApprovalFor` did not give them: it is another
 * installation's (audited as a refusal), they are not of this one (gate.ts's sentence, audited), or it no
 * longer exists. Null when it is there for them after all.
 */
export async function approvalRefusal(
  deps: RunsDeps,
  actor: Actor,
  approvalId: string,
  auditAction: string,
): Promise<Refusal | null> {
  const stored = await deps.access.store.approvals.get(approvalId);
  const target = `approval ${approvalId}`;
  if (stored && !ofThisInstallation(stored)) {
    await recordDenial(deps, actor, { action: auditAction, target, sentence: OTHER_WORKSPACE_REQUEST });
    return refused('denied', OTHER_WORKSPACE_REQUEST);
  }
  if (stored && actor.installationMember === false) {
    await recordDenial(deps, actor, { action: auditAction, target, sentence: NOT_A_MEMBER });
    return refused('denied', NOT_A_MEMBER);
  }
  return stored ? null : refused('not-found', 'That approval request no longer exists.');
}

async function load(deps: RunsDeps, actor: Actor, approvalId: string, auditAction: string): Promise<Loaded> {
  const approval = ofThisInstallation(await deps.access.store.approvals.get(approvalId));
  if (!approval) {
    const refusal = await approvalRefusal(deps, actor, approvalId, auditAction);
    return { done: refusal ?? refused('not-found', 'That approval request no longer exists.') };
  }
  if (approval.state !== 'pending') return { done: { kind: 'already', approval } };
  // Past its expiry the request is over even before the sweeper marks it: nothing is recorded.
  if (approval.expiresAt <= deps.now()) return { done: expiredRefusal() };
  if (madeUnderAnotherAccount(deps, approval)) {
    // The workspace's Runbook API changed since it was asked: it is closed, never run on the new account.
    await deps.access.store.approvals.decide(approval.id, 'expired', null, ACCOUNT_CHANGED, deps.now());
    return {
      done: refused(
        'expired',
        'This request was made under the workspace’s previous Runbook API connection, which has since been replaced or removed, so it is closed and nothing was run; ask the requester to submit it again.',
      ),
    };
  }
  const runbook = (await deps.catalog.get(approval.runbookId)) ?? (await loadRunbook(deps, approval.runbookId));
  const verdict = await gate(deps, actor, {
    intent: 'approve',
    runbook: runbookFacts(deps, runbook),
    requesterId: approval.requesterId,
    requestPlace: requestPlace(approval),
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
  freshGroups?: FreshGroups,
): Promise<DecisionResult> {
  const loaded = await load(deps, approver, approvalId, 'approval.approve');
  if ('done' in loaded) return loaded.done;
  const { approval } = loaded;
  let approvedBy: string | string[] = approver.userId;
  if (isQuorum(approval.quorum)) {
    const pending = await voteTowardsQuorum(deps, approver, approval);
    if (pending) return pending;
  }
  // Decided on current facts: the runbook as the API has it now, every counted vote re-checked.
  const runbook = await loadRunbook(deps, approval.runbookId);
  const recorded = isQuorum(approval.quorum)
    ? await deps.access.store.approvals.votes(approval.id)
    : [{ userId: approver.userId, groups: [...approver.groups], at: deps.now() }];
  const counted = await currentVotes(deps, approver, approval, runbook, recorded, freshGroups);
  if ('kind' in counted) return counted;
  const progress = evaluateQuorum(approval.quorum ?? SINGLE_APPROVER, counted.votes);
  if (!progress.met) {
    // Votes withdrawn: the quorum is not met after all, and this click stays a recorded vote.
    await auditDecision(deps, approver, approval, 'approval.vote', 'ok', progressDetail(progress), null);
    const current = (await deps.access.store.approvals.get(approval.id)) ?? approval;
    return { kind: 'voted', approval: current, progress, again: false };
  }
  if (isQuorum(approval.quorum)) approvedBy = progress.approvers;
  if (!isRunnable(runbook)) {
    const sentence = `${runbook.name} cannot be run now: ${disabledReason(runbook)}, so the request stays open; ask the runbook's owner to enable it before approving.`;
    await recordDenial(deps, approver, {
      action: 'approval.approve',
      target: `approval ${approval.id} (${approval.runbookName})`,
      sentence,
    });
    return refused('disabled', sentence);
  }
  // Inside a change freeze the approved run would start now: refused (the request stays open) unless the
  // approver holds a break-glass pass. Judged for the requester's channels; their groups are not known
  // here, so a window for certain groups covers them (fails closed).
  if (decodeAsk(approval).kind === 'run') {
    const sentence = await freezeCheck(deps, approver, runbookFacts(deps, runbook), {
      take: true,
      auditAction: 'approval.approve',
      target: `approval ${approval.id} (${approval.runbookName})`,
      scope: {
        userId: approval.requesterId,
        groups: null,
        channels: [approval.channel || null],
        place: { ...requestPlace(approval), enterpriseId: approver.enterpriseId ?? null },
      },
    });
    if (sentence) return refused('frozen', `${sentence} The request stays open.`);
  }
  // The compare-and-set is what makes a double click (or two replicas) produce one run.
  const won = await deps.access.store.approvals.decide(approval.id, 'approved', approver.userId, null, deps.now());
  if (!won) {
    const now = (await deps.access.store.approvals.get(approval.id)) ?? approval;
    return now.state === 'pending' && now.expiresAt <= deps.now() ? expiredRefusal() : { kind: 'lost', approval: now };
  }
  const ask = decodeAsk(approval);
  const requester: Actor = {
    userId: approval.requesterId,
    teamId: approval.requesterTeam,
    enterpriseId: approver.enterpriseId ?? null,
    email: await requesterEmail(approval.requesterId).catch(() => null),
    groups: [],
    channelId: approval.channel || null,
    destinationChannel: approval.channel || null,
  };
  const request = { runbook, proxyId: approval.proxyId, params: ask.params, via: 'approval' as const };
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
    const result = await startRun(deps, requester, request, { requestId: approval.id, approvedBy });
    outcome = { kind: 'run', result };
    ok = result.kind === 'started';
    const ids = result.kind === 'started' ? result.run.executionIds : [];
    detail = ok ? `executions ${ids.join(', ')}` : 'the run did not start';
    tid = result.kind === 'started' ? result.tid : null;
    await deps.access.store.approvals.setRunResult(approval.id, ids, ok ? null : 'the run did not start', deps.now());
  }
  await auditDecision(deps, approver, approval, 'approval.approve', ok ? 'ok' : 'error', detail, tid);
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
  await auditDecision(
    deps,
    approver,
    approval,
    'approval.reject',
    won ? 'ok' : 'error',
    won ? `reason: ${reason}` : 'already decided',
    null,
  );
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

/** A request this person could approve now, with where its quorum stands. */
export interface AwaitingRequest {
  approval: Approval;
  missingCount: number;
}

/**
 * Open requests the actor may approve (view implied, never their own) and has not approved yet, oldest
 * first: App Home's "Waiting for your approval". Judged without a channel, like the rest of App Home;
 * nothing is audited (listing is not acting).
 */
export async function awaitingApprovalBy(deps: RunsDeps, actor: Actor, limit = 50): Promise<AwaitingRequest[]> {
  // Many workspaces: a person who is not of this installation is shown none of its requests.
  if (actor.installationMember === false) return [];
  const subject = { ...placeOfActor(actor), userId: actor.userId, groups: actor.groups, channelId: null };
  const out: AwaitingRequest[] = [];
  const installationId = currentInstallation();
  const pending = installationId
    ? await deps.access.store.approvals.listPending(deps.now(), limit, installationId)
    : await deps.access.store.approvals.listPending(deps.now(), limit);
  for (const approval of pending) {
    if (approval.requesterId === actor.userId) continue;
    const runbook = await deps.catalog.get(approval.runbookId).catch(() => null);
    if (!runbook) continue;
    const facts = runbookFacts(deps, runbook);
    if (!deps.access.policy.decide('view', subject, facts).allowed) continue;
    if (!deps.access.policy.canApprove(subject, facts, approval.requesterId, requestPlace(approval)).allowed) continue;
    const votes = await deps.access.store.approvals.votes(approval.id);
    if (votes.some((v) => v.userId === actor.userId)) continue;
    out.push({
      approval,
      missingCount: evaluateQuorum(approval.quorum ?? SINGLE_APPROVER, votes).missingCount,
    });
  }
  return out;
}

/** One request as stored; null when it does not exist (or the store cannot say). */
export function findApproval(deps: RunsDeps, approvalId: string): Promise<Approval | null> {
  return deps.access.store.approvals
    .get(approvalId)
    .then(ofThisInstallation)
    .catch(() => null);
}

/**
 * The request as a person about to decide it sees it: null where it does not exist for them — not in this
 * installation, or they are not of it (many workspaces: another workspace's approver is shown nothing).
 */
export function findApprovalFor(deps: RunsDeps, actor: Actor, approvalId: string): Promise<Approval | null> {
  return actor.installationMember === false ? Promise.resolve(null) : findApproval(deps, approvalId);
}

/**
 * Whether this approver's click left no mark (the request still pending and no vote of theirs): a click
 * that failed half-way may then be tried again. Unknown (the store cannot say) counts as a mark.
 */
export async function leftNoMark(deps: RunsDeps, approvalId: string, userId: string): Promise<boolean> {
  try {
    const approval = ofThisInstallation(await deps.access.store.approvals.get(approvalId));
    if (approval?.state !== 'pending') return false;
    const votes = await deps.access.store.approvals.votes(approvalId);
    return !votes.some((v) => v.userId === userId);
  } catch {
    return false;
  }
}

/** Where a request's messages were posted, so expiry and decisions can update them. */
export function recordApprovalMessages(deps: RunsDeps, approvalId: string, messages: ApprovalMessages): Promise<void> {
  return deps.access.store.approvals.setMessages(approvalId, messages);
}

/** What a request asks for: a run now, or a schedule (with its cron). */
export function askOf(approval: Pick<Approval, 'params'>): ApprovalAsk {
  return decodeAsk(approval);
}

/** Whether a request needs more than one approver (its quorum), for how it is worded. */
export function needsSeveralApprovals(approval: Pick<Approval, 'quorum'>): boolean {
  return isQuorum(approval.quorum);
}

/**
 * Who may approve, described for one installation: of the people the policy names, only `here` (those
 * Slack puts in the installation; the caller asks) are named, and of its groups only `groupsHere` (the
 * installation's own; null: all), so nobody and no group of another workspace is mentioned; where every
 * named one is elsewhere it says so, never "anyone".
 */
export function describeApproversAmong(
  need: Pick<ApprovalNeed, 'approverUsers' | 'approverGroups'>,
  here: readonly string[],
  groupsHere: Pick<GroupsHere, 'has'> | null,
): string {
  return describeApprovers(need, { groups: groupsHere, users: new Set(here) });
}

/**
 * Who may approve a request now, described for people (its runbook's rules where it was asked; anyone when
 * it is gone), naming only the people `isHere` says belong to the installation (default: all).
 */
export async function approversOf(
  deps: RunsDeps,
  approval: Pick<Approval, 'runbookId' | 'requesterTeam'>,
  isHere: (userId: string) => Promise<boolean> = async () => true,
): Promise<string> {
  const runbook = await deps.catalog.get(approval.runbookId).catch(() => null);
  if (!runbook) return describeApprovers({ approverUsers: [], approverGroups: [] });
  const need = approvalNeedFor(deps, runbook, requestPlace(approval));
  const here: string[] = [];
  for (const user of need.approverUsers) if (await isHere(user)) here.push(user);
  return describeApproversAmong(need, here, deps.access.policy.groupsHere);
}
