// What the use cases need: the Runbook API, the catalog, the policy and its trail, the store and the
// watcher's side of runs. No Slack. The Slack layer's SlackDeps is a superset of this shape, so it
// passes its own deps straight in; tests build this object with the emulator and an in-memory store.
import type { RunbookApi } from '../api/runbook-api.ts';
import type { ProxyDirectory } from '../catalog/proxy-directory.ts';
import type { RunbookCatalog } from '../catalog/runbook-catalog.ts';
import type { Logger } from '../logger.ts';
import type { AuditLog } from '../policy/audit-log.ts';
import type { Policy } from '../policy/policy.ts';
import type { Store } from '../store/store.ts';
import type { RunTracker } from './run-tracker.ts';

/**
 * The run limit as the use cases call it. Awaited, so a store-backed limit (async) and the in-memory one
 * (sync) both fit.
 */
export interface RunLimit {
  take(userId: string): { ok: true } | { ok: false; retryInMs: number } | Promise<RunLimitAnswer>;
}
export type RunLimitAnswer = { ok: true } | { ok: false; retryInMs: number };

export interface RunsAccess {
  policy: Policy;
  audit: AuditLog;
  runLimit: RunLimit;
  store: Store;
  /** Where approval requests go; null → the channel the result goes to. */
  approvalsChannel: string | null;
  approvalTtlMs: number;
  /**
   * Many workspaces: the Runbook API account the installation is connected to now (api-connections.ts); a
   * request made under another is closed, never run here. Absent: one workspace, one API.
   */
  apiAccount?: string | null;
}

export interface RunsDeps {
  api: RunbookApi;
  catalog: RunbookCatalog;
  proxies: ProxyDirectory;
  runs: RunTracker;
  access: RunsAccess;
  logger: Logger;
  /** Epoch ms; injectable for tests. */
  now: () => number;
  /** Timeout for API calls made while a person is waiting (ms). */
  interactiveTimeoutMs: number;
}
