// When a run cannot be started (the API is down, say), or a schedule cannot be saved, the person's form
// values are kept here so "Try again" reopens the form filled in: no lost work. Secret values are never
// kept; they are re-entered. Drafts live in the store, so the button works on whichever replica Slack
// sends the click to. Short-lived (an hour by default): a convenience, not a record. A schedule draft is
// a run draft with what only its form has (the schedule being edited, the cron builder) in `extra`.
// A line whose runbook name matched several runbooks waits here too (`saveLine`) for the pick to carry on.

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

/** A waiting line has no runbook yet, so no form: its values are held in `extra`. */
const EMPTY: FormSpec = { kind: 'empty' };

/** The stored params of a draft with `extra` carry both in this envelope (a run draft stores its params as they are). */
const EXTRA_KEY = '$draft';

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A `/runbook run` line waiting for its runbook to be picked (the pick carries it on, as typed). */
export interface WaitingLine {
  /** `key=value` as typed; the caller leaves out every value that may be secret. */
  values: Record<string, string>;
  proxyId: string | null;
  destination: string | null;
  /** The thread it was typed in (a mention's). */
  threadTs: string | null;
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

  /** Keeps a line for the pick list's buttons; only `by` may take it back. */
  async saveLine(line: WaitingLine, by: string): Promise<string> {
    const extra = { line: line.values, by, t: line.threadTs };
    return this.save({ runbookId: '', proxyId: line.proxyId, channel: line.destination, params: {}, extra }, EMPTY);
  }

  /** The line, when it is `by`'s and has not expired. */
  async takeLine(id: string, by: string): Promise<WaitingLine | null> {
    const draft = await this.take(id);
    const { line, t } = draft?.extra ?? {};
    if (!draft || draft.extra?.by !== by || !isRecord(line)) return null;
    const values = Object.fromEntries(
      Object.entries(line).filter((e): e is [string, string] => typeof e[1] === 'string'),
    );
    return { values, proxyId: draft.proxyId, destination: draft.channel, threadTs: typeof t === 'string' ? t : null };
  }
}
