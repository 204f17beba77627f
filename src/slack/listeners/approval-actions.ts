// Approve / Reject buttons on approval requests, and the reason modal a rejection asks for.
import type { App, BlockAction, ButtonAction, ViewSubmitAction } from '@slack/bolt';
import { findApproval } from '../../runs/approvals.ts';
import { buildRejectModal } from '../blocks/approval.ts';
import { errorModal } from '../blocks/common.ts';
import { approveRequest, rejectRequest } from '../commands/approvals.ts';
import type { SlackDeps } from '../deps.ts';
import { ACTIONS, BLOCKS, VIEWS } from '../ids.ts';
import { publishHome } from './events.ts';
import { interactionContext } from './interaction-context.ts';
import { reportFailure } from './report-failure.ts';

type Respond = Parameters<typeof interactionContext>[3];

export function registerApprovalActions(app: App, deps: SlackDeps): void {
  app.action<BlockAction>({ action_id: ACTIONS.approvalApprove }, async ({ ack, body, client, respond }) => {
    await ack();
    const ctx = interactionContext(deps, client, body, respond as Respond);
    const approvalId = (body.actions[0] as ButtonAction).value ?? '';
    try {
      await approveRequest(ctx, approvalId);
    } catch (err) {
      await reportFailure(ctx, err, 'Approving the run');
    }
    // Approved from App Home: the request leaves "Waiting for your approval".
    if (body.view?.type === 'home') {
      await publishHome(deps, client, body.user.id).catch((err: unknown) =>
        deps.logger.warn({ err }, 'could not refresh App Home'),
      );
    }
  });

  app.action<BlockAction>({ action_id: ACTIONS.approvalReject }, async ({ ack, body, client }) => {
    await ack();
    const approvalId = (body.actions[0] as ButtonAction).value ?? '';
    const approval = await findApproval(deps, approvalId);
    const channel = body.channel?.id ?? body.container?.channel_id ?? '';
    const metadata = JSON.stringify({ a: approvalId, c: channel });
    await client.views
      .open({
        trigger_id: body.trigger_id,
        view: approval
          ? buildRejectModal(metadata, approval.runbookName)
          : errorModal('Reject run', 'That approval request no longer exists.'),
      })
      .catch((err: unknown) => deps.logger.warn({ err }, 'could not open the reject modal'));
  });

  app.view<ViewSubmitAction>(VIEWS.reject, async ({ ack, body, view, client }) => {
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
    const ctx = interactionContext(deps, client, body, undefined, meta.c || null);
    try {
      await rejectRequest(ctx, meta.a, reason);
    } catch (err) {
      await reportFailure(ctx, err, 'Rejecting the run');
    }
  });
}
