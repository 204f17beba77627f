// Runs that need approval: the request (stored, posted to the approvers, copied to the requester),
// the decision (only permitted approvers, never the requester; a compare-and-set in the store so two
// approvers clicking at once — or two replicas — still produce exactly one run), and expiry.
import type { WebClient } from '@slack/web-api';
import { describeApiError } from '../../api/errors.ts';
import type { Workflow } from '../../api/schemas.ts';
import { parseInputSchema } from '../../forms/input-schema.ts';
import { maskSecrets } from '../../forms/secrets.ts';
import { type ApprovalNeed, describeApprovers } from '../../policy/policy.ts';
import type { Approval } from '../../store/store.ts';
import { buildApprovalNotice, buildApprovalRequest } from '../blocks/approval.ts';
import { errorMessage, noticeMessage } from '../blocks/common.ts';
import type { SlackDeps } from '../deps.ts';
import { postToConversation, slackErrorCode } from '../post-to-conversation.ts';
import { runbookFacts, subjectOf } from './access.ts';
import type { HandlerContext } from './context.ts';
import { loadRunbook, startRun } from './run.ts';

export interface ApprovalRequestInput {
  runbook: Workflow;
  proxyId: string;
  params: Record<string, unknown>;
  channel: string | null;
  userId: string;
  teamId: string | null;
  need: ApprovalNeed;
}

/** Stores the request, posts it to the approvers and tells the requester. */
export async function requestApproval(
  deps: SlackDeps,
  client: WebClient,
  input: ApprovalRequestInput,
): Promise<Approval> {
  const { access } = deps;
  const now = deps.now();
  const masked = maskSecrets(parseInputSchema(input.runbook.inputSchema), input.params);
  const approval = await access.store.approvals.create(
    {
      runbookId: input.runbook.id,
      runbookName: input.runbook.name,
      proxyId: input.proxyId,
      params: JSON.stringify(input.params),
      paramsMasked: JSON.stringify(masked),
      requesterId: input.userId,
      requesterTeam: input.teamId,
      channel: input.channel ?? '',
      expiresAt: now + access.approvalTtlMs,
    },
    now,
  );
  const approvers = describeApprovers(input.need);
  // Approvers' channel: APPROVALS_CHANNEL, else the channel the result goes to, else the requester's DM.
  const target = access.approvalsChannel ?? input.channel;
  const posted = await postToConversation(
    client,
    deps.logger,
    target,
    input.userId,
    buildApprovalRequest(approval, approvers),
  );
  const dm = await client.conversations.open({ users: input.userId }).catch(() => null);
  const notice = dm?.channel?.id
    ? await client.chat
        .postMessage({ channel: dm.channel.id, ...buildApprovalNotice(approval, approvers) })
        .catch((err: unknown) => {
          deps.logger.warn({ err: slackErrorCode(err) ?? err }, 'could not DM the requester');
          return null;
        })
    : null;
  await access.store.approvals.setMessages(approval.id, {
    ...(posted ? { approversChannel: posted.channel, approversTs: posted.ts } : {}),
    ...(notice?.ts && notice.channel ? { requesterChannel: notice.channel, requesterTs: notice.ts } : {}),
  });
  await access.audit.record({
    userId: input.userId,
    teamId: input.teamId,
    channel: input.channel,
    action: 'run.approval_requested',
    target: `${input.runbook.name} (${input.runbook.id})`,
    outcome: 'ok',
    detail: `approval ${approval.id}; inputs ${JSON.stringify(masked)}`,
    tid: null,
  });
  return (await access.store.approvals.get(approval.id)) ?? approval;
}

/** Rewrites both copies of the request to show its current state. Never throws. */
export async function refreshApprovalMessages(deps: SlackDeps, client: WebClient, approvalId: string): Promise<void> {
  const approval = await deps.access.store.approvals.get(approvalId);
  if (!approval) return;
  const runbook = await deps.catalog.get(approval.runbookId).catch(() => null);
  const approvers = describeApprovers(
    runbook ? deps.access.policy.approvalFor(runbookFacts(deps, runbook)) : { approverUsers: [], approverGroups: [] },
  );
  const updates: Array<[string | null, string | null, ReturnType<typeof buildApprovalRequest>]> = [
    [approval.approversChannel, approval.approversTs, buildApprovalRequest(approval, approvers)],
    [approval.requesterChannel, approval.requesterTs, buildApprovalNotice(approval, approvers)],
  ];
  for (const [channel, ts, message] of updates) {
    if (!channel || !ts) continue;
    await client.chat
      .update({ channel, ts, text: message.text, blocks: message.blocks })
      .catch((err: unknown) =>
        deps.logger.warn({ err: slackErrorCode(err) ?? err }, 'could not update an approval message'),
      );
  }
}

async function loadApproval(ctx: HandlerContext, approvalId: string) {
  const approval = await ctx.deps.access.store.approvals.get(approvalId);
  if (!approval) {
    await ctx.respond(errorMessage('That approval request no longer exists.'));
    return null;
  }
  if (approval.state !== 'pending') {
    const by = approval.decidedBy ? ` by <@${approval.decidedBy}>` : '';
    await ctx.respond(noticeMessage(`That request was already ${approval.state}${by}.`, `Already ${approval.state}`));
    await refreshApprovalMessages(ctx.deps, ctx.client, approval.id);
    return null;
  }
  let runbook: Workflow;
  try {
    runbook = (await ctx.deps.catalog.get(approval.runbookId)) ?? (await loadRunbook(ctx.deps, approval.runbookId));
  } catch (err) {
    await ctx.respond(errorMessage(`The runbook could not be loaded. ${describeApiError(err)}`));
    return null;
  }
  return { approval, runbook };
}

/** Checks the clicker may decide; tells them and audits the denial if not. */
async function mayDecide(ctx: HandlerContext, approval: Approval, runbook: Workflow, action: string): Promise<boolean> {
  const subject = await subjectOf(ctx.deps, ctx.client, ctx.userId, ctx.channelId);
  const decision = ctx.deps.access.policy.canApprove(subject, runbookFacts(ctx.deps, runbook), approval.requesterId);
  if (decision.allowed) return true;
  await ctx.respond(errorMessage(decision.message));
  await ctx.deps.access.audit.record({
    userId: ctx.userId,
    teamId: ctx.teamId,
    channel: ctx.channelId,
    action,
    target: `approval ${approval.id} (${approval.runbookName})`,
    outcome: 'denied',
    detail: decision.message,
    tid: null,
  });
  return false;
}

export async function approveRequest(ctx: HandlerContext, approvalId: string): Promise<void> {
  const loaded = await loadApproval(ctx, approvalId);
  if (!loaded) return;
  const { approval, runbook } = loaded;
  if (!(await mayDecide(ctx, approval, runbook, 'approval.approve'))) return;
  const { deps, client } = ctx;
  // The compare-and-set is what makes a double click (or two replicas) produce one run.
  const won = await deps.access.store.approvals.decide(approval.id, 'approved', ctx.userId, null, deps.now());
  if (!won) {
    await ctx.respond(noticeMessage('Someone else decided this request first.', 'Already decided'));
    await refreshApprovalMessages(deps, client, approval.id);
    return;
  }
  await refreshApprovalMessages(deps, client, approval.id);
  let params: Record<string, unknown> = {};
  try {
    params = JSON.parse(approval.params) as Record<string, unknown>;
  } catch {
    params = {};
  }
  const email = await deps.access.identity.emailOf(client, approval.requesterId);
  const result = await startRun(deps, client, {
    runbook,
    proxyId: approval.proxyId,
    params,
    channel: approval.channel || null,
    userId: approval.requesterId,
    teamId: approval.requesterTeam,
    ...(email ? { userEmail: email } : {}),
    requestId: approval.id,
    approvedBy: ctx.userId,
  });
  await deps.access.store.approvals.setRunResult(
    approval.id,
    result.executionIds,
    result.ok ? null : (result.error ?? 'the run did not start'),
    deps.now(),
  );
  await deps.access.audit.record({
    userId: ctx.userId,
    teamId: ctx.teamId,
    channel: ctx.channelId,
    action: 'approval.approve',
    target: `approval ${approval.id} (${approval.runbookName})`,
    outcome: result.ok ? 'ok' : 'error',
    detail: result.ok ? `executions ${result.executionIds.join(', ')}` : (result.error ?? null),
    tid: result.tid ?? null,
  });
  await refreshApprovalMessages(deps, client, approval.id);
}

export async function rejectRequest(ctx: HandlerContext, approvalId: string, reason: string): Promise<void> {
  const loaded = await loadApproval(ctx, approvalId);
  if (!loaded) return;
  const { approval, runbook } = loaded;
  if (!(await mayDecide(ctx, approval, runbook, 'approval.reject'))) return;
  const won = await ctx.deps.access.store.approvals.decide(approval.id, 'rejected', ctx.userId, reason, ctx.deps.now());
  await ctx.deps.access.audit.record({
    userId: ctx.userId,
    teamId: ctx.teamId,
    channel: ctx.channelId,
    action: 'approval.reject',
    target: `approval ${approval.id} (${approval.runbookName})`,
    outcome: won ? 'ok' : 'error',
    detail: won ? `reason: ${reason}` : 'already decided',
    tid: null,
  });
  if (!won) await ctx.respond(noticeMessage('Someone else decided this request first.', 'Already decided'));
  await refreshApprovalMessages(ctx.deps, ctx.client, approval.id);
}

/** Marks overdue requests expired and updates their messages; run periodically. */
export async function expireApprovals(deps: SlackDeps, client: WebClient): Promise<number> {
  const now = deps.now();
  const due = await deps.access.store.approvals.listExpired(now, 50);
  let expired = 0;
  for (const approval of due) {
    if (await deps.access.store.approvals.decide(approval.id, 'expired', null, null, now)) {
      expired++;
      await deps.access.audit.record({
        userId: null,
        teamId: approval.requesterTeam,
        channel: approval.channel || null,
        action: 'approval.expire',
        target: `approval ${approval.id} (${approval.runbookName})`,
        outcome: 'ok',
        detail: null,
        tid: null,
      });
      await refreshApprovalMessages(deps, client, approval.id);
    }
  }
  return expired;
}
