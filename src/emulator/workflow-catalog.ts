// The runbook catalog with its list query: filter, isService selection, name order and
// categoryCounts. Filter results are memoised per (isService, filter) because the set of runbooks
// and their searchable fields never change after seeding (only lastRun does, which no filter reads).
import type { CountEntry } from '../api/schemas.ts';
import type { WorkflowRecord } from './catalog.ts';
import { type FilterTerm, normalizeEnumValue } from './filter.ts';
import { invalidArgument } from './rpc-error.ts';

export const WORKFLOW_FILTER_FIELDS: Record<string, string[]> = {
  name: [],
  tag: ['tags'],
  category: ['categories'],
  connector: ['connectorType', 'connectorTypes'],
  id: [],
  approval: ['requiresApproval'],
};

interface Selection {
  records: WorkflowRecord[];
  categoryCounts: CountEntry[];
}

const MEMO_LIMIT = 256;
// One collator instance: localeCompare with options builds a collator per call (slow at 10k items).
const byName = new Intl.Collator('en', { sensitivity: 'base' });

export class WorkflowCatalog {
  readonly byId = new Map<string, WorkflowRecord>();
  /** All records sorted by name (case-insensitive), then id. */
  readonly #sorted: WorkflowRecord[];
  readonly #memo = new Map<string, Selection>();
  /** Category totals per kind ('all' | 'service' | 'custom'), the denominator of categoryCounts. */
  readonly #categoryTotals = new Map<string, Map<string, number>>();

  constructor(records: WorkflowRecord[]) {
    for (const record of records) this.byId.set(record.workflow.id, record);
    this.#sorted = [...records].sort(
      (a, b) => byName.compare(a.workflow.name, b.workflow.name) || (a.workflow.id < b.workflow.id ? -1 : 1),
    );
  }

  get size(): number {
    return this.byId.size;
  }

  /** Runbooks of the selected kind matching the filter, name order, with categoryCounts. */
  select(isService: boolean | undefined, filterText: string, terms: FilterTerm[]): Selection {
    const key = `${isService ?? 'all'}\u0000${filterText}`;
    const cached = this.#memo.get(key);
    if (cached) return cached;
    const predicate = compileWorkflowFilter(terms);
    const kind = (r: WorkflowRecord) => isService === undefined || r.isService === isService;
    const records = this.#sorted.filter((r) => kind(r) && predicate(r));
    const totals = this.#totalsFor(isService, kind);
    const counts = new Map<string, number>();
    for (const r of records) {
      for (const category of r.workflow.categories) counts.set(category, (counts.get(category) ?? 0) + 1);
    }
    const categoryCounts = [...counts.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([name, n]) => ({ name, count: `${n}/${totals.get(name) ?? n}` }));
    const selection = { records, categoryCounts };
    if (this.#memo.size >= MEMO_LIMIT) this.#memo.delete(this.#memo.keys().next().value!);
    this.#memo.set(key, selection);
    return selection;
  }

  #totalsFor(isService: boolean | undefined, kind: (r: WorkflowRecord) => boolean): Map<string, number> {
    const key = String(isService ?? 'all');
    let totals = this.#categoryTotals.get(key);
    if (!totals) {
      totals = new Map();
      for (const r of this.#sorted) {
        if (!kind(r)) continue;
        for (const category of r.workflow.categories) totals.set(category, (totals.get(category) ?? 0) + 1);
      }
      this.#categoryTotals.set(key, totals);
    }
    return totals;
  }
}

function compileWorkflowFilter(terms: FilterTerm[]): (r: WorkflowRecord) => boolean {
  const checks = terms.map((term): ((r: WorkflowRecord) => boolean) => {
    const lower = term.value.toLowerCase();
    switch (term.field) {
      case null:
        return (r) => r.searchText.includes(lower);
      case 'name':
        return (r) => r.workflow.name.toLowerCase().includes(lower);
      case 'tag':
        return (r) => r.workflow.tags.some((tag) => tag.toLowerCase() === lower);
      case 'category': {
        const category = normalizeEnumValue(term.value, 'CATEGORY_TYPE_');
        return (r) => r.workflow.categories.includes(category);
      }
      case 'connector': {
        const connector = normalizeEnumValue(term.value, 'CONNECTOR_TYPE_');
        return (r) => r.workflow.connectorTypes.includes(connector);
      }
      case 'id':
        return (r) => r.workflow.id === term.value;
      case 'approval': {
        if (lower !== 'true' && lower !== 'false') {
          throw invalidArgument(`filter: approval must be true or false, got "${term.value}"`);
        }
        const wanted = lower === 'true';
        return (r) => r.workflow.requiresApproval === wanted;
      }
      default:
        return () => false;
    }
  });
  return (r) => checks.every((check) => check(r));
}
