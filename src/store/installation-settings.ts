// Each installation's own settings (many-workspace mode), set by its admins in App Home: where approval
// requests go and which user group approves. The interface (its SQL: sql-installation-settings.ts); what
// they may be (only narrower than the operator's policy) is decided in src/runs/installation-settings.ts.

export interface InstallationSettingsRecord {
  /** The installation (team id, or enterprise id when org-wide). */
  installationId: string;
  /** Channel id approval requests go to (used only where the operator names none); null: not set. */
  approvalsChannel: string | null;
  /** User group id approvers must belong to (one the policy names); null: not set. */
  approverGroup: string | null;
  updatedBy: string;
  updatedAt: number;
}

export interface InstallationSettingsStore {
  get(installationId: string): Promise<InstallationSettingsRecord | null>;
  /** Sets both (replacing what was there). */
  put(record: InstallationSettingsRecord): Promise<void>;
  /** Removes them; true when there were any. */
  remove(installationId: string): Promise<boolean>;
}
