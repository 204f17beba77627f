// Approval requests on Slack: posting a request (stored by the use case) to the approvers and a copy
// to the requester, keeping both messages in step with the decision, and the Approve / Reject / expiry
// paths, each one use case from src/runs/approvals.ts rendered here.
import type { WebClient } from '@slack/web-api';
import { decodeAsk } from '../../policy/approvals.ts';
import { type ApprovalNeed, describeApprovers } from '../../policy/policy.ts';
import { isQuorum } from '../../policy/quorum.ts';
import {
  approvalProgress,
  approveRequest as approve,
  expireApprovals as expire,
  rejectRequest as reject,
} from '../../runs/approvals.ts';
import { runbookFacts } from '../../runs/gate.ts';
import { describeCron } from '../../schedules/cron.ts';
import type { Approval } from '../../store/store.ts';
import { actorFor } from '../actor.ts';
import { type ApprovalViewOptions, buildApprovalNotice, buildApprovalRequest } from '../blocks/approval.ts';
import { errorMessage, noticeMessage, type SlackMessage } from '../blocks/common.ts';
import { escapeMrkdwn, userMention } from '../blocks/mrkdwn.ts';
import { buildScheduleApprovalNotice, buildScheduleApprovalRequest } from '../blocks/schedule-approval.ts';
import type { SlackDeps } from '../deps.ts';
import { describeFailure } from '../describe-failure.ts';
import { permalinkOf, postToConversation, slackErrorCode } from '../post-to-conversation.ts';
import type { HandlerContext } from './context.ts';
import { postRunningCard } from './run.ts';

function englishCron(cron: string): string {
  try {
    return describeCron(cron);
  } catch {
    return cron;
  }
}

/** The approvers' message and the requester's copy of a request, as it stands. */
function messagesOf(
  approval: Approval,
  approvers: string,
  options: ApprovalViewOptions = {},
): { request: SlackMessage; notice: SlackMessage } {
  const ask = decodeAsk(approval);
  if (ask.kind === 'schedule') {
    const text = {
      cron: ask.schedule.cron,
      english: englishCron(ask.schedule.cron),
      edit: ask.schedule.scheduleId !== null,
    };
    return {
      request: buildScheduleApprovalRequest(approval, approvers, text, options),
      notice: buildScheduleApprovalNotice(approval, approvers, text, options),
    };
  }
  return {
    request: buildApprovalRequest(approval, approvers, options),
    notice: buildApprovalNotice(approval, approvers, options),
  };
}

/** The link to an approved run's live card, once it is posted. */
async function cardLinkOf(deps: SlackDeps, client: WebClient, approval: Approval): Promise<string | null> {
  const executionId = approval.executionIds[0];
  if (!executionId) return null;
  const watch = await deps.access.store.watches.get(executionId).catch(() => null);
  return permalinkOf(client, watch ? { channel: watch.channel, ts: watch.messageTs } : null);
}

/** The quorum's state, the proxy's display name and the run's card, for both copies of a request. */
async function viewOptions(deps: SlackDeps, client: WebClient, approval: Approval): Promise<ApprovalViewOptions> {
  const progress = await approvalProgress(deps, approval).catch(() => undefined);
  const proxyName = deps.proxies.nameOf(approval.proxyId);
  const cardLink = await cardLinkOf(deps, client, approval);
  return { ...(progress ? { progress } : {}), proxyName, cardLink };
}

/** Posts a stored request to the approvers (APPROVALS_CHANNEL, else where the result goes, else a DM) and DMs the requester. */
export async function publishApprovalRequest(
  deps: SlackDeps,
  client: WebClient,
  approval: Approval,
  need: ApprovalNeed,
): Promise<void> {
  const { request, notice } = messagesOf(approval, describeApprovers(need), await viewOptions(deps, client, approval));
  const target = deps.access.approvalsChannel ?? (approval.channel || null);
  const posted = await postToConversation(client, deps.logger, target, approval.requesterId, request);
  // Recorded at once, so an expiry or a decision right after the post finds the message to update.
  if (posted) {
    await deps.access.store.approvals.setMessages(approval.id, {
      approversChannel: posted.channel,
      approversTs: posted.ts,
    });
  }
  const dm = await client.conversations.open({ users: approval.requesterId }).catch(() => null);
  const copy = dm?.channel?.id
    ? await postToConversation(client, deps.logger, dm.channel.id, approval.requesterId, notice)
    : null;
  if (copy?.ts && copy.channel) {
    await deps.access.store.approvals.setMessages(approval.id, {
      requesterChannel: copy.channel,
      requesterTs: copy.ts,
    });
  }
}

/** Rewrites both copies of the request to show its current state. Never throws. */
export async function refreshApprovalMessages(deps: SlackDeps, client: WebClient, approvalId: string): Promise<void> {
  const approval = await deps.access.store.approvals.get(approvalId);
  if (!approval) return;
  const runbook = await deps.catalog.get(approval.runbookId).catch(() => null);
  const approvers = describeApprovers(
    runbook ? deps.access.policy.approvalFor(runbookFacts(deps, runbook)) : { approverUsers: [], approverGroups: [] },
  );
  const { request, notice } = messagesOf(approval, approvers, await viewOptions(deps, client, approval));
  const updates: Array<[string | null, string | null, SlackMessage]> = [
    [approval.approversChannel, approval.approversTs, request],
    [approval.requesterChannel, approval.requesterTs, notice],
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

export async function approveRequest(ctx: HandlerContext, approvalId: string): Promise<void> {
  const { deps, client } = ctx;
  const approver = await actorFor(deps, client, ctx);
  const result = await approve(
    deps,
    approver,
    approvalId,
    (userId) => deps.access.identity.emailOf(client, userId),
    // A quorum is decided on current membership, not the cached one.
    (userId) => deps.access.identity.groupsOf(client, userId, { fresh: true }),
  );
  switch (result.kind) {
    case 'refused':
      await ctx.respond(errorMessage(result.sentence));
      return;
    case 'already': {
      const by = result.approval.decidedBy ? ` by ${userMention(result.approval.decidedBy)}` : '';
      await ctx.respond(
        noticeMessage(`That request was already ${result.approval.state}${by}.`, `Already ${result.approval.state}`),
      );
      break;
    }
    case 'lost':
      await ctx.respond(noticeMessage('Someone else decided this request first.', 'Already decided'));
      break;
    case 'voted': {
      const { progress } = result;
      const groups = progress.missingGroups.map((g) => `<!subteam^${g}>`).join(', ');
      const still = `${progress.missingCount} more ${progress.missingCount === 1 ? 'approval is' : 'approvals are'} needed${groups ? `, one from each of ${groups}` : ''}`;
      const first = result.again ? 'You already approved this request' : 'Your approval is recorded';
      await ctx.respond(noticeMessage(`:white_check_mark: ${first}; ${still} before it runs.`, first));
      break;
    }
    case 'approved': {
      const { outcome } = result;
      if (outcome.kind === 'run' && outcome.result.kind === 'started')
        await postRunningCard(deps, client, outcome.result.run);
      else if (outcome.kind === 'run' && outcome.result.kind === 'failed') {
        const sentence = `${result.approval.runbookName} did not start. ${describeFailure(outcome.result.error)}`;
        await postToConversation(client, deps.logger, result.approval.channel || null, result.approval.requesterId, {
          ...errorMessage(sentence),
          ephemeralTo: result.approval.requesterId,
        });
      } else if (outcome.kind === 'schedule' && outcome.result.kind === 'failed') {
        await ctx.respond(errorMessage(`The schedule was not saved. ${describeFailure(outcome.result.error)}`));
      }
      break;
    }
    case 'rejected':
      break;
  }
  await refreshApprovalMessages(deps, client, approvalId);
}

export async function rejectRequest(ctx: HandlerContext, approvalId: string, reason: string): Promise<void> {
  const approver = await actorFor(ctx.deps, ctx.client, ctx);
  const result = await reject(ctx.deps, approver, approvalId, reason);
  if (result.kind === 'refused') {
    await ctx.respond(errorMessage(result.sentence));
    return;
  }
  if (result.kind === 'lost' || result.kind === 'already') {
    await ctx.respond(noticeMessage('Someone else decided this request first.', 'Already decided'));
  }
  await refreshApprovalMessages(ctx.deps, ctx.client, approvalId);
}

/**
 * Marks overdue requests expired, updates both copies, says so in the request's thread (so the approvers
 * see it went nowhere) and tells the requester in a new DM (an edit alone notifies nobody); run periodically.
 */
export async function expireApprovals(deps: SlackDeps, client: WebClient): Promise<number> {
  const expired = await expire(deps);
  for (const approval of expired) {
    await refreshApprovalMessages(deps, client, approval.id);
    const name = escapeMrkdwn(approval.runbookName);
    const sentence = `:hourglass: This request to run *${name}* expired without ${isQuorum(approval.quorum) ? 'enough approvals' : 'a decision'}; nothing was run.`;
    if (approval.approversChannel && approval.approversTs) {
      await client.chat
        .postMessage({
          channel: approval.approversChannel,
          thread_ts: approval.approversTs,
          ...noticeMessage(sentence, 'Request expired'),
        })
        .catch((err: unknown) => deps.logger.warn({ err: slackErrorCode(err) ?? err }, 'could not post the expiry'));
    }
    const told = noticeMessage(
      `:hourglass: Your request to run *${name}* expired before it was approved, so nothing was run. Ask again with \`/runbook run\` if it is still needed.`,
      `Your request to run ${approval.runbookName} expired`,
    );
    await postToConversation(client, deps.logger, null, approval.requesterId, told);
  }
  return expired.length;
}
