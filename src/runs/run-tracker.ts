// The watcher's side of a run, as the use cases see it. The contract lives here (below both the Slack
// layer and src/watch) so the watcher implements it without importing Slack code.
import type { Execution } from '../api/schemas.ts';
import type { CardInputs } from '../forms/labelled-inputs.ts';
import type { Watch, WatchEta } from '../store/store.ts';

/** A run started through a use case, as the watcher needs to know it. */
export interface StartedRun {
  runbookId: string;
  runbookName: string;
  proxyId: string;
  /** The proxy's display name, when the directory knows it. */
  proxyName?: string | null;
  startedBy: string | null;
  teamId: string | null;
  /** Inputs with secrets masked: under their schema titles (labelInputs), or a plain object. */
  inputs: CardInputs;
  executionIds: string[];
  /** Where the live message goes (null → DM to startedBy). */
  channel: string | null;
  /** The thread the run was started from (a mention in a thread): the live card goes there. */
  threadTs?: string | null;
  /** Permalink of the message the run was started from (message shortcut), shown on the card. */
  sourceLink?: string | null;
  /** Who approved it (everyone in a quorum), when it followed an approval. */
  approvedBy?: string | readonly string[];
}

/** Told when a run starts (before anything is posted) and when its message is up. */
export interface RunTracker {
  started(run: StartedRun): Promise<void>;
  /**
   * The card is up; `eta` is what it said about the runbook's usual duration, kept with the watch so whichever
   * replica looks at the run can say "running longer than usual" without reading health itself.
   */
  posted(executionIds: string[], channel: string, ts: string, eta?: WatchEta | null): Promise<void>;
  /** The right to post an execution's first card; whoever loses does not post (the winner does). */
  claimMessage(executionId: string): Promise<boolean>;
  /**
   * Gives the card claim back after a post that certainly did not arrive (Slack kept refusing it), so
   * the watcher posts the card once the unposted grace has passed instead of waiting out a dead claimant.
   */
  releaseMessage(executionId: string): Promise<void>;
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
  /** The thread it was asked for in (a mention in a thread): its card and result go there. */
  threadTs?: string | null;
  adoptedBy: string;
  /**
   * Who started it, as a Slack user: the execution's executor found in Slack by email, else null (the
   * card then names the executor as text and nobody is pinged). Never the person who asked to watch.
   */
  startedBy: string | null;
  teamId: string | null;
  /** Inputs with secrets masked. */
  inputs: Record<string, unknown>;
  finished: boolean;
  /** When the execution started, by its own timestamp (null: unknown, timed from now). */
  startedAt: number | null;
}

/**
 * Told once a watched run's result is delivered, before the watch completes: a throw keeps the watch
 * active, so the hook runs again (after a restart, on another replica) and must be idempotent.
 * Workflow Builder steps waiting for the run finish here.
 */
export type FinishHook = (finished: {
  watch: Watch;
  execution: Execution;
  stale: boolean;
  /** Where the result card is, when there is one. */
  channel: string | null;
  messageTs: string | null;
}) => Promise<void>;
