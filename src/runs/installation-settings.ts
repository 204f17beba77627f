// A workspace's own approval settings (many-workspace mode): its approvals channel and approver group,
// set from App Home by those who may connect it (api-connection.ts's rule), only ever narrower than the
// operator's: the channel is used only where the operator names none (APPROVALS_CHANNEL), the group must
// be one the policy file names as approvers in a rule for this workspace (or for every workspace), and
// then only its members may approve where the file lets that group (or anyone) approve. Approval rules and
// freezes naming its team hold whatever is set. Each change and each refusal is audited (`settings.update`).
import { mention } from '../mentions.ts';
import type { GroupsHere, Place, Policy, UsersHere } from '../policy/policy.ts';
import type { InstallationSettingsRecord } from '../store/installation-settings.ts';
import type { Actor } from './actor.ts';
import { type ConnectFacts, mayConnect } from './api-connection.ts';
import type { RunsAccess, RunsDeps } from './deps.ts';
import { recordDenial } from './gate.ts';
import { type Refusal, refused } from './run.ts';

export interface SettingsInput {
  /** Channel id, or null to clear. */
  approvalsChannel: string | null;
  /** User group id, or null to clear. */
  approverGroup: string | null;
}

/** The operator's one policy file as an installation (`home`: its id, workspace, Grid org) applies it for `teams:`. */
export function policyForInstallation(access: Pick<RunsAccess, 'policy'>, home: Place): Policy {
  return access.policy.forInstallation(home);
}

/**
 * Many workspaces: the access as one installation whose workspace(s) have these user groups applies it —
 * only those are named, mentioned or read for it (null: not filtered).
 */
export function withGroupsHere<A extends RunsAccess>(access: A, groups: GroupsHere | null): A {
  return { ...access, policy: access.policy.withGroupsHere(groups) };
}

/** Likewise its own people of the approver users the policy names: only those are named or mentioned. */
export function withUsersHere<A extends RunsAccess>(access: A, users: UsersHere | null): A {
  return { ...access, policy: access.policy.withUsersHere(users) };
}

/** The installation's own user groups, as its access knows them (null: not filtered, single workspace). */
export function groupsHereOf(access: Pick<RunsAccess, 'policy'>): GroupsHere | null {
  return access.policy.groupsHere;
}

/** The user groups a workspace may narrow approvers to: those the policy names as approvers for its team. */
export function allowedApproverGroups(access: Pick<RunsAccess, 'policy'>): string[] {
  return access.policy.approverGroups;
}

const WHO_MAY =
  'Only a workspace admin or owner, or whoever installed the app and connected it, can change where approval requests go and who approves them.';

/**
 * Why these settings would widen what the operator allows (the sentence), or null when they only narrow it.
 * `operatorChannel` is APPROVALS_CHANNEL (null: unset).
 */
export function wideningSentence(
  access: Pick<RunsAccess, 'policy'>,
  operatorChannel: string | null,
  input: SettingsInput,
): { field: 'approvalsChannel' | 'approverGroup'; sentence: string } | null {
  if (input.approvalsChannel !== null) {
    if (!/^[CG][A-Z0-9]{2,30}$/.test(input.approvalsChannel)) {
      return { field: 'approvalsChannel', sentence: 'Choose a channel of this workspace.' };
    }
    if (operatorChannel !== null && input.approvalsChannel !== operatorChannel) {
      return {
        field: 'approvalsChannel',
        sentence: `The operator sends every approval request to ${mention.channel(operatorChannel)} (APPROVALS_CHANNEL), so this workspace cannot choose another channel.`,
      };
    }
  }
  if (input.approverGroup !== null) {
    const named = access.policy.approverGroups;
    if (!/^S[A-Z0-9]{2,30}$/.test(input.approverGroup) || !named.includes(input.approverGroup)) {
      const allowed = named.length
        ? `one of ${named.map((g) => mention.group(g)).join(', ')}`
        : 'none: ask the operator to name your group in the policy file first';
      return {
        field: 'approverGroup',
        sentence: `Approvers can only be narrowed to a user group the operator's policy (${access.policy.source}) names as approvers for this workspace — ${allowed}. ${/^S[A-Z0-9]{2,30}$/.test(input.approverGroup) ? `\`${input.approverGroup}\`` : 'That'} is not one of them, so it would let people approve whom the policy does not.`,
      };
    }
  }
  return null;
}

export async function saveInstallationSettings(
  deps: Pick<RunsDeps, 'access' | 'now'>,
  operatorChannel: string | null,
  actor: Actor,
  facts: ConnectFacts,
  input: SettingsInput,
): Promise<
  | { kind: 'saved'; record: InstallationSettingsRecord }
  | { kind: 'invalid'; field: 'approvalsChannel' | 'approverGroup'; sentence: string }
  | Refusal
> {
  const target = facts.installationId;
  if (!mayConnect(actor.userId, facts)) {
    await recordDenial(deps, actor, { action: 'settings.update', target, sentence: WHO_MAY });
    return refused('denied', WHO_MAY);
  }
  const widening = wideningSentence(deps.access, operatorChannel, input);
  if (widening) {
    await recordDenial(deps, actor, { action: 'settings.update', target, sentence: widening.sentence });
    return { kind: 'invalid', ...widening };
  }
  const record: InstallationSettingsRecord = {
    installationId: target,
    approvalsChannel: input.approvalsChannel,
    approverGroup: input.approverGroup,
    updatedBy: actor.userId,
    updatedAt: deps.now(),
  };
  await deps.access.store.installationSettings.put(record);
  await deps.access.audit.record({
    userId: actor.userId,
    teamId: actor.teamId,
    channel: null,
    action: 'settings.update',
    target,
    outcome: 'ok',
    detail: `approvals channel ${input.approvalsChannel ?? 'not set'}; approver group ${input.approverGroup ?? 'not set'}`,
    tid: null,
  });
  return { kind: 'saved', record };
}

/** Opening the form: allowed or the refusal (audited). */
export async function openInstallationSettings(
  deps: Pick<RunsDeps, 'access'>,
  actor: Actor,
  facts: ConnectFacts,
): Promise<{ kind: 'ok' } | Refusal> {
  if (mayConnect(actor.userId, facts)) return { kind: 'ok' };
  await recordDenial(deps, actor, { action: 'settings.update', target: facts.installationId, sentence: WHO_MAY });
  return refused('denied', WHO_MAY);
}

/**
 * The access one installation's requests and background work use: the operator's approvals channel, else
 * the workspace's; the policy narrowed to the workspace's approver group. Stored settings that no longer
 * narrow (the operator changed the file or set a channel since) are not applied.
 */
export function withInstallationSettings<A extends RunsAccess>(
  access: A,
  operatorChannel: string | null,
  record: InstallationSettingsRecord | null,
): A {
  if (!record) return access;
  const input = { approvalsChannel: record.approvalsChannel, approverGroup: record.approverGroup };
  const channelOk = input.approvalsChannel !== null && operatorChannel === null;
  const groupOk =
    input.approverGroup !== null &&
    wideningSentence(access, null, { approvalsChannel: null, approverGroup: input.approverGroup }) === null;
  return {
    ...access,
    approvalsChannel: channelOk ? input.approvalsChannel : access.approvalsChannel,
    policy: groupOk ? access.policy.narrowedTo(input.approverGroup) : access.policy,
  };
}
