// Approve / Reject buttons on approval requests, and the reason modal a rejection asks for.
import type { App, BlockAction, ButtonAction, ViewSubmitAction } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { buildRejectModal } from '../kit/approval.ts';
import { errorModal } from '../kit/common.ts';
import type { SlackDeps } from '../kit/deps.ts';
import { ACTIONS, BLOCKS, VIEWS } from '../kit/ids.ts';
import { interactionContext } from '../kit/interaction-context.ts';
import { reportFailure } from '../kit/report-failure.ts';
import { approveRequest, rejectRequest } from './decisions.ts';

type Respond = Parameters<typeof interactionContext>[3];

/** Republishes a person's App Home (the home feature's, handed in by app.ts: features do not import each other). */
export type RefreshHome = (deps: SlackDeps, client: WebClient, userId: string) => Promise<void>;

export function registerApprovalActions(app: App, deps: SlackDeps, refreshHome: RefreshHome): void {
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
      await refreshHome(deps, client, body.user.id).catch((err: unknown) =>
        deps.logger.warn({ err }, 'could not refresh App Home'),
      );
    }
  });

  app.action<BlockAction>({ action_id: ACTIONS.approvalReject }, async ({ ack, body, client }) => {
    await ack();
    const approvalId = (body.actions[0] as ButtonAction).value ?? '';
    const approval = await deps.access.store.approvals.get(approvalId).catch(() => null);
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
