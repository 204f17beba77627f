// Approve / Reject buttons on approval requests and the reason form a rejection asks for: each calls one
// use case of src/runs/approvals.ts and shows its result; both copies of the request are then updated.
// Each works once per approver (src/runs/once.ts; a quorum still needs the others): a repeat is told it
// was already done, and a click that decided nothing (refused, or decided by someone else) is given back.
import type { ButtonAction } from '@slack/bolt';
import {
  ACCOUNT_CHANGED,
  approvalRefusal,
  approveRequest,
  findApprovalFor,
  leftNoMark,
  rejectRequest,
} from '../../runs/approvals.ts';
import { groupsHereOf } from '../../runs/installation-settings.ts';
import { claimClick, clickTaken } from '../../runs/once.ts';
import { buildRejectModal, groupMention } from '../kit/approval.ts';
import { refreshApprovalMessages } from '../kit/approval-request.ts';
import { claimOrSayDone } from '../kit/click-once.ts';
import { alreadyDoneMessage, errorMessage, errorModal, noticeMessage } from '../kit/common.ts';
import { describeFailure } from '../kit/describe-failure.ts';
import { type HandlerContext, inChannel } from '../kit/handler-context.ts';
import { ACTIONS, BLOCKS } from '../kit/ids.ts';
import type { ActionArgs, ViewArgs } from '../kit/listen.ts';
import { userMention } from '../kit/mrkdwn.ts';
import { postToConversation } from '../kit/post-to-conversation.ts';
import { reportFailure } from '../kit/report-failure.ts';
import { postRunningCard } from '../kit/run-start.ts';

export async function approveClicked({ ack, body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  await ack();
  const approvalId = (body.actions[0] as ButtonAction).value ?? '';
  // Once per approver (src/runs/once.ts): a repeat is told it was already done, and nothing more happens.
  const claim = await claimClick(ctx.deps, { action: 'approve', target: approvalId, where: '', who: ctx.userId });
  if (claim.kind !== 'first') return ctx.respond(alreadyDoneMessage(claim, ctx.userId));
  try {
    await approve(ctx, approvalId, () => claim.release());
  } catch (err) {
    if (await leftNoMark(ctx.deps, approvalId, ctx.userId)) await claim.release();
    await reportFailure(ctx, err, 'Approving the run');
  }
  // Approved from App Home: the request leaves "Waiting for your approval".
  if (body.view?.type === 'home') {
    await ctx.refreshHome?.().catch((err: unknown) => ctx.deps.logger.warn({ err }, 'could not refresh App Home'));
  }
}

export async function rejectClicked({ ack, body, client }: ActionArgs, ctx: HandlerContext): Promise<void> {
  await ack();
  const approvalId = (body.actions[0] as ButtonAction).value ?? '';
  // This approver already rejected it: no form to fill in again.
  const done = await clickTaken(ctx.deps, { action: 'reject', target: approvalId, where: '', who: ctx.userId });
  if (done?.kind === 'already') {
    await ctx.respond(alreadyDoneMessage(done, ctx.userId));
    return;
  }
  const actor = await ctx.actor();
  const approval = await findApprovalFor(ctx.deps, actor, approvalId).catch(() => null);
  // Not there for them: another workspace's request, not theirs to decide, or gone (nothing more of it shown).
  const refusal = approval
    ? null
    : await approvalRefusal(ctx.deps, actor, approvalId, 'approval.reject').catch(() => null);
  const channel = body.channel?.id ?? body.container?.channel_id ?? '';
  const metadata = JSON.stringify({ a: approvalId, c: channel });
  await client.views
    .open({
      trigger_id: body.trigger_id,
      view: approval
        ? buildRejectModal(metadata, approval.runbookName)
        : errorModal('Reject run', refusal?.sentence ?? 'That approval request no longer exists.'),
    })
    .catch((err: unknown) => ctx.deps.logger.warn({ err }, 'could not open the reject modal'));
}

export async function rejectSubmitted({ ack, view }: ViewArgs, request: HandlerContext): Promise<void> {
  let meta: { a?: string; c?: string } | null = null;
  try {
    meta = JSON.parse(view.private_metadata) as { a?: string; c?: string };
  } catch {
    meta = null;
  }
  if (!meta?.a) {
    await ack({
      response_action: 'update',
      view: errorModal('Reject run', 'This form could not be verified; open it again.'),
    });
    return;
  }
  const reason = (view.state.values[BLOCKS.rejectReason]?.[ACTIONS.rejectReason]?.value ?? '').trim();
  if (reason === '') {
    await ack({ response_action: 'errors', errors: { [BLOCKS.rejectReason]: 'Say why, so the requester knows.' } });
    return;
  }
  await ack();
  const ctx = inChannel(request, meta.c || null);
  const claim = await claimOrSayDone(ctx, { action: 'reject', target: meta.a, where: '' });
  if (!claim) return;
  try {
    if (!(await reject(ctx, meta.a, reason))) await claim.release();
  } catch (err) {
    if (await leftNoMark(ctx.deps, meta.a, ctx.userId)) await claim.release();
    await reportFailure(ctx, err, 'Rejecting the run');
  }
}

/**
 * Approve: the use case decides (a vote, the decision, the run); this shows its result and updates both
 * copies. When this click decided nothing (refused, or decided before or by someone else) the person's
 * click claim is released before they are answered: a click made after that answer is handled afresh,
 * not told "already done".
 */
async function approve(ctx: HandlerContext, approvalId: string, releaseClick: () => Promise<void>): Promise<void> {
  const { deps, client } = ctx;
  const emailOf = (userId: string) => deps.access.identity.emailOf(client, userId);
  // A quorum is decided on current membership, not the cached one.
  const freshGroups = (userId: string) => deps.access.identity.groupsOf(client, userId, { fresh: true });
  const result = await approveRequest(deps, await ctx.actor(), approvalId, emailOf, freshGroups);
  if (result.kind === 'refused' || result.kind === 'already' || result.kind === 'lost') await releaseClick();
  switch (result.kind) {
    case 'refused':
      await ctx.respond(errorMessage(result.sentence));
      return;
    case 'already': {
      const by = result.approval.decidedBy ? ` by ${userMention(result.approval.decidedBy)}` : '';
      await ctx.respond(
        result.approval.reason === ACCOUNT_CHANGED && result.approval.state === 'expired'
          ? noticeMessage(
              'That request is closed: the workspace’s Runbook API connection changed since it was asked, so nothing was run.',
              'Request closed',
            )
          : noticeMessage(
              `That request was already ${result.approval.state}${by}.`,
              `Already ${result.approval.state}`,
            ),
      );
      break;
    }
    case 'lost':
      await ctx.respond(noticeMessage('Someone else decided this request first.', 'Already decided'));
      break;
    case 'voted': {
      const { progress } = result;
      const groups = progress.missingGroups.map((g) => groupMention(g, groupsHereOf(deps.access))).join(', ');
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

/** Reject: the use case decides; this shows its result and updates both copies. False when it decided nothing. */
async function reject(ctx: HandlerContext, approvalId: string, reason: string): Promise<boolean> {
  const result = await rejectRequest(ctx.deps, await ctx.actor(), approvalId, reason);
  if (result.kind === 'refused') {
    await ctx.respond(errorMessage(result.sentence));
    return false;
  }
  const decided = result.kind !== 'lost' && result.kind !== 'already';
  if (!decided) await ctx.respond(noticeMessage('Someone else decided this request first.', 'Already decided'));
  await refreshApprovalMessages(ctx.deps, ctx.client, approvalId);
  return decided;
}
