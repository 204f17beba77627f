// Installations (many-workspace mode) and the OAuth install flow's one-time states: the interfaces (their
// SQL: sql-installations.ts). The store never sees a token in clear: `sealed` is what src/tenants/ sealed.

export interface InstallationRecord {
  /** Team id, or enterprise id for an org-wide install. */
  id: string;
  teamId: string | null;
  enterpriseId: string | null;
  isEnterpriseInstall: boolean;
  /** The installation with its tokens, sealed (src/tenants/secret-box.ts); null once uninstalled. */
  sealed: string | null;
  /** Bumped by every save and revocation: a revocation deletes only the tokens it looked at. */
  generation: number;
  installedAt: number;
  updatedAt: number;
  /** When its tokens were deleted (app_uninstalled / tokens_revoked); null while installed. */
  uninstalledAt: number | null;
}

export interface NewInstallationRecord {
  id: string;
  teamId: string | null;
  enterpriseId: string | null;
  isEnterpriseInstall: boolean;
  sealed: string;
}

export interface InstallationRecordStore {
  /** Inserts or replaces (install, reinstall, token refresh); a reinstall after an uninstall starts anew. */
  save(record: NewInstallationRecord, now: number): Promise<InstallationRecord>;
  get(id: string): Promise<InstallationRecord | null>;
  /**
   * Deletes the tokens if the row is still at `generation` (nothing saved since the caller looked):
   * true when this call deleted them. A reinstall that landed in between keeps its fresh tokens.
   */
  revoke(id: string, generation: number, now: number): Promise<boolean>;
  /** Installations that hold tokens, by id, after `afterId` (paging through all of them). */
  listActive(afterId: string, limit: number): Promise<InstallationRecord[]>;
  /** Installations uninstalled at or before `cutoff` (and not installed again), oldest first. */
  listUninstalledBefore(cutoff: number, limit: number): Promise<InstallationRecord[]>;
  /**
   * Deletes what an installation uninstalled at or before `cutoff` left (retention.ts): in one transaction,
   * only while it is still uninstalled (a reinstall that landed first keeps everything). The audit trail is
   * never touched. Null when it was not purged (reinstalled, or not that old); else rows deleted per table.
   */
  purge(id: string, cutoff: number): Promise<Record<string, number> | null>;
  /**
   * Deletes what workspaces removed from an org-wide install at or before `cutoff` (and not back since) left
   * under it: their subscriptions, watches, run intents, schedule owners and pauses, approvals (requested
   * there). Aliases and channel defaults are the org's (keyed by channel) and stay. Each in one transaction.
   */
  purgeRemovedTeams(
    cutoff: number,
    limit: number,
  ): Promise<Array<{ teamId: string; installationId: string; rows: Record<string, number> }>>;
  /** A workspace is served by an org-wide installation (seen on a request from it). */
  rememberTeam(teamId: string, installationId: string, now: number): Promise<void>;
  /**
   * The installation serving a workspace: its own install, or the org-wide one it was seen under (not one
   * the workspace was removed from).
   */
  installationOfTeam(teamId: string): Promise<string | null>;
  /**
   * team_access_revoked: the org-wide installation lost a workspace. Kept as removed (its records stay)
   * unless the workspace was seen or granted again after `sentAt` (a late retry). True only for the call
   * that removed it (a retry of the event finds it removed).
   */
  revokeTeam(teamId: string, installationId: string, sentAt: number): Promise<boolean>;
  /** team_access_granted: the workspace is served again, unless removed after `sentAt` (a late retry). */
  grantTeam(teamId: string, installationId: string, sentAt: number): Promise<void>;
  /**
   * Whether the installation still holds tokens and, for an org-wide one, still serves `teamId` (not
   * removed); '' (the single workspace's records) asks whether any installation serves `teamId`.
   */
  serves(installationId: string, teamId: string | null): Promise<boolean>;
}

export interface OAuthStateStore {
  /** Keeps a state the install path issued, with what the redirect needs, until `expiresAt`. */
  put(state: string, payload: string, expiresAt: number, now: number): Promise<void>;
  /** Takes the state once: its payload if it was issued and has not expired, else null (a replay gets null). */
  consume(state: string, now: number): Promise<string | null>;
}
