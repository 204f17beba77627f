// Every mutating action (run, schedule create/edit/delete, approve/reject, subscribe, policy
// denial) is stored and logged as one structured line. Details are masked by the caller. In
// many-workspace mode each entry is kept with its installation, and reading returns only that one's.

import type { Logger } from '../logger.ts';
import { plainStored, storedMentions } from '../mentions.ts';
import type { AuditEntry, Store } from '../store/store.ts';
import { currentInstallation } from '../tenants/tenant-scope.ts';

export type AuditInput = Omit<AuditEntry, 'at'> & { at?: number };

export class AuditLog {
  readonly #store: Store;
  readonly #logger: Logger;
  readonly #now: () => number;

  constructor(store: Store, logger: Logger, now: () => number = Date.now) {
    this.#store = store;
    this.#logger = logger.child({ component: 'audit' });
    this.#now = now;
  }

  async record(input: AuditInput): Promise<void> {
    // Sealed mentions (src/mentions.ts) are stored as marked plain tokens (so a reader can tell them from
    // text from outside that looks like one: storedMentions) and logged as plain tokens.
    // Many workspaces: kept with the installation the work is for (requests and background work run in its scope).
    const installationId = input.installationId ?? currentInstallation();
    const entry: AuditEntry = {
      ...input,
      ...(typeof input.detail === 'string' ? { detail: storedMentions(input.detail) } : {}),
      ...(installationId ? { installationId } : {}),
      at: input.at ?? this.#now(),
    };
    this.#logger.info(
      { audit: entry.detail ? { ...entry, detail: plainStored(entry.detail) } : entry },
      `audit ${entry.action} ${entry.outcome}`,
    );
    try {
      await this.#store.audit.append(entry);
    } catch (err) {
      // The structured log line above still carries it.
      this.#logger.error({ err, action: entry.action }, 'could not store an audit entry');
    }
  }

  /** Newest first: in many-workspace mode only the entries of the installation in scope. */
  recent(limit: number): Promise<AuditEntry[]> {
    const installationId = currentInstallation();
    return installationId ? this.#store.audit.recent(limit, installationId) : this.#store.audit.recent(limit);
  }
}
