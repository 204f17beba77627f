// The many-workspace watcher of the tenants benchmark (scenarios/tenants.ts), built the same way in the
// bench process (which stores the watches with it) and in its own process (tenant-watcher-process.ts, the
// watcher alone in the bot's place, for what the rest of the runtime adds): every
// watch runs in its workspace's scope (teamId), each tenant on its own budget under the global ceiling,
// and each workspace reaches its own Runbook API tenant with its own key through one routed client, as
// the runtime does in many-workspace mode (one client per installation, src/tenants/routed-api.ts).
import { AsyncLocalStorage } from 'node:async_hooks';
import { WebClient } from '@slack/web-api';
import { apiAgent, createRunbookApi } from '../../src/api/client.ts';
import type { RunbookApi } from '../../src/api/runbook-api.ts';
import { createLogger } from '../../src/logger.ts';
import type { Store } from '../../src/store/store.ts';
import { NoApiInScopeError, routedRunbookApi } from '../../src/tenants/routed-api.ts';
import { newOwnerId, Watcher } from '../../src/watch/watcher.ts';
import { BOT_TOKEN } from './bench-stack.ts';
import { tenantKey } from './tenant-keys.ts';

export function tenantWatcher(
  store: Store,
  urls: { api: string; slack: string },
  rates: { perTenant: number; global: number },
): { watcher: Watcher; close: () => Promise<void> } {
  const scope = new AsyncLocalStorage<string>();
  const apis = new Map<string, RunbookApi>();
  // As the runtime: every workspace's client over one shared pool (src/runtime.ts, connectTenants).
  const dispatcher = apiAgent({ timeoutMs: 10_000, connections: 256 });
  const api = routedRunbookApi(async () => {
    const team = scope.getStore();
    if (!team) throw new NoApiInScopeError();
    let client = apis.get(team);
    if (!client) {
      client = createRunbookApi({ baseUrl: urls.api, apiKey: tenantKey(team), dispatcher });
      apis.set(team, client);
    }
    return client;
  });
  const watcher = new Watcher({
    store,
    api,
    slack: new WebClient(BOT_TOKEN, {
      slackApiUrl: urls.slack,
      rejectRateLimitedCalls: true,
      retryConfig: { retries: 0 },
      // As the runtime's paced clients: a hung call would block a pacer lane.
      timeout: 10_000,
    }),
    owner: newOwnerId(),
    logger: createLogger({ level: 'silent' }),
    inTenant: (teamId, work) => scope.run(teamId ?? '', work),
    currentTenant: () => scope.getStore() || null,
    settings: {
      requestsPerSecond: rates.perTenant,
      globalRequestsPerSecond: rates.global,
      // The fake Slack has no limits; pacing edits at production speed would measure Slack pacing.
      slackUpdateIntervalMs: 0,
      slackPostIntervalMs: 0,
    },
  });
  return {
    watcher,
    close: async () => {
      await Promise.all([...apis.values()].map((client) => client.close()));
      await dispatcher.close();
    },
  };
}
