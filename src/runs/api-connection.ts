// Connecting an installation to its own Runbook API (many-workspace mode): who may connect, replace or
// remove it (a workspace admin or owner, or whoever installed the app), decided here like every rule,
// and each attempt audited (`api.connect`, `api.disconnect`) without the key. A key of another account,
// or none, ends what was open under the old one (`AccountWork`): nothing of it is carried onto the new one.
import type { Approval, ScheduleOwner, SchedulePause, Subscription, Watch } from '../store/store.ts';
import type { AccountSample, ApiConnections, ConnectInput, ConnectionStatus } from '../tenants/api-connections.ts';
import type { Actor } from './actor.ts';
import { ACCOUNT_CHANGED } from './approvals.ts';
import type { RunsDeps } from './deps.ts';
import { recordDenial } from './gate.ts';
import { type Refusal, refused } from './run.ts';

/** What Slack says about the person and the installation, read by the entry point. */
export interface ConnectFacts {
  installationId: string;
  /** users.info: is_owner / is_admin. */
  role: 'owner' | 'admin' | 'member';
  /** Who installed the app (null when unknown). */
  installerId: string | null;
  /** Who connected the saved connection (also one whose address was withdrawn); null: none saved. */
  connectedBy: string | null;
}

/**
 * Whether the person may connect, replace or remove the installation's Runbook API (and set its approval
 * settings): an admin or owner; or whoever installed the app, while nothing is connected or when they
 * connected it themselves. A member who runs Add to Slack again (Slack lets members install apps unless
 * the workspace requires approval) becomes the installer, but is not handed a connection someone else made.
 */
export function mayConnect(userId: string, facts: ConnectFacts): boolean {
  if (facts.role !== 'member') return true;
  if (facts.installerId === null || facts.installerId !== userId) return false;
  return facts.connectedBy === null || facts.connectedBy === userId;
}

async function refuseConnect(deps: Pick<RunsDeps, 'access'>, actor: Actor, facts: ConnectFacts, action: string) {
  const sentence =
    'Only a workspace admin or owner, or whoever installed the app and connected it, can change which Runbook API this workspace uses.';
  await recordDenial(deps, actor, { action, target: facts.installationId, sentence });
  return refused('denied', sentence);
}

/** Opening the Connect form: allowed or the refusal (audited). */
export async function openConnect(
  deps: Pick<RunsDeps, 'access'>,
  actor: Actor,
  facts: ConnectFacts,
): Promise<{ kind: 'ok' } | Refusal> {
  return mayConnect(actor.userId, facts) ? { kind: 'ok' } : refuseConnect(deps, actor, facts, 'api.connect');
}

export async function connectRunbookApi(
  deps: Pick<RunsDeps, 'access' | 'now'>,
  connections: ApiConnections,
  actor: Actor,
  facts: ConnectFacts,
  input: ConnectInput,
): Promise<
  | { kind: 'connected'; status: ConnectionStatus; previous: ConnectionStatus | null; ended: AccountWork | null }
  | { kind: 'invalid'; field: 'apiKey' | 'baseUrl'; sentence: string }
  | Refusal
> {
  if (!mayConnect(actor.userId, facts)) return refuseConnect(deps, actor, facts, 'api.connect');
  // Said to be the same account: the new key must see a few of what the current one follows.
  const sample = input.sameAccount ? await sampleOf(deps, facts.installationId) : undefined;
  // Another account: what was open ends before the new key is saved, so no watch is looked at with it.
  let ended: AccountWork | null = null;
  const outcome = await connections.connect(
    facts.installationId,
    { ...input, ...(sample ? { sample } : {}) },
    actor.userId,
    async () => {
      ended = await endAccountWork(deps, facts.installationId);
    },
  );
  await deps.access.audit.record({
    userId: actor.userId,
    teamId: actor.teamId,
    channel: null,
    action: 'api.connect',
    target: facts.installationId,
    outcome: outcome.ok ? 'ok' : 'error',
    // The URL and, on failure, why; never the key.
    detail: outcome.ok
      ? `${outcome.status.baseUrl}${outcome.previous ? (ended ? `; another account: ${endedDetail(ended)}` : '; same account') : ''}`
      : outcome.sentence,
    tid: null,
  });
  return outcome.ok
    ? { kind: 'connected', status: outcome.status, previous: outcome.previous, ended }
    : { kind: 'invalid', field: outcome.field, sentence: outcome.sentence };
}

export async function disconnectRunbookApi(
  deps: Pick<RunsDeps, 'access' | 'now'>,
  connections: ApiConnections,
  actor: Actor,
  facts: ConnectFacts,
): Promise<{ kind: 'disconnected'; ended: AccountWork } | { kind: 'not-connected' } | Refusal> {
  if (!mayConnect(actor.userId, facts)) return refuseConnect(deps, actor, facts, 'api.disconnect');
  const removed = await connections.remove(facts.installationId);
  const ended = removed ? await endAccountWork(deps, facts.installationId) : null;
  await deps.access.audit.record({
    userId: actor.userId,
    teamId: actor.teamId,
    channel: null,
    action: 'api.disconnect',
    target: facts.installationId,
    outcome: 'ok',
    detail: ended ? endedDetail(ended) : 'was not connected',
    tid: null,
  });
  return ended ? { kind: 'disconnected', ended } : { kind: 'not-connected' };
}

/** What is open under an installation's current Runbook API account (and would end with it). */
export interface AccountWork {
  /** Runs whose cards are being followed. */
  watches: Watch[];
  /** Approval requests still waiting. */
  requests: Approval[];
  /** Schedules paused or skipped from Slack (their real times are kept here, not in the API). */
  pauses: SchedulePause[];
  /** Channels' subscriptions to runbooks of the account. */
  subscriptions: Subscription[];
  /** Schedules made in Slack (they keep running in the old account, which the bot no longer reaches). */
  schedules: ScheduleOwner[];
}

const MAX_LISTED = 10_000;

/** How many of each are open under the installation's account now (the Replace and Disconnect confirmations). */
export async function countAccountWork(
  deps: Pick<RunsDeps, 'access' | 'now'>,
  installationId: string,
): Promise<{ watches: number; requests: number; pauses: number; subscriptions: number; schedules: number }> {
  const { store } = deps.access;
  const [watches, requests, pauses, subscriptions, schedules] = await Promise.all([
    store.watches.listActiveIds(MAX_LISTED, installationId),
    store.approvals.listPending(deps.now(), MAX_LISTED, installationId),
    store.schedulePauses.list(MAX_LISTED, installationId),
    store.subscriptions.listAll(installationId),
    store.scheduleOwners.list(MAX_LISTED, installationId),
  ]);
  return {
    watches: watches.length,
    requests: requests.length,
    pauses: pauses.length,
    subscriptions: subscriptions.length,
    schedules: schedules.length,
  };
}

/** What would end if the installation's account changed now. */
export async function openAccountWork(
  deps: Pick<RunsDeps, 'access' | 'now'>,
  installationId: string,
): Promise<AccountWork> {
  const { store } = deps.access;
  const ids = await store.watches.listActiveIds(MAX_LISTED, installationId);
  const watches = (await Promise.all(ids.map((id) => store.watches.get(id, installationId)))).filter(
    (w): w is Watch => w !== null && w.state === 'active',
  );
  return {
    watches,
    requests: await store.approvals.listPending(deps.now(), MAX_LISTED, installationId),
    pauses: await store.schedulePauses.list(MAX_LISTED, installationId),
    subscriptions: await store.subscriptions.listAll(installationId),
    schedules: await store.scheduleOwners.list(MAX_LISTED, installationId),
  };
}

/**
 * The account changed (a key of another account, or disconnected): everything open under the old one ends
 * here, so nothing of it is checked, resumed or run on the new one: watches stop (their cards are the
 * caller's to finish), waiting requests close (a click that races this is refused by their account,
 * approvals.ts), paused schedules' rows go (their real times are handed to who paused them), subscriptions
 * end. Returns what ended, for the caller to say so to whom it concerns.
 */
export async function endAccountWork(
  deps: Pick<RunsDeps, 'access' | 'now'>,
  installationId: string,
): Promise<AccountWork> {
  const open = await openAccountWork(deps, installationId);
  const { store } = deps.access;
  const now = deps.now();
  await store.watches.stopInstallation(installationId, now);
  const requests: Approval[] = [];
  for (const approval of open.requests) {
    if (await store.approvals.decide(approval.id, 'expired', null, ACCOUNT_CHANGED, now)) requests.push(approval);
  }
  for (const pause of open.pauses) await store.schedulePauses.remove(pause.scheduleId, undefined, installationId);
  for (const s of open.subscriptions) await store.subscriptions.remove(s.channel, s.runbookId, installationId);
  // Who made which schedule is about the old account's ids: kept, it would make someone the owner of the
  // new account's schedule of the same id (scheduleOwnersOnly).
  for (const o of open.schedules) await store.scheduleOwners.remove(o.scheduleId, installationId);
  return { ...open, requests };
}

const SAMPLED = 3;

/** A few runs followed and runbooks of waiting requests, for a key said to be of the same account to see. */
async function sampleOf(deps: Pick<RunsDeps, 'access' | 'now'>, installationId: string): Promise<AccountSample> {
  const { store } = deps.access;
  const ids = await store.watches.listActiveIds(SAMPLED, installationId);
  const watches = await Promise.all(ids.map((id) => store.watches.get(id, installationId)));
  const requests = await store.approvals.listPending(deps.now(), SAMPLED, installationId);
  return {
    executions: watches.flatMap((w) => (w ? [{ id: w.executionId, runbookName: w.runbookName }] : [])),
    runbooks: [...new Set(requests.map((r) => r.runbookId))],
  };
}

function endedDetail(work: AccountWork): string {
  return `ended ${work.watches.length} followed runs, ${work.requests.length} waiting requests, ${work.pauses.length} paused schedules, ${work.subscriptions.length} subscriptions, ${work.schedules.length} schedules made in Slack`;
}
