// Options for enum fields. An option's value is the index of the enum value as a string ("0",
// "1", …): it always fits Slack's 150-character limit and maps back to non-string enum values
// (numbers, booleans, null) exactly. Static selects, external selects (typeahead) and the reader
// all use these functions so the mapping cannot drift.
import type { PlainTextOption } from '@slack/types';
import { type FieldSpec, jsonEqual } from './input-schema.ts';
import { LIMITS, plainText } from './text-limits.ts';

/** How an enum value is shown: strings as they are, anything else as JSON. */
export function enumLabel(value: unknown): string {
  if (typeof value === 'string') return value === '' ? '(empty)' : value;
  return JSON.stringify(value) ?? String(value);
}

export function toEnumOption(value: unknown, index: number): PlainTextOption {
  return { text: plainText(enumLabel(value), LIMITS.optionText, '(empty)'), value: String(index) };
}

/** The option for `value`, or undefined when it is not one of the field's enum values. */
export function optionForValue(field: FieldSpec, value: unknown): PlainTextOption | undefined {
  const index = (field.enumValues ?? []).findIndex((v) => jsonEqual(v, value));
  return index === -1 ? undefined : toEnumOption(field.enumValues![index], index);
}

/** Maps a submitted option value back to the enum value; `found: false` for a forged or stale value. */
export function valueForOption(
  field: FieldSpec,
  optionValue: string,
): { found: true; value: unknown } | { found: false } {
  const values = field.enumValues ?? [];
  if (!/^\d+$/.test(optionValue)) return { found: false };
  const index = Number(optionValue);
  return index < values.length ? { found: true, value: values[index] } : { found: false };
}

/**
 * Options for a typeahead request on an enum field: case-insensitive substring match on the shown
 * label, prefix matches first, then schema order; at most 100 (Slack's limit). An empty query
 * lists the first 100 values.
 */
export function enumOptions(field: FieldSpec, query: string): PlainTextOption[] {
  const q = query.trim().toLowerCase();
  const prefix: PlainTextOption[] = [];
  const inner: PlainTextOption[] = [];
  const values = field.enumValues ?? [];
  for (let i = 0; i < values.length && prefix.length < LIMITS.options; i++) {
    const label = enumLabel(values[i]).toLowerCase();
    const at = q === '' ? 0 : label.indexOf(q);
    if (at === 0) prefix.push(toEnumOption(values[i], i));
    else if (at > 0 && inner.length < LIMITS.options) inner.push(toEnumOption(values[i], i));
  }
  return [...prefix, ...inner].slice(0, LIMITS.options);
}
