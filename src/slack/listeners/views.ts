// Run modal submission: validate everything against the runbook's own schema and answer with
// errors on the exact fields (nothing runs until the input is valid); then close the modal and
// start the run, posting the live message where the person asked.
import type { App, ViewSubmitAction } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Workflow } from '../../api/schemas.ts';
import { parseInputSchema } from '../../forms/input-schema.ts';
import { readFormValues } from '../../forms/read-form-values.ts';
import { errorMessage, errorModal, infoModal } from '../blocks/common.ts';
import { escapeMrkdwn } from '../blocks/mrkdwn.ts';
import { decodeRunMetadata } from '../blocks/run-modal.ts';
import { isRunnable } from '../blocks/runbook-list.ts';
import { runbookFacts, subjectOf } from '../commands/access.ts';
import { requestApproval } from '../commands/approvals.ts';
import { loadRunbook, startRun } from '../commands/run.ts';
import type { SlackDeps } from '../deps.ts';
import { describeFailure } from '../describe-failure.ts';
import { ACTIONS, BLOCKS, VIEWS } from '../ids.ts';
import { postToConversation } from '../post-to-conversation.ts';
import { DeadlineError, SUBMIT_DEADLINE_MS, withDeadline } from './deadline.ts';

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

type Prepared =
  | { kind: 'errors'; errors: Record<string, string> }
  | { kind: 'refused'; view: ReturnType<typeof infoModal> }
  | { kind: 'ready'; runbook: Workflow; proxyId: string; params: Record<string, unknown>; channel: string | null };

/** Everything that decides whether a submission may run, answered before the ack. Starts nothing. */
async function prepareRun(deps: SlackDeps, body: ViewSubmitAction, client: WebClient): Promise<Prepared> {
  const view = body.view;
  const meta = decodeRunMetadata(view.private_metadata);
  if (!meta.r) return { kind: 'errors', errors: { [BLOCKS.runbookPicker]: 'Pick a runbook first.' } };
  // The catalog answers from memory; the API is the fallback for a runbook it has not seen yet.
  const runbook = (await deps.catalog.get(meta.r)) ?? (await loadRunbook(deps, meta.r));
  const values = view.state.values;
  const tooLong = oversizedFields(values);
  if (tooLong) return { kind: 'errors', errors: tooLong };
  const spec = parseInputSchema(runbook.inputSchema);
  const form = spec.kind === 'empty' ? { ok: true as const, params: {} } : readFormValues(spec, values);
  const proxyId = readProxy(values);
  const errors: Record<string, string> = form.ok ? {} : { ...form.errors };
  if (!proxyId) errors[BLOCKS.proxy] = 'Choose the proxy that should run it.';
  else {
    // A select only offers listed proxies; a value outside them did not come from our form.
    const choices = await deps.proxies.choicesFor(runbook);
    if (choices.options.length > 0 && !choices.options.some((p) => p.id === proxyId)) {
      errors[BLOCKS.proxy] = 'Choose one of the offered proxies.';
    }
  }
  if (Object.keys(errors).length > 0 || !form.ok || !proxyId) return { kind: 'errors', errors };
  if (!isRunnable(runbook)) {
    return {
      kind: 'refused',
      view: infoModal('Run a runbook', `:no_entry: *${escapeMrkdwn(runbook.name)}* is disabled and cannot be run.`),
    };
  }
  const userId = body.user.id;
  const channel = readChannel(values);
  const facts = runbookFacts(deps, runbook);
  // The rule is checked where the form was opened and where the result will go.
  for (const where of new Set([meta.c, channel])) {
    const decision = deps.access.policy.decide('run', await subjectOf(deps, client, userId, where), facts);
    if (decision.allowed) continue;
    await deps.access.audit.record({
      userId,
      teamId: body.team?.id ?? body.user.team_id ?? null,
      channel: where,
      action: 'run.start',
      target: `${runbook.name} (${runbook.id})`,
      outcome: 'denied',
      detail: decision.message,
      tid: null,
    });
    return { kind: 'refused', view: infoModal('Not allowed', `:no_entry: ${escapeMrkdwn(decision.message)}`) };
  }
  const limit = await deps.access.runLimit.take(userId);
  if (!limit.ok) {
    const seconds = Math.ceil(limit.retryInMs / 1000);
    return {
      kind: 'errors',
      errors: { [BLOCKS.proxy]: `You have started too many runs this minute; try again in ${seconds} s.` },
    };
  }
  return { kind: 'ready', runbook, proxyId, params: form.params, channel };
}

export function registerViews(app: App, deps: SlackDeps): void {
  app.view<ViewSubmitAction>(VIEWS.run, async ({ ack, body, client }) => {
    let prepared: Prepared;
    try {
      prepared = await withDeadline(prepareRun(deps, body, client), SUBMIT_DEADLINE_MS);
    } catch (err) {
      deps.logger.warn({ err }, 'run submission could not be checked in time');
      const sentence =
        err instanceof DeadlineError
          ? 'Checking this took too long, so nothing was started. Try again in a moment.'
          : `Nothing was started. ${describeFailure(err)}`;
      await ack({ response_action: 'update', view: errorModal('Run a runbook', sentence) });
      return;
    }
    if (prepared.kind === 'errors') {
      await ack({ response_action: 'errors', errors: prepared.errors });
      return;
    }
    if (prepared.kind === 'refused') {
      await ack({ response_action: 'update', view: prepared.view });
      return;
    }
    await ack();
    const { proxyId, params, channel } = prepared;
    const userId = body.user.id;
    const teamId = body.team?.id ?? body.user.team_id ?? null;
    try {
      // The catalog copy may be a minute old: whether approval is needed is decided on a fresh one.
      const runbook = await loadRunbook(deps, prepared.runbook.id).catch(() => prepared.runbook);
      const need = deps.access.policy.approvalFor({
        ...runbookFacts(deps, runbook),
        requiresApproval: runbook.requiresApproval || prepared.runbook.requiresApproval,
      });
      if (need.required) {
        await requestApproval(deps, client, { runbook, proxyId, params, channel, userId, teamId, need });
        return;
      }
      const email = await deps.access.identity.emailOf(client, userId);
      await startRun(deps, client, {
        runbook,
        proxyId,
        params,
        channel,
        userId,
        teamId,
        ...(email ? { userEmail: email } : {}),
      });
    } catch (err) {
      deps.logger.error({ err }, 'run submission failed after the form closed');
      const sentence = `${prepared.runbook.name}: something failed after the form closed. ${describeFailure(err)} Check /runbook executions before trying again.`;
      await postToConversation(client, deps.logger, channel, userId, {
        ...errorMessage(sentence),
        ephemeralTo: userId,
      });
    }
  });
}
