// FormSpec → Block Kit input blocks, the middle part of the run and schedule modals. Pure: the
// same spec and prefill always give the same blocks. Every string is cut to Slack's limits and
// every initial value is checked against its element, because one bad value makes Slack reject
// the whole modal.
import type { InputBlock, InputBlockElement, KnownBlock, PlainTextOption } from '@slack/types';
import { usableDefaults } from './defaults.ts';
import { optionForValue, toEnumOption } from './enum-options.ts';
import type { FieldSpec, FormSpec } from './input-schema.ts';
import {
  FALLBACK_BLOCK_ID,
  FIELD_ACTION_ID,
  isRecord,
  isSecretSchema,
  MAX_STATIC_OPTIONS,
  resolveSchema,
  setOwn,
} from './input-schema.ts';
import { LIMITS, plainText, truncate } from './text-limits.ts';
import { zoneName } from './time-zone.ts';

const SECRET_HINT = 'This value is hidden after you submit and is never filled in again.';

/**
 * Input blocks for a form. `prefill` (e.g. the params of a previous run) wins over schema
 * defaults, which are used decoded and only when the schema accepts them (`usableDefaults`);
 * secret fields are never prefilled from either.
 */
export function buildFormBlocks(
  spec: FormSpec,
  prefill?: Record<string, unknown>,
  /** The person's Slack time zone, named under date-time pickers (they pick in it). */
  timeZone?: { id: string; label: string } | null,
): KnownBlock[] {
  if (spec.kind === 'empty') return [];
  const defaults = usableDefaults(spec);
  if (spec.kind === 'fallback') return [fallbackBlock(spec, prefill, defaults)];
  return spec.fields.map((field) => fieldBlock(field, initialFor(field, prefill, defaults), timeZone ?? null));
}

/** Under a date-time picker: which zone the picked time is in. */
function zoneHint(timeZone: { id: string; label: string } | null): string {
  if (!timeZone) return 'The time is in your Slack time zone.';
  return `The time is in your Slack time zone, ${zoneName(timeZone)}.`;
}

function initialFor(
  field: FieldSpec,
  prefill: Record<string, unknown> | undefined,
  defaults: Record<string, unknown>,
): unknown {
  if (field.secret) return undefined;
  if (prefill && Object.hasOwn(prefill, field.name) && prefill[field.name] !== undefined) return prefill[field.name];
  return Object.hasOwn(defaults, field.name) ? defaults[field.name] : undefined;
}

function fieldBlock(field: FieldSpec, initial: unknown, timeZone: { id: string; label: string } | null): InputBlock {
  const hints = [field.description];
  if (field.kind === 'datetime') hints.push(zoneHint(timeZone));
  if (field.kind === 'string_list') hints.push('Enter one value per line.');
  if (field.kind === 'json') hints.push('Enter JSON.');
  if (field.secret) hints.push(SECRET_HINT);
  const hint = hints.filter((h) => h !== '').join(' ');
  const block: InputBlock = {
    type: 'input',
    block_id: field.blockId,
    label: plainText(field.title, LIMITS.label, 'Value'),
    element: elementFor(field, initial),
    // An unticked checkbox is a valid "false", so booleans are never required by Slack.
    optional: !field.required || field.kind === 'boolean',
  };
  if (hint !== '') block.hint = plainText(hint, LIMITS.hint);
  return block;
}

function placeholder(text: string) {
  return plainText(text, LIMITS.placeholder);
}

function elementFor(field: FieldSpec, initial: unknown): InputBlockElement {
  const action_id = FIELD_ACTION_ID;
  switch (field.kind) {
    case 'text':
    case 'multiline':
    case 'secret':
      return textInput(field, field.kind === 'multiline', textInitial(initial));
    case 'string_list':
      return {
        type: 'plain_text_input',
        action_id,
        multiline: true,
        placeholder: placeholder('One value per line'),
        ...initialValue(listInitial(initial)),
      };
    case 'json':
      return {
        type: 'plain_text_input',
        action_id,
        multiline: true,
        placeholder: placeholder(field.schema.type === 'array' ? '["value"]' : '{"key": "value"}'),
        ...initialValue(jsonInitial(initial)),
      };
    case 'email':
      return { type: 'email_text_input', action_id, ...initialValue(textInitial(initial)) };
    case 'url':
      return { type: 'url_text_input', action_id, ...initialValue(textInitial(initial)) };
    case 'number':
    case 'integer':
      return numberInput(field, initial);
    case 'boolean': {
      const option: PlainTextOption = { text: plainText(field.title, LIMITS.optionText, 'Yes'), value: 'true' };
      const checked = initial === true || initial === 'true';
      return { type: 'checkboxes', action_id, options: [option], ...(checked ? { initial_options: [option] } : {}) };
    }
    case 'select': {
      const options = (field.enumValues ?? []).slice(0, MAX_STATIC_OPTIONS).map(toEnumOption);
      const selected = optionForValue(field, initial);
      return {
        type: 'static_select',
        action_id,
        placeholder: placeholder('Choose a value'),
        options,
        ...(selected ? { initial_option: selected } : {}),
      };
    }
    case 'external_select': {
      const selected = optionForValue(field, initial);
      return {
        type: 'external_select',
        action_id,
        placeholder: placeholder('Type to search'),
        min_query_length: 0,
        ...(selected ? { initial_option: selected } : {}),
      };
    }
    case 'multi_select':
    case 'multi_external_select': {
      const selected = multiInitial(field, initial);
      const initialOptions = selected.length > 0 ? { initial_options: selected } : {};
      if (field.kind === 'multi_external_select') {
        return {
          type: 'multi_external_select',
          action_id,
          placeholder: placeholder('Type to search'),
          min_query_length: 0,
          ...initialOptions,
        };
      }
      return {
        type: 'multi_static_select',
        action_id,
        placeholder: placeholder('Choose values'),
        options: (field.enumValues ?? []).slice(0, MAX_STATIC_OPTIONS).map(toEnumOption),
        ...initialOptions,
      };
    }
    case 'date': {
      const date = dateInitial(initial);
      return { type: 'datepicker', action_id, ...(date ? { initial_date: date } : {}) };
    }
    case 'datetime': {
      const seconds = dateTimeInitial(initial);
      return { type: 'datetimepicker', action_id, ...(seconds !== undefined ? { initial_date_time: seconds } : {}) };
    }
  }
}

function initialValue(value: string | undefined): { initial_value?: string } {
  return value !== undefined && value !== '' && value.length <= LIMITS.initialValue ? { initial_value: value } : {};
}

function textInput(field: FieldSpec, multiline: boolean, initial: string | undefined): InputBlockElement {
  const element: InputBlockElement & { type: 'plain_text_input' } = {
    type: 'plain_text_input',
    action_id: FIELD_ACTION_ID,
  };
  if (multiline) element.multiline = true;
  // Slack accepts min_length 0–3000 and max_length 1–3000; outside that the server-side check remains.
  const min = field.minLength !== undefined && field.minLength <= LIMITS.textLength ? field.minLength : undefined;
  const max =
    field.maxLength !== undefined && field.maxLength >= 1 && field.maxLength <= LIMITS.textLength
      ? field.maxLength
      : undefined;
  if (min !== undefined && (max === undefined || min <= max)) element.min_length = min;
  if (max !== undefined && (min === undefined || min <= max)) element.max_length = max;
  const value = initialValue(initial);
  if (value.initial_value !== undefined && (max === undefined || value.initial_value.length <= max)) {
    element.initial_value = value.initial_value;
  }
  return element;
}

function textInitial(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  return undefined;
}

function listInitial(value: unknown): string | undefined {
  if (!Array.isArray(value)) return undefined;
  const lines = value.map(textInitial);
  // A value that contains a newline would come back as two values, so such lists are not prefilled.
  if (lines.some((l) => l === undefined || l.includes('\n') || l.trim() === '')) return undefined;
  return lines.join('\n');
}

function jsonInitial(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return undefined;
  }
}

/** Slack wants plain decimal strings; `1e+21` or NaN would make it reject the view. */
function decimalString(value: number): string | undefined {
  const text = String(value);
  return Number.isFinite(value) && /^-?\d+(\.\d+)?$/.test(text) ? text : undefined;
}

function numberInput(field: FieldSpec, initial: unknown): InputBlockElement {
  const integer = field.kind === 'integer';
  // An integer input cannot show a fractional bound, so bounds are rounded inwards.
  const min = field.minimum === undefined ? undefined : integer ? Math.ceil(field.minimum) : field.minimum;
  const max = field.maximum === undefined ? undefined : integer ? Math.floor(field.maximum) : field.maximum;
  const bothOk = min === undefined || max === undefined || min <= max;
  const element: InputBlockElement & { type: 'number_input' } = {
    type: 'number_input',
    action_id: FIELD_ACTION_ID,
    is_decimal_allowed: !integer,
  };
  const minText = min === undefined || !bothOk ? undefined : decimalString(min);
  const maxText = max === undefined || !bothOk ? undefined : decimalString(max);
  if (minText !== undefined) element.min_value = minText;
  if (maxText !== undefined) element.max_value = maxText;
  const n =
    typeof initial === 'number'
      ? initial
      : typeof initial === 'string' && initial.trim() !== ''
        ? Number(initial)
        : NaN;
  const inRange =
    Number.isFinite(n) &&
    (!integer || Number.isInteger(n)) &&
    (minText === undefined || n >= Number(minText)) &&
    (maxText === undefined || n <= Number(maxText));
  const text = inRange ? decimalString(n) : undefined;
  if (text !== undefined) element.initial_value = text;
  return element;
}

function multiInitial(field: FieldSpec, value: unknown): PlainTextOption[] {
  if (!Array.isArray(value)) return [];
  const seen = new Set<string>();
  const options: PlainTextOption[] = [];
  for (const item of value) {
    const option = optionForValue(field, item);
    if (option && !seen.has(option.value!)) {
      seen.add(option.value!);
      options.push(option);
    }
  }
  return options.slice(0, MAX_STATIC_OPTIONS);
}

function dateInitial(value: unknown): string | undefined {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
  const parsed = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(value) ? value : undefined;
}

function dateTimeInitial(value: unknown): number | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const ms = typeof value === 'number' ? value * 1000 : Date.parse(value);
  if (!Number.isFinite(ms) || ms < 0) return undefined;
  const seconds = Math.floor(ms / 1000);
  return seconds <= 9_999_999_999 ? seconds : undefined;
}

/** Usable defaults (and prefill) of the fallback form as one JSON object, without secrets. */
function fallbackInitial(
  spec: FormSpec & { kind: 'fallback' },
  prefill: Record<string, unknown> | undefined,
  defaults: Record<string, unknown>,
): string {
  const values: Record<string, unknown> = { ...defaults };
  const properties = spec.schema && isRecord(spec.schema.properties) ? spec.schema.properties : {};
  const secret = (name: string) => {
    const property = properties[name];
    return isRecord(property) && spec.schema !== null && isSecretSchema(resolveSchema(property, spec.schema));
  };
  for (const [name, value] of Object.entries(prefill ?? {})) {
    if (value !== undefined && !secret(name)) setOwn(values, name, value);
  }
  return JSON.stringify(values, null, 2);
}

function fallbackBlock(
  spec: FormSpec & { kind: 'fallback' },
  prefill: Record<string, unknown> | undefined,
  defaults: Record<string, unknown>,
): InputBlock {
  const hint =
    spec.schema === null
      ? `The input schema could not be read (${spec.reason.replace(/\.$/, '')}), so any JSON object is accepted.`
      : `This runbook's inputs cannot be shown as a form (${spec.reason.replace(/\.$/, '')}). Enter them as a JSON object.`;
  const initial = fallbackInitial(spec, prefill, defaults);
  return {
    type: 'input',
    block_id: FALLBACK_BLOCK_ID,
    label: plainText('Parameters (JSON)', LIMITS.label),
    element: {
      type: 'plain_text_input',
      action_id: FIELD_ACTION_ID,
      multiline: true,
      placeholder: placeholder('{"name": "value"}'),
      // A cut JSON text would be invalid; too long a prefill is dropped, leaving the placeholder.
      ...(initial.length <= LIMITS.initialValue && initial !== '{}' ? { initial_value: initial } : {}),
    },
    // Optional so that an empty box means `{}`; missing required keys are still reported by validation.
    optional: true,
    hint: plainText(truncate(hint, LIMITS.hint), LIMITS.hint),
  };
}
