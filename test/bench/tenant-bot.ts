// The whole bot of the tenants benchmark (scenarios/tenants.ts) in many-workspace mode: its configuration
// (the same in the bench process, which fills the store, and in tenant-bot-process.ts, which runs it), and
// the installations as the product stores them — each one's bot token sealed in the installation store,
// and its own Runbook API key verified with one list call and saved sealed (App Home's Connect).
import { randomBytes } from 'node:crypto';
import { apiAgent, createRunbookApi } from '../../src/api/client.ts';
import type { Config } from '../../src/config.ts';
import type { Store } from '../../src/store/store.ts';
import { ApiConnections } from '../../src/tenants/api-connections.ts';
import { createInstallationStore } from '../../src/tenants/installation-store.ts';
import { createSecretBox } from '../../src/tenants/secret-box.ts';
import { runConcurrent } from './run-concurrent.ts';
import { tenantBotToken, tenantKey } from './tenant-keys.ts';

/** The variables of the bot's process: many workspaces (OAuth) over HTTP, its store in `dataDir`. */
export function tenantBotEnv(options: {
  apiUrl: string;
  slackUrl: string;
  dataDir: string;
  perTenant: number;
  global: number;
}): Record<string, string> {
  return {
    RUNBOOK_API_URL: options.apiUrl,
    SLACK_CLIENT_ID: '1111.2222',
    SLACK_CLIENT_SECRET: 'bench-client-secret-0123456789',
    SLACK_STATE_SECRET: 'bench-state-secret-0123456789',
    SLACK_SIGNING_SECRET: 'bench-signing-secret-0123456789',
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    SLACK_API_URL: options.slackUrl,
    PORT: '0',
    DATA_DIR: options.dataDir,
    LOG_LEVEL: 'silent',
    WATCH_REQUESTS_PER_SECOND: String(options.perTenant),
    WATCH_GLOBAL_REQUESTS_PER_SECOND: String(options.global),
    // The fake Slack has no limits; pacing edits at production speed would measure Slack pacing.
    WATCH_SLACK_POST_INTERVAL_MS: '0',
    WATCH_SLACK_UPDATE_INTERVAL_MS: '0',
  };
}

/** Installs the app into every workspace and connects each to its own tenant of the emulator. */
export async function installTenants(config: Config, store: Store, teams: string[]): Promise<void> {
  const box = createSecretBox(config.secrets!);
  const installations = createInstallationStore({ records: store.installations, box });
  const dispatcher = apiAgent({ timeoutMs: config.api.timeoutMs, connections: 16 });
  const connections = new ApiConnections({
    records: store.apiConnections,
    box,
    baseUrls: [config.api.url!],
    verify: async (baseUrl, apiKey) => {
      const probe = createRunbookApi({ baseUrl, apiKey, dispatcher, maxRetries: 0 });
      try {
        await probe.workflows.list({ pageSize: 1 });
      } finally {
        await probe.close();
      }
    },
  });
  try {
    const result = await runConcurrent(teams.length, 16, async (i) => {
      const team = teams[i]!;
      await installations.storeInstallation({
        team: { id: team, name: `Bench ${team}` },
        enterprise: undefined,
        user: { id: 'U0INSTALLER', token: undefined, scopes: undefined },
        bot: { id: `B${team}`, userId: `U${team}`, token: tenantBotToken(team), scopes: ['commands', 'chat:write'] },
        isEnterpriseInstall: false,
        appId: 'A0BENCH',
        tokenType: 'bot',
        authVersion: 'v2',
      });
      const connected = await connections.connect(team, { apiKey: tenantKey(team) }, 'U0INSTALLER');
      if (!connected.ok) throw new Error(`could not connect ${team}: ${connected.sentence}`);
    });
    if (result.failed > 0 || result.started < teams.length)
      throw new Error(`${teams.length - result.started + result.failed} installs failed: ${result.errors.join('; ')}`);
  } finally {
    await dispatcher.close();
  }
}
