// Many workspaces: who belongs to an installation, from what Slack says about the person (users.info).
// Pure; the lookups are the callers' (standing.ts `memberOfInstallation`, tenancy.ts `connectFactsOf`).
import type { Profile } from './identity.ts';

/**
 * Many workspaces: whether what Slack says about a person puts them in the installation — its workspace
 * (their own, or one of their Grid org's workspaces they are in) or, installed org-wide, its org. Strict,
 * unlike `standingOf`: a person Slack says nothing about, a bot, a sibling workspace's person of a
 * workspace-level install, or a person of another organisation (even where the policy lets external users
 * act) does not belong. It decides who is told of, sees and decides an approval request, and whose
 * workspace role counts for Connect.
 */
export function belongsTo(
  profile: Pick<Profile, 'isBot' | 'teamId' | 'enterpriseId' | 'teams'> | null,
  installationId: string,
): boolean {
  if (!profile || profile.isBot) return false;
  return (
    profile.teamId === installationId ||
    profile.enterpriseId === installationId ||
    (profile.teams ?? []).includes(installationId)
  );
}
