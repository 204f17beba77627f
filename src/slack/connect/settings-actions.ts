// Approval settings (App Home, many-workspace mode): opening the form for those who may (the same rule as
// Connect), and saving it through src/runs/installation-settings.ts, which refuses what would widen the
// operator's policy with the sentence shown above the form.
import {
  allowedApproverGroups,
  openInstallationSettings,
  saveInstallationSettings,
} from '../../runs/installation-settings.ts';
import { errorModal } from '../kit/common.ts';
import { describeFailure } from '../kit/describe-failure.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import { ACTIONS, BLOCKS } from '../kit/ids.ts';
import type { ActionArgs, ViewArgs } from '../kit/listen.ts';
import { connectFactsOf } from '../kit/tenancy.ts';
import { buildSettingsModal, settingsSavedModal } from './settings-modal.ts';

const TITLE = 'Approval settings';
const NOT_MANY = "This deployment serves one workspace: its approval settings are the operator's.";

export async function settingsOpenClicked({ ack, body, client }: ActionArgs, ctx: HandlerContext): Promise<void> {
  await ack();
  const tenancy = ctx.deps.tenancy;
  let view: Parameters<typeof client.views.open>[0]['view'];
  try {
    if (!tenancy) throw new Error(NOT_MANY);
    const facts = await connectFactsOf(tenancy, client, ctx.userId);
    const verdict = await openInstallationSettings(ctx.deps, await ctx.actor(), facts);
    view =
      verdict.kind === 'ok'
        ? buildSettingsModal({
            current: tenancy.settings,
            operatorChannel: tenancy.operatorApprovalsChannel,
            allowedGroups: allowedApproverGroups(ctx.deps.access),
          })
        : errorModal(TITLE, verdict.sentence);
  } catch (err) {
    view = errorModal(TITLE, describeFailure(err));
  }
  await client.views.open({ trigger_id: body.trigger_id, view });
}

export async function settingsSubmitted({ ack, view, client }: ViewArgs, ctx: HandlerContext): Promise<void> {
  const values = view.state.values;
  const channel = values[BLOCKS.settingsChannel]?.[ACTIONS.settingsChannel]?.selected_conversation ?? null;
  const group = (values[BLOCKS.settingsGroup]?.[ACTIONS.settingsGroup]?.value ?? '').trim().toUpperCase();
  const tenancy = ctx.deps.tenancy;
  if (!tenancy) {
    await ack({ response_action: 'update', view: errorModal(TITLE, NOT_MANY) });
    return;
  }
  const operatorChannel = tenancy.operatorApprovalsChannel;
  try {
    const facts = await connectFactsOf(tenancy, client, ctx.userId);
    const result = await saveInstallationSettings(ctx.deps, operatorChannel, await ctx.actor(), facts, {
      approvalsChannel: channel,
      approverGroup: group === '' ? null : group,
    });
    if (result.kind === 'saved') {
      await ack({ response_action: 'update', view: settingsSavedModal(result.record, operatorChannel) });
      await ctx.refreshHome?.().catch((err: unknown) => ctx.deps.logger.warn({ err }, 'could not refresh App Home'));
      return;
    }
    // A setting that would widen the policy: the form again, nothing saved, the sentence above it.
    await ack({
      response_action: 'update',
      view:
        result.kind === 'invalid'
          ? buildSettingsModal({
              current: tenancy.settings,
              operatorChannel,
              allowedGroups: allowedApproverGroups(ctx.deps.access),
              problem: `Nothing was saved. ${result.sentence}`,
            })
          : errorModal(TITLE, result.sentence),
    });
  } catch (err) {
    await ack({ response_action: 'update', view: errorModal(TITLE, `Nothing was saved. ${describeFailure(err)}`) });
  }
}
