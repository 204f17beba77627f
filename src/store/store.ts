// The one interface behind which everything the bot must not forget lives. The watcher, the
// subscriptions and the approvals talk to this; only src/store knows there is SQL underneath.
// Times are epoch milliseconds and every method that compares or stamps a time takes `now` from
// the caller, so tests (and replicas) control the clock.

import type { ApiConnectionStore } from './api-connections.ts';
import type { InstallationSettingsStore } from './installation-settings.ts';
import type { InstallationRecordStore, OAuthStateStore } from './installations.ts';
import type { AliasStore, ChannelDefaultsStore, WorkflowStepStore } from './saved-runs.ts';

export type WatchState = 'active' | 'finished' | 'stale';
export type WatchOrigin = 'slack' | 'adopted' | 'subscription';

export interface Watch {
  /**
   * The installation it is kept for ('' = the single workspace). Execution ids come from each installation's
   * own Runbook API, so a watch is keyed by (installation, execution id): two tenants may hand out the same id.
   */
  installationId: string;
  executionId: string;
  runbookId: string;
  runbookName: string;
  channel: string;
  messageTs: string | null;
  /** The thread (its parent's ts) the card is in, in `channel`; null: the card is top-level. */
  threadTs: string | null;
  /** Slack user id of whoever started the run. */
  startedBy: string | null;
  teamId: string | null;
  proxyId: string;
  /** Already masked by the caller: the store never sees secret inputs. */
  inputsSummary: string;
  origin: WatchOrigin;
  state: WatchState;
  nextCheckAt: number;
  attempts: number;
  createdAt: number;
  updatedAt: number;
  leaseOwner: string | null;
  leaseUntil: number | null;
  /** e.g. EXECUTION_STATUS_SUCCEEDED once terminal. */
  finalStatus: string | null;
  /** When the result card was edited in place. */
  resultPostedAt: number | null;
  /** When the thread reply was sent (set once, by claimReply). */
  replyPostedAt: number | null;
  /** Permalink of the message the run was started from (message shortcut), shown on the card. */
  sourceLink: string | null;
  /** Slack user ids of whoever approved the run (empty when it needed no approval). */
  approvedBy: string[];
  /** The proxy's display name when the run started (null: only the id is known). */
  proxyName: string | null;
  /**
   * When the execution itself started, by the API's own timestamp (an adopted run); null: it started as the
   * watch was stored (`createdAt`).
   */
  startedAt: number | null;
  /** How long runs of its runbook usually take, as its running card first said (null: it said nothing). */
  eta: WatchEta | null;
}

/** A runbook's usual duration kept with a watch, so any replica can tell "running longer than usual". */
export interface WatchEta {
  medianMs: number;
  /** Past this the run is longer than usual (null: too few runs to say). */
  p95Ms: number | null;
  /** How many runs the median is of. */
  runs: number;
}

export interface NewWatch {
  /** The installation in scope ('' or absent = the single workspace). */
  installationId?: string;
  executionId: string;
  runbookId: string;
  runbookName: string;
  channel: string;
  messageTs?: string | null;
  threadTs?: string | null;
  startedBy?: string | null;
  teamId?: string | null;
  proxyId: string;
  inputsSummary: string;
  origin: WatchOrigin;
  approvedBy?: readonly string[];
  proxyName?: string | null;
  /** Defaults to `now` (check at once). */
  nextCheckAt?: number;
  sourceLink?: string | null;
  /** The execution's own start (an adopted run); default: when the watch is stored. */
  startedAt?: number | null;
}

export interface Subscription {
  channel: string;
  /** '*' subscribes the channel to every runbook. */
  runbookId: string;
  runbookName: string;
  failuresOnly: boolean;
  createdBy: string;
  teamId: string | null;
  createdAt: number;
  updatedAt: number;
  /** The installation it is kept for ('' = the single workspace). */
  installationId?: string;
}

export interface NewSubscription {
  channel: string;
  runbookId: string;
  runbookName: string;
  failuresOnly: boolean;
  createdBy: string;
  teamId: string | null;
}

export interface ScheduleOwner {
  scheduleId: string;
  userId: string;
  teamId: string | null;
  userName: string | null;
  /** The channel it was made in (where it is said when a change freeze pauses it); null: unknown. */
  channel: string | null;
  createdAt: number;
  updatedAt: number;
}

export type ApprovalState = 'pending' | 'approved' | 'rejected' | 'expired';

/** Distinct approvers (and groups to cover) a request needs; null = one approver. See src/policy/quorum.ts. */
export interface ApprovalQuorum {
  count: number;
  eachOf: string[];
}

/** One approver's approval of a request, with their user groups at the time. */
export interface ApprovalVote {
  userId: string;
  groups: string[];
  at: number;
}

export interface Approval {
  id: string;
  runbookId: string;
  runbookName: string;
  proxyId: string;
  /** JSON object string with the REAL values needed to run later. Stored, never logged. */
  params: string;
  /** JSON object string safe to show and log. */
  paramsMasked: string;
  requesterId: string;
  requesterTeam: string | null;
  /** Where the result goes. */
  channel: string;
  state: ApprovalState;
  decidedBy: string | null;
  reason: string | null;
  createdAt: number;
  expiresAt: number;
  decidedAt: number | null;
  executionIds: string[];
  error: string | null;
  /** When setRunResult recorded the outcome of running it. */
  ranAt: number | null;
  approversChannel: string | null;
  approversTs: string | null;
  requesterChannel: string | null;
  requesterTs: string | null;
  /** What it takes to approve; null = one approver (requests made before quorums existed too). */
  quorum: ApprovalQuorum | null;
  /** Many workspaces: the installation it was requested in (absent in single-workspace mode). */
  installationId?: string;
  /** Many workspaces: the Runbook API account it was requested under (absent: before accounts were kept). */
  apiAccount?: string;
}

export interface NewApproval {
  runbookId: string;
  runbookName: string;
  proxyId: string;
  params: string;
  paramsMasked: string;
  requesterId: string;
  requesterTeam: string | null;
  channel: string;
  expiresAt: number;
  quorum?: ApprovalQuorum | null;
  /** Many workspaces: the installation it is requested in. */
  installationId?: string | null;
  /** Many workspaces: the Runbook API account of its connection when requested. */
  apiAccount?: string | null;
}

export interface ApprovalMessages {
  approversChannel?: string;
  approversTs?: string;
  requesterChannel?: string;
  requesterTs?: string;
}

export type AuditOutcome = 'ok' | 'denied' | 'error';

export interface AuditEntry {
  at: number;
  userId: string | null;
  teamId: string | null;
  channel: string | null;
  action: string;
  target: string | null;
  outcome: AuditOutcome;
  /** Already masked by the caller. */
  detail: string | null;
  /** Runbook API transaction id, for support. */
  tid: string | null;
  /** Many workspaces: the installation it happened in (absent in single-workspace mode). */
  installationId?: string | null;
}

/** A run form's values kept so "Try again" can reopen it filled in (on any replica). */
export interface RunDraftRecord {
  id: string;
  runbookId: string;
  proxyId: string | null;
  channel: string | null;
  /** JSON object string of the form values; the caller has already removed every secret. */
  params: string;
  createdAt: number;
  expiresAt: number;
}

export interface NewRunDraft {
  runbookId: string;
  proxyId: string | null;
  channel: string | null;
  params: string;
  expiresAt: number;
}

export type RunLimitDecision = { ok: true } | { ok: false; retryInMs: number };

export interface MigrationResult {
  /** Schema version after migrating. */
  version: number;
  /** Migrations applied by this call (0 when already up to date). */
  applied: number;
}

/**
 * Many workspaces: the tenant a watch counts for (its budget, plan, sweep and fair claims): its
 * installation, so an org-wide install is one tenant however many workspaces it serves; a watch kept for
 * '' (the single workspace, or not yet assigned) counts for its team. The store's SQL applies the same rule.
 */
export function tenantOf(w: { installationId: string; teamId: string | null }): string | null {
  return w.installationId || w.teamId;
}

/**
 * Many workspaces: a claim that goes round-robin over tenants (`tenantOf`: each one's earliest due watch,
 * then each one's second, …), at most `perTenant` per tenant, none of `excludeTenants` (nor, with
 * `excludeNoTenant`, watches of no tenant).
 */
export interface FairClaim {
  perTenant: number;
  excludeTenants: string[];
  excludeNoTenant?: boolean;
}

/**
 * Watches are kept per installation (many workspaces): a watch is keyed by (installation, execution id), and
 * every method about given executions takes the installation they belong to, '' (the default) for the one
 * workspace of single-workspace and sandbox modes. Claims and counts span every installation; each watch
 * says its own.
 */
export interface WatchStore {
  /** False if the execution is already watched in its installation (idempotent). */
  insert(w: NewWatch, now: number): Promise<boolean>;
  get(executionId: string, installationId?: string): Promise<Watch | null>;
  /**
   * Records the card; with `eta`, also what the card said about the runbook's usual duration. A card in
   * another channel than the watch's (a DM instead) drops the watch's thread.
   */
  setMessage(
    executionId: string,
    channel: string,
    ts: string,
    now: number,
    eta?: WatchEta | null,
    installationId?: string,
  ): Promise<void>;
  /**
   * Claim up to `limit` active watches with nextCheckAt <= now whose lease is free or expired
   * (leaseUntil <= now), ordered by nextCheckAt. Sets leaseOwner = owner, leaseUntil = now + leaseMs
   * atomically: two replicas never get the same watch.
   */
  claimDue(owner: string, now: number, leaseMs: number, limit: number, fair?: FairClaim): Promise<Watch[]>;
  /**
   * Claim these watches of one installation (due or not) whose lease is free or expired, like claimDue: the
   * replica whose listing saw them finish takes them itself, where its listing already answers them.
   */
  claimIds(
    owner: string,
    executionIds: string[],
    now: number,
    leaseMs: number,
    installationId?: string,
  ): Promise<Watch[]>;
  /** Extends the leases `owner` still holds on these active watches of one installation; returns how many. */
  renewLeases(owner: string, executionIds: string[], until: number, installationId?: string): Promise<number>;
  /**
   * Reschedule a claimed watch and release its lease, only if `owner` still holds it (an expired
   * lease nobody took over still counts as held). False if the lease was lost.
   */
  reschedule(
    executionId: string,
    owner: string,
    nextCheckAt: number,
    attempts: number,
    now: number,
    installationId?: string,
  ): Promise<boolean>;
  /** Mark terminal with the final status and release the lease, only if `owner` holds it. */
  complete(
    executionId: string,
    owner: string,
    state: 'finished' | 'stale',
    finalStatus: string | null,
    now: number,
    installationId?: string,
  ): Promise<boolean>;
  /** Records that the result card was edited in place (first time wins). */
  markResultPosted(executionId: string, now: number, installationId?: string): Promise<void>;
  /** Sets replyPostedAt if still null; true only for the one caller that set it (exactly-once reply). */
  claimReply(executionId: string, now: number, installationId?: string): Promise<boolean>;
  /** Releases every lease `owner` holds (graceful shutdown); returns how many. */
  releaseAll(owner: string): Promise<number>;
  /**
   * Uninstalled: every active watch of the installation ends as stale at once (leases dropped, nothing
   * more is checked or posted for it); returns how many. Other installations' watches are untouched.
   */
  stopInstallation(installationId: string, now: number): Promise<number>;
  /** The same for one workspace removed from an org-wide installation (team_access_revoked). */
  stopTeam(installationId: string, teamId: string, now: number): Promise<number>;
  countByState(): Promise<Record<WatchState, number>>;
  /** Active watches per tenant (`tenantOf`; null for watches of none). */
  countActiveByTenant(): Promise<Array<{ tenant: string | null; count: number }>>;
  /** Active watches whose next check is due at `now` (the watcher's cost estimate). */
  countDue(now: number): Promise<number>;
  /** Active watches, oldest createdAt first. */
  listActive(limit: number): Promise<Watch[]>;
  /**
   * Ids of one installation's active watches (any order): what a listing of its API must look for, without
   * loading whole rows.
   */
  listActiveIds(limit: number, installationId?: string): Promise<string[]>;
  /** The installation's oldest active watch's createdAt. */
  oldestActiveCreatedAt(installationId?: string): Promise<number | null>;
  /**
   * Many workspaces: each active watch's installation, id, workspace and creation time in one read, so one
   * sweep groups every workspace's listing (what it looks for, how far back) without a query per workspace.
   */
  listActiveKeys(
    limit: number,
  ): Promise<Array<{ installationId: string; executionId: string; teamId: string | null; createdAt: number }>>;
  /**
   * Watches of one installation a listing saw still running that were never looked at (attempts 0), have
   * their card up and are not leased: their next look moves to `nextCheckAt` and counts as their first, in
   * one statement (claiming each only to hear "running" again costs a claim and a write per watch). Returns
   * how many.
   */
  deferSeen(executionIds: string[], nextCheckAt: number, now: number, installationId?: string): Promise<number>;
  /** Brings nextCheckAt forward to `now` for these active watches of one installation (bulk discovery saw them finish). */
  expedite(executionIds: string[], now: number, installationId?: string): Promise<void>;
  /** Active watches whose running message was never posted (messageTs null), oldest first. */
  listUnposted(limit: number): Promise<Watch[]>;
  /**
   * Gives watches kept for the single workspace ('') their workspace's installation (many-workspace start),
   * and their card claims with them; how many.
   */
  assignInstallations(): Promise<number>;
  /**
   * Deletes at most `limit` ended watches (finished or stale) not changed since before `before`, oldest first, in
   * one short statement; how many (fewer than `limit` → none older remain). Active ones stay, however old.
   */
  pruneEnded(before: number, limit: number): Promise<number>;
}

/** A run as recorded before the run call (see RunIntentStore). */
export interface NewRunIntent {
  id: string;
  userId: string;
  userEmail: string | null;
  teamId: string | null;
  runbookId: string;
  runbookName: string;
  proxyId: string;
  /** sha256 of the params as canonical JSON: tells this run's execution from others of the runbook. */
  paramsHash: string;
  /** Where the result goes (null → DM). */
  channel: string | null;
  /** Inputs with secrets masked, as JSON. */
  inputsSummary: string;
  /**
   * The entry point as the run's audit record names it (`form`, `approval (approved by U1)`), so a run
   * found after a crash is recorded like one whose answer came; null: recorded before it was kept.
   */
  via: string | null;
  /** The installation whose Runbook API the run goes to ('' or absent = the single workspace). */
  installationId?: string;
}

/**
 * open: the run call was (or is about to be) made and its outcome is not recorded; started / failed:
 * the call's answer was recorded; reconciled: found in the executions list after a restart; lost:
 * nothing found in the executions list.
 */
export type RunIntentState = 'open' | 'started' | 'failed' | 'reconciled' | 'lost';

export interface RunIntent extends NewRunIntent {
  installationId: string;
  state: RunIntentState;
  executionIds: string[];
  createdAt: number;
  settledAt: number | null;
}

export interface RunIntentStore {
  record(intent: NewRunIntent, now: number): Promise<void>;
  /** Moves an open intent to a final state; false when it was not open (another replica settled it). */
  settle(id: string, state: Exclude<RunIntentState, 'open'>, executionIds: string[], now: number): Promise<boolean>;
  /** Open intents created before `before`, oldest first: every installation's, or (given) one installation's. */
  listOpen(before: number, limit: number, installationId?: string): Promise<RunIntent[]>;
  get(id: string): Promise<RunIntent | null>;
  /** Gives intents kept for the single workspace ('') their workspace's installation (many-workspace start). */
  assignInstallations(): Promise<number>;
  /**
   * Deletes at most `limit` settled intents (any state but open) settled before `before`, oldest first, in one
   * short statement; how many (fewer than `limit` → none older remain). Open ones stay, however old.
   */
  pruneSettled(before: number, limit: number): Promise<number>;
}

/**
 * The claims that are pruned, by what their key says they stop (README: how long each must live): a run's card
 * (`message:`), a subscription notice (`sub:`), a submitted form (`submission:`, a schedule form's
 * `click:…schedule-save:`), a `--now` confirmation's buttons (`click:…confirmation:`, `confirm-run:`). Other
 * clicks are kept with their installation.
 */
export type ClaimKind = 'card' | 'notice' | 'form' | 'confirmation';

export interface NotificationStore {
  /** Dedupe record: inserts the key if absent; true only for the first caller, across replicas. `by`: who claimed it. */
  claim(key: string, now: number, by?: string): Promise<boolean>;
  has(key: string): Promise<boolean>;
  /** Who claimed the key (null when the claim did not say, as claims before migration 13 did) and when; null if unclaimed. */
  holder(key: string): Promise<{ by: string | null; at: number } | null>;
  /** Undo a claim when the post definitely failed, so a later attempt may send it. */
  release(key: string): Promise<void>;
  /**
   * Deletes at most `limit` claims of `kind` (oldest first) taken before `before`, in one short statement (a
   * card's only when no active watch is of its execution); how many (fewer than `limit` → none older remain).
   */
  prune(kind: ClaimKind, before: number, limit: number): Promise<number>;
}

/**
 * Slack events already handled, by the keys that identify them (the event id of every delivery, and
 * for a mention its message), so a retried event or a mention re-sent for an edited message is
 * handled once across replicas. Keys are forgotten after `SLACK_EVENT_MEMORY_MS`.
 */
export interface SlackEventStore {
  /**
   * Records every key; true only when none of them was seen before (the first delivery), to exactly
   * one caller across concurrent callers and replicas.
   */
  claim(keys: readonly string[], now: number): Promise<boolean>;
}

/** How long an event's keys are remembered: far past Slack's retries (minutes) and usual edits. */
export const SLACK_EVENT_MEMORY_MS = 7 * 24 * 60 * 60_000;

/**
 * Subscriptions are kept per installation (many workspaces): `installationId` is the installation in scope, ''
 * (the default) for the one workspace of single-workspace and sandbox modes. A channel shared by two installed
 * workspaces (Slack Connect) has one subscription per installation and runbook.
 */
export interface SubscriptionStore {
  /** Upsert on (installation, channel, runbookId); an update keeps createdBy/createdAt, changes name and filter. */
  add(s: NewSubscription, now: number, installationId?: string): Promise<'added' | 'updated'>;
  remove(channel: string, runbookId: string, installationId?: string): Promise<boolean>;
  listForChannel(channel: string, installationId?: string): Promise<Subscription[]>;
  /** Every installation's, or (given) one installation's. */
  listAll(installationId?: string): Promise<Subscription[]>;
  /** Gives subscriptions kept for the single workspace ('') their workspace's installation (many-workspace start). */
  assignInstallations(): Promise<number>;
}

/** Positions by name, per installation ('' = the single workspace, or what belongs to none). */
export interface CursorStore {
  get(name: string, installationId?: string): Promise<string | null>;
  /** Every installation's value of the cursor `name`. */
  list(name: string): Promise<Array<{ installationId: string; value: string }>>;
  set(name: string, value: string, now: number, installationId?: string): Promise<void>;
}

/** Who created a schedule in Slack (the API only knows the API key's user). */
/**
 * Kept per installation (many workspaces): schedule ids come from each installation's own Runbook API.
 * `installationId` is the one in scope, '' (the default) for the one workspace of single-workspace mode.
 */
export interface ScheduleOwnerStore {
  set(
    scheduleId: string,
    o: { userId: string; teamId: string | null; userName?: string; channel?: string | null },
    now: number,
    installationId?: string,
  ): Promise<void>;
  get(scheduleId: string, installationId?: string): Promise<ScheduleOwner | null>;
  getMany(ids: string[], installationId?: string): Promise<Map<string, ScheduleOwner>>;
  remove(scheduleId: string, installationId?: string): Promise<void>;
  /** The installation's owners, oldest first (schedules made in Slack; what an account change ends). */
  list(limit: number, installationId?: string): Promise<ScheduleOwner[]>;
  /** Gives owners kept for the single workspace ('') their workspace's installation (many-workspace start). */
  assignInstallations(): Promise<number>;
}

/**
 * A paused schedule: the API keeps it (id, params, proxy, owner) with an expression that never fires;
 * this keeps the real expression. `pausing` / `resuming` are intents recorded before the API call and
 * settled after it, so a crash leaves a row that reconciliation finishes (src/runs/schedule-pauses.ts).
 */
export type SchedulePauseState = 'pausing' | 'paused' | 'resuming';

export interface NewSchedulePause {
  scheduleId: string;
  /** The schedule's real expression, restored on resume. Nothing secret: params stay in the API. */
  cron: string;
  runbookId: string;
  runbookName: string;
  /** Slack user id of whoever paused it. */
  pausedBy: string;
  teamId: string | null;
  /** Set: a skip — resumed by itself once this time has passed (a durable timer); null: until Resume. */
  resumeAt?: number | null;
  /** Set: paused by this change freeze, resumed when it ends; null: by a person (stays paused). */
  freeze?: string | null;
}

export interface SchedulePause extends NewSchedulePause {
  /** The installation it was paused in ('' = the single workspace). */
  installationId: string;
  resumeAt: number | null;
  freeze: string | null;
  state: SchedulePauseState;
  pausedAt: number;
  updatedAt: number;
}

/**
 * Kept per installation (many workspaces): schedule ids come from each installation's own Runbook API.
 * `installationId` is the one in scope, '' (the default) for the one workspace of single-workspace mode.
 */
export interface SchedulePauseStore {
  /** Records the intent to pause (state `pausing`); false when the schedule already has a row (paused or in flight). */
  begin(p: NewSchedulePause, now: number, installationId?: string): Promise<boolean>;
  /** Compare-and-set of the state; true only for the one caller that moved it. */
  move(
    scheduleId: string,
    from: SchedulePauseState,
    to: SchedulePauseState,
    now: number,
    installationId?: string,
  ): Promise<boolean>;
  /** Deletes the row if it is in `state` (any state when omitted); true if one was deleted. */
  remove(scheduleId: string, state?: SchedulePauseState, installationId?: string): Promise<boolean>;
  get(scheduleId: string, installationId?: string): Promise<SchedulePause | null>;
  /** Every row of the installation (paused or in flight), oldest pause first. */
  list(limit: number, installationId?: string): Promise<SchedulePause[]>;
  /**
   * Rows still `pausing` or `resuming` last moved before `before`, oldest first: left by a crash. Every
   * installation's (background work, which then enters each row's installation).
   */
  listUnsettled(before: number, limit: number): Promise<SchedulePause[]>;
  /** Paused rows whose `resumeAt` is at or before `now` (skips whose run has passed), soonest first; every installation's. */
  listDue(now: number, limit: number): Promise<SchedulePause[]>;
  /** The installation's rows a change freeze paused (any state), oldest first. */
  listFrozen(limit: number, installationId?: string): Promise<SchedulePause[]>;
  /**
   * Hands a paused row over by compare-and-set on its `freeze` (`from`): to a freeze (a skip that came due
   * inside one, its timer dropped) or to a person (`to` null, `pausedBy` set: paused by hand from now on).
   */
  handOver(
    scheduleId: string,
    from: string | null,
    to: { freeze: string | null; pausedBy?: string },
    now: number,
    installationId?: string,
  ): Promise<boolean>;
  /** Gives pauses kept for the single workspace ('') their workspace's installation (many-workspace start). */
  assignInstallations(): Promise<number>;
}

/** One run an approver may start inside a change freeze (break-glass), with the reason; used once. */
export interface FreezePass {
  id: string;
  userId: string;
  runbookId: string;
  freeze: string;
  reason: string;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
}

/**
 * Kept per installation (many workspaces; '' = the single workspace): a person in two installed workspaces
 * holds a pass in the one it was granted in, and service runbooks have one id in every tenant.
 */
export interface FreezePassStore {
  grant(p: Omit<FreezePass, 'id' | 'createdAt' | 'usedAt'>, now: number, installationId?: string): Promise<FreezePass>;
  /** The person's unused, unexpired pass for this runbook, if any (not taken). */
  peek(userId: string, runbookId: string, now: number, installationId?: string): Promise<FreezePass | null>;
  /** Takes that pass by compare-and-set: of two runs at once, one gets it. */
  take(userId: string, runbookId: string, now: number, installationId?: string): Promise<FreezePass | null>;
  /** Gives passes kept for the single workspace ('') their workspace's installation (many-workspace start). */
  assignInstallations(): Promise<number>;
}

export interface ApprovalStore {
  /** New pending approval with a fresh uuid. */
  create(a: NewApproval, now: number): Promise<Approval>;
  get(id: string): Promise<Approval | null>;
  /**
   * Compare-and-set from 'pending'; true only for the one caller that won (two approvers clicking
   * at once, two replicas). 'approved' and 'rejected' only win while now < expiresAt, so a click
   * after expiry loses even if the sweeper has not run yet; 'expired' may be set at any time.
   */
  decide(
    id: string,
    to: 'approved' | 'rejected' | 'expired',
    by: string | null,
    reason: string | null,
    now: number,
  ): Promise<boolean>;
  setRunResult(id: string, executionIds: string[], error: string | null, now: number): Promise<void>;
  /** Sets only the refs given. */
  setMessages(id: string, m: ApprovalMessages): Promise<void>;
  /** Pending approvals with expiresAt <= now, soonest first. */
  listExpired(now: number, limit: number): Promise<Approval[]>;
  /**
   * Records `userId`'s approval of a request that is still pending and unexpired; false when they had
   * already approved it or it is no longer open. Whoever then finds the quorum met calls decide(), whose
   * compare-and-set picks the one caller that runs it. The last vote to commit always sees every
   * earlier vote, so a quorum completed by two clicks at once is never missed.
   */
  vote(id: string, userId: string, groups: readonly string[], now: number): Promise<boolean>;
  /** The approvals given so far, oldest first. */
  votes(id: string): Promise<ApprovalVote[]>;
  /**
   * Takes back `userId`'s approval of a request still pending (found no longer entitled when the quorum
   * was decided); false when there was none or the request is decided (a decided request keeps its votes).
   */
  withdrawVote(id: string, userId: string): Promise<boolean>;
  /** Open requests (pending, unexpired at `now`), oldest first: App Home's "Waiting for your approval". */
  listPending(now: number, limit: number, installationId?: string): Promise<Approval[]>;
  /** Gives requests without an installation their requester's workspace's (many-workspace start); how many. */
  assignInstallations(): Promise<number>;
  /**
   * Deletes at most `limit` decided requests (approved, rejected, expired) decided and run before `before`,
   * oldest first, with their votes, in one transaction; how many. Pending ones stay, however old.
   */
  pruneDecided(before: number, limit: number): Promise<number>;
}

/** An execution's full output uploaded into its card's thread as a file (at most once while it has a watch). */
export interface OutputUpload {
  executionId: string;
  claimedAt: number;
  /** Slack file id once the upload completed; null while in flight (or lost in a crash). */
  fileId: string | null;
  completedAt: number | null;
}

/**
 * Kept per installation (many workspaces; '' = the single workspace): execution ids come from each
 * installation's own Runbook API, so two tenants may hold the same one.
 */
export interface OutputUploadStore {
  /** True only for the one caller, across restarts and replicas, that may upload this execution's output. */
  claim(executionId: string, now: number, installationId?: string): Promise<boolean>;
  /** Records the uploaded file (first completion wins). */
  complete(executionId: string, fileId: string, now: number, installationId?: string): Promise<void>;
  /** Gives the claim back when the upload definitely did not happen, so a later delivery may try again. */
  release(executionId: string, installationId?: string): Promise<void>;
  get(executionId: string, installationId?: string): Promise<OutputUpload | null>;
  /** Gives uploads kept for the single workspace ('') their workspace's installation (many-workspace start). */
  assignInstallations(): Promise<number>;
  /**
   * Deletes at most `limit` claims taken before `before` whose execution has no watch left in their installation
   * (its watch pruned), oldest first, in one short statement; how many (fewer than `limit` → none older remain).
   */
  pruneUnwatched(before: number, limit: number): Promise<number>;
}

export interface AuditStore {
  append(e: AuditEntry): Promise<void>;
  /** Newest first; with `installationId`, only that installation's entries. */
  recent(limit: number, installationId?: string): Promise<AuditEntry[]>;
  /** Gives entries without an installation their workspace's (many-workspace mode, at start); how many. */
  assignInstallations(): Promise<number>;
  /**
   * AUDIT_RETENTION_DAYS: deletes at most `limit` entries (oldest first) of every installation with `at`
   * before `before`, in one short statement; returns how many (fewer than `limit` → none older remain).
   */
  deleteBefore(before: number, limit: number): Promise<number>;
}

export interface RunDraftStore {
  /** Saves a draft under a fresh uuid and returns the id; kept with `installationId` ('' = single workspace). */
  save(d: NewRunDraft, now: number, installationId?: string): Promise<string>;
  /**
   * The draft, or null when there is none, it expired (expiresAt <= now) or it is another installation's.
   * Reading does not consume it.
   */
  get(id: string, now: number, installationId?: string): Promise<RunDraftRecord | null>;
  /** Deletes drafts with expiresAt <= now; returns how many. */
  deleteExpired(now: number): Promise<number>;
}

export interface RunLimitStore {
  /**
   * Sliding-window limit shared by every replica: records a start for `key` at `now` if fewer than
   * `limit` starts of that key fall within (now - windowMs, now]; otherwise records nothing and says
   * how long until the oldest of them leaves the window. Serialised per key across replicas;
   * keys are per installation ('' = the single workspace).
   */
  take(key: string, now: number, windowMs: number, limit: number, installationId?: string): Promise<RunLimitDecision>;
  /** Forgets keys whose latest start is at or before `before` (their window is over); returns how many. */
  deleteIdle(before: number): Promise<number>;
}

export interface TokenBucketSpec {
  ratePerSecond: number;
  /** Most tokens the bucket holds (what may be spent at once after a quiet spell). */
  burst: number;
}

/** Coordination between replicas: one request budget and single-holder leases, kept in the store. */
export interface CoordinationStore {
  /**
   * Takes up to `want` whole tokens from the named bucket (created full on first use), refilled at
   * `ratePerSecond` since its last use. Atomic across replicas: the sum of everything granted never
   * exceeds burst + rate × time. `waitMs` says when the next token is there when fewer were granted.
   */
  takeTokens(
    name: string,
    spec: TokenBucketSpec,
    want: number,
    now: number,
    /** The installation the bucket is of ('' = none: a deployment-wide bucket), so its purge finds it. */
    installationId?: string,
  ): Promise<{ granted: number; waitMs: number }>;
  /**
   * Takes the named lease for `owner` until `until`, or renews it: true if `owner` holds it now.
   * Someone else's lease is taken over only once it has run out (lease_until <= now).
   */
  holdLease(name: string, owner: string, until: number, now: number): Promise<boolean>;
  /** Gives the lease up if `owner` holds it (graceful stop). */
  releaseLease(name: string, owner: string): Promise<void>;
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  /** Idempotent, versioned; safe when two replicas start at once. */
  migrate(): Promise<MigrationResult>;
  close(): Promise<void>;
  watches: WatchStore;
  notifications: NotificationStore;
  slackEvents: SlackEventStore;
  intents: RunIntentStore;
  subscriptions: SubscriptionStore;
  cursors: CursorStore;
  scheduleOwners: ScheduleOwnerStore;
  schedulePauses: SchedulePauseStore;
  freezePasses: FreezePassStore;
  approvals: ApprovalStore;
  audit: AuditStore;
  runDrafts: RunDraftStore;
  runLimits: RunLimitStore;
  aliases: AliasStore;
  channelDefaults: ChannelDefaultsStore;
  workflowSteps: WorkflowStepStore;
  coordination: CoordinationStore;
  outputUploads: OutputUploadStore;
  /** Many-workspace mode: each installation's sealed tokens (installations.ts). */
  installations: InstallationRecordStore;
  /** The OAuth install flow's one-time states. */
  oauthStates: OAuthStateStore;
  /** Many-workspace mode: each installation's Runbook API (URL and sealed key; api-connections.ts). */
  apiConnections: ApiConnectionStore;
  /** Many-workspace mode: each installation's approvals channel and approver group (installation-settings.ts). */
  installationSettings: InstallationSettingsStore;
}

export type StoreConfig =
  | { kind: 'sqlite'; path: string }
  /** `schema` isolates a run (tests); it is created if missing and used as search_path. */
  | { kind: 'postgres'; url: string; schema?: string };
