// The one gate for "this runbook will run" (now or later), and for every other action on a runbook.
// Every use case asks it; nothing else calls the policy for a runbook action. The rules:
//   - `view` is implied by every action: a runbook the person may not view cannot be run, scheduled,
//     approved, subscribed to or watched by them, and the refusal never names it;
//   - a run needs `run` where the person acted AND where the result goes;
//   - where the result goes is checked like a permission (destinations.ts): it exists, the bot can post
//     there, and whoever chose it (or saved it in defaults or an alias) is in it; a DM only one's own;
//   - a schedule is a standing run: creating or editing one needs `schedule` and `run`;
//   - a run started by a person counts against their run limit;
//   - every denial writes the same audit record (recordDenial), whatever the path.
// The verdict also says whether the runbook needs approval; the use case decides what that means
// (a run becomes an approval request; so does a schedule).
import type { Schedule, Workflow } from '../api/schemas.ts';
import { freezeSentence } from '../policy/freezes.ts';
import {
  type ActiveFreeze,
  type ApprovalNeed,
  type Decision,
  describeApprovers,
  describeWhoApproves,
  type FreezeScope,
  type Place,
  type PolicyAction,
  type RunbookFacts,
  type Subject,
} from '../policy/policy.ts';
import { currentInstallation, installationKey } from '../tenants/tenant-scope.ts';
import type { Actor } from './actor.ts';
import type { RunsDeps } from './deps.ts';
import { judgeDestination } from './destinations.ts';
import { type RunEntry, withVia } from './run-entry.ts';

/** What the person is about to do. */
export type Intent =
  /** See it: show, status, output, watch, subscribe. */
  | 'view'
  /** Open its run form (no run yet, so no run limit). */
  | 'open-run'
  /** Start a run now (from the form, Run now, an approved request). */
  | 'run'
  /** Create or edit a schedule: a standing run. */
  | 'schedule'
  /** Delete a schedule (or open one to edit): `schedule`. */
  | 'change-schedule'
  /** Decide an approval request of someone else. */
  | 'approve';

const ACTIONS_OF: Record<Intent, PolicyAction[]> = {
  view: ['view'],
  'open-run': ['view', 'run'],
  run: ['view', 'run'],
  schedule: ['view', 'schedule', 'run'],
  'change-schedule': ['view', 'schedule'],
  approve: ['view', 'approve'],
};

export interface GateRequest {
  intent: Intent;
  runbook: RunbookFacts;
  /** The audit action of a denial ("run.start", "schedule.create", …). */
  auditAction: string;
  /** For a run (or its form): the entry point, the last part of a denial's record (`; via …`). */
  via?: RunEntry;
  /** Audit target; default "<name> (<id>)". */
  auditTarget?: string;
  /** For `approve`: the requester (who may never approve their own request). */
  requesterId?: string;
  /** For `approve`: where the request was made (who approves is decided there). */
  requestPlace?: Place;
  /** For `run`: whether this run counts against the actor's run limit (default true). */
  rateLimited?: boolean;
}

/** Whether approval is needed and who may give it, with the approvers already described for people. */
export interface RunApprovalNeed extends ApprovalNeed {
  /** "<@U1> or members of <!subteam^S1>" (sealed mentions), or "anyone but the requester". */
  approvers: string;
  /** "… can approve it", or with a quorum "it needs approval from both <@U1> and <@U2>" (sealed mentions). */
  whoApproves: string;
}

export type GateVerdict =
  | { allowed: true; approval: RunApprovalNeed }
  | {
      allowed: false;
      /**
       * hidden: `view` denied (the sentence does not name the runbook); denied: another rule; limited: run
       * limit; misdirected: where the result goes does not pass (destinations.ts); frozen: a change freeze.
       */
      reason: 'hidden' | 'denied' | 'limited' | 'misdirected' | 'frozen';
      sentence: string;
    };

/** What the policy needs to know about a runbook from the API's copy. */
export function runbookFacts(deps: Pick<RunsDeps, 'catalog'>, runbook: Workflow): RunbookFacts {
  return {
    id: runbook.id,
    name: runbook.name,
    tags: runbook.tags,
    categories: runbook.categories,
    isService: deps.catalog.isService(runbook.id),
    requiresApproval: runbook.requiresApproval,
  };
}

/** A runbook known only by id and name (a schedule or execution that outlived its runbook). */
export function bareFacts(id: string, name: string): RunbookFacts {
  return { id, name, tags: [], categories: [], isService: null, requiresApproval: false };
}

export function subjectOf(actor: Actor, channelId: string | null): Subject {
  return { ...placeOfActor(actor), userId: actor.userId, groups: actor.groups, channelId };
}

/**
 * Where the actor acts, for the policy's `teams:`: the workspace and Grid org of the request, and the
 * installation in scope. (Many workspaces: the policy adds the installation's own ids, tenant-deps.ts.)
 */
export function placeOfActor(actor: Pick<Actor, 'teamId' | 'enterpriseId'>): Place {
  return {
    teamId: actor.teamId,
    enterpriseId: actor.enterpriseId ?? null,
    installationId: currentInstallation() ?? null,
  };
}

/** The channels an intent is checked in: where the person acted, and for runs where the result goes. */
function channelsOf(actor: Actor, intent: Intent): Array<string | null> {
  if (intent === 'run' || intent === 'open-run') return [...new Set([actor.channelId, actor.destinationChannel])];
  return [actor.channelId];
}

/** The policy's answer for one action in one channel (view first, so a hidden runbook is never named). */
export function decideFor(
  deps: Pick<RunsDeps, 'access'>,
  actor: Actor,
  action: PolicyAction,
  runbook: RunbookFacts,
  channel: string | null,
): Decision {
  return deps.access.policy.decide(action, subjectOf(actor, channel), runbook);
}

/** Many workspaces: an approval request is decided only by people of the installation it was made in. */
export const NOT_A_MEMBER =
  'Only people of this workspace (or of its organization, where the app is installed org-wide) can approve its requests, and Slack does not count you as one of them; ask one of its approvers.';

export async function gate(deps: RunsDeps, actor: Actor, request: GateRequest): Promise<GateVerdict> {
  const { policy } = deps.access;
  const target = request.auditTarget ?? `${request.runbook.name} (${request.runbook.id})`;
  const denial = { action: request.auditAction, target, ...(request.via ? { via: request.via } : {}) };
  if (request.intent === 'approve' && actor.installationMember === false) {
    await recordDenial(deps, actor, { ...denial, sentence: NOT_A_MEMBER, channel: actor.channelId });
    return { allowed: false, reason: 'denied', sentence: NOT_A_MEMBER };
  }
  for (const channel of channelsOf(actor, request.intent)) {
    for (const action of ACTIONS_OF[request.intent]) {
      const decision =
        action === 'approve'
          ? policy.canApprove(
              subjectOf(actor, channel),
              request.runbook,
              request.requesterId ?? '',
              request.requestPlace,
            )
          : decideFor(deps, actor, action, request.runbook, channel);
      if (decision.allowed) continue;
      const sentence = decision.message;
      await recordDenial(deps, actor, { ...denial, sentence, channel });
      return { allowed: false, reason: action === 'view' ? 'hidden' : 'denied', sentence };
    }
  }
  if (request.intent === 'run' || request.intent === 'open-run') {
    const sentence = destinationSentence(actor, actor.userId);
    if (sentence) {
      await recordDenial(deps, actor, { ...denial, sentence, channel: actor.channelId });
      return { allowed: false, reason: 'misdirected', sentence };
    }
  }
  if (request.intent === 'run' || request.intent === 'open-run') {
    // A run inside a change freeze: refused unless the person holds a break-glass pass (used up by a run).
    const sentence = await freezeCheck(deps, actor, request.runbook, {
      take: request.intent === 'run',
      auditAction: request.auditAction,
      target,
      ...(request.via ? { via: request.via } : {}),
    });
    if (sentence) return { allowed: false, reason: 'frozen', sentence };
  }
  if (request.intent === 'run' && request.rateLimited !== false) {
    const limit = await deps.access.runLimit.take(actor.userId);
    if (!limit.ok) {
      const sentence = `You have started too many runs this minute; try again in ${Math.ceil(limit.retryInMs / 1000)} s.`;
      await recordDenial(deps, actor, { ...denial, sentence, channel: actor.channelId });
      return { allowed: false, reason: 'limited', sentence };
    }
  }
  const place = request.intent === 'approve' ? request.requestPlace : placeOfActor(actor);
  return { allowed: true, approval: approvalNeedOf(deps, request.runbook, place) };
}

/**
 * The one answer to "does a run of this runbook need approval, and who may give it", for a run requested
 * in `place` (approval rules naming teams; undefined: not known, and they apply).
 */
export function approvalNeedOf(
  deps: Pick<RunsDeps, 'access'>,
  runbook: RunbookFacts,
  place: Place | undefined,
): RunApprovalNeed {
  const { policy } = deps.access;
  const need = policy.approvalFor(runbook, place);
  // Many workspaces: only the installation's own user groups and people are named (policy.here).
  return {
    ...need,
    approvers: describeApprovers(need, policy.here),
    whoApproves: describeWhoApproves(need, policy.here),
  };
}

/** The same for a runbook known by its API copy. */
export function approvalNeedFor(
  deps: Pick<RunsDeps, 'access' | 'catalog'>,
  runbook: Workflow,
  place: Place | undefined,
): RunApprovalNeed {
  return approvalNeedOf(deps, runbookFacts(deps, runbook), place);
}

/**
 * Why the actor's result may not go where it is headed (the sentence), or null when it may. `runner` is
 * whose result it is; null when the destination is being saved for everyone in a channel. A destination
 * other than where the person acted that nobody read the facts of is refused (fails closed).
 */
export function destinationSentence(actor: Actor, runner: string | null): string | null {
  const chosen = actor.destination;
  if (chosen && chosen.channel === actor.destinationChannel) return judgeDestination(chosen, runner);
  if (!actor.destinationChannel || actor.destinationChannel === actor.channelId) return null;
  return 'Where the result would go could not be checked, so nothing was done; try again from the channel.';
}

/**
 * The destination check for saving one (channel defaults, an alias's `--to`): shared by everyone in the
 * channel, so never a DM. Audited like every refusal; the sentence, or null when it passes.
 */
export async function refuseSavedDestination(
  deps: Pick<RunsDeps, 'access'>,
  actor: Actor,
  denial: { action: string; target: string },
): Promise<string | null> {
  if (!actor.destinationChannel) return null;
  const sentence = destinationSentence(actor, null);
  if (sentence) await recordDenial(deps, actor, { ...denial, sentence });
  return sentence;
}

/** The audit record of something a person did (or tried and the API refused): ok or error. */
export async function recordAction(
  deps: Pick<RunsDeps, 'access'>,
  actor: Pick<Actor, 'userId' | 'teamId' | 'channelId'>,
  action: string,
  target: string,
  outcome: 'ok' | 'error',
  detail: string | null,
): Promise<void> {
  await deps.access.audit.record({
    // '' is the bot acting on its own (a change freeze): stored as no user.
    userId: actor.userId || null,
    teamId: actor.teamId,
    channel: actor.channelId,
    action,
    target,
    outcome,
    detail,
    tid: null,
  });
}

/**
 * The one audit record of a refusal, whatever refused (a rule, ownership, the run limit): the sentence the
 * person was shown, and for a run (or its form) the entry point as its last part (`; via …`).
 */
export async function recordDenial(
  deps: Pick<RunsDeps, 'access'>,
  actor: Actor,
  denial: { action: string; target: string; sentence: string; channel?: string | null; via?: RunEntry },
): Promise<void> {
  await deps.access.audit.record({
    userId: actor.userId,
    teamId: actor.teamId,
    channel: denial.channel === undefined ? actor.channelId : denial.channel,
    action: denial.action,
    target: denial.target,
    outcome: 'denied',
    detail: denial.via ? withVia(denial.sentence, denial.via) : denial.sentence,
    tid: null,
  });
}

/**
 * A person of another organisation (Slack Connect): null when the policy lets them use the bot, else the
 * sentence of the refusal (the caller records it with `recordDenial`, like every refusal).
 */
export function externalRefusal(deps: Pick<RunsDeps, 'access'>): string | null {
  const { policy } = deps.access;
  return policy.allowsExternalUsers ? null : policy.externalDenial;
}

/** Who a workflow nobody started runs as (the policy's `unattendedWorkflowsRunAs`), and whom to ask. */
export function unattendedWorkflows(deps: Pick<RunsDeps, 'access'>): { runAs: string | null; contact: string } {
  const { policy } = deps.access;
  return { runAs: policy.unattendedWorkflowsRunAs, contact: policy.contact };
}

/** Who and where a run is judged for a change freeze: the person, where they act and where it goes. */
export function runScope(actor: Actor): FreezeScope {
  return {
    userId: actor.userId,
    groups: actor.groups,
    channels: [actor.channelId, actor.destinationChannel],
    place: placeOfActor(actor),
  };
}

/**
 * The freeze check of a run (`take`: it starts now, so a break-glass pass is used up, audited with its
 * reason; else the pass is only looked at, for opening the form). Null when the run may go ahead; else
 * the refusal's sentence (the window's name and end in the person's zone), audited like every refusal.
 */
export async function freezeCheck(
  deps: RunsDeps,
  actor: Actor,
  runbook: RunbookFacts,
  options: { take: boolean; auditAction: string; target: string; scope?: FreezeScope; via?: RunEntry },
): Promise<string | null> {
  const freeze = deps.access.policy.freezeAt(options.scope ?? runScope(actor), runbook, deps.now());
  if (!freeze) return null;
  const passes = deps.access.store.freezePasses;
  // The installation's own passes: one granted in another workspace the person is in does not count here.
  const pass = options.take
    ? await passes.take(actor.userId, runbook.id, deps.now(), installationKey())
    : await passes.peek(actor.userId, runbook.id, deps.now(), installationKey());
  if (pass) {
    if (options.take) {
      await recordAction(deps, actor, 'freeze.break', options.target, 'ok', `“${freeze.name}” broken: ${pass.reason}`);
    }
    return null;
  }
  const sentence = freezeSentence(runbook.name, freeze, actor.timeZone);
  await recordDenial(deps, actor, {
    action: options.auditAction,
    target: options.target,
    sentence,
    ...(options.via ? { via: options.via } : {}),
  });
  return sentence;
}

export interface FreezeOptions {
  /** The policy's user groups of a schedule's owner (may throw: then group windows cover it). */
  groupsOf?: (userId: string) => Promise<string[]>;
}

/** What a change freeze judges a schedule by: its runbook, its Slack creator and the channel it was made in. */
export interface ScheduleFreezeScope {
  scope: FreezeScope;
  runbook: RunbookFacts;
  /** The channel it was made in (where a freeze's pause and resume are said); null: unknown. */
  channel: string | null;
}

/** A schedule's freeze scope (owner and channel from our store; unknown for schedules made outside Slack). */
export async function scheduleFreezeScope(
  deps: RunsDeps,
  schedule: Pick<Schedule, 'id' | 'runbookId' | 'runbookName'>,
  options: FreezeOptions = {},
): Promise<ScheduleFreezeScope> {
  const owner = await deps.access.store.scheduleOwners.get(schedule.id, installationKey());
  const runbook = await deps.catalog.get(schedule.runbookId).catch(() => null);
  const facts = runbook ? runbookFacts(deps, runbook) : bareFacts(schedule.runbookId, schedule.runbookName);
  let groups: readonly string[] | null = [];
  if (owner && options.groupsOf && deps.access.policy.freezes.some((w) => w.groups)) {
    groups = await options.groupsOf(owner.userId).catch(() => null);
  }
  const channel = owner?.channel ?? null;
  // The workspace it was made in (unknown for one made outside Slack: a window naming teams covers it, unless
  // the installation's own ids say otherwise).
  const scope = {
    userId: owner?.userId ?? null,
    groups,
    channels: [channel],
    place: { teamId: owner?.teamId ?? null },
  };
  return { scope, runbook: facts, channel };
}

/** The window covering a schedule now (null: none), and the channel it was made in. */
export async function scheduleFreeze(
  deps: RunsDeps,
  schedule: Pick<Schedule, 'id' | 'runbookId' | 'runbookName'>,
  options: FreezeOptions = {},
): Promise<{ freeze: ActiveFreeze | null; channel: string | null }> {
  if (deps.access.policy.freezes.length === 0) return { freeze: null, channel: null };
  const judged = await scheduleFreezeScope(deps, schedule, options);
  return { freeze: deps.access.policy.freezeAt(judged.scope, judged.runbook, deps.now()), channel: judged.channel };
}
