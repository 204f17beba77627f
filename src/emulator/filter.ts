// The filter grammar the emulator documents (the contract leaves it unpublished): whitespace-
// separated terms that must all match; `field:value` (value may be "double quoted") or a bare
// word / "quoted phrase" searched case-insensitively. Unknown fields are rejected so a client
// typo shows up as a 400 instead of a silently empty list.
import { invalidArgument } from './rpc-error.ts';

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
