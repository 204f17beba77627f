// When a run cannot be started (the API is down, say), or a schedule cannot be saved, the person's form
// values are kept here so "Try again" reopens the form filled in: no lost work. Secret values are never
// kept; they are re-entered. Drafts live in the store, so the button works on whichever replica Slack
// sends the click to. Short-lived (an hour by default): a convenience, not a record. A schedule draft is
// a run draft with what only its form has (the schedule being edited, the cron builder) in `extra`.

import type { FormSpec } from '../../forms/input-schema.ts';
import { stripSecretsAndEchoes } from '../../forms/secret-values.ts';
import type { RunDraftStore } from '../../store/store.ts';
import { installationKey } from '../../tenants/tenant-scope.ts';

export interface RunDraft {
  runbookId: string;
  proxyId: string | null;
  channel: string | null;
  /** Form values with secret fields removed. */
  params: Record<string, unknown>;
  /** What else the form needs to reopen (a schedule form's builder); null for a run form. */
  extra?: Record<string, unknown> | null;
}

/** The stored params of a draft with `extra` carry both in this envelope (a run draft stores its params as they are). */
const EXTRA_KEY = '$draft';

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
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
        params: JSON.stringify(
          draft.extra
            ? { [EXTRA_KEY]: draft.extra, params: stripSecretsAndEchoes(spec, draft.params) }
            : stripSecretsAndEchoes(spec, draft.params),
        ),
        expiresAt: now + this.#ttlMs,
      },
      now,
      installationKey(),
    );
  }

  /** The draft, or null when it expired or never existed. Not consumed: "Try again" may be clicked twice. */
  async take(id: string): Promise<RunDraft | null> {
    const record = await this.#store.get(id, this.#now(), installationKey());
    if (!record) return null;
    let params: unknown;
    try {
      params = JSON.parse(record.params);
    } catch {
      return null;
    }
    if (!isRecord(params)) return null;
    const extra = isRecord(params[EXTRA_KEY]) ? params[EXTRA_KEY] : null;
    const values = extra ? params.params : params;
    if (!isRecord(values)) return null;
    const { runbookId, proxyId, channel } = record;
    return { runbookId, proxyId, channel, params: values, ...(extra ? { extra } : {}) };
  }
}
