// Approval surfaces: the request in the approvers' channel (Approve / Reject), the requester's
// copy that follows the decision, and the modal asking a rejecting approver for a reason.
import type { KnownBlock, ModalView } from '@slack/types';
import type { GroupsHere } from '../../policy/policy.ts';
import { ACCOUNT_CHANGED } from '../../runs/approvals.ts';
import type { Approval } from '../../store/store.ts';
import { button, type SlackMessage, when } from './common.ts';
import { formatInputs } from './execution-card.ts';
import { ACTIONS, BLOCKS, VIEWS } from './ids.ts';
import { type CardInputs, toLabelledInputs } from './input-summary.ts';
import { channelMention, escapeMrkdwn, mrkdwnText, plainText, slackLink, truncate, userMention } from './mrkdwn.ts';
import { peopleText, personText, proxyText } from './people.ts';

/** Where a quorum stands: who approved so far and what is still needed (from src/policy/quorum.ts). */
export interface ApprovalProgress {
  approvers: readonly string[];
  missingCount: number;
  /** User group ids still to be covered by an approver. */
  missingGroups: readonly string[];
}

function inputsOf(approval: Approval): CardInputs {
  try {
    const v = JSON.parse(approval.paramsMasked) as unknown;
    return v && typeof v === 'object' ? toLabelledInputs(v) : {};
  } catch {
    return {};
  }
}

/**
 * A quorum's group, mentioned — unless `groupsHere` (the installation's own groups, many workspaces) does
 * not have it: another workspace's group is never mentioned (in a shared channel it would notify another
 * company's people).
 */
export function groupMention(groupId: string, groupsHere: Pick<GroupsHere, 'has'> | null = null): string {
  if (groupsHere && !groupsHere.has(groupId)) return 'a user group of another workspace';
  return /^S[A-Z0-9]+$/.test(groupId) ? `<!subteam^${groupId}>` : escapeMrkdwn(groupId);
}

/** "Approved so far: @a · Still needed: 1 more approval, from @dba" (escaped mrkdwn); '' without a quorum. */
export function progressLine(
  approval: Approval,
  progress: ApprovalProgress | undefined,
  groupsHere: Pick<GroupsHere, 'has'> | null = null,
): string {
  const groupMentionHere = (g: string) => groupMention(g, groupsHere);
  const quorum = approval.quorum;
  if (!progress || !quorum || (quorum.count <= 1 && quorum.eachOf.length === 0)) return '';
  const so = progress.approvers.length
    ? `*Approved so far:* ${peopleText(progress.approvers.map((userId) => ({ userId })))}`
    : '*Approved so far:* nobody yet';
  if (approval.state !== 'pending') return so;
  const n = progress.missingCount;
  const groups = progress.missingGroups.map(groupMentionHere);
  const needed =
    n === 0
      ? 'nothing more'
      : `${n} more ${n === 1 ? 'approval' : 'approvals'}${groups.length ? `, one from each of ${groups.join(', ')}` : ''}`;
  const of =
    `${Math.max(1, quorum.count, quorum.eachOf.length)} ${quorum.eachOf.length ? `(one from each of ${quorum.eachOf.map(groupMentionHere).join(', ')})` : ''}`.trim();
  return `${so}\n*Still needed:* ${needed} · quorum: ${of}`;
}

function approvedByText(approval: Approval, progress: ApprovalProgress | undefined): string {
  const ids = progress?.approvers.length ? progress.approvers : [approval.decidedBy ?? ''];
  return peopleText(
    ids.filter((id) => id !== '').map((userId) => ({ userId })),
    personText(null),
  );
}

function outcomeLine(approval: Approval, progress?: ApprovalProgress, cardLink?: string | null): string {
  switch (approval.state) {
    case 'pending':
      return `:hourglass_flowing_sand: Waiting for approval until ${when(new Date(approval.expiresAt).toISOString())}`;
    case 'approved': {
      const ran = approval.executionIds.length
        ? ` — running as ${approval.executionIds.map((id) => `\`${escapeMrkdwn(id)}\``).join(', ')}${cardLink ? ` · ${slackLink(cardLink, 'open its card')}` : ''}`
        : approval.error
          ? ` — but the run failed to start: ${escapeMrkdwn(truncate(approval.error, 500))}`
          : ' — starting the run';
      return `:white_check_mark: Approved by ${approvedByText(approval, progress)}${ran}`;
    }
    case 'rejected':
      return `:no_entry_sign: Rejected by ${userMention(approval.decidedBy ?? '')}${approval.reason ? `: “${escapeMrkdwn(truncate(approval.reason, 500))}”` : ''}`;
    case 'expired':
      if (approval.reason === ACCOUNT_CHANGED) {
        return `:heavy_minus_sign: Closed ${when(new Date(approval.decidedAt ?? approval.createdAt).toISOString())}: ${ACCOUNT_CHANGED}, so nothing was run. Ask again with \`/runbook run\`.`;
      }
      return `:hourglass: Expired ${when(new Date(approval.expiresAt).toISOString())} without ${approval.quorum && (approval.quorum.count > 1 || approval.quorum.eachOf.length > 0) ? 'enough approvals' : 'a decision'}. Ask again with \`/runbook run\`.`;
  }
}

function details(approval: Approval, approvers: string, proxyName?: string | null): KnownBlock[] {
  return [
    {
      type: 'section',
      fields: [
        mrkdwnText(`*Requested by*\n${userMention(approval.requesterId)}`, 2000),
        mrkdwnText(`*Proxy*\n${proxyText({ id: approval.proxyId, name: proxyName ?? null })}`, 2000),
        mrkdwnText(
          `*Result goes to*\n${approval.channel ? channelMention(approval.channel) : 'a DM to the requester'}`,
          2000,
        ),
        mrkdwnText(`*Approvers*\n${approvers}`, 2000),
      ],
    },
    { type: 'section', text: mrkdwnText(`*Inputs*\n${formatInputs(inputsOf(approval))}`) },
  ];
}

export interface ApprovalViewOptions {
  /** Where the quorum stands (omit for a single-approver request). */
  progress?: ApprovalProgress;
  proxyName?: string | null;
  /** Permalink of the run's live card, once approved and posted (the requester's copy links it). */
  cardLink?: string | null;
  /** The installation's own user groups (many workspaces): no other group is mentioned. */
  groupsHere?: GroupsHere | null;
}

/** The blocks both copies share: the heading, the request's details, where the quorum stands, the outcome. */
function requestBlocks(
  approval: Approval,
  approvers: string,
  options: ApprovalViewOptions,
  heading: string,
  cardLink?: string | null,
): KnownBlock[] {
  const progress = progressLine(approval, options.progress, options.groupsHere ?? null);
  return [
    { type: 'section', text: mrkdwnText(heading) },
    ...details(approval, approvers, options.proxyName),
    ...(progress ? [{ type: 'section', text: mrkdwnText(progress) } as KnownBlock] : []),
    { type: 'context', elements: [mrkdwnText(outcomeLine(approval, options.progress, cardLink))] },
  ];
}

/**
 * The message in the approvers' channel. `approvers` is already-safe mrkdwn (from describeApprovers).
 * With a quorum it says who approved so far and what is still needed; Approve / Reject stay until decided.
 */
export function buildApprovalRequest(
  approval: Approval,
  approvers: string,
  options: ApprovalViewOptions = {},
): SlackMessage {
  const name = escapeMrkdwn(truncate(approval.runbookName, 200));
  const blocks = requestBlocks(approval, approvers, options, `:lock: *Approval requested* to run *${name}*`);
  if (approval.state === 'pending') {
    blocks.push({
      type: 'actions',
      block_id: 'approval_actions',
      elements: [
        button('Approve', ACTIONS.approvalApprove, approval.id, { style: 'primary' }),
        button('Reject', ACTIONS.approvalReject, approval.id, { style: 'danger' }),
      ],
    });
  }
  return { text: `Approval requested to run ${escapeMrkdwn(truncate(approval.runbookName, 200))}`, blocks };
}

/** The requester's copy (a DM), updated as the request is decided. */
export function buildApprovalNotice(
  approval: Approval,
  approvers: string,
  options: ApprovalViewOptions = {},
): SlackMessage {
  const name = escapeMrkdwn(truncate(approval.runbookName, 200));
  return {
    text: `Your request to run ${escapeMrkdwn(truncate(approval.runbookName, 200))}: ${approval.state}`,
    blocks: requestBlocks(approval, approvers, options, `Your request to run *${name}*`, options.cardLink),
  };
}

/**
 * The ephemeral where the requester submitted (besides the DM copy): "your run is waiting for it; it needs
 * approval from both @Bob and @Carol". `whoApproves` is already-safe mrkdwn (describeWhoApproves).
 */
export function buildWaitingForApproval(approval: Approval, whoApproves: string): SlackMessage {
  const name = escapeMrkdwn(truncate(approval.runbookName, 200));
  const text = `:lock: *${name}* needs approval: your run is waiting for it; ${whoApproves}. You will get a DM when it is decided; it expires ${when(new Date(approval.expiresAt).toISOString())}.`;
  return {
    text: `Your run of ${escapeMrkdwn(truncate(approval.runbookName, 200))} is waiting for approval`,
    blocks: [{ type: 'section', text: mrkdwnText(text) }],
  };
}

/** Asks the approver why (the requester sees the reason). */
export function buildRejectModal(privateMetadata: string, runbookName: string): ModalView {
  return {
    type: 'modal',
    callback_id: VIEWS.reject,
    private_metadata: privateMetadata,
    title: plainText('Reject run', 24),
    submit: plainText('Reject', 24),
    close: plainText('Cancel', 24),
    blocks: [
      { type: 'section', text: mrkdwnText(`Reject the request to run *${escapeMrkdwn(truncate(runbookName, 200))}*?`) },
      {
        type: 'input',
        block_id: BLOCKS.rejectReason,
        label: plainText('Reason (the requester sees it)', 2000),
        element: {
          type: 'plain_text_input',
          action_id: ACTIONS.rejectReason,
          multiline: true,
          max_length: 1000,
        },
      },
    ],
  };
}
