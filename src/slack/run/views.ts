// Run modal submission: validate everything against the runbook's own schema and answer with
// errors on the exact fields (nothing runs until the input is valid); then close the modal and
// start the run, posting the live message where the person asked.
import type { ViewSubmitAction } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Workflow } from '../../api/schemas.ts';
import { parseInputSchema } from '../../forms/input-schema.ts';
import { readFormValues } from '../../forms/read-form-values.ts';
import { plainTextMentions } from '../../mentions.ts';
import type { Actor } from '../../runs/actor.ts';
import { loadRunbook, type RunResult, runFromForm } from '../../runs/run.ts';
import { isOfferedProxy } from '../../runs/run-choice.ts';
import { actorFor } from '../kit/actor.ts';
import { submissionOf } from '../kit/click-once.ts';
import { errorMessage, errorModal, infoModal, type SlackMessage } from '../kit/common.ts';
import { DeadlineError, SUBMIT_DEADLINE_MS, withDeadline } from '../kit/deadline.ts';
import type { SlackDeps } from '../kit/deps.ts';
import { describeFailure } from '../kit/describe-failure.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import { formTimeZone } from '../kit/identity.ts';
import { ACTIONS, BLOCKS } from '../kit/ids.ts';
import type { ViewArgs } from '../kit/listen.ts';
import { escapeMrkdwn } from '../kit/mrkdwn.ts';
import { postToConversation } from '../kit/post-to-conversation.ts';
import { decodeRunMetadata } from '../kit/run-modal.ts';
import { renderRunResult } from '../kit/run-start.ts';

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
  | { kind: 'ready'; runbook: Workflow; proxyId: string; params: Record<string, unknown>; channel: string | null };

/** Reads and validates the submission against the runbook's schema. Decides nothing about who may run it. */
async function readSubmission(deps: SlackDeps, body: ViewSubmitAction, client: WebClient): Promise<Prepared> {
  const view = body.view;
  const meta = decodeRunMetadata(view.private_metadata);
  if (!meta.r) return { kind: 'errors', errors: { [BLOCKS.runbookPicker]: 'Pick a runbook first.' } };
  // The catalog answers from memory; the API is the fallback for a runbook it has not seen yet.
  const runbook = (await deps.catalog.get(meta.r)) ?? (await loadRunbook(deps, meta.r));
  const values = view.state.values;
  const tooLong = oversizedFields(values);
  if (tooLong) return { kind: 'errors', errors: tooLong };
  const spec = parseInputSchema(runbook.inputSchema);
  // A picked date-time is in the person's Slack time zone: written with its offset.
  const timeZone = (await formTimeZone(deps.access.identity, client, body.user.id, spec))?.id ?? null;
  const form = spec.kind === 'empty' ? { ok: true as const, params: {} } : readFormValues(spec, values, timeZone);
  const proxyId = readProxy(values);
  const errors: Record<string, string> = form.ok ? {} : { ...form.errors };
  if (!proxyId) errors[BLOCKS.proxy] = 'Choose the proxy that should run it.';
  else {
    // A select only offers listed proxies; a value outside them did not come from our form.
    if (!(await isOfferedProxy(deps, runbook, proxyId))) errors[BLOCKS.proxy] = 'Choose one of the offered proxies.';
  }
  if (Object.keys(errors).length > 0 || !form.ok || !proxyId) return { kind: 'errors', errors };
  return { kind: 'ready', runbook, proxyId, params: form.params, channel: readChannel(values) };
}

/** A refusal shown in the form itself (the form is still open). */
function refusalView(result: Extract<RunResult, { kind: 'refused' }>) {
  if (result.reason === 'disabled') return infoModal('Run a runbook', `:no_entry: ${escapeMrkdwn(result.sentence)}`);
  return infoModal('Not allowed', `:no_entry: ${escapeMrkdwn(result.sentence)}`);
}

// ack, read the form, call the run use case, render. The use case's gate answers before the ack (a
// refusal or the run limit shows in the form, or on its field); once admitted the form closes and the
// run or approval request goes ahead.
export async function runFormSubmitted({ ack, body, client }: ViewArgs, ctx: HandlerContext): Promise<void> {
  const { deps } = ctx;
  const userId = body.user.id;
  const teamId = body.team?.id ?? body.user.team_id ?? null;
  let acked = false;
  let late = false;
  let admit: () => void = () => {};
  const admitted = new Promise<null>((resolve) => {
    admit = () => resolve(null);
  });
  const closeForm = async () => {
    if (late) return false;
    acked = true;
    await ack();
    admit();
    return true;
  };
  let prepared: Prepared | null = null;
  let actor: Actor | null = null;
  const work = (async () => {
    prepared = await readSubmission(deps, body, client);
    if (prepared.kind === 'errors') return null;
    const meta = decodeRunMetadata(body.view.private_metadata);
    // A preselected channel saved by someone (defaults, an alias), submitted unchanged, is judged against them.
    const saved = meta.o && meta.o.c === prepared.channel ? { userId: meta.o.b, alias: meta.o.a ?? null } : null;
    const where = { userId, teamId, channelId: meta.c, destinationChannel: prepared.channel, savedBy: saved };
    actor = await actorFor(deps, client, where, { email: true });
    const { runbook, proxyId, params } = prepared;
    const origin = { threadTs: meta.t ?? null, sourceLink: meta.s ?? null };
    return runFromForm(
      deps,
      actor,
      { runbook, proxyId, params, origin, via: meta.v === 'rerun' ? 'rerun' : 'form' },
      // The same delivery twice (Slack's retry, a replay within the signature window) runs once.
      { admitted: closeForm, submissionKey: submissionOf(body.view) },
    );
  })();
  let result: RunResult | null;
  try {
    // Until the form is closed Slack waits for the answer: past the deadline nothing is started.
    result = await withDeadline(Promise.race([work, admitted]), SUBMIT_DEADLINE_MS);
  } catch (err) {
    late = true;
    if (acked) {
      result = null;
    } else {
      deps.logger.warn({ err }, 'run submission could not be checked in time');
      const sentence =
        err instanceof DeadlineError
          ? 'Checking this took too long, so nothing was started. Try again in a moment.'
          : `Nothing was started. ${describeFailure(err)}`;
      await ack({ response_action: 'update', view: errorModal('Run a runbook', sentence) });
      return;
    }
  }
  if (!acked) {
    const p = prepared as Prepared | null;
    if (p?.kind === 'errors') {
      await ack({ response_action: 'errors', errors: p.errors });
      return;
    }
    if (result?.kind === 'refused' && result.reason === 'limited') {
      await ack({ response_action: 'errors', errors: { [BLOCKS.proxy]: result.sentence } });
      return;
    }
    if (result?.kind === 'refused' && result.reason === 'misdirected') {
      await ack({ response_action: 'errors', errors: { [BLOCKS.channel]: plainTextMentions(result.sentence) } });
      return;
    }
    if (result?.kind === 'refused') {
      await ack({ response_action: 'update', view: refusalView(result) });
      return;
    }
    await ack();
    return;
  }
  // The form is closed: the rest is told in the conversation.
  const ready = prepared as Prepared | null;
  const who = actor as Actor | null;
  try {
    const outcome = await work;
    if (!outcome || !who || ready?.kind !== 'ready') return;
    const tell = (message: SlackMessage) =>
      postToConversation(client, deps.logger, who.destinationChannel, userId, {
        ...message,
        ephemeralTo: userId,
      }).then(() => {});
    await renderRunResult(
      deps,
      { client, tell },
      who,
      { runbook: ready.runbook, proxyId: ready.proxyId, params: ready.params },
      outcome,
    );
  } catch (err) {
    deps.logger.error({ err }, 'run submission failed after the form closed');
    const name = ready?.kind === 'ready' ? ready.runbook.name : 'The run';
    const sentence = `${name}: something failed after the form closed. ${describeFailure(err)} Check /runbook executions before trying again.`;
    await postToConversation(client, deps.logger, ready?.kind === 'ready' ? ready.channel : null, userId, {
      ...errorMessage(sentence),
      ephemeralTo: userId,
    });
  }
}
