// A schedule of a runbook that needs approval is asked for like a run: the same request and notice
// (Approve / Reject, requester, proxy, inputs), headed as a schedule request with its cron in English.
import type { KnownBlock } from '@slack/types';
import type { Approval } from '../../store/store.ts';
import { type ApprovalViewOptions, buildApprovalNotice, buildApprovalRequest } from './approval.ts';
import type { SlackMessage } from './common.ts';
import { escapeMrkdwn, inlineCode, mrkdwnText, truncate, userMention } from './mrkdwn.ts';

export interface ScheduleAskText {
  cron: string;
  /** The cron in English ("At 09:00, Monday through Friday"). */
  english: string;
  /** Editing an existing schedule. */
  edit: boolean;
}

function retitle(message: SlackMessage, approval: Approval, title: string, text: string): SlackMessage {
  const blocks: KnownBlock[] = [...message.blocks];
  blocks[0] = { type: 'section', text: mrkdwnText(title) };
  if (approval.state === 'approved') {
    const outcome = approval.error
      ? `but the schedule was not saved: ${escapeMrkdwn(truncate(approval.error, 500))}`
      : 'the schedule is saved';
    const last = blocks.findIndex((b) => b.type === 'context');
    if (last >= 0) {
      blocks[last] = {
        type: 'context',
        elements: [mrkdwnText(`:white_check_mark: Approved by ${userMention(approval.decidedBy ?? '')} — ${outcome}`)],
      };
    }
  }
  return { text, blocks };
}

function what(ask: ScheduleAskText, approval: Approval): string {
  const verb = ask.edit ? 'change the schedule of' : 'schedule';
  const name = escapeMrkdwn(truncate(approval.runbookName, 200));
  return `${verb} *${name}*: ${inlineCode(ask.cron, 120)} ${escapeMrkdwn(truncate(ask.english, 300))}`;
}

/** The approvers' message and the requester's copy of a schedule request: a run request's, retitled. */
export function buildScheduleApprovalMessages(
  approval: Approval,
  approvers: string,
  ask: ScheduleAskText,
  options: ApprovalViewOptions = {},
): { request: SlackMessage; notice: SlackMessage } {
  const name = truncate(approval.runbookName, 200);
  return {
    request: retitle(
      buildApprovalRequest(approval, approvers, options),
      approval,
      `:lock: *Approval requested* to ${what(ask, approval)}`,
      `Approval requested to schedule ${name}: ${truncate(ask.english, 300)}`,
    ),
    notice: retitle(
      buildApprovalNotice(approval, approvers, options),
      approval,
      `Your request to ${what(ask, approval)}`,
      `Your request to schedule ${name}: ${approval.state}`,
    ),
  };
}
