// The tenants benchmark's Runbook API keys: each workspace reaches its own tenant of the emulator.

/** The Runbook API key of a workspace's tenant in the bench's emulator. */
export function tenantKey(teamId: string): string {
  return `bench-tenant-key-${teamId}`;
}
