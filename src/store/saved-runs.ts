// What the entry points beyond the form remember: saved runs ("aliases") and run defaults per
// channel, and Workflow Builder steps waiting for their run to end. Types and contracts only; the
// SQL lives in sql-saved-runs.ts.

/** A saved run, used in its channel as `/runbook <name> [key=value …]`. */
export interface RunAlias {
  channel: string;
  /** Lower-case; unique per channel. */
  name: string;
  runbookId: string;
  runbookName: string;
  /** JSON object string of the saved values. Never holds secret values (the caller strips them). */
  params: string;
  proxyId: string | null;
  /** Where results go; null → the channel it is used in. */
  resultChannel: string | null;
  createdBy: string;
  teamId: string | null;
  createdAt: number;
  updatedAt: number;
}

export type NewRunAlias = Omit<RunAlias, 'createdAt' | 'updatedAt'>;

/**
 * Aliases and channel defaults are kept per installation (many workspaces): `installationId` is the
 * installation in scope, '' (the default) for the one workspace of single-workspace and sandbox modes. A
 * channel shared by two installed workspaces (Slack Connect) has one set of each per installation.
 */
export interface AliasStore {
  /** Upsert on (installation, channel, lower(name)); an update keeps createdBy/createdAt. */
  add(a: NewRunAlias, now: number, installationId?: string): Promise<'added' | 'updated'>;
  get(channel: string, name: string, installationId?: string): Promise<RunAlias | null>;
  /** By name. */
  listForChannel(channel: string, installationId?: string): Promise<RunAlias[]>;
  /** Aliases a person saved, in every channel (App Home), by channel and name. */
  listByCreator(userId: string, limit: number, installationId?: string): Promise<RunAlias[]>;
  remove(channel: string, name: string, installationId?: string): Promise<boolean>;
  /** Gives aliases kept for the single workspace ('') their workspace's installation (many-workspace start). */
  assignInstallations(): Promise<number>;
}

/** Defaults for runs started in a channel, shown (and preselected) in the run form. */
export interface ChannelDefaults {
  channel: string;
  proxyId: string | null;
  resultChannel: string | null;
  updatedBy: string;
  updatedAt: number;
}

export interface ChannelDefaultsStore {
  get(channel: string, installationId?: string): Promise<ChannelDefaults | null>;
  /** Sets only the fields given (undefined keeps, null clears). */
  set(
    channel: string,
    values: { proxyId?: string | null; resultChannel?: string | null },
    by: string,
    now: number,
    installationId?: string,
  ): Promise<ChannelDefaults>;
  clear(channel: string, installationId?: string): Promise<boolean>;
  /** Gives defaults kept for the single workspace ('') their workspace's installation (many-workspace start). */
  assignInstallations(): Promise<number>;
}

export type WorkflowStepState = 'pending' | 'completed' | 'failed';

/**
 * A Workflow Builder step ("Run a runbook") between function_executed and functions.complete*.
 * Stored like a watch so a restart or another replica can complete it when the run ends.
 */
export interface WorkflowStep {
  functionExecutionId: string;
  runbookId: string;
  runbookName: string;
  /** The workflow's invoking user: the actor for policy and identity. */
  actorId: string;
  channel: string | null;
  waitForCompletion: boolean;
  executionId: string | null;
  state: WorkflowStepState;
  /** JSON object string of the outputs sent with completeSuccess. */
  outputs: string | null;
  error: string | null;
  createdAt: number;
  updatedAt: number;
}

export type NewWorkflowStep = Pick<
  WorkflowStep,
  'functionExecutionId' | 'runbookId' | 'runbookName' | 'actorId' | 'channel' | 'waitForCompletion'
>;

/**
 * Kept per installation (many workspaces; '' = the single workspace): a step waits for an execution id of its
 * installation's own Runbook API, which another tenant may hold too.
 */
export interface WorkflowStepStore {
  /** False if this function execution is already known (Slack retried the event): start nothing. */
  begin(step: NewWorkflowStep, now: number, installationId?: string): Promise<boolean>;
  attachExecution(
    functionExecutionId: string,
    executionId: string,
    now: number,
    installationId?: string,
  ): Promise<void>;
  get(functionExecutionId: string, installationId?: string): Promise<WorkflowStep | null>;
  /** The pending step waiting for this execution, if any. */
  pendingForExecution(executionId: string, installationId?: string): Promise<WorkflowStep | null>;
  /**
   * Compare-and-set from 'pending': true only for the one caller (restart, replica) that ends the
   * step. Claim before calling functions.complete*; `reopen` undoes a claim whose call definitely failed.
   */
  finish(
    functionExecutionId: string,
    to: 'completed' | 'failed',
    result: { outputs?: Record<string, unknown>; error?: string },
    now: number,
    installationId?: string,
  ): Promise<boolean>;
  reopen(functionExecutionId: string, now: number, installationId?: string): Promise<void>;
  /** Gives steps kept for the single workspace ('') their workspace's installation (many-workspace start). */
  assignInstallations(): Promise<number>;
  /**
   * Deletes at most `limit` ended steps (completed, failed) last changed before `before`, oldest first, in one
   * short statement; how many (fewer than `limit` → none older remain). Pending ones stay, however old.
   */
  pruneFinished(before: number, limit: number): Promise<number>;
}
