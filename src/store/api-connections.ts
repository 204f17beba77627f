// Each installation's Runbook API connection (many-workspace mode): the interface (its SQL:
// sql-api-connections.ts). The key is only ever here sealed (src/tenants/secret-box.ts).

export interface ApiConnectionRecord {
  /** The installation (team id, or enterprise id when org-wide). */
  installationId: string;
  /** The Runbook API base URL, one of those the operator allows. */
  baseUrl: string;
  /** The API key, sealed. */
  sealedKey: string;
  /** Slack user id of whoever connected it last. */
  connectedBy: string;
  connectedAt: number;
  /** The Runbook API account it reaches (opaque; kept when a key of the same account replaces it). */
  account: string;
}

export interface ApiConnectionStore {
  get(installationId: string): Promise<ApiConnectionRecord | null>;
  /** Connects, or replaces the connection (a new key or URL, connected by `connectedBy` at `now`). */
  put(
    record: Omit<ApiConnectionRecord, 'connectedAt' | 'account'> & { account?: string },
    now: number,
  ): Promise<ApiConnectionRecord>;
  /** Removes it; true when there was one. */
  remove(installationId: string): Promise<boolean>;
}
