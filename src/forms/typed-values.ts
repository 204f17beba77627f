// Values typed on one line (`key=value`, from /runbook run, an alias or a mention) → params typed per
// the runbook's input schema, then the same schema validation the form uses. Pure. Errors are per
// input name, in the words the form would show under the field.
import { enumLabel } from './enum-options.ts';
import type { FieldSpec, FormSpec } from './input-schema.ts';
import { wallTimeInZone } from './time-zone.ts';
import { validateParams } from './validate-params.ts';

export interface FieldError {
  /** The input's name (the key typed), or '' for the input as a whole. */
  name: string;
  message: string;
}

export type TypedValues =
  | { ok: true; params: Record<string, unknown> }
  /** `params` holds what could be converted, so a form can still be prefilled with it. */
  | { ok: false; params: Record<string, unknown>; errors: FieldError[] };

type Converted = { ok: true; value: unknown } | { ok: false; message: string };

const TRUE = new Set(['true', 'yes', 'y', 'on', '1']);
const FALSE = new Set(['false', 'no', 'n', 'off', '0']);

function pickEnum(field: FieldSpec, text: string): Converted {
  const values = field.enumValues ?? [];
  const exact = values.find((v) => enumLabel(v) === text);
  const found = exact !== undefined ? [exact] : values.filter((v) => enumLabel(v).toLowerCase() === text.toLowerCase());
  if (found.length === 1) return { ok: true, value: found[0] };
  const shown = values.slice(0, 10).map(enumLabel).join(', ');
  return { ok: false, message: `Must be one of ${shown}${values.length > 10 ? ', …' : ''}` };
}

function splitList(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map((t) => t.trim())
    .filter((t) => t !== '');
}

/** Decimal notation, with an optional exponent (as JSON writes numbers, plus a leading + or dot). */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/**
 * The number `text` writes in decimal notation, else NaN: Number() alone would read "0x10" as 16, "0b11"
 * as 3 and "" as 0. The form and one-line values both read numbers through this.
 */
export function decimalNumber(text: string): number {
  const t = text.trim();
  return DECIMAL.test(t) ? Number(t) : Number.NaN;
}

function toNumber(text: string, integer: boolean): Converted {
  const n = decimalNumber(text);
  // An integer field asks for a whole number, also when the text is no number at all ("many").
  if (!Number.isFinite(n) || (integer && !Number.isInteger(n))) {
    return { ok: false, message: integer ? 'Must be a whole number' : 'Must be a number' };
  }
  return { ok: true, value: n };
}

function convert(field: FieldSpec, text: string, timeZone: string | null): Converted {
  switch (field.kind) {
    case 'datetime':
      // Without an offset, in the person's Slack time zone as the form's picker; an offset or Z is kept.
      return { ok: true, value: wallTimeInZone(text, timeZone) ?? text };
    case 'number':
    case 'integer':
      return toNumber(text, field.kind === 'integer');
    case 'boolean': {
      const t = text.trim().toLowerCase();
      if (TRUE.has(t)) return { ok: true, value: true };
      if (FALSE.has(t)) return { ok: true, value: false };
      return { ok: false, message: 'Must be true or false' };
    }
    case 'select':
    case 'external_select':
      return pickEnum(field, text);
    case 'multi_select':
    case 'multi_external_select': {
      const values: unknown[] = [];
      for (const item of splitList(text)) {
        const one = pickEnum(field, item);
        if (!one.ok) return one;
        values.push(one.value);
      }
      return { ok: true, value: values };
    }
    case 'string_list': {
      const items = splitList(text);
      if (field.itemType !== 'number' && field.itemType !== 'integer') return { ok: true, value: items };
      const numbers: unknown[] = [];
      for (const item of items) {
        const n = toNumber(item, field.itemType === 'integer');
        if (!n.ok) return { ok: false, message: `"${item.slice(0, 40)}" — ${n.message.toLowerCase()}` };
        numbers.push(n.value);
      }
      return { ok: true, value: numbers };
    }
    case 'json':
      try {
        return { ok: true, value: JSON.parse(text) };
      } catch {
        return { ok: false, message: 'Must be valid JSON' };
      }
    default:
      // Text, secret, email, URL and date stay as typed; the schema checks their format.
      return { ok: true, value: text };
  }
}

/** The schema's own errors (keyed by block id) as per-input errors. */
export function fieldErrorsOf(spec: FormSpec, errors: Record<string, string>): FieldError[] {
  const byBlock = new Map(spec.kind === 'fields' ? spec.fields.map((f) => [f.blockId, f.name]) : []);
  return Object.entries(errors).map(([blockId, message]) => ({ name: byBlock.get(blockId) ?? '', message }));
}

/** The date-time inputs typed without an offset (read in the person's zone, so the reply says which). */
export function wallTimeNames(spec: FormSpec, typed: Readonly<Record<string, string>>): string[] {
  if (spec.kind !== 'fields') return [];
  return spec.fields
    .filter((f) => f.kind === 'datetime' && Object.hasOwn(typed, f.name) && wallTimeInZone(typed[f.name]!, null))
    .map((f) => f.name);
}

/**
 * Converts and validates typed values; nothing runs on `ok: false`. `base` (the schema's defaults, say)
 * fills what was not typed before the whole is validated. `timeZone`: the person's Slack time zone (users.info
 * `tz`), in which a date-time typed without an offset is read, as the form reads a picked one (UTC: unknown).
 */
export function typeValues(
  spec: FormSpec,
  typed: Readonly<Record<string, string>>,
  base: Readonly<Record<string, unknown>> = {},
  timeZone: string | null = null,
): TypedValues {
  const params: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  const names = Object.keys(typed);
  if (spec.kind === 'empty') {
    if (names.length > 0)
      return { ok: false, params, errors: [{ name: names[0]!, message: 'This runbook takes no inputs' }] };
    return { ok: true, params };
  }
  for (const name of names) {
    const text = typed[name]!;
    if (spec.kind === 'fallback') {
      // No per-field form: a value that reads as JSON is JSON, anything else a string.
      let value: unknown = text;
      try {
        value = JSON.parse(text);
      } catch {
        // kept as a string
      }
      Object.defineProperty(params, name, { value, enumerable: true, writable: true, configurable: true });
      continue;
    }
    const field = spec.fields.find((f) => f.name === name);
    if (!field) {
      const known = spec.fields.map((f) => f.name).join(', ');
      errors.push({ name, message: `Not an input of this runbook (its inputs: ${known})` });
      continue;
    }
    // Blank counts as not given, as a blank field of the form does: a default fills it, or "Required".
    if (text.trim() === '') continue;
    const converted = convert(field, text, timeZone);
    if (converted.ok)
      Object.defineProperty(params, name, {
        value: converted.value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else errors.push({ name, message: converted.message });
  }
  if (errors.length > 0) return { ok: false, params, errors };
  return validateObject(spec, { ...base, ...params });
}

/** Validates an already-typed object (a workflow step's JSON inputs) with the form's rules. */
export function validateObject(spec: FormSpec, params: Record<string, unknown>): TypedValues {
  const result = validateParams(spec, params);
  return result.ok
    ? { ok: true, params: result.params }
    : { ok: false, params, errors: fieldErrorsOf(spec, result.errors) };
}

/** One line per error: "`name`: message". */
export function describeFieldErrors(errors: readonly FieldError[]): string {
  return errors.map((e) => (e.name ? `${e.name}: ${e.message}` : e.message)).join('; ');
}
