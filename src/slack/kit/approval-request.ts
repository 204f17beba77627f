// Approval requests on Slack: posting a request (stored by the use case) to the approvers and a copy
// to the requester, and keeping both messages in step with the decision (../approvals/ decides).
import type { WebClient } from '@slack/web-api';
import {
  approvalProgress,
  approversOf,
  askOf,
  describeApproversAmong,
  findApproval,
  recordApprovalMessages,
} from '../../runs/approvals.ts';
import type { RunApprovalNeed } from '../../runs/gate.ts';
import { groupsHereOf } from '../../runs/installation-settings.ts';
import { describeCron } from '../../schedules/cron.ts';
import type { Approval } from '../../store/store.ts';
import { installationKey } from '../../tenants/tenant-scope.ts';
import { type ApprovalViewOptions, buildApprovalNotice, buildApprovalRequest } from './approval.ts';
import type { SlackMessage } from './common.ts';
import type { SlackDeps } from './deps.ts';
import { permalinkOf, postToConversation, slackErrorCode } from './post-to-conversation.ts';
import { buildScheduleApprovalMessages } from './schedule-approval.ts';
import { memberOfInstallation } from './standing.ts';

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
  const ask = askOf(approval);
  if (ask.kind === 'schedule') {
    const { cron, scheduleId } = ask.schedule;
    const text = { cron, english: englishCron(cron), edit: scheduleId !== null };
    return buildScheduleApprovalMessages(approval, approvers, text, options);
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
  const watch = await deps.access.store.watches.get(executionId, installationKey()).catch(() => null);
  return permalinkOf(client, watch ? { channel: watch.channel, ts: watch.messageTs } : null);
}

/** The quorum's state, the proxy's display name and the run's card, for both copies of a request. */
async function viewOptions(deps: SlackDeps, client: WebClient, approval: Approval): Promise<ApprovalViewOptions> {
  const progress = await approvalProgress(deps, approval).catch(() => undefined);
  const proxyName = deps.proxies.nameOf(approval.proxyId);
  const cardLink = await cardLinkOf(deps, client, approval);
  return { ...(progress ? { progress } : {}), proxyName, cardLink, groupsHere: groupsHereOf(deps.access) };
}

/** At most this many approvers get a request by DM (without APPROVALS_CHANNEL). */
const MAX_APPROVER_DMS = 20;

/**
 * The people named as approvers (users, and members of the named groups, read with this installation's
 * token), the requester left out. Many workspaces: only those Slack says belong to this installation — a
 * user id the operator's policy names may be a person of another workspace, who is never told of it — and
 * only the installation's own groups are read (policy.groupsHere; an org-wide install names the group's
 * workspace, `team_id`, as Slack requires of its token).
 */
async function approverIds(
  deps: SlackDeps,
  client: WebClient,
  need: RunApprovalNeed,
  requesterId: string,
): Promise<{ ids: string[]; elsewhere: number }> {
  const people = new Set(need.approverUsers);
  const here = groupsHereOf(deps.access);
  for (const group of need.approverGroups) {
    if (here && !here.has(group)) continue;
    const team = here?.get(group) ?? null;
    const res = await client.usergroups.users
      .list(team ? { usergroup: group, team_id: team } : { usergroup: group })
      .catch(() => null);
    for (const user of res?.users ?? []) people.add(user);
  }
  people.delete(requesterId);
  const ids: string[] = [];
  let elsewhere = 0;
  for (const person of people) {
    if (ids.length >= MAX_APPROVER_DMS) break;
    if (await memberOfInstallation(deps, client, person)) ids.push(person);
    else elsewhere++;
  }
  return { ids, elsewhere };
}

/**
 * Posts a stored request to the approvers and DMs the requester. Where: APPROVALS_CHANNEL; else each named
 * approver by DM; else (anyone may approve) the channel the requester acted in. Never where the result is
 * to go (a destination, possibly a channel default, is chosen for results, not for requests with inputs).
 * The first message posted is the one kept in step with the decision.
 */
export async function publishApprovalRequest(
  deps: SlackDeps,
  client: WebClient,
  approval: Approval,
  need: RunApprovalNeed,
  /** The channel the requester acted in (null: App Home, a shortcut). */
  actedIn: string | null,
): Promise<void> {
  // Named as approvers in the messages: only those of this installation (a mention would notify others).
  const here: string[] = [];
  for (const user of need.approverUsers) if (await memberOfInstallation(deps, client, user)) here.push(user);
  const approvers = describeApproversAmong(need, here, groupsHereOf(deps.access));
  const { request, notice } = messagesOf(approval, approvers, await viewOptions(deps, client, approval));
  const post = (channel: string | null, userId: string) =>
    postToConversation(client, deps.logger, channel, userId, request);
  const landed: Array<{ channel: string; ts: string }> = [];
  const keep = (at: { channel: string; ts: string } | null) => {
    if (at) landed.push(at);
  };
  if (deps.access.approvalsChannel) keep(await post(deps.access.approvalsChannel, approval.requesterId));
  else {
    const approvers = await approverIds(deps, client, need, approval.requesterId);
    for (const approver of approvers.ids) keep(await post(null, approver));
    // Anyone may approve: the channel the requester acted in (never when the named ones are elsewhere).
    if (approvers.ids.length === 0 && approvers.elsewhere === 0 && actedIn) {
      keep(await post(actedIn, approval.requesterId));
    }
    if (landed.length === 0) {
      deps.logger.warn(
        { approvalId: approval.id, approversElsewhere: approvers.elsewhere },
        'the approval request reached nobody; approvers see it in App Home',
      );
    }
  }
  // Recorded at once, so an expiry or a decision right after the post finds the message to update.
  const first = landed[0];
  if (first) {
    await recordApprovalMessages(deps, approval.id, {
      approversChannel: first.channel,
      approversTs: first.ts,
    });
  }
  const dm = await client.conversations.open({ users: approval.requesterId }).catch(() => null);
  const copy = dm?.channel?.id
    ? await postToConversation(client, deps.logger, dm.channel.id, approval.requesterId, notice)
    : null;
  if (copy?.ts && copy.channel) {
    await recordApprovalMessages(deps, approval.id, {
      requesterChannel: copy.channel,
      requesterTs: copy.ts,
    });
  }
}

/** Rewrites both copies of the request to show its current state. Never throws. */
export async function refreshApprovalMessages(deps: SlackDeps, client: WebClient, approvalId: string): Promise<void> {
  const approval = await findApproval(deps, approvalId);
  if (!approval) return;
  const { request, notice } = messagesOf(
    approval,
    await approversOf(deps, approval, (user) => memberOfInstallation(deps, client, user)),
    await viewOptions(deps, client, approval),
  );
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
