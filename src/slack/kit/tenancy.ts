// Many-workspace mode: the installation a request's deps belong to and its Runbook API connection, the
// sentence every surface shows until the workspace is connected, and what Slack says about the person
// (users.info is_owner / is_admin, read fresh: it decides who may connect).
import type { WebClient } from '@slack/web-api';
import { mention } from '../../mentions.ts';
import type { ConnectFacts } from '../../runs/api-connection.ts';
import type { InstallationSettingsRecord } from '../../store/installation-settings.ts';
import type { ApiConnections, ConnectionStatus } from '../../tenants/api-connections.ts';
import { belongsTo } from './membership.ts';
import { channelMention, escapeMrkdwn, userMention } from './mrkdwn.ts';

export interface TenancyDeps {
  installationId: string;
  connections: ApiConnections;
  /** The connection when this request's deps were resolved; null: not connected yet. */
  status: ConnectionStatus | null;
  /**
   * A saved connection to an address the operator no longer allows (then `status` is null): not used,
   * and every surface says so instead of "not connected yet". Null otherwise.
   */
  withdrawn?: ConnectionStatus | null;
  /** Who installed the app (null when unknown), when this installation's deps were built. */
  installerId: string | null;
  /**
   * Who installed it, read from the store now: a reinstall by someone else may have landed since the deps
   * were built (on this replica or another). Deciding who may connect uses this; absent: `installerId`.
   */
  installerNow?: () => Promise<string | null>;
  /** The workspace's own approvals channel and approver group, as read for this request (null: none). */
  settings: InstallationSettingsRecord | null;
  /** APPROVALS_CHANNEL (the operator's, for every workspace; null: unset). */
  operatorApprovalsChannel: string | null;
}

/**
 * Who may connect the workspace: a sentence whose installer is a sealed mention (src/mentions.ts), so it
 * stays a live mention when the sentence is escaped as an error (never shown as a raw "<@U…>").
 */
export function whoMayConnect(installerId: string | null): string {
  return installerId
    ? `a workspace admin or owner, or ${mention.user(installerId)} (who installed the app)`
    : 'a workspace admin or owner';
}

/** What every command and action answers until the workspace is connected. */
export function notConnectedSentence(installerId: string | null): string {
  return `This workspace is not connected to a Runbook API yet: ${whoMayConnect(installerId)} can connect it with Connect in the app's Home tab.`;
}

/** What every command and action answers when the workspace's saved address was removed by the operator. */
export function withdrawnSentence(installerId: string | null): string {
  return `This workspace's Runbook API address is no longer allowed by the operator: ${whoMayConnect(installerId)} can reconnect it with Connect in the app's Home tab.`;
}

/** The sentence a request of an installation that cannot reach its Runbook API answers. */
export function unconnectedSentence(tenancy: Pick<TenancyDeps, 'installerId' | 'withdrawn'>): string {
  return tenancy.withdrawn
    ? withdrawnSentence(installerWhoMayReconnect(tenancy.installerId, tenancy.withdrawn))
    : notConnectedSentence(tenancy.installerId);
}

/** A saved connection is the installer's to change only when they made it (api-connection.ts mayConnect). */
export function installerWhoMayReconnect(installerId: string | null, saved: ConnectionStatus | null): string | null {
  return saved && saved.connectedBy !== installerId ? null : installerId;
}

/**
 * The facts the connect use cases decide on: the person's role in the workspace and the installer. The
 * role counts only where Slack says the person belongs to this installation (membership.ts):
 * an admin of another workspace — a sibling one of the same Grid org, or another organisation's where
 * external users may act — is a member here, so cannot connect, replace or disconnect its Runbook API.
 */
export async function connectFactsOf(tenancy: TenancyDeps, client: WebClient, userId: string): Promise<ConnectFacts> {
  const answer = (await client.users.info({ user: userId })) as {
    user?: {
      is_owner?: boolean;
      is_primary_owner?: boolean;
      is_admin?: boolean;
      is_bot?: boolean;
      team_id?: string;
      enterprise_user?: { enterprise_id?: string; teams?: string[] };
    };
  };
  const user = answer.user ?? {};
  const here = belongsTo(
    {
      isBot: user.is_bot === true,
      teamId: user.team_id ?? null,
      enterpriseId: user.enterprise_user?.enterprise_id ?? null,
      teams: user.enterprise_user?.teams ?? [],
    },
    tenancy.installationId,
  );
  const role = !here ? 'member' : user.is_owner || user.is_primary_owner ? 'owner' : user.is_admin ? 'admin' : 'member';
  const connectedBy = (tenancy.status ?? tenancy.withdrawn ?? null)?.connectedBy ?? null;
  const installerId = tenancy.installerNow ? await tenancy.installerNow() : tenancy.installerId;
  return { installationId: tenancy.installationId, role, installerId, connectedBy };
}

/** One line for App Home and the saved view: where requests go and who approves. */
export function settingsSummary(record: InstallationSettingsRecord | null, operatorChannel: string | null): string {
  const channel = operatorChannel ?? record?.approvalsChannel ?? null;
  const where = channel
    ? `Approval requests go to ${channelMention(channel)}`
    : 'Approval requests go to the approvers by DM';
  const who = record?.approverGroup
    ? `; only members of ${escapeMrkdwn(mention.group(record.approverGroup))} approve where the policy lets them`
    : "; approvers are the policy's";
  const by = record ? ` (set by ${userMention(record.updatedBy)})` : '';
  return `${where}${who}${by}.`;
}

/** How many things are open under the current Runbook API account (src/runs/api-connection.ts's AccountWork). */
export interface OpenWorkCounts {
  watches: number;
  requests: number;
  pauses: number;
  subscriptions: number;
  schedules: number;
}

export function countsOf(work: {
  watches: readonly unknown[];
  requests: readonly unknown[];
  pauses: readonly unknown[];
  subscriptions: readonly unknown[];
  schedules: readonly unknown[];
}): OpenWorkCounts {
  return {
    watches: work.watches.length,
    requests: work.requests.length,
    pauses: work.pauses.length,
    subscriptions: work.subscriptions.length,
    schedules: work.schedules.length,
  };
}

/** "2 runs being followed, 1 approval request waiting, …", or null when nothing is open. */
export function openWorkSentence(c: OpenWorkCounts): string | null {
  const n = (count: number, one: string, many: string) => (count ? [`${count} ${count === 1 ? one : many}`] : []);
  const parts = [
    ...n(c.watches, 'run being followed', 'runs being followed'),
    ...n(c.requests, 'approval request waiting', 'approval requests waiting'),
    ...n(c.pauses, 'schedule paused from Slack', 'schedules paused from Slack'),
    ...n(c.subscriptions, 'channel subscription', 'channel subscriptions'),
    ...n(c.schedules, 'schedule made in Slack', 'schedules made in Slack'),
  ];
  return parts.length ? parts.join(', ') : null;
}

/** What happens to what is open when the account changes (the Replace form, Disconnect's confirmation). */
export const ACCOUNT_CHANGE_EFFECT =
  'each followed run’s card says it is no longer followed, waiting requests close and their requesters are told, paused schedules stay paused in the old account (who paused them is sent their times), subscriptions end, schedules made in Slack keep running in the old account (their makers are told); nothing of the old account runs on the new one';
