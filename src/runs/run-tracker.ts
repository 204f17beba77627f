// The watcher's side of a run, as the use cases see it. The contract lives here (below both the Slack
// layer and src/watch) so the watcher implements it without importing Slack code.
import type { CardInputs } from '../forms/labelled-inputs.ts';

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
  /** Who approved it (everyone in a quorum), when it followed an approval. */
  approvedBy?: string | readonly string[];
}

/** Told when a run starts (before anything is posted) and when its message is up. */
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
