// Connect, Replace key and Disconnect (App Home, many-workspace mode): each reads what Slack says about
// the person (users.info), calls one use case of src/runs/api-connection.ts and shows its result.
import { connectRunbookApi, countAccountWork, disconnectRunbookApi, openConnect } from '../../runs/api-connection.ts';
import { claimOrSayDone, drawingOf } from '../kit/click-once.ts';
import { errorMessage, errorModal, noticeMessage } from '../kit/common.ts';
import { describeFailure } from '../kit/describe-failure.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import { ACTIONS, BLOCKS } from '../kit/ids.ts';
import type { ActionArgs, ViewArgs } from '../kit/listen.ts';
import { connectFactsOf, countsOf, type TenancyDeps } from '../kit/tenancy.ts';
import { tellAccountEnded } from './account-change.ts';
import { buildConnectModal, checkingModal, connectedModal, SAME_ACCOUNT } from './connect-modal.ts';

const NOT_MANY = 'This deployment serves one workspace: its Runbook API is set by the operator.';

function tenancyOf(ctx: HandlerContext): TenancyDeps {
  const { tenancy } = ctx.deps;
  if (!tenancy) throw new Error(NOT_MANY);
  return tenancy;
}

async function refreshHome(ctx: HandlerContext): Promise<void> {
  await ctx.refreshHome?.().catch((err: unknown) => ctx.deps.logger.warn({ err }, 'could not refresh App Home'));
}

/** Connect / Replace key: opens the form for those who may (the refusal is said privately and audited). */
export async function connectOpenClicked({ ack, body, client }: ActionArgs, ctx: HandlerContext): Promise<void> {
  await ack();
  if (!ctx.deps.tenancy) {
    await client.views.open({ trigger_id: body.trigger_id, view: errorModal('Connect Runbook API', NOT_MANY) });
    return;
  }
  const tenancy = ctx.deps.tenancy;
  // Opened at once (the trigger lasts 3 s); the check of who may happens next.
  const opened = await client.views.open({ trigger_id: body.trigger_id, view: checkingModal() });
  const viewId = (opened as { view?: { id?: string } }).view?.id ?? '';
  let view: Parameters<typeof client.views.update>[0]['view'];
  try {
    const facts = await connectFactsOf(tenancy, client, ctx.userId);
    const verdict = await openConnect(ctx.deps, await ctx.actor(), facts);
    const current = await tenancy.connections.status(tenancy.installationId);
    // A Replace says what is open under the current key, and asks which account the new one is for.
    const open = verdict.kind === 'ok' && current ? await countAccountWork(ctx.deps, tenancy.installationId) : null;
    view =
      verdict.kind === 'ok'
        ? buildConnectModal({ current, baseUrls: tenancy.connections.baseUrls, open })
        : errorModal('Connect Runbook API', verdict.sentence);
  } catch (err) {
    view = errorModal('Connect Runbook API', describeFailure(err));
  }
  await client.views.update({ view_id: viewId, view });
}

export async function connectSubmitted({ ack, view, client }: ViewArgs, ctx: HandlerContext): Promise<void> {
  const values = view.state.values;
  const apiKey = values[BLOCKS.connectKey]?.[ACTIONS.connectKey]?.value ?? '';
  const baseUrl = values[BLOCKS.connectUrl]?.[ACTIONS.connectUrl]?.selected_option?.value ?? null;
  // Unanswered counts as another account: what is open ends rather than go on under a key it may not be of.
  const sameAccount = values[BLOCKS.connectAccount]?.[ACTIONS.connectAccount]?.selected_option?.value === SAME_ACCOUNT;
  if (apiKey.trim() === '') {
    await ack({ response_action: 'errors', errors: { [BLOCKS.connectKey]: 'Paste the Runbook API key.' } });
    return;
  }
  const tenancy = ctx.deps.tenancy;
  if (!tenancy) {
    await ack({ response_action: 'update', view: errorModal('Connect Runbook API', NOT_MANY) });
    return;
  }
  // The key is checked with the Runbook API, which may take longer than Slack waits for an answer.
  await ack({ response_action: 'update', view: checkingModal() });
  let next: Parameters<typeof client.views.update>[0]['view'];
  let told: (() => Promise<void>) | null = null;
  try {
    const facts = await connectFactsOf(tenancy, client, ctx.userId);
    const result = await connectRunbookApi(ctx.deps, tenancy.connections, await ctx.actor(), facts, {
      apiKey,
      baseUrl,
      sameAccount,
    });
    if (result.kind === 'connected') {
      const { ended, status, previous: before } = result;
      next = connectedModal(status, ended ? countsOf(ended) : null);
      if (ended && before) {
        told = () =>
          tellAccountEnded(ctx.deps, client, ended, {
            by: ctx.userId,
            at: status.connectedAt,
            how: 'replaced',
            baseUrl: before.baseUrl,
          });
      }
    } else if (result.kind === 'invalid') {
      const current = await tenancy.connections.status(tenancy.installationId);
      next = buildConnectModal({ current, baseUrls: tenancy.connections.baseUrls, problem: result.sentence });
    } else next = errorModal('Connect Runbook API', result.sentence);
  } catch (err) {
    next = errorModal('Connect Runbook API', `Nothing was saved. ${describeFailure(err)}`);
  }
  await client.views.update({ view_id: view.id, view: next });
  await told?.();
  await refreshHome(ctx);
}

/**
 * Disconnect (behind a confirm dialog): acked by its registration; failures become one sentence there. Once
 * per drawing of Home (src/runs/once.ts): a repeat, a replay or another replica is told it was already done.
 */
export async function connectRemoveClicked({ body, client }: ActionArgs, ctx: HandlerContext): Promise<void> {
  const tenancy = tenancyOf(ctx);
  const claim = await claimOrSayDone(ctx, {
    action: 'api-disconnect',
    target: tenancy.installationId,
    where: drawingOf(body),
  });
  if (!claim) return;
  const facts = await connectFactsOf(tenancy, client, ctx.userId);
  const result = await disconnectRunbookApi(ctx.deps, tenancy.connections, await ctx.actor(), facts).catch(
    async (err: unknown) => {
      await claim.release();
      throw err;
    },
  );
  if (result.kind === 'refused') {
    await claim.release();
    await ctx.respond(errorMessage(result.sentence));
    return;
  }
  if (result.kind === 'disconnected' && tenancy.status) {
    await tellAccountEnded(ctx.deps, client, result.ended, {
      by: ctx.userId,
      at: ctx.deps.now(),
      how: 'removed',
      baseUrl: tenancy.status.baseUrl,
    });
  }
  await ctx.respond(
    noticeMessage(
      result.kind === 'disconnected'
        ? ':electric_plug: The Runbook API is disconnected: its key is deleted. Connect again from the Home tab.'
        : 'The Runbook API was not connected.',
      result.kind === 'disconnected' ? 'The Runbook API is disconnected.' : 'The Runbook API was not connected.',
    ),
  );
  await refreshHome(ctx);
}
