// An in-memory view of the whole runbook catalog, refreshed in the background, so typeahead and
// name resolution answer in microseconds instead of one API round trip per keystroke. Stale data
// is served while a refresh runs (one at a time); the first load waits for the API.

import { distance as levenshtein } from 'fastest-levenshtein';
import type { RunbookApi } from '../api/runbook-api.ts';
import type { CountEntry, Workflow } from '../api/schemas.ts';
import { rankByRelevance } from './relevance.ts';

export type Resolution =
  | { kind: 'match'; runbook: Workflow }
  | { kind: 'several'; candidates: Workflow[] }
  | { kind: 'none'; suggestions: Workflow[] };

export type BrowseScope = 'all' | 'service' | 'custom';

export interface BrowseQuery {
  words: string;
  scope: BrowseScope;
  /** Category enum name (CATEGORY_TYPE_SRE) or a loose spelling of it ("sre"). */
  category: string | null;
  page: number;
  pageSize: number;
  /** Only runbooks this says yes to (the policy's `view`); default all. */
  visible?: (runbook: Workflow) => boolean;
}

export interface BrowsePage {
  items: Workflow[];
  page: number;
  pageCount: number;
  total: number;
  /**
   * Category counts: as the API reported them (categoryCounts of the list call) for the whole catalog;
   * with search words, how many of the matches are in each category (so the counts follow the search).
   */
  categories: CountEntry[];
  /** The category actually applied (normalised), or null. */
  category: string | null;
  /** The category asked for when no runbook has it (nothing is listed then); null otherwise. */
  unknownCategory?: string | null;
  /** Nothing matched the words: the closest names among the runbooks the person may see. */
  suggestions?: Workflow[];
}

export interface RunbookCatalogOptions {
  api: RunbookApi;
  /** How long a loaded catalog is fresh (ms). */
  ttlMs?: number;
  now?: () => number;
}

/** Which runbooks the person asking may see; everything by default. */
export type Visible = (runbook: Workflow) => boolean;
const everything: Visible = () => true;

interface Entry {
  runbook: Workflow;
  name: string;
  haystack: string;
  isService: boolean;
}

export class RunbookCatalog {
  readonly #api: RunbookApi;
  readonly #ttlMs: number;
  readonly #now: () => number;
  #entries: Entry[] = [];
  #byId = new Map<string, Entry>();
  #categoryCounts: CountEntry[] = [];
  #loadedAt = Number.NEGATIVE_INFINITY;
  #loading: Promise<void> | null = null;

  constructor(options: RunbookCatalogOptions) {
    this.#api = options.api;
    this.#ttlMs = options.ttlMs ?? 60_000;
    this.#now = options.now ?? Date.now;
  }

  /** All runbooks; loads on first use, refreshes in the background when stale. */
  async all(): Promise<Workflow[]> {
    await this.#ensure();
    return this.#entries.map((e) => e.runbook);
  }

  async get(id: string): Promise<Workflow | null> {
    await this.#ensure();
    return this.#byId.get(id)?.runbook ?? null;
  }

  /**
   * Every runbook with exactly this name (case and edge spaces aside): executions carry only the name,
   * and names need not be unique. Throws when the catalog cannot be loaded at all.
   */
  async named(name: string): Promise<Workflow[]> {
    await this.#ensure();
    const wanted = name.trim().toLowerCase();
    if (wanted === '') return [];
    return this.#entries.filter((e) => e.name.trim() === wanted).map((e) => e.runbook);
  }

  /** Whether a runbook id belongs to the service catalog (true) or the caller's custom runbooks (false). */
  isService(id: string): boolean | null {
    return this.#byId.get(id)?.isService ?? null;
  }

  /** Drop the cache (after a change we made, or for tests). */
  invalidate(): void {
    this.#loadedAt = Number.NEGATIVE_INFINITY;
  }

  /** A page of the catalog browser: filtered locally so it works whether or not the API honours `filter`. */
  async browse(query: BrowseQuery): Promise<BrowsePage> {
    await this.#ensure();
    const known = this.#categoryNames();
    const category = query.category ? normalizeCategory(query.category, known) : null;
    const unknownCategory = category !== null && !known.includes(category) ? query.category : null;
    const words = query.words.toLowerCase().split(/\s+/).filter(Boolean);
    const visible = this.#entries.filter(
      (e) =>
        (query.scope === 'all' || e.isService === (query.scope === 'service')) && (query.visible?.(e.runbook) ?? true),
    );
    const searched = visible.filter((e) => words.every((w) => e.haystack.includes(w)));
    const filtered = searched.filter((e) => category === null || e.runbook.categories.includes(category));
    // Searched: name matches before description matches before tag matches (see relevance.ts).
    const matches = rankByRelevance(filtered, words, (e) => e.runbook);
    const pageCount = Math.max(1, Math.ceil(matches.length / query.pageSize));
    const page = Math.min(Math.max(0, query.page), pageCount - 1);
    return {
      items: matches.slice(page * query.pageSize, (page + 1) * query.pageSize).map((e) => e.runbook),
      page,
      pageCount,
      total: matches.length,
      categories: words.length ? countCategories(searched, known) : this.#categoryCounts,
      category,
      unknownCategory,
      suggestions: matches.length === 0 && words.length ? closest(visible, words.join(' '), 5) : [],
    };
  }

  #categoryNames(): string[] {
    const names = new Set(this.#categoryCounts.map((c) => c.name));
    for (const e of this.#entries) for (const c of e.runbook.categories) names.add(c);
    return [...names];
  }

  /**
   * Typeahead: prefix matches on the name first, then word-prefix, then substring over name and tags.
   * `visible` (the policy's `view` for the person asking) keeps hidden runbooks out of the answer.
   */
  async search(query: string, limit = 100, visible: Visible = everything): Promise<Workflow[]> {
    await this.#ensure();
    const q = query.trim().toLowerCase();
    const entries = this.#entries.filter((e) => visible(e.runbook));
    if (q === '') return entries.slice(0, limit).map((e) => e.runbook);
    const prefix: Workflow[] = [];
    const wordPrefix: Workflow[] = [];
    const substring: Workflow[] = [];
    for (const entry of entries) {
      if (entry.name.startsWith(q)) prefix.push(entry.runbook);
      else if (entry.name.includes(` ${q}`)) wordPrefix.push(entry.runbook);
      else if (entry.haystack.includes(q)) substring.push(entry.runbook);
      if (prefix.length >= limit) break;
    }
    return [...prefix, ...wordPrefix, ...substring].slice(0, limit);
  }

  /**
   * `<runbook>` in a command: an id or a name, case-insensitive; unique substring also matches.
   * `visible` (the policy's `view` for the person asking) makes hidden runbooks unknown: they are never
   * matched, listed as candidates or suggested.
   */
  async resolve(text: string, visible: Visible = everything): Promise<Resolution> {
    await this.#ensure();
    const query = text.trim();
    const entries = this.#entries.filter((e) => visible(e.runbook));
    const byId = this.#byId.get(query);
    if (byId && visible(byId.runbook)) return { kind: 'match', runbook: byId.runbook };
    const q = query.toLowerCase();
    const exact = entries.filter((e) => e.name === q);
    if (exact.length === 1) return { kind: 'match', runbook: exact[0]!.runbook };
    if (exact.length > 1) return { kind: 'several', candidates: exact.map((e) => e.runbook) };
    const words = q.split(/\s+/).filter(Boolean);
    const partial = entries.filter((e) => words.every((w) => e.name.includes(w)));
    if (partial.length === 1) return { kind: 'match', runbook: partial[0]!.runbook };
    if (partial.length > 1) return { kind: 'several', candidates: partial.slice(0, 10).map((e) => e.runbook) };
    return { kind: 'none', suggestions: closest(entries, q, 5) };
  }

  async #ensure(): Promise<void> {
    const fresh = this.#now() - this.#loadedAt < this.#ttlMs;
    if (fresh) return;
    if (!this.#loading) {
      this.#loading = this.#load().finally(() => {
        this.#loading = null;
      });
    }
    // Serve stale data while refreshing; wait only when there is nothing yet.
    if (this.#entries.length === 0) await this.#loading;
    else this.#loading.catch(() => {});
  }

  async #load(): Promise<void> {
    const [first, service, custom] = await Promise.all([
      this.#api.workflows.list({ pageSize: 1 }),
      collect(this.#api.workflows.iterate({ isService: true, pageSize: 100 })),
      collect(this.#api.workflows.iterate({ isService: false, pageSize: 100 })),
    ]);
    this.#categoryCounts = first.categoryCounts;
    const entries: Entry[] = [];
    const byId = new Map<string, Entry>();
    for (const [list, isService] of [
      [service, true],
      [custom, false],
    ] as const) {
      for (const runbook of list) {
        if (runbook.isFolder || byId.has(runbook.id)) continue;
        const entry: Entry = {
          runbook,
          isService,
          name: runbook.name.toLowerCase(),
          haystack: `${runbook.name} ${runbook.tags.join(' ')} ${runbook.description}`.toLowerCase(),
        };
        entries.push(entry);
        byId.set(runbook.id, entry);
      }
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    this.#entries = entries;
    this.#byId = byId;
    this.#loadedAt = this.#now();
  }
}

/** How many of `entries` are in each category, in the order of `known`; categories with none left out. */
function countCategories(entries: readonly Entry[], known: readonly string[]): CountEntry[] {
  const counts = new Map<string, number>();
  for (const e of entries) for (const c of e.runbook.categories) counts.set(c, (counts.get(c) ?? 0) + 1);
  return known.filter((name) => counts.has(name)).map((name) => ({ name, count: String(counts.get(name)) }));
}

/** The names nearest to `q` (edit distance over the whole name and over word runs of the same length). */
function closest(entries: readonly Entry[], q: string, count: number): Workflow[] {
  const scored = entries.map((e) => {
    // Compare against the whole name and against each word run of the same length.
    const words = e.name.split(/\s+/);
    let best = levenshtein(q, e.name);
    const n = q.split(/\s+/).length;
    for (let i = 0; i + n <= words.length; i++) {
      best = Math.min(best, levenshtein(q, words.slice(i, i + n).join(' ')));
    }
    return { e, score: best / Math.max(q.length, 1) };
  });
  scored.sort((a, b) => a.score - b.score);
  return scored
    .filter((s) => s.score <= 0.5)
    .slice(0, count)
    .map((s) => s.e.runbook);
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

/** "sre", "SRE", "cost opt", "CATEGORY_TYPE_COST_OPT" → CATEGORY_TYPE_COST_OPT when known. */
export function normalizeCategory(input: string, known: readonly string[]): string {
  const key = input
    .trim()
    .toUpperCase()
    .replace(/[\s-]+/g, '_')
    .replace(/^CATEGORY_TYPE_/, '');
  const found = known.find((k) => k.toUpperCase().replace(/^CATEGORY_TYPE_/, '') === key);
  return found ?? `CATEGORY_TYPE_${key}`;
}

/** CATEGORY_TYPE_COST_OPT → "Cost opt". */
export function categoryLabel(name: string): string {
  const words = name
    .replace(/^CATEGORY_TYPE_/, '')
    .toLowerCase()
    .split('_');
  const label = words.join(' ');
  const upper = ['sre', 'iam'];
  return upper.includes(label) ? label.toUpperCase() : label.charAt(0).toUpperCase() + label.slice(1);
}
