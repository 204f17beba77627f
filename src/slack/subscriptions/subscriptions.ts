// `/runbook subscribe|unsubscribe|subscriptions` and `/runbook watch <executionId>`: each calls one use
// case of src/runs/subscriptions.ts and renders its result.

import { isLongerThanUsual } from '../../health/runbook-health.ts';
import { ALL_RUNBOOKS } from '../../runs/execution-facts.ts';
import { looksLikeFullId } from '../../runs/execution-ref.ts';
import { healthForRun } from '../../runs/health.ts';
import {
  isAll,
  listSubscriptions,
  removeSubscription,
  subscribe,
  type UnsubscribeResult,
  unsubscribe,
  watchExecution,
} from '../../runs/subscriptions.ts';
import { actorOf } from '../kit/access.ts';
import { errorMessage, noticeMessage } from '../kit/common.ts';
import { buildRunningCard } from '../kit/execution-card.ts';
import { executionIdFor } from '../kit/execution-ref.ts';
import { buildExecutionNotFound } from '../kit/execution-status.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import { channelMention, escapeMrkdwn, inlineCode, truncate } from '../kit/mrkdwn.ts';
import { sendToConversation } from '../kit/post-to-conversation.ts';
import { handCardOn } from '../kit/run-start.ts';
import { buildSubscriptionAnnouncement, type SubscriptionChange } from './subscription-announcement.ts';
import { buildSubscribeChoice, buildSubscriptionList, subscriptionTarget } from './subscription-list.ts';

// ---- subscribe -----------------------------------------------------------------------------------

export interface SubscribeRequest {
  /** A runbook name or id typed by the person, or `all`. */
  runbook?: string;
  /** A known runbook id (from a pick button). */
  runbookId?: string;
  failuresOnly: boolean;
}

/** Subscribes and says so; false when refused or a choice is asked for (nothing changed). */
export async function subscribeHere(
  ctx: HandlerContext,
  request: SubscribeRequest,
  replaceOriginal = false,
): Promise<boolean> {
  const target = request.runbookId
    ? { runbookId: request.runbookId }
    : isAll(request.runbook ?? '')
      ? { all: true as const }
      : { query: request.runbook ?? '' };
  const result = await subscribe(ctx.deps, await actorOf(ctx), target, request.failuresOnly);
  if (result.kind === 'refused') {
    await ctx.respond({ ...errorMessage(result.sentence), replaceOriginal });
    return false;
  }
  if (result.kind === 'choose') {
    await ctx.respond({
      ...buildSubscribeChoice(result.query, result.resolution, request.failuresOnly),
      replaceOriginal,
    });
    return false;
  }
  const { runbook } = result;
  const what = runbook ? `*${escapeMrkdwn(truncate(runbook.name, 150))}*` : '*any runbook you may see*';
  const verb = request.failuresOnly ? 'fails' : 'finishes';
  if (result.added === 'unchanged') {
    // Typed again (or clicked twice): said privately, not announced to the channel a second time.
    const line = `:information_source: This channel already gets a message whenever a run of ${what} ${verb}; nothing changed.`;
    await ctx.respond({ ...noticeMessage(line, 'This channel already has that subscription.'), replaceOriginal });
    return true;
  }
  const prefix = result.added === 'updated' ? ':bell: Updated: this channel' : ':bell: This channel';
  const line = `${prefix} gets a message whenever a run of ${what} ${verb}, scheduled runs and runs started outside Slack included. \`/runbook subscriptions\` lists this channel's subscriptions.`;
  const fallback = `This channel now gets results of ${runbook ? runbook.name : 'all runbooks'}${request.failuresOnly ? ' (failures only)' : ''}.`;
  await ctx.respond({ ...noticeMessage(line, fallback), replaceOriginal });
  await announce(ctx, {
    change: result.added === 'updated' ? 'updated' : 'subscribed',
    by: ctx.userId,
    runbookId: runbook ? runbook.id : ALL_RUNBOOKS,
    runbookName: runbook ? runbook.name : '',
    failuresOnly: request.failuresOnly,
  });
  return true;
}

/** Says in the channel who subscribed or unsubscribed it, and to what. A failure only costs the announcement. */
async function announce(ctx: HandlerContext, change: SubscriptionChange): Promise<void> {
  if (!ctx.channelId) return;
  await ctx.client.chat
    .postMessage({ channel: ctx.channelId, ...buildSubscriptionAnnouncement(change) })
    .catch((err: unknown) => ctx.deps.logger.warn({ err }, 'could not announce the subscription change'));
}

// ---- unsubscribe ---------------------------------------------------------------------------------

async function showRemoval(
  ctx: HandlerContext,
  text: string | null,
  result: UnsubscribeResult,
  replaceOriginal: boolean,
): Promise<boolean> {
  if (result.kind === 'refused') {
    await ctx.respond(errorMessage(result.sentence));
    return false;
  }
  if (result.kind === 'not-subscribed') {
    const what = text === null || isAll(text) ? '*all runbooks*' : `“${escapeMrkdwn(truncate(text, 100))}”`;
    await ctx.respond(
      buildSubscriptionList(result.left, `:information_source: This channel is not subscribed to ${what}.`),
    );
    return true;
  }
  const label = result.subscription ? subscriptionTarget(result.subscription) : 'that runbook';
  const notice = result.removed
    ? `:no_bell: This channel no longer gets results of ${label}.`
    : `:information_source: This channel was not subscribed to ${label} (any more).`;
  await ctx.respond({ ...buildSubscriptionList(result.left, notice), replaceOriginal });
  if (result.removed && result.subscription) {
    await announce(ctx, { change: 'unsubscribed', by: ctx.userId, ...result.subscription });
  }
  return true;
}

export async function unsubscribeHere(ctx: HandlerContext, text: string): Promise<void> {
  await showRemoval(ctx, text, await unsubscribe(ctx.deps, await actorOf(ctx), text), false);
}

/** Removes the channel's subscription to `runbookId` ('*' = all) and shows what is left; false when refused. */
export async function removeSubscriptionHere(
  ctx: HandlerContext,
  runbookId: string,
  replaceOriginal: boolean,
): Promise<boolean> {
  const result = await removeSubscription(ctx.deps, await actorOf(ctx), runbookId);
  return showRemoval(ctx, runbookId === ALL_RUNBOOKS ? null : runbookId, result, replaceOriginal);
}

// ---- subscriptions -------------------------------------------------------------------------------

export async function showSubscriptions(ctx: HandlerContext, replaceOriginal = false): Promise<void> {
  const result = await listSubscriptions(ctx.deps, await actorOf(ctx));
  if (!Array.isArray(result)) {
    await ctx.respond(errorMessage(result.sentence));
    return;
  }
  await ctx.respond({ ...buildSubscriptionList(result), replaceOriginal });
}

// ---- watch ---------------------------------------------------------------------------------------

/** Adopts an execution; a running one gets its running card here now, a finished one its result from the watcher. */
export async function watchExecutionHere(ctx: HandlerContext, executionId: string): Promise<void> {
  const { deps } = ctx;
  const id0 = looksLikeFullId(executionId) ? executionId.trim() : await executionIdFor(ctx, executionId, 'watch');
  if (id0 === null) return;
  const threadTs = ctx.threadTs ?? null;
  const result = await watchExecution(
    deps,
    await actorOf(ctx),
    id0,
    async (email) => {
      const found = await ctx.client.users.lookupByEmail({ email }).catch(() => null);
      return found?.user?.id ?? null;
    },
    threadTs,
  );
  switch (result.kind) {
    case 'refused':
      await ctx.respond(errorMessage(result.sentence));
      return;
    case 'not-found':
      await ctx.respond(buildExecutionNotFound(result.executionId));
      return;
    case 'already': {
      const id = result.executionId;
      const where = result.channel ? ` in ${channelMention(result.channel)}` : '';
      const state = result.active ? 'is already being watched' : 'was already reported';
      await ctx.respond(noticeMessage(`:eyes: ${inlineCode(id, 120)} ${state}${where}.`, `${id} ${state}.`));
      return;
    }
    case 'adopted':
      break;
  }
  const id = result.executionId;
  if (result.finished) {
    await ctx.respond(
      noticeMessage(
        `:eyes: ${inlineCode(id, 120)} has already finished; its result is being posted here.`,
        `${id} has already finished.`,
      ),
    );
    return;
  }
  const inputs = result.inputs.kind === 'object' ? result.inputs.values : {};
  const eta = (await healthForRun(deps, result.name))?.report.eta ?? null;
  const card = buildRunningCard(
    { runbookId: result.runbook?.id ?? '', runbookName: result.name, proxyId: '', startedBy: result.startedBy, inputs },
    [id],
    { eta, late: isLongerThanUsual(eta, deps.now() - (result.startedAt ?? deps.now())) },
  );
  // The watcher may already be posting (the run ended meanwhile): only the holder of the card claim posts.
  if (!(await deps.runs.claimMessage(id))) return;
  // Asked in a thread (a mention): the card goes into it, like a run started there.
  const sent = await sendToConversation(ctx.client, deps.logger, ctx.channelId, ctx.userId, {
    ...card,
    ...(threadTs && ctx.channelId ? { threadTs } : {}),
  });
  if (sent.at) await deps.runs.posted([id], sent.at.channel, sent.at.ts, eta);
  else await handCardOn(deps, id, sent.notSent);
}
