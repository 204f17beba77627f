// Expiry of approval requests (run periodically by src/runtime.ts): the use case marks them expired;
// both copies are brought in step (../kit/approval-request.ts) and both sides are told.
import type { WebClient } from '@slack/web-api';
import { expireApprovals, needsSeveralApprovals } from '../../runs/approvals.ts';
import type { Approval } from '../../store/store.ts';
import { refreshApprovalMessages } from '../kit/approval-request.ts';
import { noticeMessage } from '../kit/common.ts';
import type { SlackDeps } from '../kit/deps.ts';
import { escapeMrkdwn } from '../kit/mrkdwn.ts';
import { postToConversation, slackErrorCode } from '../kit/post-to-conversation.ts';

/**
 * Marks overdue requests expired, updates both copies, says so in the request's thread (so the approvers
 * see it went nowhere) and tells the requester in a new DM (an edit alone notifies nobody); run periodically.
 */
export async function announceExpiredApprovals(
  deps: SlackDeps,
  client: WebClient,
  /** Runs one request's notices in its workspace's scope (many-workspace mode); default: as is. */
  inTenant: <T>(teamId: string | null, work: () => Promise<T>) => Promise<T> = (_teamId, work) => work(),
): Promise<number> {
  const expired = await expireApprovals(deps);
  for (const approval of expired) await inTenant(approval.requesterTeam, () => tellExpired(deps, client, approval));
  return expired.length;
}

async function tellExpired(deps: SlackDeps, client: WebClient, approval: Approval): Promise<void> {
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
