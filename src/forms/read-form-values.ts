// Slack's view.state.values → params for the Runbook API, then schema validation. Element states
// are read defensively (a missing block, a null selection or a forged option value is an empty
// field or a field error, never an exception), because they arrive from the network.
import { valueForOption } from './enum-options.ts';
import type { FieldSpec, FormSpec } from './input-schema.ts';
import { FALLBACK_BLOCK_ID, FIELD_ACTION_ID, isRecord, setOwn } from './input-schema.ts';
import { isoInTimeZone } from './time-zone.ts';
import { decimalNumber } from './typed-values.ts';
import { type FormResult, validateParams } from './validate-params.ts';

export type { FormResult } from './validate-params.ts';

type Converted = { kind: 'value'; value: unknown } | { kind: 'empty' } | { kind: 'error'; message: string };

const EMPTY: Converted = { kind: 'empty' };

function elementState(stateValues: Record<string, Record<string, unknown>>, blockId: string): Record<string, unknown> {
  const block = Object.hasOwn(stateValues, blockId) ? stateValues[blockId] : undefined;
  const state = isRecord(block) && Object.hasOwn(block, FIELD_ACTION_ID) ? block[FIELD_ACTION_ID] : undefined;
  return isRecord(state) ? state : {};
}

function textOf(state: Record<string, unknown>): string {
  return typeof state.value === 'string' ? state.value : '';
}

function optionValue(option: unknown): string | undefined {
  return isRecord(option) && typeof option.value === 'string' ? option.value : undefined;
}

/** JSON.parse's message without the echoed input, which can be long or secret. */
function shortJsonError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const first = message.split('\n')[0]!.replace(/, "[^"]*"\.\.\. is not valid JSON$/, '');
  return first.length > 120 ? `${first.slice(0, 119)}…` : first;
}

function parseJson(text: string): Converted {
  if (text.trim() === '') return EMPTY;
  try {
    return { kind: 'value', value: JSON.parse(text) };
  } catch (error) {
    return { kind: 'error', message: `Must be valid JSON: ${shortJsonError(error)}` };
  }
}

function convert(field: FieldSpec, state: Record<string, unknown>, timeZone?: string | null): Converted {
  switch (field.kind) {
    case 'text':
    case 'multiline':
    case 'secret': {
      // Kept as typed (a password may start with a space); only an all-blank box counts as empty.
      const text = textOf(state);
      return text.trim() === '' ? EMPTY : { kind: 'value', value: text };
    }
    case 'email':
    case 'url': {
      const text = textOf(state).trim();
      return text === '' ? EMPTY : { kind: 'value', value: text };
    }
    case 'number':
    case 'integer': {
      const text = textOf(state).trim();
      if (text === '') return EMPTY;
      const n = decimalNumber(text);
      const integer = field.kind === 'integer';
      if (!Number.isFinite(n) || (integer && !Number.isInteger(n))) {
        return { kind: 'error', message: integer ? 'Must be a whole number' : 'Must be a number' };
      }
      return { kind: 'value', value: n };
    }
    case 'boolean': {
      const selected = Array.isArray(state.selected_options) ? state.selected_options : [];
      return { kind: 'value', value: selected.some((o) => optionValue(o) === 'true') };
    }
    case 'select':
    case 'external_select': {
      const value = optionValue(state.selected_option);
      if (value === undefined) return EMPTY;
      const found = valueForOption(field, value);
      return found.found
        ? { kind: 'value', value: found.value }
        : { kind: 'error', message: 'Choose one of the options' };
    }
    case 'multi_select':
    case 'multi_external_select': {
      const selected = Array.isArray(state.selected_options) ? state.selected_options : [];
      const values: unknown[] = [];
      for (const option of selected) {
        const found = valueForOption(field, optionValue(option) ?? '');
        if (!found.found) return { kind: 'error', message: 'Choose from the options' };
        values.push(found.value);
      }
      return values.length === 0 ? EMPTY : { kind: 'value', value: values };
    }
    case 'string_list': {
      const lines = textOf(state)
        .split(/\r?\n/)
        .map((l) => l.trim())
        .filter((l) => l !== '');
      if (lines.length === 0) return EMPTY;
      if (field.itemType === 'number' || field.itemType === 'integer') {
        const numbers: number[] = [];
        for (const [i, line] of lines.entries()) {
          const n = decimalNumber(line);
          if (!Number.isFinite(n) || (field.itemType === 'integer' && !Number.isInteger(n))) {
            const what = field.itemType === 'integer' ? 'a whole number' : 'a number';
            const shown = line.length > 40 ? `${line.slice(0, 39)}…` : line;
            return { kind: 'error', message: `Line ${i + 1}: "${shown}" is not ${what}` };
          }
          numbers.push(n);
        }
        return { kind: 'value', value: numbers };
      }
      return { kind: 'value', value: lines };
    }
    case 'json':
      return parseJson(textOf(state));
    case 'date': {
      const date = state.selected_date;
      return typeof date === 'string' && date !== '' ? { kind: 'value', value: date } : EMPTY;
    }
    case 'datetime': {
      const seconds = state.selected_date_time;
      if (typeof seconds !== 'number' || !Number.isFinite(seconds)) return EMPTY;
      const date = new Date(seconds * 1000);
      if (Number.isNaN(date.getTime())) return { kind: 'error', message: 'Must be a valid date and time' };
      return { kind: 'value', value: isoInTimeZone(seconds, timeZone) };
    }
  }
}

function readFallback(
  spec: FormSpec & { kind: 'fallback' },
  stateValues: Record<string, Record<string, unknown>>,
): FormResult {
  const parsed = parseJson(textOf(elementState(stateValues, FALLBACK_BLOCK_ID)));
  if (parsed.kind === 'error') return { ok: false, errors: { [FALLBACK_BLOCK_ID]: parsed.message } };
  const value = parsed.kind === 'empty' ? {} : parsed.value;
  if (!isRecord(value))
    return { ok: false, errors: { [FALLBACK_BLOCK_ID]: 'Must be a JSON object, like {"name": "value"}' } };
  return validateParams(spec, value);
}

/**
 * Converts a submitted form into params and validates them. Optional fields left empty are
 * omitted so the runbook's own default applies; booleans are always sent as true or false.
 */
/**
 * `timeZone`: the person's Slack time zone (users.info `tz`); a picked date-time is written with its offset
 * ("2026-12-01T02:00:00+01:00"), else in UTC.
 */
export function readFormValues(
  spec: FormSpec,
  stateValues: Record<string, Record<string, unknown>>,
  timeZone?: string | null,
): FormResult {
  const state = isRecord(stateValues) ? stateValues : {};
  if (spec.kind === 'empty') return { ok: true, params: {} };
  if (spec.kind === 'fallback') return readFallback(spec, state);

  const params: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const field of spec.fields) {
    const converted = convert(field, elementState(state, field.blockId), timeZone);
    if (converted.kind === 'error') errors[field.blockId] = converted.message;
    else if (converted.kind === 'value') setOwn(params, field.name, converted.value);
    else if (field.required) errors[field.blockId] = 'Required';
  }
  const validated = validateParams(spec, params);
  if (!validated.ok) {
    // A conversion error says more than the schema error it causes ("Required" for a bad number).
    for (const [blockId, message] of Object.entries(validated.errors)) errors[blockId] ??= message;
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, params };
}
