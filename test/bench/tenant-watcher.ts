// The many-workspace watcher of the tenants benchmark (scenarios/tenants.ts), built the same way in the
// bench process and in its own process (tenant-watcher-process.ts, for the watcher's RSS alone): every
// watch runs in its workspace's scope (teamId), each tenant on its own budget under the global ceiling.
import { AsyncLocalStorage } from 'node:async_hooks';
import { WebClient } from '@slack/web-api';
import { createRunbookApi } from '../../src/api/client.ts';
import type { RunbookApi } from '../../src/api/runbook-api.ts';
import { createLogger } from '../../src/logger.ts';
import type { Store } from '../../src/store/store.ts';
import { newOwnerId, Watcher } from '../../src/watch/watcher.ts';
import { API_KEY, BOT_TOKEN } from './bench-stack.ts';

export function tenantWatcher(
  store: Store,
  urls: { api: string; slack: string },
  rates: { perTenant: number; global: number },
): { watcher: Watcher; api: RunbookApi } {
  const api = createRunbookApi({ baseUrl: urls.api, apiKey: API_KEY });
  const scope = new AsyncLocalStorage<string>();
  const watcher = new Watcher({
    store,
    api,
    slack: new WebClient(BOT_TOKEN, {
      slackApiUrl: urls.slack,
      rejectRateLimitedCalls: true,
      retryConfig: { retries: 0 },
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
  return { watcher, api };
}
