// DATA_RETENTION_DAYS: what an uninstalled installation left — aliases, channel defaults, subscriptions,
// watches, approvals, schedule owners and pauses, run intents and drafts, uploads, workflow steps, break-glass
// passes, run limits, its scan cursor and request budget, its API connection and settings — is kept that long
// (a reinstall finds it all again) and then purged, by a periodic pass on one replica at a time (a lease).
// The audit trail is not purged. The deletes themselves are the store's (installations.purge).
import type { Logger } from '../logger.ts';
import type { Store } from '../store/store.ts';

export const RETENTION_LEASE = 'installation-retention';
const DAY_MS = 24 * 60 * 60 * 1000;
/** Installations purged per pass at most (the next pass takes the rest). */
const PER_PASS = 100;

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
