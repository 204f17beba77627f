// team_access_revoked / team_access_granted: an org-wide installation loses (or gets back) some of its org's
// workspaces while the org keeps the app. A removed workspace is handled like an uninstall scoped to that
// team: nothing is served for it any more (installationOfTeam answers null, so its background work stops),
// its watches end at once, its rows stay (a later grant, or a request from it, finds them again), and they
// go with the org's when the org is purged. Retries and late deliveries are judged by the event's time: a
// removal sent before the workspace was granted or seen again changes nothing, and the other way round.
import type { InstallationRecordStore } from '../store/installations.ts';

export interface TeamAccessEvent {
  kind: 'team_access_revoked' | 'team_access_granted';
  teamIds: readonly string[];
  /** When Slack sent it (event_time, in ms). */
  sentAt: number;
}

export interface TeamAccessOptions {
  records: InstallationRecordStore;
  /** A workspace was removed: stop its work (its watches, what is kept in memory for the installation). */
  onRemoved: (installationId: string, teamId: string) => void | Promise<void>;
  /** A workspace was granted again: drop what is kept in memory for the installation. */
  onGranted: (installationId: string, teamId: string) => void | Promise<void>;
}

/** The workspaces whose access changed; null when `installationId` is no installed org-wide installation. */
export async function changeTeamAccess(
  options: TeamAccessOptions,
  installationId: string,
  event: TeamAccessEvent,
): Promise<string[] | null> {
  const record = await options.records.get(installationId);
  if (!record?.sealed || !record.isEnterpriseInstall) return null;
  const changed: string[] = [];
  for (const teamId of new Set(event.teamIds)) {
    if (!/^T[A-Z0-9]+$/.test(teamId)) continue;
    if (event.kind === 'team_access_granted') {
      await options.records.grantTeam(teamId, installationId, event.sentAt);
      await options.onGranted(installationId, teamId);
      changed.push(teamId);
    } else if (await options.records.revokeTeam(teamId, installationId, event.sentAt)) {
      await options.onRemoved(installationId, teamId);
      changed.push(teamId);
    }
  }
  return changed;
}
