// Approve, Reject and expiry of approval requests: each one use case from src/runs/approvals.ts, its
// result rendered here, and both copies of the request brought in step (../kit/approval-request.ts).
import type { WebClient } from '@slack/web-api';
import {
  approveRequest as approve,
  expireApprovals as expire,
  needsSeveralApprovals,
  rejectRequest as reject,
} from '../../runs/approvals.ts';
import { actorFor } from '../kit/actor.ts';
import { refreshApprovalMessages } from '../kit/approval-request.ts';
import { errorMessage, noticeMessage } from '../kit/common.ts';
import type { SlackDeps } from '../kit/deps.ts';
import { describeFailure } from '../kit/describe-failure.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import { escapeMrkdwn, userMention } from '../kit/mrkdwn.ts';
import { postToConversation, slackErrorCode } from '../kit/post-to-conversation.ts';
import { postRunningCard } from '../kit/run-start.ts';

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
    const sentence = `:hourglass: This request to run *${name}* expired without ${needsSeveralApprovals(approval) ? 'enough approvals' : 'a decision'}; nothing was run.`;
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
