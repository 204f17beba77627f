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
import { runbookFacts, subjectOf } from '../commands/access.ts';
import { requestApproval } from '../commands/approvals.ts';
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
  const id = element?.selected_conversation ?? null;
  // Only a conversation id is accepted: the value comes from the client.
  return id && /^[CGD][A-Z0-9]+$/.test(id) ? id : null;
}

/** Any single value longer than this is refused on its field (the API takes params as one string). */
export const MAX_FIELD_CHARS = 10_000;

/** Field errors for values over the size limit, or null. */
export function oversizedFields(values: StateValues): Record<string, string> | null {
  const errors: Record<string, string> = {};
  for (const [blockId, actions] of Object.entries(values)) {
    for (const element of Object.values(actions)) {
      const value = (element as { value?: unknown }).value;
      if (typeof value === 'string' && value.length > MAX_FIELD_CHARS) {
        errors[blockId] = `This is ${value.length} characters long; the limit is ${MAX_FIELD_CHARS}.`;
      }
    }
  }
  return Object.keys(errors).length ? errors : null;
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
    const tooLong = oversizedFields(values);
    if (tooLong) {
      await ack({ response_action: 'errors', errors: tooLong });
      return;
    }
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
    const userId = body.user.id;
    const teamId = body.team?.id ?? body.user.team_id ?? null;
    const channel = readChannel(values) ?? null;
    const facts = runbookFacts(deps, runbook);
    const decision = deps.access.policy.decide('run', await subjectOf(deps, client, userId, meta.c), facts);
    if (!decision.allowed) {
      await ack({
        response_action: 'update',
        view: infoModal('Not allowed', `:no_entry: ${escapeMrkdwn(decision.message)}`),
      });
      await deps.access.audit.record({
        userId,
        teamId,
        channel,
        action: 'run.start',
        target: `${runbook.name} (${runbook.id})`,
        outcome: 'denied',
        detail: decision.message,
        tid: null,
      });
      return;
    }
    const limit = deps.access.runLimit.take(userId);
    if (!limit.ok) {
      const seconds = Math.ceil(limit.retryInMs / 1000);
      await ack({
        response_action: 'errors',
        errors: { [BLOCKS.proxy]: `You have started too many runs this minute; try again in ${seconds} s.` },
      });
      return;
    }
    const need = deps.access.policy.approvalFor(facts);
    await ack();
    if (need.required) {
      await requestApproval(deps, client, { runbook, proxyId, params: form.params, channel, userId, teamId, need });
      return;
    }
    const email = await deps.access.identity.emailOf(client, userId);
    await startRun(deps, client, {
      runbook,
      proxyId,
      params: form.params,
      channel,
      userId,
      teamId,
      ...(email ? { userEmail: email } : {}),
    });
  });
}
