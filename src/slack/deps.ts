// What the Slack layer needs from the rest of the app. Listeners get everything from here, so tests
// build the same object with the emulator, a fake Slack and an in-memory store.
import type { RunbookApi } from '../api/runbook-api.ts';
import type { ProxyDirectory } from '../catalog/proxy-directory.ts';
import type { RunbookCatalog } from '../catalog/runbook-catalog.ts';
import type { Logger } from '../logger.ts';
import type { AuditLog } from '../policy/audit-log.ts';
import type { Policy } from '../policy/policy.ts';
import type { RunRateLimit } from '../policy/run-rate-limit.ts';
import type { Store } from '../store/store.ts';
import type { Identity } from './identity.ts';
import type { MetadataSeal } from './metadata-seal.ts';
import type { RunDrafts } from './run-drafts.ts';

/** A run started from Slack, as the watcher needs to know it. */
export interface StartedRun {
  runbookId: string;
  runbookName: string;
  proxyId: string;
  startedBy: string | null;
  teamId: string | null;
  /** Inputs with secrets masked. */
  inputs: Record<string, unknown>;
  executionIds: string[];
  /** Where the live message goes (null → DM to startedBy). */
  channel: string | null;
}

/** The watcher's side of a run: told when a run starts (before anything is posted) and when its message is up. */
export interface RunTracker {
  started(run: StartedRun): Promise<void>;
  posted(executionIds: string[], channel: string, ts: string): Promise<void>;
  /** The right to post an execution's first card; whoever loses does not post (the winner does). */
  claimMessage(executionId: string): Promise<boolean>;
  /**
   * Follows an execution started elsewhere (`/runbook watch`). False when it is already watched.
   * A finished one is due at once, so its result goes out through the normal exactly-once path.
   */
  adopt(run: AdoptedRun): Promise<boolean>;
}

/** An existing execution someone asked to follow. */
export interface AdoptedRun {
  executionId: string;
  runbookId: string;
  runbookName: string;
  channel: string | null;
  adoptedBy: string;
  teamId: string | null;
  /** Inputs with secrets masked. */
  inputs: Record<string, unknown>;
  finished: boolean;
}

/** Who may do what, approvals, identity and the audit trail. */
export interface AccessDeps {
  policy: Policy;
  identity: Identity;
  audit: AuditLog;
  /** Seals modal private_metadata so a crafted submission cannot switch runbook or target. */
  seal: MetadataSeal;
  runLimit: RunRateLimit;
  store: Store;
  /** Where approval requests go; null → the channel the result goes to. */
  approvalsChannel: string | null;
  approvalTtlMs: number;
}

export interface SlackDeps {
  api: RunbookApi;
  catalog: RunbookCatalog;
  proxies: ProxyDirectory;
  drafts: RunDrafts;
  runs: RunTracker;
  access: AccessDeps;
  logger: Logger;
  /** Epoch ms; injectable for tests. */
  now: () => number;
  /** Timeout for API calls made while a Slack trigger is waiting (ms). */
  interactiveTimeoutMs: number;
}
