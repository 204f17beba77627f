// Channel subscriptions and `watch`: both show results, so both need `view` of the runbook in the
// channel. `subscribe all` covers runbooks not yet written, so it is judged per run when the result is
// posted: a run is posted only if the subscriber may view its runbook in that channel (see
// subscriberMayView, used by the watcher's subscription scanner).
import { NotFoundError } from '../api/errors.ts';
import type { Execution, Workflow } from '../api/schemas.ts';
import type { Resolution } from '../catalog/runbook-catalog.ts';
import { executionTime } from '../health/runbook-health.ts';
import type { Subscription } from '../store/store.ts';
import { installationKey } from '../tenants/tenant-scope.ts';
import type { Actor } from './actor.ts';
import type { RunsDeps } from './deps.ts';
import {
  ALL_RUNBOOKS,
  type ExecutionInputs,
  isTerminal,
  parseExecutionInputs,
  sameRunbookName,
} from './execution-facts.ts';
import { maskExecutionInputs } from './execution-secrets.ts';
import { bareFacts, decideFor, gate, recordAction, runbookFacts, subjectOf } from './gate.ts';
import { type Refusal, refused } from './run.ts';
import { runbookNamed, visibilityFor } from './visibility.ts';

const NO_CHANNEL =
  'Subscriptions belong to a channel, and Slack did not say which one this is. Run the command in the channel.';

export type SubscribeTarget = { all: true } | { runbookId: string } | { query: string };

export type SubscribeResult =
  /** `unchanged`: the channel had this very subscription already; nothing was written or audited. */
  | { kind: 'subscribed'; runbook: Workflow | null; added: 'added' | 'updated' | 'unchanged'; failuresOnly: boolean }
  | { kind: 'choose'; query: string; resolution: Exclude<Resolution, { kind: 'match' }> }
  | Refusal;

/** `all` (or `*`) means every runbook. A runbook literally named "all" is reached by its id. */
export function isAll(text: string): boolean {
  const t = text.trim().toLowerCase();
  return t === 'all' || t === ALL_RUNBOOKS;
}

export async function subscribe(
  deps: RunsDeps,
  actor: Actor,
  target: SubscribeTarget,
  failuresOnly: boolean,
): Promise<SubscribeResult> {
  const channel = actor.channelId?.trim() ? actor.channelId : null;
  if (!channel) return refused('invalid', NO_CHANNEL);
  let runbook: Workflow | null = null;
  const visible = await visibilityFor(deps, actor);
  if ('runbookId' in target) {
    runbook = await deps.catalog.get(target.runbookId);
    if (!runbook) return refused('not-found', 'That runbook is no longer in the catalog. Try `/runbook list`.');
  } else if ('query' in target) {
    const resolution = await visible.resolve(target.query);
    if (resolution.kind !== 'match') return { kind: 'choose', query: target.query, resolution };
    runbook = resolution.runbook;
  }
  if (runbook) {
    const verdict = await gate(deps, actor, {
      intent: 'view',
      runbook: runbookFacts(deps, runbook),
      auditAction: 'subscription.add',
    });
    if (!verdict.allowed) return refused(verdict.reason, verdict.sentence);
  } else {
    // "all" is judged without a runbook here (only rules not about particular runbooks apply); each run
    // is judged again when it is posted (subscriberMayView).
    const decision = deps.access.policy.decide('view', subjectOf(actor, channel), null);
    if (!decision.allowed) {
      await deps.access.audit.record({
        userId: actor.userId,
        teamId: actor.teamId,
        channel,
        action: 'subscription.add',
        target: 'all runbooks',
        outcome: 'denied',
        detail: decision.message,
        tid: null,
      });
      return refused('denied', decision.message);
    }
  }
  const runbookId = runbook?.id ?? ALL_RUNBOOKS;
  const existing = await deps.access.store.subscriptions.listForChannel(channel, installationKey());
  if (existing.some((s) => s.runbookId === runbookId && s.failuresOnly === failuresOnly)) {
    return { kind: 'subscribed', runbook, added: 'unchanged', failuresOnly };
  }
  const added = await deps.access.store.subscriptions.add(
    {
      channel,
      runbookId,
      runbookName: runbook?.name ?? '',
      failuresOnly,
      createdBy: actor.userId,
      teamId: actor.teamId,
    },
    deps.now(),
    installationKey(),
  );
  await recordAction(
    deps,
    actor,
    'subscription.add',
    runbook ? `${runbook.name} (${runbook.id})` : 'all runbooks',
    'ok',
    `${added}; ${failuresOnly ? 'failures only' : 'every result'}`,
  );
  return { kind: 'subscribed', runbook, added, failuresOnly };
}

export type UnsubscribeResult =
  | { kind: 'removed'; subscription: Subscription | null; removed: boolean; left: Subscription[] }
  | { kind: 'not-subscribed'; left: Subscription[] }
  | Refusal;

/** The channel's subscription a typed `<runbook|all>` means: by id, stored name, or catalog resolution. */
async function findSubscription(
  deps: RunsDeps,
  actor: Actor,
  subscriptions: Subscription[],
  text: string,
): Promise<Subscription | null> {
  if (isAll(text)) return subscriptions.find((s) => s.runbookId === ALL_RUNBOOKS) ?? null;
  const q = text.trim();
  const direct = subscriptions.find(
    (s) => s.runbookId === q || (s.runbookName !== '' && sameRunbookName(s.runbookName, q)),
  );
  if (direct) return direct;
  const resolution = await (await visibilityFor(deps, actor)).resolve(q).catch(() => null);
  if (resolution?.kind === 'match') return subscriptions.find((s) => s.runbookId === resolution.runbook.id) ?? null;
  if (resolution?.kind === 'several') {
    const ids = new Set(resolution.candidates.map((c) => c.id));
    const hits = subscriptions.filter((s) => ids.has(s.runbookId));
    return hits.length === 1 ? hits[0]! : null;
  }
  return null;
}

/**
 * `unsubscribe <runbook|all>` typed by the person: being in the channel is enough, among the subscriptions
 * they may see (one to a runbook hidden from them is left to someone who may view it).
 */
export async function unsubscribe(deps: RunsDeps, actor: Actor, text: string): Promise<UnsubscribeResult> {
  const channel = actor.channelId?.trim() ? actor.channelId : null;
  if (!channel) return refused('invalid', NO_CHANNEL);
  const subscriptions = await shownTo(
    deps,
    actor,
    await deps.access.store.subscriptions.listForChannel(channel, installationKey()),
  );
  const found = await findSubscription(deps, actor, subscriptions, text);
  if (!found) return { kind: 'not-subscribed', left: subscriptions };
  return removeSubscription(deps, actor, found.runbookId);
}

/** Removes the channel's subscription to `runbookId` ('*' = all). */
export async function removeSubscription(deps: RunsDeps, actor: Actor, runbookId: string): Promise<UnsubscribeResult> {
  const channel = actor.channelId?.trim() ? actor.channelId : null;
  if (!channel) return refused('invalid', NO_CHANNEL);
  const store = deps.access.store.subscriptions;
  const existing =
    (await store.listForChannel(channel, installationKey())).find((s) => s.runbookId === runbookId) ?? null;
  const removed = await store.remove(channel, runbookId, installationKey());
  const target = runbookId === ALL_RUNBOOKS ? 'all runbooks' : `${existing?.runbookName ?? ''} (${runbookId})`;
  if (removed) await recordAction(deps, actor, 'subscription.remove', target, 'ok', null);
  const left = await shownTo(deps, actor, await store.listForChannel(channel, installationKey()));
  return { kind: 'removed', subscription: existing, removed, left };
}

/** The channel's subscriptions. */
export async function listSubscriptions(deps: RunsDeps, actor: Actor): Promise<Subscription[] | Refusal> {
  const channel = actor.channelId?.trim() ? actor.channelId : null;
  if (!channel) return refused('invalid', NO_CHANNEL);
  return shownTo(deps, actor, await deps.access.store.subscriptions.listForChannel(channel, installationKey()));
}

/** A channel's subscriptions as the actor may see them: those to runbooks hidden from them are left out. */
async function shownTo(deps: RunsDeps, actor: Actor, subscriptions: Subscription[]): Promise<Subscription[]> {
  if (subscriptions.every((s) => s.runbookId === ALL_RUNBOOKS)) return subscriptions;
  const visible = await visibilityFor(deps, actor);
  return subscriptions.filter(
    (s) => s.runbookId === ALL_RUNBOOKS || visible.ref({ id: s.runbookId, name: s.runbookName }),
  );
}

export type WatchResult =
  | { kind: 'not-found'; executionId: string }
  | { kind: 'already'; executionId: string; channel: string | null; active: boolean }
  | {
      kind: 'adopted';
      executionId: string;
      /** The Slack user who started it (by the executor's email), or null. */
      startedBy: string | null;
      runbook: Workflow | null;
      name: string;
      inputs: ExecutionInputs;
      finished: boolean;
      /** When it started, by its own timestamp (null: not given). */
      startedAt: number | null;
    }
  | Refusal;

/**
 * Adopts an execution: a watch (origin 'adopted') is stored first, exactly like a run started here, so the
 * watcher owns the rest. Needs `view` of its runbook where the person asks.
 */
/** Finds a Slack user by email (the Slack layer answers; null when Slack does not know the address). */
export type UserByEmail = (email: string) => Promise<string | null>;

export async function watchExecution(
  deps: RunsDeps,
  actor: Actor,
  executionId: string,
  userByEmail: UserByEmail = async () => null,
  /** The thread it was asked for in (a mention): the card goes there. */
  threadTs: string | null = null,
): Promise<WatchResult> {
  const id = executionId.trim();
  let execution: Execution;
  try {
    execution = await deps.api.executions.get(id, { summary: true });
  } catch (err) {
    if (err instanceof NotFoundError) return { kind: 'not-found', executionId: id };
    throw err;
  }
  const runbook = await runbookNamed(deps, execution.workflowName);
  const name = execution.workflowName || runbook?.name || 'Runbook';
  const verdict = await gate(deps, actor, {
    intent: 'view',
    runbook: runbook ? runbookFacts(deps, runbook) : bareFacts('', execution.workflowName),
    auditAction: 'execution.watch',
    auditTarget: `${name} (${id})`,
  });
  if (!verdict.allowed) return refused(verdict.reason, verdict.sentence);
  // Kept per installation: an execution of another tenant's API with the same id is not this one.
  // A watch the single workspace left ('') for this workspace counts too, until it is assigned (an install,
  // a start): it is the same run, not a second one to watch.
  const key = installationKey();
  const left = key ? await deps.access.store.watches.get(id, '') : null;
  const existing =
    (await deps.access.store.watches.get(id, key)) ?? (left?.teamId && left.teamId === actor.teamId ? left : null);
  if (existing)
    return { kind: 'already', executionId: id, channel: existing.channel, active: existing.state === 'active' };
  const inputs = maskExecutionInputs(parseExecutionInputs(execution.inputs), runbook);
  const finished = isTerminal(execution);
  // Credit goes to whoever the API says started it, not to the person asking to watch.
  const executor = execution.executor.trim();
  const startedBy = /^[^\s@]+@[^\s@]+$/.test(executor) ? await userByEmail(executor).catch(() => null) : null;
  const startedAt = executionTime(execution);
  const inserted = await deps.runs.adopt({
    executionId: id,
    runbookId: runbook?.id ?? '',
    runbookName: name,
    channel: actor.channelId,
    ...(threadTs && actor.channelId ? { threadTs } : {}),
    adoptedBy: actor.userId,
    startedBy,
    teamId: actor.teamId,
    inputs: inputs.kind === 'object' ? inputs.values : {},
    finished,
    // Timed from its own start, not from when someone asked to watch it.
    startedAt,
  });
  // Someone adopted it between our check and our insert.
  if (!inserted) return { kind: 'already', executionId: id, channel: actor.channelId, active: true };
  await recordAction(
    deps,
    actor,
    'execution.watch',
    `${name} (${id})`,
    'ok',
    finished ? 'already finished' : 'running',
  );
  return { kind: 'adopted', executionId: id, startedBy, runbook, name, inputs, finished, startedAt };
}

/**
 * Whose view counts for a subscription notice: the subscriber's (the person who subscribed the channel),
 * judged in the subscribed channel, so the channel's own rules apply too. The subscriber chose to publish
 * results there; they must not publish what they may not see themselves. When the subscriber's user groups
 * cannot be read, that run is not posted (fails closed; the scanner does not retry it). Used by the watcher's subscription scanner.
 */
export function subscriberMayView(
  base: Pick<RunsDeps, 'access' | 'catalog'>,
  groupsOf: (userId: string) => Promise<readonly string[]>,
  runbookOf: (execution: Execution) => Promise<Workflow | null>,
  /** Many workspaces: the deps of the installation in scope (its policy as it applies there). */
  scoped?: () => Promise<Pick<RunsDeps, 'access' | 'catalog'>>,
): (subscription: Subscription, execution: Execution) => Promise<boolean> {
  return async (subscription, execution) => {
    const deps = scoped ? await scoped() : base;
    let groups: readonly string[];
    try {
      groups = await groupsOf(subscription.createdBy);
    } catch {
      return false;
    }
    const runbook = await runbookOf(execution).catch(() => null);
    const facts = runbook ? runbookFacts(deps, runbook) : bareFacts('', execution.workflowName);
    const subscriber: Actor = {
      userId: subscription.createdBy,
      teamId: subscription.teamId,
      email: null,
      groups,
      channelId: subscription.channel,
      destinationChannel: subscription.channel,
    };
    return decideFor(deps, subscriber, 'view', facts, subscription.channel).allowed;
  };
}
