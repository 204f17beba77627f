// When a run cannot be started (the API is down, say), the person's form values are kept here so
// "Try again" reopens the form filled in: no lost work. Secret values are never kept; they are
// re-entered. Drafts live in the store, so the button works on whichever replica Slack sends the
// click to. Short-lived (an hour by default): a convenience, not a record.

import type { FormSpec } from '../../forms/input-schema.ts';
import { stripSecrets } from '../../forms/secrets.ts';
import type { RunDraftStore } from '../../store/store.ts';

export interface RunDraft {
  runbookId: string;
  proxyId: string | null;
  channel: string | null;
  /** Form values with secret fields removed. */
  params: Record<string, unknown>;
}

export interface RunDraftsOptions {
  /** `store.runDrafts`: shared by every replica on the same database. */
  store: RunDraftStore;
  ttlMs?: number;
  now?: () => number;
}

export class RunDrafts {
  readonly #store: RunDraftStore;
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(options: RunDraftsOptions) {
    this.#store = options.store;
    this.#ttlMs = options.ttlMs ?? 60 * 60_000;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Keeps the draft and returns its id (for a button value). Secrets are removed here, with the
   * runbook's form spec, so no caller can store one by forgetting to strip them. Expired drafts are
   * deleted on the way: saves are rare (a run that failed to start), so this keeps the table small.
   */
  async save(draft: RunDraft, spec: FormSpec): Promise<string> {
    const now = this.#now();
    // Cleaning up is not the point of this call: a failure here must not lose the person's draft.
    await this.#store.deleteExpired(now).catch(() => undefined);
    return this.#store.save(
      {
        runbookId: draft.runbookId,
        proxyId: draft.proxyId,
        channel: draft.channel,
        params: JSON.stringify(stripSecrets(spec, draft.params)),
        expiresAt: now + this.#ttlMs,
      },
      now,
    );
  }

  /** The draft, or null when it expired or never existed. Not consumed: "Try again" may be clicked twice. */
  async take(id: string): Promise<RunDraft | null> {
    const record = await this.#store.get(id, this.#now());
    if (!record) return null;
    let params: unknown;
    try {
      params = JSON.parse(record.params);
    } catch {
      return null;
    }
    if (params === null || typeof params !== 'object' || Array.isArray(params)) return null;
    return {
      runbookId: record.runbookId,
      proxyId: record.proxyId,
      channel: record.channel,
      params: params as Record<string, unknown>,
    };
  }
}
