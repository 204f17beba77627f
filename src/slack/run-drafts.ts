// When a run cannot be started (the API is down, say), the person's form values are kept here so
// "Try again" reopens the form filled in: no lost work. Secret values are never kept; they are
// re-entered. Bounded and short-lived: it is a convenience, not a record.
import { randomUUID } from 'node:crypto';

export interface RunDraft {
  runbookId: string;
  proxyId: string | null;
  channel: string | null;
  /** Form values with secret fields removed. */
  params: Record<string, unknown>;
}

export class RunDrafts {
  readonly #drafts = new Map<string, { draft: RunDraft; expiresAt: number }>();
  readonly #ttlMs: number;
  readonly #max: number;
  readonly #now: () => number;

  constructor(options: { ttlMs?: number; max?: number; now?: () => number } = {}) {
    this.#ttlMs = options.ttlMs ?? 60 * 60_000;
    this.#max = options.max ?? 1_000;
    this.#now = options.now ?? Date.now;
  }

  save(draft: RunDraft): string {
    const id = randomUUID();
    if (this.#drafts.size >= this.#max) {
      const oldest = this.#drafts.keys().next().value;
      if (oldest !== undefined) this.#drafts.delete(oldest);
    }
    this.#drafts.set(id, { draft, expiresAt: this.#now() + this.#ttlMs });
    return id;
  }

  take(id: string): RunDraft | null {
    const entry = this.#drafts.get(id);
    if (!entry) return null;
    if (entry.expiresAt <= this.#now()) {
      this.#drafts.delete(id);
      return null;
    }
    return entry.draft;
  }
}
