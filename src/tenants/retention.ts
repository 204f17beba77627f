// DATA_RETENTION_DAYS: what an uninstalled installation left — aliases, channel defaults, subscriptions,
// watches, approvals, schedule owners and pauses, run intents and drafts, uploads, workflow steps, break-glass
// passes, run limits, its scan cursor and request budget, its API connection and settings — is kept that long
// (a reinstall finds it all again) and then purged, by a periodic pass on one replica at a time (a lease).
// The audit trail is not purged with it: AUDIT_RETENTION_DAYS (unset = forever) deletes entries older than
// that, of every installation alike, installed or not, by its own pass (purgeOldAudit). The deletes themselves
// are the store's (installations.purge, audit.deleteBefore).
import type { Logger } from '../logger.ts';
import type { Store } from '../store/store.ts';

export const RETENTION_LEASE = 'installation-retention';
export const AUDIT_RETENTION_LEASE = 'audit-retention';
const DAY_MS = 24 * 60 * 60 * 1000;
/** Installations purged per pass at most (the next pass takes the rest). */
const PER_PASS = 100;
/** Audit entries deleted per statement, and statements per pass at most (a first pass over years of entries spreads over several). */
const AUDIT_BATCH = 1_000;
const AUDIT_BATCHES_PER_PASS = 200;

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
  /** Rows deleted, by table. */
  rows: Record<string, number>;
}

/** One pass: purges installations uninstalled longer than the retention ago; [] when another replica holds the lease. */
export async function purgeUninstalled(options: RetentionOptions): Promise<Purged[]> {
  const { store, logger } = options;
  const now = options.now();
  if (!(await store.coordination.holdLease(RETENTION_LEASE, options.owner, now + options.leaseMs, now))) return [];
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
  if (!(await store.coordination.holdLease(AUDIT_RETENTION_LEASE, options.owner, now + options.leaseMs, now))) {
    return null;
  }
  const cutoff = now - retentionDays * DAY_MS;
  const batch = Math.max(1, options.batch ?? AUDIT_BATCH);
  let deleted = 0;
  for (let i = 0; i < AUDIT_BATCHES_PER_PASS; i++) {
    const n = await store.audit.deleteBefore(cutoff, batch);
    deleted += n;
    if (n < batch) break;
  }
  logger.info(
    { deleted, before: new Date(cutoff).toISOString(), retentionDays },
    `deleted ${deleted} audit entries older than AUDIT_RETENTION_DAYS`,
  );
  return deleted;
}
