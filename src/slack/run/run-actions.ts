// Buttons that open the run form (a runbook's Run, App Home's Run a runbook, "Try again" after a failed
// run) and the run form's runbook picker.
import { errorModal } from '../kit/common.ts';
import { describeFailure } from '../kit/describe-failure.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import type { ActionArgs } from '../kit/listen.ts';
import { buttonValue } from '../kit/on-action.ts';
import { reportFailure } from '../kit/report-failure.ts';
import { decodeRunMetadata } from '../kit/run-modal.ts';
import { openRunModal, runModalView } from '../kit/run-start.ts';

export function runClicked({ body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  return openRunModal(ctx, { runbookId: buttonValue(body) });
}

export async function tryAgainClicked({ body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  const draft = await ctx.deps.drafts.take(buttonValue(body));
  if (!draft) {
    await ctx.respond({
      text: 'That form has expired.',
      blocks: [
        {
          type: 'section',
          text: { type: 'mrkdwn', text: ':hourglass: That form has expired. Start again with `/runbook run`.' },
        },
      ],
    });
    return;
  }
  await openRunModal(ctx, {
    runbookId: draft.runbookId,
    prefill: draft.params,
    proxyId: draft.proxyId,
    channel: draft.channel,
    // What the failed run used: kept over the channel's defaults.
    destination: draft.channel,
  });
}

/** App Home's "Run a runbook": the form with the picker (App Home has no response_url: answers go by DM). */
export async function homeRunClicked({ ack }: ActionArgs, ctx: HandlerContext): Promise<void> {
  await ack();
  await openRunModal(ctx, {}).catch((err) => reportFailure(ctx, err, 'Opening the run form'));
}

/** The run form's typeahead picker dispatches on select: swap the form for the chosen runbook. */
export async function runPickerChosen({ ack, body, client }: ActionArgs, ctx: HandlerContext): Promise<void> {
  const { deps } = ctx;
  await ack();
  const view = body.view!;
  const selected = (body.actions[0] as { selected_option?: { value?: string } }).selected_option?.value ?? null;
  const meta = decodeRunMetadata(view.private_metadata);
  try {
    const origin = { threadTs: meta.t ?? null, sourceLink: meta.s ?? null };
    const next = await runModalView(
      deps,
      { runbookId: selected, channel: meta.c, withPicker: true, ...origin },
      meta.c,
      'run',
      { userId: body.user.id, client, teamId: ctx.teamId, enterpriseId: ctx.enterpriseId ?? null },
    );
    await client.views.update({ view_id: view.id, hash: view.hash, view: next });
  } catch (err) {
    deps.logger.warn({ err }, 'could not load the picked runbook');
    await client.views
      .update({ view_id: view.id, view: errorModal('Run a runbook', describeFailure(err)) })
      .catch(() => {});
  }
}
