// Approve / Reject buttons on approval requests, and the reason modal a rejection asks for.
import type { ButtonAction } from '@slack/bolt';
import { findApproval } from '../../runs/approvals.ts';
import { buildRejectModal } from '../kit/approval.ts';
import { errorModal } from '../kit/common.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import { ACTIONS, BLOCKS } from '../kit/ids.ts';
import { inChannel } from '../kit/interaction-context.ts';
import type { ActionArgs, ViewArgs } from '../kit/listen.ts';
import { reportFailure } from '../kit/report-failure.ts';
import { approveRequest, rejectRequest } from './decisions.ts';

export async function approveClicked({ ack, body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  await ack();
  const approvalId = (body.actions[0] as ButtonAction).value ?? '';
  try {
    await approveRequest(ctx, approvalId);
  } catch (err) {
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
  const approval = await findApproval(ctx.deps, approvalId);
  const channel = body.channel?.id ?? body.container?.channel_id ?? '';
  const metadata = JSON.stringify({ a: approvalId, c: channel });
  await client.views
    .open({
      trigger_id: body.trigger_id,
      view: approval
        ? buildRejectModal(metadata, approval.runbookName)
        : errorModal('Reject run', 'That approval request no longer exists.'),
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
  try {
    await rejectRequest(ctx, meta.a, reason);
  } catch (err) {
    await reportFailure(ctx, err, 'Rejecting the run');
  }
}
