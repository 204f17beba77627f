// DATA_RETENTION_DAYS: what an uninstalled installation left — aliases, channel defaults, subscriptions,
// watches, approvals, schedule owners and pauses, run intents and drafts, uploads, workflow steps, break-glass
// passes, run limits, its scan cursor and request budget, its API connection and settings — is kept that long
// (a reinstall finds it all again) and then purged, by a periodic pass on one replica at a time (a lease).
// The audit trail is not purged with it: AUDIT_RETENTION_DAYS (unset = forever) deletes entries older than
// that, of every installation alike, installed or not, by its own pass (purgeOldAudit). The deletes themselves
// are the store's (installations.purge, audit.deleteBefore). Dedupe claims (`notifications`) are pruned in
// every mode by a third pass (pruneClaims), each kind once it can no longer stop anything (src/store/README.md),
// ended watches by a fourth (pruneEndedWatches) WATCH_HORIZON_MS after they ended, and settled run intents,
// unwatched uploads, ended workflow steps and decided approvals by a fifth (pruneRunRecords).
import type { Logger } from '../logger.ts';
import type { ClaimKind, Store } from '../store/store.ts';

export const RETENTION_LEASE = 'installation-retention';
export const AUDIT_RETENTION_LEASE = 'audit-retention';
export const CLAIM_RETENTION_LEASE = 'claim-retention';
export const WATCH_RETENTION_LEASE = 'watch-retention';
export const RUN_RECORD_RETENTION_LEASE = 'run-record-retention';
const DAY_MS = 24 * 60 * 60 * 1000;
/** Installations purged per pass at most (the next pass takes the rest). */
const PER_PASS = 100;
/**
 * Rows deleted per statement (audit entries; claims of one kind; ended watches; run records of one table), and
 * statements per pass at most
 * (a first pass over years of rows spreads over several).
 */
const BATCH = 1_000;
const BATCHES_PER_PASS = 200;

/** A pass's lease: true when this replica holds it now (taken, or renewed), false when another one does. */
function holdPassLease(
  options: Pick<RetentionOptions, 'owner' | 'leaseMs'> & { store: Pick<Store, 'coordination'> },
  lease: string,
  now: number,
): Promise<boolean> {
  return options.store.coordination.holdLease(lease, options.owner, now + options.leaseMs, now);
}

/**
 * Deletes a batch (`options.batch`, tests shrink it; else BATCH) at a time until a statement deletes fewer, at most
 * BATCHES_PER_PASS statements; how many.
 */
async function inBatches(options: { batch?: number }, deleteSome: (limit: number) => Promise<number>): Promise<number> {
  const batch = Math.max(1, options.batch ?? BATCH);
  let deleted = 0;
  for (let i = 0; i < BATCHES_PER_PASS; i++) {
    const n = await deleteSome(batch);
    deleted += n;
    if (n < batch) break;
  }
  return deleted;
}

export interface RetentionOptions {
  store: Pick<Store, 'installations' | 'coordination'>;
  retentionDays: number;
  /** This replica's lease owner id. */
  owner: string;
  leaseMs: number;
  now: () => number;
  logger: Logger;
}

export interface Purged {
  installationId: string;
  /** Set when only this workspace of an org-wide installation was purged (removed from it: team-access.ts). */
  teamId?: string;
  /** Rows deleted, by table. */
  rows: Record<string, number>;
}

/** One pass: purges installations uninstalled longer than the retention ago; [] when another replica holds the lease. */
export async function purgeUninstalled(options: RetentionOptions): Promise<Purged[]> {
  const { store, logger } = options;
  const now = options.now();
  if (!(await holdPassLease(options, RETENTION_LEASE, now))) return [];
  const cutoff = now - options.retentionDays * DAY_MS;
  const purged: Purged[] = [];
  for (const record of await store.installations.listUninstalledBefore(cutoff, PER_PASS)) {
    // Re-checked in the purge's transaction: a reinstall that lands first keeps everything.
    const rows = await store.installations.purge(record.id, cutoff);
    if (!rows) continue;
    purged.push({ installationId: record.id, rows });
    logger.info(
      { installation: record.id, uninstalledAt: record.uninstalledAt, rows },
      'purged an uninstalled installation past DATA_RETENTION_DAYS',
    );
  }
  for (const team of await store.installations.purgeRemovedTeams(cutoff, PER_PASS)) {
    purged.push(team);
    logger.info(
      { installation: team.installationId, teamId: team.teamId, rows: team.rows },
      "purged a workspace removed from its org's installation past DATA_RETENTION_DAYS",
    );
  }
  return purged;
}

export interface AuditRetentionOptions extends Omit<RetentionOptions, 'store' | 'retentionDays'> {
  store: Pick<Store, 'audit' | 'coordination'>;
  /** AUDIT_RETENTION_DAYS; null → the audit trail is kept forever (the pass does nothing). */
  retentionDays: number | null;
  /** Entries per delete (tests shrink it). */
  batch?: number;
}

/**
 * One pass: deletes audit entries older than AUDIT_RETENTION_DAYS in bounded batches; how many, or null when
 * it did not run (no retention set, or another replica holds the lease).
 */
export async function purgeOldAudit(options: AuditRetentionOptions): Promise<number | null> {
  const { store, logger, retentionDays } = options;
  if (retentionDays === null) return null;
  const now = options.now();
  if (!(await holdPassLease(options, AUDIT_RETENTION_LEASE, now))) return null;
  const cutoff = now - retentionDays * DAY_MS;
  const deleted = await inBatches(options, (n) => store.audit.deleteBefore(cutoff, n));
  logger.info(
    { deleted, before: new Date(cutoff).toISOString(), retentionDays },
    `deleted ${deleted} audit entries older than AUDIT_RETENTION_DAYS`,
  );
  return deleted;
}

/**
 * How long a claim of each kind is kept at least (why: src/store/README.md). A card's also while its watch is
 * active; a notice's also while a subscription scan may read its run again.
 */
export const CLAIM_HORIZON_MS: Readonly<Record<ClaimKind, number>> = {
  card: DAY_MS,
  notice: 7 * DAY_MS,
  form: 7 * DAY_MS,
  confirmation: DAY_MS,
};

export interface ClaimRetentionOptions extends Omit<RetentionOptions, 'store' | 'retentionDays'> {
  store: Pick<Store, 'notifications' | 'coordination'>;
  /** Notice claims taken before this are never looked at again (watch/subscriptions.ts); null: no limit. */
  noticeReach: () => Promise<number | null>;
  /** Claims per delete (tests shrink it). */
  batch?: number;
}

/**
 * One pass: deletes each kind's claims past its horizon in bounded batches; how many of each, or null when
 * another replica holds the lease.
 */
export async function pruneClaims(options: ClaimRetentionOptions): Promise<Record<ClaimKind, number> | null> {
  const { store, logger } = options;
  const now = options.now();
  if (!(await holdPassLease(options, CLAIM_RETENTION_LEASE, now))) return null;
  const noticeReach = await options.noticeReach();
  const deleted: Record<ClaimKind, number> = { card: 0, notice: 0, form: 0, confirmation: 0 };
  for (const kind of Object.keys(deleted) as ClaimKind[]) {
    let before = now - CLAIM_HORIZON_MS[kind];
    if (kind === 'notice' && noticeReach !== null) before = Math.min(before, noticeReach);
    deleted[kind] = await inBatches(options, (n) => store.notifications.prune(kind, before, n));
  }
  logger.info({ deleted }, 'pruned dedupe claims past their horizon');
  return deleted;
}

/**
 * How long an ended watch is kept at least after its last change (why: src/store/README.md): within it
 * `/runbook watch` of the run answers "already reported"; after it, the run is adopted and told once more.
 */
export const WATCH_HORIZON_MS = 30 * DAY_MS;

export interface WatchRetentionOptions extends Omit<RetentionOptions, 'store' | 'retentionDays'> {
  store: Pick<Store, 'watches' | 'coordination'>;
  /** Runs created before this are never read by a subscription scan again (its watch skips a notice); null: no limit. */
  scanReach: () => Promise<number | null>;
  /** Watches per delete (tests shrink it). */
  batch?: number;
}

/**
 * One pass: deletes watches that ended (finished or stale) over WATCH_HORIZON_MS ago, and before every
 * subscription scan's reach, in bounded batches; how many, or null when another replica holds the lease.
 */
export async function pruneEndedWatches(options: WatchRetentionOptions): Promise<number | null> {
  const { store, logger } = options;
  const now = options.now();
  if (!(await holdPassLease(options, WATCH_RETENTION_LEASE, now))) return null;
  const reach = await options.scanReach();
  const before = Math.min(now - WATCH_HORIZON_MS, reach ?? Number.POSITIVE_INFINITY);
  const deleted = await inBatches(options, (n) => store.watches.pruneEnded(before, n));
  logger.info({ deleted, before: new Date(before).toISOString() }, 'pruned ended watches past their horizon');
  return deleted;
}

export type RunRecord = 'intents' | 'uploads' | 'steps' | 'approvals';

/**
 * How long each per-run record is kept at least after it was settled (why: src/store/README.md): a run intent
 * after its answer or reconciliation; an upload claim after it was taken, and only once its execution has no
 * watch; a Workflow Builder step after it ended; an approval request after it was decided (and run).
 */
export const RUN_RECORD_HORIZON_MS: Readonly<Record<RunRecord, number>> = {
  intents: DAY_MS,
  uploads: DAY_MS,
  steps: 7 * DAY_MS,
  approvals: 30 * DAY_MS,
};

export interface RunRecordRetentionOptions extends Omit<RetentionOptions, 'store' | 'retentionDays'> {
  store: Pick<Store, 'intents' | 'outputUploads' | 'workflowSteps' | 'approvals' | 'coordination'>;
  /** Rows per delete (tests shrink it). */
  batch?: number;
}

/**
 * One pass: deletes each per-run record past its horizon in bounded batches; how many of each, or null when
 * another replica holds the lease. Open intents, pending steps and pending requests stay, however old.
 */
export async function pruneRunRecords(options: RunRecordRetentionOptions): Promise<Record<RunRecord, number> | null> {
  const { store, logger } = options;
  const now = options.now();
  if (!(await holdPassLease(options, RUN_RECORD_RETENTION_LEASE, now))) return null;
  const prune: Record<RunRecord, (before: number, limit: number) => Promise<number>> = {
    intents: (before, n) => store.intents.pruneSettled(before, n),
    uploads: (before, n) => store.outputUploads.pruneUnwatched(before, n),
    steps: (before, n) => store.workflowSteps.pruneFinished(before, n),
    approvals: (before, n) => store.approvals.pruneDecided(before, n),
  };
  const deleted: Record<RunRecord, number> = { intents: 0, uploads: 0, steps: 0, approvals: 0 };
  for (const table of Object.keys(prune) as RunRecord[]) {
    const before = now - RUN_RECORD_HORIZON_MS[table];
    deleted[table] = await inBatches(options, (n) => prune[table](before, n));
  }
  logger.info({ deleted }, 'pruned run records past their horizon');
  return deleted;
}
