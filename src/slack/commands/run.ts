// `/runbook run [runbook]` and everything else that opens the run modal (list buttons, re-run,
// the global shortcut, App Home), plus starting the run once the form is valid.
import type { WebClient } from '@slack/web-api';
import { describeApiError } from '../../api/errors.ts';
import type { Workflow } from '../../api/schemas.ts';
import { parseInputSchema } from '../../forms/input-schema.ts';
import { maskSecrets, stripSecrets } from '../../forms/secrets.ts';
import { describeApprovers } from '../../policy/policy.ts';
import { button, errorModal, infoModal, loadingModal } from '../blocks/common.ts';
import { buildRunningCard } from '../blocks/execution-card.ts';
import { channelMention, escapeMrkdwn, mrkdwnText } from '../blocks/mrkdwn.ts';
import { buildRunModal } from '../blocks/run-modal.ts';
import { buildChoiceBlocks, type PickThen } from '../blocks/runbook-choice.ts';
import { isRunnable } from '../blocks/runbook-list.ts';
import type { SlackDeps } from '../deps.ts';
import { ACTIONS } from '../ids.ts';
import { postToConversation } from '../post-to-conversation.ts';
import { runbookFacts, subjectOf } from './access.ts';
import type { HandlerContext } from './context.ts';

export interface RunModalTarget {
  /** A runbook id or name typed by the person. */
  query?: string | null;
  /** A known runbook id. */
  runbookId?: string | null;
  prefill?: Record<string, unknown>;
  proxyId?: string | null;
  /** Default destination channel. */
  channel?: string | null;
  /** Show the typeahead picker (default: when no runbook was named). */
  withPicker?: boolean;
}

/** Fetch one runbook with its input schema, the right way for service and custom runbooks. */
export async function loadRunbook(deps: SlackDeps, id: string): Promise<Workflow> {
  const isService = deps.catalog.isService(id);
  const { workflow } = await deps.api.workflows.get(id, isService === true ? { isService: true } : {}, {
    timeoutMs: deps.interactiveTimeoutMs,
  });
  return workflow;
}

function disabledReason(runbook: Workflow): string {
  if (runbook.runningDisabledByFloatingEnv) return 'its environment is not ready';
  if (runbook.executionDisabled) return 'execution of this runbook is disabled';
  return 'running this runbook is disabled';
}

/** Notes shown above the form: what will happen on submit (approval, who approves, where the result goes). */
export function runNotes(deps: SlackDeps, runbook: Workflow): string[] {
  const notes: string[] = [];
  const need = deps.access.policy.approvalFor(runbookFacts(deps, runbook));
  if (need.required) {
    const where = deps.access.approvalsChannel ? ` in ${channelMention(deps.access.approvalsChannel)}` : '';
    notes.push(
      `:lock: This run needs approval (${escapeMrkdwn(need.reasons.join('; '))}). Your request goes to the approvers${where}; ${describeApprovers(need)} can approve it.`,
    );
  }
  notes.push(':speech_balloon: The result is posted to the channel below and updated when the run ends.');
  return notes;
}

/** Who is looking at the form, for the policy check when it opens. */
export interface Viewer {
  userId: string;
  client: WebClient;
}

/** Opens a loading view at once (inside the trigger's 3 s), then fills it when the data arrives. */
export async function openRunModal(ctx: HandlerContext, target: RunModalTarget): Promise<void> {
  if (!ctx.triggerId) throw new Error('openRunModal needs a trigger_id');
  const opened = await ctx.client.views.open({
    trigger_id: ctx.triggerId,
    view: loadingModal('Run a runbook', 'Loading the runbook…'),
  });
  const viewId = opened.view?.id;
  if (!viewId) return;
  const update = (view: Parameters<WebClient['views']['update']>[0]['view']) =>
    ctx.client.views.update({ view_id: viewId, view });
  try {
    await update(
      await runModalView(ctx.deps, target, ctx.channelId, 'run', { userId: ctx.userId, client: ctx.client }),
    );
  } catch (err) {
    ctx.deps.logger.warn({ err }, 'could not fill the run modal');
    await update(errorModal('Run a runbook', describeApiError(err))).catch(() => {});
  }
}

/** The view to show for a run target: the form, a pick list, a refusal, or the bare picker. */
export async function runModalView(
  deps: SlackDeps,
  target: RunModalTarget,
  channelId: string | null,
  then: PickThen,
  viewer: Viewer | null = null,
) {
  const channel = target.channel ?? channelId;
  let runbookId = target.runbookId ?? null;
  if (!runbookId && target.query) {
    const resolution = await deps.catalog.resolve(target.query);
    if (resolution.kind !== 'match') {
      return infoModal('Run a runbook', ' ', buildChoiceBlocks(target.query, resolution, then));
    }
    runbookId = resolution.runbook.id;
  }
  const withPicker = target.withPicker ?? (!target.query && !target.runbookId);
  if (!runbookId) {
    return buildRunModal({
      runbook: null,
      spec: null,
      proxies: { options: [], initial: null },
      metadata: { r: null, c: channel },
      withPicker: true,
    });
  }
  const runbook = await loadRunbook(deps, runbookId);
  if (viewer) {
    const subject = await subjectOf(deps, viewer.client, viewer.userId, channelId);
    const decision = deps.access.policy.decide('run', subject, runbookFacts(deps, runbook));
    if (!decision.allowed) {
      await deps.access.audit.record({
        userId: viewer.userId,
        teamId: null,
        channel: channelId,
        action: 'run.open',
        target: `${runbook.name} (${runbook.id})`,
        outcome: 'denied',
        detail: decision.message,
        tid: null,
      });
      return infoModal('Not allowed', `:no_entry: ${escapeMrkdwn(decision.message)}`);
    }
  }
  if (!isRunnable(runbook)) {
    return infoModal(
      'Run a runbook',
      `:no_entry: *${escapeMrkdwn(runbook.name)}* cannot be run: ${disabledReason(runbook)}. Ask the runbook's owner to enable it.`,
    );
  }
  const spec = parseInputSchema(runbook.inputSchema);
  // Secret values are never carried over into a new form.
  const prefill = target.prefill ? stripSecrets(spec, target.prefill) : undefined;
  return buildRunModal({
    runbook,
    spec,
    proxies: await deps.proxies.choicesFor(runbook),
    metadata: { r: runbook.id, c: channel },
    withPicker,
    ...(prefill ? { prefill } : {}),
    proxyId: target.proxyId ?? null,
    notes: runNotes(deps, runbook),
  });
}

export interface StartRunInput {
  runbook: Workflow;
  proxyId: string;
  params: Record<string, unknown>;
  /** Destination channel; null → DM the person. */
  channel: string | null;
  userId: string;
  teamId: string | null;
  userEmail?: string;
  /** The approval request this run follows, and who approved it. */
  requestId?: string;
  approvedBy?: string;
}

export interface StartRunResult {
  ok: boolean;
  executionIds: string[];
  /** One sentence when the run did not start. */
  error?: string;
  /** Runbook API request tid of the run call, when known. */
  tid?: string;
}

/** Starts the run, then posts the live "running" message where the person asked for it. */
export async function startRun(deps: SlackDeps, client: WebClient, input: StartRunInput): Promise<StartRunResult> {
  const spec = parseInputSchema(input.runbook.inputSchema);
  const masked = maskSecrets(spec, input.params);
  let executionIds: string[];
  let tid: string | undefined;
  const audit = (outcome: 'ok' | 'error', detail: string, auditTid: string | null) =>
    deps.access.audit.record({
      userId: input.userId,
      teamId: input.teamId,
      channel: input.channel,
      action: 'run.start',
      target: `${input.runbook.name} (${input.runbook.id})`,
      outcome,
      detail,
      tid: auditTid,
    });
  try {
    const result = await deps.api.workflows.run(input.runbook.id, {
      proxyId: input.proxyId,
      ...(Object.keys(input.params).length ? { params: input.params } : {}),
      userId: input.userId,
      ...(input.userEmail ? { userEmail: input.userEmail } : {}),
      ...(input.requestId ? { requestId: input.requestId } : {}),
    });
    executionIds = result.executionIds;
    tid = result.tid;
    await audit(
      'ok',
      `executions ${executionIds.join(', ')}; proxy ${input.proxyId}; inputs ${JSON.stringify(masked)}${input.approvedBy ? `; approved by ${input.approvedBy}` : ''}`,
      tid ?? null,
    );
  } catch (err) {
    deps.logger.warn({ err, runbookId: input.runbook.id }, 'run failed to start');
    const errorTid = (err as { tid?: unknown }).tid;
    await audit('error', describeApiError(err), typeof errorTid === 'string' ? errorTid : null);
    const draftId = await deps.drafts.save(
      { runbookId: input.runbook.id, proxyId: input.proxyId, channel: input.channel, params: input.params },
      spec,
    );
    const sentence = `${input.runbook.name} did not start. ${describeApiError(err)}`;
    await postToConversation(client, deps.logger, input.channel, input.userId, {
      text: sentence,
      blocks: [
        { type: 'section', text: mrkdwnText(`:warning: ${escapeMrkdwn(sentence)}`) },
        {
          type: 'actions',
          block_id: 'retry_actions',
          elements: [button('Try again', ACTIONS.retryRun, draftId, { style: 'primary' })],
        },
      ],
      ephemeralTo: input.userId,
    });
    return { ok: false, executionIds: [], error: describeApiError(err) };
  }

  const run = {
    runbookId: input.runbook.id,
    runbookName: input.runbook.name,
    proxyId: input.proxyId,
    startedBy: input.userId,
    inputs: masked,
    ...(input.approvedBy ? { approvedBy: input.approvedBy } : {}),
  };
  // The watch is stored before anything is posted, so a crash here still gets a result later. If the
  // store fails, the run is still going: the person must at least get its message and id.
  await deps.runs
    .started({ ...run, executionIds, channel: input.channel, teamId: input.teamId })
    .catch((err: unknown) =>
      deps.logger.error({ err, executionIds }, 'could not store the watch; the result will not be followed'),
    );
  // Whoever holds the card claim posts it; if the watcher got there first (a very slow post), it has.
  const mayPost = executionIds[0] ? await deps.runs.claimMessage(executionIds[0]).catch(() => true) : true;
  if (mayPost) {
    const posted = await postToConversation(
      client,
      deps.logger,
      input.channel,
      input.userId,
      buildRunningCard(run, executionIds),
    );
    if (posted) await deps.runs.posted(executionIds, posted.channel, posted.ts);
  }
  return { ok: true, executionIds, ...(tid ? { tid } : {}) };
}
