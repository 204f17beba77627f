// `/runbook run [runbook]` and everything else that opens the run modal (list buttons, re-run,
// the global shortcut, App Home), plus starting the run once the form is valid.
import type { WebClient } from '@slack/web-api';
import type { Workflow } from '../../api/schemas.ts';
import type { Resolution } from '../../catalog/runbook-catalog.ts';
import { parseInputSchema } from '../../forms/input-schema.ts';
import { secretFieldNames, stripSecrets } from '../../forms/secrets.ts';
import { typeValues } from '../../forms/typed-values.ts';
import type { Actor } from '../../runs/actor.ts';
import { approvalNeedFor, placeOfActor } from '../../runs/gate.ts';
import { healthForRun } from '../../runs/health.ts';
import { checkRunForm, loadRunbook, type RunRequest, type RunResult } from '../../runs/run.ts';
import { type ChosenByPerson, chooseRun } from '../../runs/run-choice.ts';
import type { RunEntry } from '../../runs/run-entry.ts';
import type { StartedRun } from '../../runs/run-tracker.ts';
import { disabledReason, isRunnable } from '../../runs/runnable.ts';
import { visibilityFor } from '../../runs/visibility.ts';
import { installationKey } from '../../tenants/tenant-scope.ts';
import { actorFor, type SavedBy } from './actor.ts';
import { buildWaitingForApproval } from './approval.ts';
import { publishApprovalRequest } from './approval-request.ts';
import { button, errorMessage, errorModal, infoModal, loadingModal, type SlackMessage } from './common.ts';
import type { SlackDeps } from './deps.ts';
import { describeFailure } from './describe-failure.ts';
import { buildRunningCard } from './execution-card.ts';
import type { HandlerContext } from './handler-context.ts';
import { formTimeZone } from './identity.ts';
import { ACTIONS } from './ids.ts';
import { channelMention, escapeMrkdwn, mrkdwnText } from './mrkdwn.ts';
import { proxyText } from './people.ts';
import { permalinkOf, postToConversation, sendToConversation } from './post-to-conversation.ts';
import { namesCard } from './read-back.ts';
import { buildRunModal, type SavedOrigin } from './run-modal.ts';
import { buildRunStarted } from './run-started.ts';
import { buildChoiceBlocks, offeredSecrets, type PickKeep, type PickThen } from './runbook-choice.ts';

export interface RunModalTarget {
  /** A runbook id or name typed by the person. */
  query?: string | null;
  /** A known runbook id. */
  runbookId?: string | null;
  prefill?: Record<string, unknown>;
  /** An explicit proxy; else the channel's default proxy, else the bot's default. */
  proxyId?: string | null;
  /** The channel the form belongs to (kept in its metadata); the result channel unless one is preselected. */
  channel?: string | null;
  /** Show the typeahead picker (default: when no runbook was named). */
  withPicker?: boolean;
  /** The thread the form was opened from (a mention): the live card goes there. */
  threadTs?: string | null;
  /** Permalink of the message the form was opened from (message shortcut). */
  sourceLink?: string | null;
  /** Extra notes above the form (already escaped mrkdwn), e.g. typed values refused. */
  notes?: string[];
  /** Values typed on one line (`key=value`): typed per the schema and prefilled; refusals shown as notes. */
  typed?: Record<string, string>;
  /** Preselected result channel (an alias's or line's --to); else the channel's default, see channelRunChoice. */
  destination?: string | null;
  /** Who saved `destination` (an alias's --to); absent: chosen by the person now. */
  destinationSavedBy?: SavedBy | null;
  /** The entry point that opens the form, when not the form itself (Re-run): named in the run's audit record. */
  via?: RunEntry;
}

/** The metadata fields that carry where a form was opened from. */
function originMetadata(target: RunModalTarget): { t?: string; s?: string; v?: RunEntry } {
  return {
    ...(target.threadTs ? { t: target.threadTs } : {}),
    ...(target.sourceLink ? { s: target.sourceLink } : {}),
    ...(target.via ? { v: target.via } : {}),
  };
}

export { loadRunbook };

/** The metadata that says the preselected destination was saved by someone (judged against them on submit). */
function savedMetadata(choice: ChannelRunChoice): { o?: SavedOrigin } {
  if (!choice.destination || !choice.savedBy) return {};
  const { userId, alias } = choice.savedBy;
  return { o: { c: choice.destination, b: userId, ...(alias ? { a: alias } : {}) } };
}

/** Notes shown above the form: what will happen on submit (approval, who approves, where the result goes). */
export function runNotes(deps: SlackDeps, runbook: Workflow, actor: Actor): string[] {
  const notes: string[] = [];
  const need = approvalNeedFor(deps, runbook, placeOfActor(actor));
  if (need.required) {
    const where = deps.access.approvalsChannel ? ` in ${channelMention(deps.access.approvalsChannel)}` : '';
    notes.push(
      `:lock: This run needs approval (${escapeMrkdwn(need.reasons.join('; '))}). Your request goes to the approvers${where}; ${need.whoApproves}.`,
    );
  }
  notes.push(':speech_balloon: The result is posted to the channel below and updated when the run ends.');
  return notes;
}

/** What a run started in a channel uses: the caller's explicit choice, else the channel's run defaults. */
export interface ChannelRunChoice {
  proxyId: string | null;
  destination: string | null;
  /** Who saved the destination (the channel's defaults, an alias): it is judged against them. */
  savedBy: SavedBy | null;
  /** What the channel's defaults changed, for the form (already escaped mrkdwn). */
  notes: string[];
}

/**
 * The channel's run defaults as the use cases choose them (src/runs/run-choice.ts), with what they changed
 * said above the form.
 */
export async function channelRunChoice(
  deps: SlackDeps,
  channelId: string | null,
  chosen: ChosenByPerson & { destinationSavedBy?: SavedBy | null },
  runbook: Workflow | null = null,
): Promise<ChannelRunChoice> {
  const choice = await chooseRun(deps, runbook, channelId, chosen);
  const { proxyId: proxyDefault, resultChannel: destinationDefault } = choice.fromDefaults;
  const parts = [
    ...(proxyDefault ? [`proxy ${proxyText({ id: proxyDefault, name: deps.proxies.nameOf(proxyDefault) })}`] : []),
    ...(destinationDefault ? [`results to ${channelMention(destinationDefault)}`] : []),
  ];
  const savedBy: SavedBy | null = chosen.destination
    ? (chosen.destinationSavedBy ?? null)
    : destinationDefault && choice.fromDefaults.savedBy
      ? { userId: choice.fromDefaults.savedBy, alias: null }
      : null;
  return {
    proxyId: choice.proxyId,
    destination: choice.destination,
    savedBy,
    notes: parts.length ? [`:pushpin: This channel's run defaults: ${parts.join(', ')}.`] : [],
  };
}

/**
 * Who saved `destination` in this channel as it stands in the store (alias `alias`, or null: the channel's
 * run defaults); null when it is not what is saved there (then whoever submits it chose it).
 */
export async function savedByNow(
  deps: SlackDeps,
  channelId: string | null,
  destination: string | null,
  alias: string | null,
): Promise<SavedBy | null> {
  if (!channelId || !destination) return null;
  if (alias) {
    const saved = await deps.access.store.aliases.get(channelId, alias, installationKey());
    return saved?.resultChannel === destination ? { userId: saved.createdBy, alias } : null;
  }
  const defaults = await deps.access.store.channelDefaults.get(channelId, installationKey());
  return defaults?.resultChannel === destination ? { userId: defaults.updatedBy, alias: null } : null;
}

/** Who is looking at the form, for the gate when it opens. */
export interface Viewer {
  userId: string;
  client: WebClient;
  /** The workspace and Grid org the person acts from (the request's), for the policy's `teams:`. */
  teamId?: string | null;
  enterpriseId?: string | null;
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
      await runModalView(
        ctx.deps,
        { ...target, threadTs: target.threadTs ?? ctx.threadTs ?? null },
        ctx.channelId,
        'run',
        { userId: ctx.userId, client: ctx.client, teamId: ctx.teamId, enterpriseId: ctx.enterpriseId ?? null },
      ),
    );
  } catch (err) {
    ctx.deps.logger.warn({ err }, 'could not fill the run modal');
    await update(errorModal('Run a runbook', describeFailure(err))).catch(() => {});
  }
}

/** The view to show for a run target: the form, a pick list, a refusal, or the bare picker. */
export async function runModalView(
  deps: SlackDeps,
  target: RunModalTarget,
  channelId: string | null,
  then: PickThen,
  viewer: Viewer,
) {
  const channel = target.channel ?? channelId;
  let choice = await channelRunChoice(deps, channelId, target);
  const actorTo = (to: ChannelRunChoice) =>
    actorFor(deps, viewer.client, {
      userId: viewer.userId,
      teamId: viewer.teamId ?? null,
      enterpriseId: viewer.enterpriseId ?? null,
      channelId,
      destinationChannel: to.destination ?? channel,
      savedBy: to.savedBy,
    });
  let actor = await actorTo(choice);
  let runbookId = target.runbookId ?? null;
  // A line's values wait (secrets left out) for the pick, which opens the form with them.
  const keepLine = async (resolution: Exclude<Resolution, { kind: 'match' }>): Promise<PickKeep> => {
    const typed = target.typed ?? {};
    if (Object.keys(typed).length === 0) return {};
    const secret = new Set(offeredSecrets(resolution, typed));
    const values = Object.fromEntries(Object.entries(typed).filter(([name]) => !secret.has(name)));
    const line = { values, proxyId: target.proxyId ?? null, destination: target.destination ?? null };
    return { line: await deps.drafts.saveLine({ ...line, threadTs: target.threadTs ?? null }, viewer.userId) };
  };
  if (!runbookId && target.query) {
    // Only runbooks the person may view are matched, listed or suggested.
    const resolution = await (await visibilityFor(deps, actor)).resolve(target.query);
    if (resolution.kind !== 'match') {
      return infoModal(
        'Run a runbook',
        ' ',
        buildChoiceBlocks(target.query, resolution, then, await keepLine(resolution)),
      );
    }
    runbookId = resolution.runbook.id;
  }
  const withPicker = target.withPicker ?? (!target.query && !target.runbookId);
  if (!runbookId) {
    return buildRunModal({
      runbook: null,
      spec: null,
      proxies: { options: [], initial: null },
      metadata: { r: null, c: channel, ...originMetadata(target) },
      withPicker: true,
    });
  }
  const runbook = await loadRunbook(deps, runbookId);
  let check = await checkRunForm(deps, actor, runbook, target.via ?? 'form');
  const dropped: string[] = [];
  if (check.kind === 'refused' && check.reason === 'misdirected') {
    // A preselected destination that does not pass (a saved default or alias gone stale, a carried-over
    // channel) is refused (audited) and not offered: the form opens on the channel acted in, saying why.
    dropped.push(`:warning: ${escapeMrkdwn(check.sentence)}`);
    choice = await channelRunChoice(deps, channelId, { ...target, destination: channelId, destinationSavedBy: null });
    actor = await actorTo(choice);
    check = await checkRunForm(deps, actor, runbook, target.via ?? 'form');
  }
  if (check.kind === 'refused') return infoModal('Not allowed', `:no_entry: ${escapeMrkdwn(check.sentence)}`);
  if (!isRunnable(runbook)) {
    return infoModal(
      'Run a runbook',
      `:no_entry: *${escapeMrkdwn(runbook.name)}* cannot be run: ${disabledReason(runbook)}. Ask the runbook's owner to enable it.`,
    );
  }
  const spec = parseInputSchema(runbook.inputSchema);
  const timeZone = await formTimeZone(deps.access.identity, viewer.client, viewer.userId, spec);
  // A date-time typed without an offset is read in the zone the form's pickers are in (named under them).
  const typed = target.typed ? typeValues(spec, target.typed, {}, timeZone?.id ?? null) : null;
  const given = target.typed ? Object.keys(target.typed) : [];
  // Only what was typed is judged here: an input left out is simply asked for by the form.
  const refusals = typed && !typed.ok ? typed.errors.filter((e) => given.includes(e.name)) : [];
  const typedNotes = refusals.map((e) => `:warning: \`${escapeMrkdwn(e.name)}\`: ${escapeMrkdwn(e.message)}`);
  // A secret typed on the line is not carried into the form (below): said, not silently dropped.
  const typedSecrets = secretFieldNames(spec).filter((name) => (target.typed?.[name] ?? '').trim() !== '');
  if (typedSecrets.length > 0) {
    const names = typedSecrets.map((name) => `\`${escapeMrkdwn(name)}\``).join(', ');
    typedNotes.push(`:warning: ${names}: a secret is never taken from a line; type it in the form below.`);
  }
  // Secret values are never carried over into a new form.
  const merged = typed ? { ...target.prefill, ...typed.params } : target.prefill;
  const prefill = merged ? stripSecrets(spec, merged) : undefined;
  return buildRunModal({
    runbook,
    spec,
    timeZone,
    proxies: await deps.proxies.choicesFor(runbook),
    metadata: { r: runbook.id, c: channel, ...originMetadata(target), ...savedMetadata(choice) },
    withPicker,
    ...(prefill ? { prefill } : {}),
    proxyId: choice.proxyId,
    notes: [...dropped, ...typedNotes, ...(target.notes ?? []), ...choice.notes, ...runNotes(deps, runbook, actor)],
    ...(choice.destination ? { destination: choice.destination } : {}),
  });
}

/** Where to tell the person something privately, and how to post the live card. */
export interface RunAudience {
  client: WebClient;
  /** Answer the person privately (ephemeral where they acted, or the form's response). */
  tell: (message: SlackMessage) => Promise<void>;
}

/**
 * Shows the outcome of a run use case: the live "running" card where the result goes, the approval request
 * to the approvers, a "Try again" after a failure (the form values kept as a draft), or the refusal.
 */
export async function renderRunResult(
  deps: SlackDeps,
  audience: RunAudience,
  actor: Actor,
  /** The form's request, kept as a draft for "Try again" when the run fails; null: nothing to reopen. */
  request: RunRequest | null,
  result: RunResult,
): Promise<void> {
  const { client } = audience;
  switch (result.kind) {
    case 'started': {
      const posted = await postRunningCard(deps, client, result.run);
      // The form may send the result elsewhere: say where, where the person was typing.
      if (actor.channelId && actor.channelId !== result.run.channel) {
        await postToConversation(client, deps.logger, actor.channelId, actor.userId, {
          ...(await runStartedNotice(client, result.run, posted)),
          ephemeralTo: actor.userId,
        });
      }
      return;
    }
    case 'approval-requested': {
      await publishApprovalRequest(deps, client, result.approval, result.need, actor.channelId);
      // Where they submitted (besides the DM copy): who it waits for, and until when. The form may send
      // the result elsewhere; the notice goes where the person was typing.
      const waiting = buildWaitingForApproval(result.approval, result.need.whoApproves);
      if (actor.channelId && actor.channelId !== actor.destinationChannel) {
        await postToConversation(client, deps.logger, actor.channelId, actor.userId, {
          ...waiting,
          ephemeralTo: actor.userId,
        });
      } else await audience.tell(waiting);
      return;
    }
    case 'refused':
      await audience.tell(errorMessage(result.sentence));
      return;
    case 'failed': {
      const sentence = `${result.runbook.name} did not start. ${describeFailure(result.error)}`;
      if (!request) {
        await audience.tell(errorMessage(sentence));
        return;
      }
      const spec = parseInputSchema(result.runbook.inputSchema);
      const draftId = await deps.drafts.save(
        {
          runbookId: result.runbook.id,
          proxyId: request.proxyId,
          channel: actor.destinationChannel,
          params: request.params,
        },
        spec,
      );
      await postToConversation(client, deps.logger, actor.destinationChannel, actor.userId, {
        text: escapeMrkdwn(sentence),
        blocks: [
          { type: 'section', text: mrkdwnText(`:warning: ${escapeMrkdwn(sentence)}`) },
          {
            type: 'actions',
            block_id: 'retry_actions',
            elements: [button('Try again', ACTIONS.retryRun, draftId, { style: 'primary' })],
          },
        ],
        ephemeralTo: actor.userId,
      });
      return;
    }
  }
}

/** "X started. Its live card is in #deploys: open it." with the card's link once it is posted. */
export async function runStartedNotice(
  client: WebClient,
  run: StartedRun,
  posted: { channel: string; ts: string } | null,
): Promise<SlackMessage> {
  return buildRunStarted({
    runbookName: run.runbookName,
    channel: posted?.channel ?? run.channel,
    inThread: Boolean(run.threadTs),
    cardLink: await permalinkOf(client, posted),
  });
}

/**
 * A card Slack kept refusing (rate limits, 5xx; read back and not there) goes back to the watcher, which
 * posts it after the unposted grace; otherwise the claim would hold it back until the claimant counts as dead.
 */
export async function handCardOn(deps: SlackDeps, executionId: string | undefined, notSent: boolean): Promise<void> {
  if (!executionId || !notSent) return;
  await deps.runs
    .releaseMessage(executionId)
    .catch((err: unknown) => deps.logger.warn({ err, executionId }, 'could not hand the card on to the watcher'));
}

/**
 * Posts the live card of a started run (in its thread, when started from one), if this process holds
 * the card claim (else the watcher posts it). Returns where it landed.
 */
export async function postRunningCard(
  deps: SlackDeps,
  client: WebClient,
  run: StartedRun,
): Promise<{ channel: string; ts: string } | null> {
  const { executionIds } = run;
  const mayPost = executionIds[0] ? await deps.runs.claimMessage(executionIds[0]).catch(() => true) : true;
  if (!mayPost) return null;
  // How long it usually takes: the health cache, else one bounded read (never holds the card up on failure).
  const eta = (await healthForRun(deps, run.runbookName))?.report.eta ?? null;
  const card = buildRunningCard({ ...run, ...(run.sourceLink ? { sourceLink: run.sourceLink } : {}) }, executionIds, {
    eta,
  });
  const sent = await sendToConversation(client, deps.logger, run.channel, run.startedBy ?? '', {
    ...card,
    ...(run.threadTs ? { threadTs: run.threadTs } : {}),
    // A lost answer is resolved by reading the channel back: one card per execution, always.
    ...(executionIds[0] ? { sentCheck: namesCard(executionIds[0]) } : {}),
  });
  const posted = sent.at;
  if (posted) await deps.runs.posted(executionIds, posted.channel, posted.ts, eta);
  else await handCardOn(deps, executionIds[0], sent.notSent);
  return posted;
}
