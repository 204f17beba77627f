// Run modal submission: validate everything against the runbook's own schema and answer with
// errors on the exact fields (nothing runs until the input is valid); then close the modal and
// start the run, posting the live message where the person asked.
import type { App, ViewSubmitAction } from '@slack/bolt';
import { describeApiError } from '../../api/errors.ts';
import type { Workflow } from '../../api/schemas.ts';
import { parseInputSchema } from '../../forms/input-schema.ts';
import { readFormValues } from '../../forms/read-form-values.ts';
import { errorModal, infoModal } from '../blocks/common.ts';
import { escapeMrkdwn } from '../blocks/mrkdwn.ts';
import { decodeRunMetadata } from '../blocks/run-modal.ts';
import { isRunnable } from '../blocks/runbook-list.ts';
import { loadRunbook, startRun } from '../commands/run.ts';
import type { SlackDeps } from '../deps.ts';
import { ACTIONS, BLOCKS, VIEWS } from '../ids.ts';

type StateValues = ViewSubmitAction['view']['state']['values'];

export function readProxy(values: StateValues): string | null {
  const element = values[BLOCKS.proxy]?.[ACTIONS.proxySelect] as
    | { selected_option?: { value?: string } | null; value?: string | null }
    | undefined;
  const value = element?.selected_option?.value ?? element?.value ?? null;
  return value?.trim() ? value.trim() : null;
}

export function readChannel(values: StateValues): string | null {
  const element = values[BLOCKS.channel]?.[ACTIONS.channelSelect] as
    | { selected_conversation?: string | null }
    | undefined;
  return element?.selected_conversation ?? null;
}

export function registerViews(app: App, deps: SlackDeps): void {
  app.view<ViewSubmitAction>(VIEWS.run, async ({ ack, body, view, client }) => {
    const meta = decodeRunMetadata(view.private_metadata);
    if (!meta.r) {
      await ack({ response_action: 'errors', errors: { [BLOCKS.runbookPicker]: 'Pick a runbook first.' } });
      return;
    }
    let runbook: Workflow | null;
    try {
      // The catalog answers from memory; the API is the fallback for a runbook it has not seen yet.
      runbook = (await deps.catalog.get(meta.r)) ?? (await loadRunbook(deps, meta.r));
    } catch (err) {
      await ack({ response_action: 'update', view: errorModal('Run a runbook', describeApiError(err)) });
      return;
    }
    const values = view.state.values;
    const spec = parseInputSchema(runbook.inputSchema);
    const form = spec.kind === 'empty' ? { ok: true as const, params: {} } : readFormValues(spec, values);
    const proxyId = readProxy(values);
    const errors: Record<string, string> = form.ok ? {} : { ...form.errors };
    if (!proxyId) errors[BLOCKS.proxy] = 'Choose the proxy that should run it.';
    if (Object.keys(errors).length > 0 || !form.ok || !proxyId) {
      await ack({ response_action: 'errors', errors });
      return;
    }
    if (!isRunnable(runbook)) {
      await ack({
        response_action: 'update',
        view: infoModal('Run a runbook', `:no_entry: *${escapeMrkdwn(runbook.name)}* is disabled and cannot be run.`),
      });
      return;
    }
    if (runbook.requiresApproval) {
      await ack({
        response_action: 'update',
        view: infoModal(
          'Approval needed',
          `:lock: *${escapeMrkdwn(runbook.name)}* needs approval before it runs, and this bot has no approval flow configured yet. Ask an approver to run it from the Runbook console.`,
        ),
      });
      return;
    }
    await ack();
    await startRun(deps, client, {
      runbook,
      proxyId,
      params: form.params,
      channel: readChannel(values) ?? null,
      userId: body.user.id,
      teamId: body.team?.id ?? body.user.team_id ?? null,
    });
  });
}
