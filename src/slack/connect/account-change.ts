// When a workspace's Runbook API account changes (a key of another account, or Disconnect), what was open
// under the old one has ended (src/runs/api-connection.ts's endAccountWork); here everyone it concerns is
// told once: each followed run's card is edited to a final state, each closed request's copies are redrawn
// with a sentence in its thread and to its requester, whoever paused a schedule gets its real times, and
// each subscribed channel hears its subscription ended. Each message is tried once; a failure is logged.
import type { KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { AccountWork } from '../../runs/api-connection.ts';
import type { Watch } from '../../store/store.ts';
import { refreshApprovalMessages } from '../kit/approval-request.ts';
import { noticeMessage, when } from '../kit/common.ts';
import type { SlackDeps } from '../kit/deps.ts';
import { escapeMrkdwn, mrkdwnText, userMention } from '../kit/mrkdwn.ts';
import { postToConversation, slackErrorCode } from '../kit/post-to-conversation.ts';

export interface AccountChange {
  /** Who replaced or removed the connection. */
  by: string;
  at: number;
  how: 'replaced' | 'removed';
  /** The old connection's address, where the runs can still be looked up. */
  baseUrl: string;
}

/** "this workspace's Runbook API connection was replaced by @x <time>" */
function changeSentence(change: AccountChange): string {
  const how = change.how === 'replaced' ? 'replaced with a key of another account' : 'removed';
  return `this workspace’s Runbook API connection was ${how} by ${userMention(change.by)} ${when(new Date(change.at).toISOString())}`;
}

/** The final state of a card whose run is no longer followed. */
export function unfollowedCard(watch: Watch, change: AccountChange): { text: string; blocks: KnownBlock[] } {
  const name = escapeMrkdwn(watch.runbookName);
  const id = escapeMrkdwn(watch.executionId);
  return {
    text: `${watch.runbookName} (${watch.executionId}) is no longer followed`,
    blocks: [
      {
        type: 'section',
        text: mrkdwnText(
          `:heavy_minus_sign: *${name}* \`${id}\` is no longer followed: ${changeSentence(change)}, so its result will not be posted here. Look the run up in the Runbook API at \`${escapeMrkdwn(change.baseUrl)}\`.`,
        ),
      },
      ...(watch.startedBy
        ? [
            {
              type: 'context' as const,
              elements: [mrkdwnText(`Started by ${userMention(watch.startedBy)}`)],
            },
          ]
        : []),
    ],
  };
}

export async function tellAccountEnded(
  deps: SlackDeps,
  client: WebClient,
  work: AccountWork,
  change: AccountChange,
): Promise<void> {
  const warn = (what: string) => (err: unknown) => deps.logger.warn({ err: slackErrorCode(err) ?? err }, what);
  const because = changeSentence(change);
  for (const watch of work.watches) {
    if (!watch.messageTs) continue;
    await client.chat
      .update({ channel: watch.channel, ts: watch.messageTs, ...unfollowedCard(watch, change) })
      .catch(warn('could not finish the card of a run no longer followed'));
  }
  for (const approval of work.requests) {
    await refreshApprovalMessages(deps, client, approval.id);
    const name = escapeMrkdwn(approval.runbookName);
    if (approval.approversChannel && approval.approversTs) {
      await client.chat
        .postMessage({
          channel: approval.approversChannel,
          thread_ts: approval.approversTs,
          ...noticeMessage(
            `:heavy_minus_sign: This request to run *${name}* is closed: ${because}. Nothing was run.`,
            'Request closed',
          ),
        })
        .catch(warn('could not say a request closed'));
    }
    await postToConversation(
      client,
      deps.logger,
      null,
      approval.requesterId,
      noticeMessage(
        `:heavy_minus_sign: Your request to run *${name}* is closed before it was approved: ${because}. Nothing was run; ask again with \`/runbook run\` if it is still needed.`,
        `Your request to run ${approval.runbookName} is closed`,
      ),
    );
  }
  for (const pause of work.pauses) {
    await postToConversation(
      client,
      deps.logger,
      null,
      pause.pausedBy,
      noticeMessage(
        `:heavy_minus_sign: The schedule \`${escapeMrkdwn(pause.scheduleId)}\` of *${escapeMrkdwn(pause.runbookName)}* you paused stays paused in the previous Runbook API account (\`${escapeMrkdwn(change.baseUrl)}\`): ${because}, so it can no longer be resumed from Slack. Its real times were \`${escapeMrkdwn(pause.cron)}\`: set them there again to resume it.`,
        `The schedule of ${pause.runbookName} you paused can no longer be resumed from Slack`,
      ),
    );
  }
  // One message to each maker of schedules made in Slack (a paused one was said above): they keep firing
  // in the old account, where only it can change them.
  const paused = new Set(work.pauses.map((p) => p.scheduleId));
  const madeBy = new Map<string, string[]>();
  for (const o of work.schedules) {
    if (!paused.has(o.scheduleId)) madeBy.set(o.userId, [...(madeBy.get(o.userId) ?? []), o.scheduleId]);
  }
  for (const [userId, ids] of madeBy) {
    const listed = ids
      .slice(0, 20)
      .map((id) => `\`${escapeMrkdwn(id)}\``)
      .join(', ');
    const more = ids.length > 20 ? ` and ${ids.length - 20} more` : '';
    await postToConversation(
      client,
      deps.logger,
      null,
      userId,
      noticeMessage(
        `:heavy_minus_sign: ${ids.length === 1 ? 'The schedule' : 'The schedules'} you made in Slack (${listed}${more}) keep running in the previous Runbook API account (\`${escapeMrkdwn(change.baseUrl)}\`): ${because}, so ${ids.length === 1 ? 'it' : 'they'} can no longer be changed from Slack. Change or delete ${ids.length === 1 ? 'it' : 'them'} there.`,
        'Your schedules made in Slack can no longer be changed from Slack',
      ),
    );
  }
  for (const subscription of work.subscriptions) {
    await client.chat
      .postMessage({
        channel: subscription.channel,
        ...noticeMessage(
          `:heavy_minus_sign: This channel no longer gets notices of *${escapeMrkdwn(subscription.runbookName)}*: ${because}. Subscribe again with \`/runbook subscribe\` if the new account has it.`,
          `This channel no longer gets notices of ${subscription.runbookName}`,
        ),
      })
      .catch(warn('could not say a subscription ended'));
  }
}
