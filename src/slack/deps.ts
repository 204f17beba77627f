// What the Slack layer needs from the rest of the app. Listeners get everything from here, so tests
// build the same object with the emulator, a fake Slack and an in-memory store.
import type { RunbookApi } from '../api/runbook-api.ts';
import type { ProxyDirectory } from '../catalog/proxy-directory.ts';
import type { RunbookCatalog } from '../catalog/runbook-catalog.ts';
import type { Logger } from '../logger.ts';
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
}

export interface SlackDeps {
  api: RunbookApi;
  catalog: RunbookCatalog;
  proxies: ProxyDirectory;
  drafts: RunDrafts;
  runs: RunTracker;
  logger: Logger;
  /** Epoch ms; injectable for tests. */
  now: () => number;
  /** Timeout for API calls made while a Slack trigger is waiting (ms). */
  interactiveTimeoutMs: number;
}
