// The tenants benchmark's secrets: each workspace reaches its own tenant of the emulator with its own key,
// and posts with its own bot token.

/** The Runbook API key of a workspace's tenant in the bench's emulator. */
export function tenantKey(teamId: string): string {
  return `bench-tenant-key-${teamId}`;
}

/** The bot token of a workspace's installation (the fake Slack takes any xoxb- token when given none). */
export function tenantBotToken(teamId: string): string {
  return `xoxb-bench-${teamId}`;
}
