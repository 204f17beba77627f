// Validates params against the runbook's input schema with ajv and turns ajv's errors into one
// short English sentence per field, keyed by the field's block_id (what Slack's
// `response_action: "errors"` expects). The fallback form gets all messages on its one block.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FieldSpec, FormSpec } from './input-schema.ts';
import { FALLBACK_BLOCK_ID, isRecord, setOwn } from './input-schema.ts';

export type FormResult =
  | { ok: true; params: Record<string, unknown> }
  | { ok: false; errors: Record<string, string> /* block_id → message, for response_action: errors */ };

// ajv-formats is CommonJS; under NodeNext its default import is typed as the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** Long enough for a useful sentence, short enough for a line under a Slack input. */
const MAX_MESSAGE = 500;
const CACHE_SIZE = 200;

let ajvInstance: Ajv | undefined;
/** Compiled validators by schema text; `null` remembers a schema ajv could not compile. */
const cache = new Map<string, ValidateFunction | null>();

function getAjv(): Ajv {
  if (!ajvInstance) {
    // strict off: real schemas carry x-* keywords and formats like "password" or "textarea".
    ajvInstance = new Ajv({ strict: false, allErrors: true, logger: false, validateSchema: false });
    addFormats(ajvInstance);
  }
  return ajvInstance;
}

const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

/** ajv does not know type "secret" (a string whose value is hidden) and rejects a foreign $schema. */
function normalizeSchema(node: unknown, root = true): unknown {
  if (Array.isArray(node)) return node.map((n) => normalizeSchema(n, false));
  if (!isRecord(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema' || (root && key === '$id')) continue;
    if (key === 'type') {
      out.type = Array.isArray(value)
        ? [...new Set(value.map((t) => (t === 'secret' ? 'string' : t)))]
        : value === 'secret'
          ? 'string'
          : value;
    } else if (SCHEMA_MAPS.has(key) && isRecord(value)) {
      // Maps of name → schema: their keys are property names (which may well be "type"), not keywords.
      setOwn(out, key, Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalizeSchema(v, false)])));
    } else if (key === 'enum' || key === 'const' || key === 'default' || key === 'examples') {
      setOwn(out, key, value); // data, not schema: leave untouched
    } else {
      setOwn(out, key, normalizeSchema(value, false));
    }
  }
  return out;
}

/** Bounded LRU: a busy workspace sees a few hundred runbooks, each schema compiles once. */
function compile(schema: Record<string, unknown>): ValidateFunction | null {
  const key = JSON.stringify(schema);
  if (cache.has(key)) {
    const hit = cache.get(key)!;
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  let validate: ValidateFunction | null;
  try {
    validate = getAjv().compile(normalizeSchema(schema) as Record<string, unknown>);
  } catch {
    // A schema ajv cannot compile (dangling $ref, malformed keyword) must not block a run:
    // the server still validates, so we accept any object rather than reject every input.
    validate = null;
  }
  cache.set(key, validate);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return validate;
}

/** Number of compiled validators held (for tests of the bound). */
export function validatorCacheSize(): number {
  return cache.size;
}

function decodePointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function formatPath(segments: string[]): string {
  return segments.map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
}

function listValues(values: unknown[]): string {
  const shown = values.slice(0, 10).map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
  return shown.join(', ') + (values.length > 10 ? ', …' : '');
}

const FORMAT_MESSAGES: Record<string, string> = {
  email: 'Must be a valid email address',
  uri: 'Must be a valid URL',
  url: 'Must be a valid URL',
  'uri-reference': 'Must be a valid URL',
  date: 'Must be a valid date (YYYY-MM-DD)',
  'date-time': 'Must be a date and time with its offset, e.g. 2026-12-01T10:00:00Z',
  time: 'Must be a valid time',
  ipv4: 'Must be a valid IPv4 address',
  ipv6: 'Must be a valid IPv6 address',
  hostname: 'Must be a valid host name',
  uuid: 'Must be a valid UUID',
};

const TYPE_MESSAGES: Record<string, string> = {
  string: 'Must be text',
  number: 'Must be a number',
  integer: 'Must be a whole number',
  boolean: 'Must be true or false',
  array: 'Must be a list',
  object: 'Must be a JSON object',
  null: 'Must be empty',
};

/** One clear sentence for one ajv error. */
export function describeError(error: ErrorObject): string {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return 'Required';
    case 'maximum':
      return `Must be at most ${p.limit}`;
    case 'minimum':
      return `Must be at least ${p.limit}`;
    case 'exclusiveMaximum':
      return `Must be less than ${p.limit}`;
    case 'exclusiveMinimum':
      return `Must be greater than ${p.limit}`;
    case 'multipleOf':
      return `Must be a multiple of ${p.multipleOf}`;
    case 'maxLength':
      return `Must be at most ${p.limit} characters`;
    case 'minLength':
      return `Must be at least ${p.limit} characters`;
    case 'maxItems':
      return `Must have at most ${p.limit} values`;
    case 'minItems':
      return `Must have at least ${p.limit} values`;
    case 'uniqueItems':
      return 'Values must not repeat';
    case 'maxProperties':
      return `Must have at most ${p.limit} keys`;
    case 'minProperties':
      return `Must have at least ${p.limit} keys`;
    case 'pattern':
      return `Must match the pattern ${p.pattern}`;
    case 'format':
      return FORMAT_MESSAGES[String(p.format)] ?? `Must be a valid ${p.format}`;
    case 'enum':
      return `Must be one of: ${listValues((p.allowedValues as unknown[]) ?? [])}`;
    case 'const':
      return `Must be ${listValues([p.allowedValue])}`;
    case 'type': {
      const types = String(p.type).split(',');
      return TYPE_MESSAGES[types[0]!] ?? `Must be of type ${p.type}`;
    }
    case 'additionalProperties':
      return `Unexpected key "${p.additionalProperty}"`;
    default:
      return 'Is not valid';
  }
}

/** Errors that only restate another error (anyOf summaries, the "or null" branch) are dropped. */
function isNoise(error: ErrorObject): boolean {
  if (error.keyword === 'anyOf' || error.keyword === 'oneOf' || error.keyword === 'if') return true;
  return error.keyword === 'type' && (error.params as { type?: unknown }).type === 'null';
}

interface LocatedError {
  /** Top-level property the error belongs to; undefined for errors on the object itself. */
  property: string | undefined;
  /** Path inside that property, e.g. `[2]` or `port`. */
  rest: string[];
  message: string;
}

function locate(errors: ErrorObject[]): LocatedError[] {
  const kept = errors.filter((e) => !isNoise(e));
  const chosen = kept.length > 0 ? kept : errors;
  return chosen.map((error) => {
    const segments = decodePointer(error.instancePath);
    if (error.keyword === 'required')
      segments.push(String((error.params as { missingProperty?: unknown }).missingProperty));
    return { property: segments[0], rest: segments.slice(1), message: describeError(error) };
  });
}

function clip(message: string): string {
  return message.length <= MAX_MESSAGE ? message : `${message.slice(0, MAX_MESSAGE - 1)}…`;
}

/**
 * The top-level properties of `params` that the schema refuses (a nested error counts for its
 * top-level property), or null when the schema cannot be checked here. Missing required keys are
 * not counted: this asks "may these values stand?", not "is the form complete?".
 */
export function propertiesWithErrors(
  schema: Record<string, unknown>,
  params: Record<string, unknown>,
): Set<string> | null {
  const validate = compile(schema);
  if (!validate) return null;
  if (validate(params)) return new Set();
  const names = new Set<string>();
  for (const error of validate.errors ?? []) {
    if (error.keyword === 'required' && error.instancePath === '') continue;
    const [property] = decodePointer(error.instancePath);
    if (property !== undefined) names.add(property);
  }
  return names;
}

/** Validates params; never throws. Field forms get errors per block_id, the fallback on `field__json`. */
export function validateParams(spec: FormSpec, params: Record<string, unknown>): FormResult {
  if (spec.kind === 'empty' || spec.schema === null) return { ok: true, params };
  const validate = compile(spec.schema);
  if (!validate || validate(params)) return { ok: true, params };
  const located = locate(validate.errors ?? []);
  const errors: Record<string, string> = {};

  if (spec.kind === 'fallback') {
    const messages = [
      ...new Set(
        located.map((e) => {
          const path = formatPath(e.property === undefined ? e.rest : [e.property, ...e.rest]);
          return path === '' ? e.message : `${path}: ${e.message}`;
        }),
      ),
    ];
    errors[FALLBACK_BLOCK_ID] = clip(messages.join('; '));
    return { ok: false, errors };
  }

  const byName = new Map<string, FieldSpec>(spec.fields.map((f) => [f.name, f]));
  for (const error of located) {
    const field = error.property === undefined ? undefined : byName.get(error.property);
    // An error on no known field (e.g. minProperties) still has to show somewhere visible.
    const target = field ?? spec.fields[0]!;
    const prefix = field ? formatPath(error.rest) : formatPath(error.property === undefined ? [] : [error.property]);
    const message = prefix === '' ? error.message : `${prefix}: ${error.message}`;
    const existing = errors[target.blockId];
    if (existing === undefined) errors[target.blockId] = clip(message);
    else if (!existing.split('; ').includes(message)) errors[target.blockId] = clip(`${existing}; ${message}`);
  }
  return { ok: false, errors };
}
