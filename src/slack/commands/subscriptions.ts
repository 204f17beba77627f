// `/runbook subscribe|unsubscribe|subscriptions` (channel subscriptions: the channel gets the result of
// every run of a runbook, found by src/watch/subscriptions.ts) and `/runbook watch <executionId>`
// (adopt one execution started elsewhere: a live card here that the watcher turns into the result).
import { NotFoundError } from '../../api/errors.ts';
import type { Execution, Workflow } from '../../api/schemas.ts';
import type { Subscription } from '../../store/store.ts';
import { isTerminal } from '../../watch/bulk-discovery.ts';
import { ALL_RUNBOOKS, sameRunbookName } from '../../watch/subscription-notice.ts';
import { errorMessage, noticeMessage } from '../blocks/common.ts';
import { buildRunningCard } from '../blocks/execution-card.ts';
import { buildExecutionNotFound, parseExecutionInputs } from '../blocks/execution-status.ts';
import { channelMention, escapeMrkdwn, inlineCode, truncate } from '../blocks/mrkdwn.ts';
import { buildSubscribeChoice, buildSubscriptionList, subscriptionTarget } from '../blocks/subscription-list.ts';
import type { SlackDeps } from '../deps.ts';
import { postToConversation } from '../post-to-conversation.ts';
import { runbookFacts, subjectOf } from './access.ts';
import type { HandlerContext } from './context.ts';
import { maskExecutionInputs } from './executions.ts';

/** `all` (or `*`) means every runbook. A runbook literally named "all" is reached by its id. */
function isAll(text: string): boolean {
  const t = text.trim().toLowerCase();
  return t === 'all' || t === ALL_RUNBOOKS;
}

function needChannel(ctx: HandlerContext): string | null {
  return ctx.channelId && ctx.channelId.trim() !== '' ? ctx.channelId : null;
}

const NO_CHANNEL =
  'Subscriptions belong to a channel, and Slack did not say which one this is. Run the command in the channel.';

async function audit(
  ctx: HandlerContext,
  action: string,
  target: string,
  outcome: 'ok' | 'denied' | 'error',
  detail: string | null,
): Promise<void> {
  await ctx.deps.access.audit.record({
    userId: ctx.userId,
    teamId: ctx.teamId,
    channel: ctx.channelId,
    action,
    target,
    outcome,
    detail,
    tid: null,
  });
}

// ---- subscribe -----------------------------------------------------------------------------------

export interface SubscribeRequest {
  /** A runbook name or id typed by the person, or `all`. */
  runbook?: string;
  /** A known runbook id (from a pick button). */
  runbookId?: string;
  failuresOnly: boolean;
}

export async function subscribe(
  ctx: HandlerContext,
  request: SubscribeRequest,
  replaceOriginal = false,
): Promise<void> {
  const { deps } = ctx;
  const channel = needChannel(ctx);
  if (!channel) {
    await ctx.respond(errorMessage(NO_CHANNEL));
    return;
  }
  let runbook: Workflow | null = null;
  if (request.runbookId) {
    runbook = await deps.catalog.get(request.runbookId);
    if (!runbook) {
      await ctx.respond({
        ...errorMessage('That runbook is no longer in the catalog. Try `/runbook list`.'),
        replaceOriginal,
      });
      return;
    }
  } else if (!isAll(request.runbook ?? '')) {
    const query = request.runbook ?? '';
    const resolution = await deps.catalog.resolve(query);
    if (resolution.kind !== 'match') {
      await ctx.respond({ ...buildSubscribeChoice(query, resolution, request.failuresOnly), replaceOriginal });
      return;
    }
    runbook = resolution.runbook;
  }

  const target = runbook ? `${runbook.name} (${runbook.id})` : 'all runbooks';
  // Subscribing shows results, so it needs `view`; "all" is judged without a runbook (only rules
  // that are not about particular runbooks apply), since it covers runbooks not yet written.
  const subject = await subjectOf(deps, ctx.client, ctx.userId, channel);
  const decision = deps.access.policy.decide('view', subject, runbook ? runbookFacts(deps, runbook) : null);
  if (!decision.allowed) {
    await audit(ctx, 'subscription.add', target, 'denied', decision.message);
    await ctx.respond({ ...errorMessage(decision.message), replaceOriginal });
    return;
  }

  const added = await deps.access.store.subscriptions.add(
    {
      channel,
      runbookId: runbook?.id ?? ALL_RUNBOOKS,
      runbookName: runbook?.name ?? '',
      failuresOnly: request.failuresOnly,
      createdBy: ctx.userId,
      teamId: ctx.teamId,
    },
    deps.now(),
  );
  await audit(
    ctx,
    'subscription.add',
    target,
    'ok',
    `${added}; ${request.failuresOnly ? 'failures only' : 'every result'}`,
  );
  const what = runbook ? `*${escapeMrkdwn(truncate(runbook.name, 150))}*` : '*any runbook*';
  const verb = request.failuresOnly ? 'fails' : 'finishes';
  const prefix = added === 'updated' ? ':bell: Updated: this channel' : ':bell: This channel';
  const line = `${prefix} gets a message whenever a run of ${what} ${verb}, scheduled runs and runs started outside Slack included. \`/runbook subscriptions\` lists this channel's subscriptions.`;
  const fallback = `This channel now gets results of ${runbook ? runbook.name : 'all runbooks'}${request.failuresOnly ? ' (failures only)' : ''}.`;
  await ctx.respond({ ...noticeMessage(line, fallback), replaceOriginal });
}

// ---- unsubscribe ---------------------------------------------------------------------------------

/** The channel's subscription a typed `<runbook|all>` means: by id, stored name, or catalog resolution. */
async function findSubscription(
  deps: SlackDeps,
  subscriptions: Subscription[],
  text: string,
): Promise<Subscription | null> {
  if (isAll(text)) return subscriptions.find((s) => s.runbookId === ALL_RUNBOOKS) ?? null;
  const q = text.trim();
  const direct = subscriptions.find(
    (s) => s.runbookId === q || (s.runbookName !== '' && sameRunbookName(s.runbookName, q)),
  );
  if (direct) return direct;
  const resolution = await deps.catalog.resolve(q).catch(() => null);
  if (resolution?.kind === 'match') return subscriptions.find((s) => s.runbookId === resolution.runbook.id) ?? null;
  if (resolution?.kind === 'several') {
    const ids = new Set(resolution.candidates.map((c) => c.id));
    const hits = subscriptions.filter((s) => ids.has(s.runbookId));
    return hits.length === 1 ? hits[0]! : null;
  }
  return null;
}

export async function unsubscribe(ctx: HandlerContext, text: string): Promise<void> {
  const channel = needChannel(ctx);
  if (!channel) {
    await ctx.respond(errorMessage(NO_CHANNEL));
    return;
  }
  const subscriptions = await ctx.deps.access.store.subscriptions.listForChannel(channel);
  const found = await findSubscription(ctx.deps, subscriptions, text);
  if (!found) {
    const notice = `:information_source: This channel is not subscribed to ${isAll(text) ? '*all runbooks*' : `“${escapeMrkdwn(truncate(text, 100))}”`}.`;
    await ctx.respond(buildSubscriptionList(subscriptions, notice));
    return;
  }
  await removeSubscription(ctx, found.runbookId, false);
}

/** Removes the channel's subscription to `runbookId` ('*' = all) and shows what is left. */
export async function removeSubscription(
  ctx: HandlerContext,
  runbookId: string,
  replaceOriginal: boolean,
): Promise<void> {
  const channel = needChannel(ctx);
  if (!channel) {
    await ctx.respond(errorMessage(NO_CHANNEL));
    return;
  }
  const store = ctx.deps.access.store.subscriptions;
  const existing = (await store.listForChannel(channel)).find((s) => s.runbookId === runbookId) ?? null;
  const removed = await store.remove(channel, runbookId);
  const label = existing ? subscriptionTarget(existing) : 'that runbook';
  const target = runbookId === ALL_RUNBOOKS ? 'all runbooks' : `${existing?.runbookName ?? ''} (${runbookId})`;
  if (removed) await audit(ctx, 'subscription.remove', target, 'ok', null);
  const notice = removed
    ? `:no_bell: This channel no longer gets results of ${label}.`
    : `:information_source: This channel was not subscribed to ${label} (any more).`;
  await ctx.respond({ ...buildSubscriptionList(await store.listForChannel(channel), notice), replaceOriginal });
}

// ---- subscriptions -------------------------------------------------------------------------------

export async function showSubscriptions(ctx: HandlerContext, replaceOriginal = false): Promise<void> {
  const channel = needChannel(ctx);
  if (!channel) {
    await ctx.respond(errorMessage(NO_CHANNEL));
    return;
  }
  const subscriptions = await ctx.deps.access.store.subscriptions.listForChannel(channel);
  await ctx.respond({ ...buildSubscriptionList(subscriptions), replaceOriginal });
}

// ---- watch ---------------------------------------------------------------------------------------

/** The catalog's runbook with exactly this name, or null (unknown, renamed, or the catalog is down). */
async function runbookNamed(deps: SlackDeps, name: string): Promise<Workflow | null> {
  if (!name) return null;
  try {
    const r = await deps.catalog.resolve(name);
    if (r.kind === 'match') return sameRunbookName(r.runbook.name, name) ? r.runbook : null;
    if (r.kind === 'several') return r.candidates.find((c) => sameRunbookName(c.name, name)) ?? null;
  } catch (err) {
    deps.logger.warn({ err }, 'could not look up the runbook of an execution');
  }
  return null;
}

/**
 * Adopts an execution: a watch (origin 'adopted') is stored first, exactly like a run started here,
 * so the watcher owns the rest. A running execution gets its running card now; a finished one is
 * left to the watcher's first check, which posts the result card through its exactly-once path.
 */
export async function watchExecution(ctx: HandlerContext, executionId: string): Promise<void> {
  const { deps } = ctx;
  const id = executionId.trim();
  let execution: Execution;
  try {
    execution = await deps.api.executions.get(id, { summary: true });
  } catch (err) {
    if (err instanceof NotFoundError) {
      await ctx.respond(buildExecutionNotFound(id));
      return;
    }
    throw err;
  }
  const runbook = await runbookNamed(deps, execution.workflowName);
  const name = execution.workflowName || runbook?.name || 'Runbook';
  const target = `${name} (${id})`;
  if (runbook) {
    const subject = await subjectOf(deps, ctx.client, ctx.userId, ctx.channelId);
    const decision = deps.access.policy.decide('view', subject, runbookFacts(deps, runbook));
    if (!decision.allowed) {
      await audit(ctx, 'execution.watch', target, 'denied', decision.message);
      await ctx.respond(errorMessage(decision.message));
      return;
    }
  }

  const existing = await deps.access.store.watches.get(id);
  if (existing) {
    const where = existing.channel ? ` in ${channelMention(existing.channel)}` : '';
    const state = existing.state === 'active' ? 'is already being watched' : 'was already reported';
    await ctx.respond(noticeMessage(`:eyes: ${inlineCode(id, 120)} ${state}${where}.`, `${id} ${state}.`));
    return;
  }

  const inputs = maskExecutionInputs(parseExecutionInputs(execution.inputs), runbook);
  const shownInputs = inputs.kind === 'object' ? inputs.values : {};
  const finished = isTerminal(execution);
  const inserted = await deps.runs.adopt({
    executionId: id,
    runbookId: runbook?.id ?? '',
    runbookName: name,
    // null → the watcher DMs the person (no channel known).
    channel: ctx.channelId,
    adoptedBy: ctx.userId,
    teamId: ctx.teamId,
    inputs: shownInputs,
    finished,
  });
  if (!inserted) {
    // Someone adopted it between our check and our insert.
    await ctx.respond(
      noticeMessage(`:eyes: ${inlineCode(id, 120)} is already being watched.`, `${id} is already being watched.`),
    );
    return;
  }
  await audit(ctx, 'execution.watch', target, 'ok', finished ? 'already finished' : 'running');
  if (finished) {
    await ctx.respond(
      noticeMessage(
        `:eyes: ${inlineCode(id, 120)} has already finished; its result is being posted here.`,
        `${id} has already finished.`,
      ),
    );
    return;
  }
  const card = buildRunningCard(
    { runbookId: runbook?.id ?? '', runbookName: name, proxyId: '', startedBy: null, inputs: shownInputs },
    [id],
  );
  // The watcher may already be posting (the run ended meanwhile): only the holder of the card claim posts.
  if (!(await deps.runs.claimMessage(id))) return;
  const posted = await postToConversation(ctx.client, deps.logger, ctx.channelId, ctx.userId, card);
  if (posted) await deps.runs.posted([id], posted.channel, posted.ts);
}
