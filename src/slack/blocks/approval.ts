// Approval surfaces: the request in the approvers' channel (Approve / Reject), the requester's
// copy that follows the decision, and the modal asking a rejecting approver for a reason.
import type { KnownBlock, ModalView } from '@slack/types';
import type { Approval } from '../../store/store.ts';
import { ACTIONS, BLOCKS, VIEWS } from '../ids.ts';
import { button, type SlackMessage, when } from './common.ts';
import { formatInputs } from './execution-card.ts';
import { channelMention, escapeMrkdwn, mrkdwnText, plainText, truncate, userMention } from './mrkdwn.ts';

function inputsOf(approval: Approval): Record<string, unknown> {
  try {
    const v = JSON.parse(approval.paramsMasked) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function outcomeLine(approval: Approval): string {
  switch (approval.state) {
    case 'pending':
      return `:hourglass_flowing_sand: Waiting for approval until ${when(new Date(approval.expiresAt).toISOString())}`;
    case 'approved': {
      const ran = approval.executionIds.length
        ? ` — running as ${approval.executionIds.map((id) => `\`${escapeMrkdwn(id)}\``).join(', ')}`
        : approval.error
          ? ` — but the run failed to start: ${escapeMrkdwn(truncate(approval.error, 500))}`
          : ' — starting the run';
      return `:white_check_mark: Approved by ${userMention(approval.decidedBy ?? '')}${ran}`;
    }
    case 'rejected':
      return `:no_entry_sign: Rejected by ${userMention(approval.decidedBy ?? '')}${approval.reason ? `: “${escapeMrkdwn(truncate(approval.reason, 500))}”` : ''}`;
    case 'expired':
      return ':hourglass: Expired without a decision. Ask again with `/runbook run`.';
  }
}

function details(approval: Approval, approvers: string): KnownBlock[] {
  return [
    {
      type: 'section',
      fields: [
        mrkdwnText(`*Requested by*\n${userMention(approval.requesterId)}`, 2000),
        mrkdwnText(`*Proxy*\n${escapeMrkdwn(approval.proxyId)}`, 2000),
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

/** The message in the approvers' channel. `approvers` is already-safe mrkdwn (from describeApprovers). */
export function buildApprovalRequest(approval: Approval, approvers: string): SlackMessage {
  const name = escapeMrkdwn(truncate(approval.runbookName, 200));
  const blocks: KnownBlock[] = [
    { type: 'section', text: mrkdwnText(`:lock: *Approval requested* to run *${name}*`) },
    ...details(approval, approvers),
    { type: 'context', elements: [mrkdwnText(outcomeLine(approval))] },
  ];
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
  return { text: `Approval requested to run ${truncate(approval.runbookName, 200)}`, blocks };
}

/** The requester's copy (a DM), updated as the request is decided. */
export function buildApprovalNotice(approval: Approval, approvers: string): SlackMessage {
  const name = escapeMrkdwn(truncate(approval.runbookName, 200));
  return {
    text: `Your request to run ${truncate(approval.runbookName, 200)}: ${approval.state}`,
    blocks: [
      { type: 'section', text: mrkdwnText(`Your request to run *${name}*`) },
      ...details(approval, approvers),
      { type: 'context', elements: [mrkdwnText(outcomeLine(approval))] },
    ],
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
