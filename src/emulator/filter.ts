// The filter grammar the emulator documents (the contract leaves it unpublished): whitespace-
// separated terms that must all match; `field:value` (value may be "double quoted") or a bare
// word / "quoted phrase" searched case-insensitively. Unknown fields are rejected so a client
// typo shows up as a 400 instead of a silently empty list.
//
// Because the grammar is not published, a real service may treat the same expression differently.
// The emulator can play each of those servers (`FilterMode`), so the bot is tested against all of them.
import { invalidArgument } from './rpc-error.ts';

/**
 * What the emulator does with a `filter` expression:
 * - `apply`: the grammar above (the default);
 * - `ignore`: the expression is dropped, every row comes back;
 * - `plain-terms`: whitespace-separated `field:value` terms read literally — quotes are part of the
 *   value (`workflowName:"Rotate Logs"` matches nothing) and a multi-word value is split into terms;
 *   unknown fields are bare words, never a 400;
 * - `reject`: any non-empty expression is a 400 InvalidArgument.
 */
export type FilterMode = 'apply' | 'ignore' | 'plain-terms' | 'reject';
export const FILTER_MODES: readonly FilterMode[] = ['apply', 'ignore', 'plain-terms', 'reject'];

export function isFilterMode(value: unknown): value is FilterMode {
  return typeof value === 'string' && (FILTER_MODES as readonly string[]).includes(value);
}

/** The terms a list applies for `expression`, as the server of `mode` reads it. */
export function readFilter(expression: string, fields: ReadonlyMap<string, string>, mode: FilterMode): FilterTerm[] {
  if (mode === 'apply') return parseFilter(expression, fields);
  if (mode === 'ignore' || expression.trim() === '') return [];
  if (mode === 'reject') throw invalidArgument('filter: filter expressions are not supported on this list');
  return expression
    .trim()
    .split(/\s+/)
    .map((word): FilterTerm => {
      const colon = word.indexOf(':');
      const canonical = colon > 0 ? fields.get(word.slice(0, colon).toLowerCase()) : undefined;
      return canonical ? { field: canonical, value: word.slice(colon + 1) } : { field: null, value: word };
    })
    .filter((t) => t.value !== '');
}

export interface FilterTerm {
  /** Canonical field name, or null for a bare word. */
  field: string | null;
  value: string;
}

/** Splits the expression into terms. `fields` maps accepted field names (lower case) to canonical names. */
export function parseFilter(expression: string, fields: ReadonlyMap<string, string>): FilterTerm[] {
  const terms: FilterTerm[] = [];
  const text = expression.trim();
  let i = 0;
  const readValue = (): string => {
    if (text[i] === '"') {
      const end = text.indexOf('"', i + 1);
      if (end === -1) throw invalidArgument(`filter: unterminated quote in "${expression}"`);
      const value = text.slice(i + 1, end);
      i = end + 1;
      if (i < text.length && !/\s/.test(text[i]!))
        throw invalidArgument(`filter: expected a space after a quoted value`);
      return value;
    }
    const start = i;
    while (i < text.length && !/\s/.test(text[i]!)) i++;
    return text.slice(start, i);
  };
  while (i < text.length) {
    if (/\s/.test(text[i]!)) {
      i++;
      continue;
    }
    if (text[i] === '"') {
      terms.push({ field: null, value: readValue() });
      continue;
    }
    const start = i;
    while (i < text.length && !/\s/.test(text[i]!) && text[i] !== ':') i++;
    if (text[i] !== ':') {
      terms.push({ field: null, value: text.slice(start, i) });
      continue;
    }
    const name = text.slice(start, i);
    i++;
    const canonical = fields.get(name.toLowerCase());
    if (!canonical) {
      const allowed = [...new Set(fields.values())].join(', ');
      throw invalidArgument(`filter: unknown field "${name}" (allowed: ${allowed})`);
    }
    const value = readValue();
    if (value === '') throw invalidArgument(`filter: empty value for field "${name}"`);
    terms.push({ field: canonical, value });
  }
  return terms.filter((t) => t.field !== null || t.value !== '');
}

/** Accepts both the enum form (PREFIX_VALUE) and the short form (value), case-insensitively. */
export function normalizeEnumValue(value: string, prefix: string): string {
  const upper = value.toUpperCase().replace(/-/g, '_');
  return upper.startsWith(prefix) ? upper : `${prefix}${upper}`;
}

export function fieldMap(entries: Record<string, string[]>): Map<string, string> {
  const map = new Map<string, string>();
  for (const [canonical, aliases] of Object.entries(entries)) {
    map.set(canonical.toLowerCase(), canonical);
    for (const alias of aliases) map.set(alias.toLowerCase(), canonical);
  }
  return map;
}
