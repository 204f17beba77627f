// Every mutating action (run, schedule create/edit/delete, approve/reject, subscribe, policy
// denial) is stored and logged as one structured line. Details are masked by the caller.

import type { Logger } from '../logger.ts';
import { plainMentions } from '../mentions.ts';
import type { AuditEntry, Store } from '../store/store.ts';

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
    // Sealed mentions (src/mentions.ts) are stored and logged as their plain tokens.
    const entry: AuditEntry = {
      ...input,
      ...(typeof input.detail === 'string' ? { detail: plainMentions(input.detail) } : {}),
      at: input.at ?? this.#now(),
    };
    this.#logger.info({ audit: entry }, `audit ${entry.action} ${entry.outcome}`);
    try {
      await this.#store.audit.append(entry);
    } catch (err) {
      // The structured log line above still carries it.
      this.#logger.error({ err, action: entry.action }, 'could not store an audit entry');
    }
  }

  recent(limit: number): Promise<AuditEntry[]> {
    return this.#store.audit.recent(limit);
  }
}
