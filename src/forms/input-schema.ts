// Turns a runbook's inputSchema (a JSON Schema serialised as a string) into a FormSpec: the list of
// fields the modal shows, or an explicit fallback when the schema cannot be shown as a form. Every
// other module in this folder works from the FormSpec, so the decisions "what kind of field is
// this?" and "what block_id does it get?" are made exactly once, here.

export type FieldKind =
  | 'text'
  | 'multiline'
  | 'number'
  | 'integer'
  | 'boolean'
  | 'select'
  | 'external_select'
  | 'multi_select'
  | 'multi_external_select'
  | 'string_list'
  | 'json'
  | 'secret'
  | 'date'
  | 'datetime'
  | 'email'
  | 'url';

export interface FieldSpec {
  /** Property name in the schema and key in params. */
  name: string;
  /** Block id of this field's input block; always starts with `field_`. */
  blockId: string;
  kind: FieldKind;
  title: string;
  description: string;
  required: boolean;
  /**
   * The schema's default, JSON-decoded when the service stored it encoded (`"\"Add\""` for an enum
   * member, `'["abc"]'` for a list): decoded only when the raw value does not fit the field and the
   * decoded one does. Present whenever the schema has a default, fitting or not.
   */
  default?: unknown;
  /** For select kinds: the allowed values; option values are their indexes as strings. */
  enumValues?: unknown[];
  /** For string_list: how each line is parsed. */
  itemType?: 'string' | 'number' | 'integer';
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  secret: boolean;
  /** The property's own schema (nullable wrappers, `allOf` of one and local `$ref`s already resolved). */
  schema: Record<string, unknown>;
}

export type FormSpec =
  | { kind: 'empty' }
  | { kind: 'fields'; fields: FieldSpec[]; schema: Record<string, unknown> }
  | { kind: 'fallback'; reason: string; schema: Record<string, unknown> | null };

export const FIELD_BLOCK_PREFIX = 'field_';
/** The single block of the fallback form. */
export const FALLBACK_BLOCK_ID = 'field__json';
/** Every field's element uses this action_id; the block_id tells fields apart. */
export const FIELD_ACTION_ID = 'value';

/** More properties than this do not fit a modal next to the meta blocks (limit 100 blocks). */
export const MAX_FIELDS = 80;
/** Beyond this many values a static select is not allowed; we switch to a typeahead. */
export const MAX_STATIC_OPTIONS = 100;
/** Text longer than this gets a multiline input. */
const MULTILINE_THRESHOLD = 150;

const UNSUPPORTED_KEYWORDS = ['oneOf', 'anyOf', 'allOf', '$ref', 'not', 'if', 'patternProperties', 'dependentSchemas'];
const SAFE_NAME = /^[A-Za-z0-9_.-]+$/;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A property whose value must never be shown again: only what the schema declares counts. */
export function isSecretSchema(schema: unknown): boolean {
  if (!isRecord(schema)) return false;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return (
    types.includes('secret') || schema.format === 'password' || schema['x-secret'] === true || schema.writeOnly === true
  );
}

/** `dry_run` → "Dry run", `instanceID` → "Instance ID"; all-caps words keep their case. */
export function humanizeName(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .filter((w) => w !== '')
    .map((w) => (w.length > 1 && w === w.toUpperCase() ? w : w.toLowerCase()));
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Sets an own property even for names like `__proto__`, which plain assignment would not. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Parses an inputSchema string; never throws. */
export function parseInputSchema(inputSchema: string): FormSpec {
  const text = typeof inputSchema === 'string' ? inputSchema.trim() : '';
  if (text === '') return { kind: 'empty' };
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch {
    return { kind: 'fallback', reason: 'The input schema is not valid JSON.', schema: null };
  }
  if (!isRecord(root)) return { kind: 'fallback', reason: 'The input schema is not a JSON object.', schema: null };
  const rootType = unwrapType(root.type);
  if (root.type !== undefined && rootType !== 'object') {
    return { kind: 'fallback', reason: 'The input schema does not describe an object.', schema: null };
  }
  const complex = UNSUPPORTED_KEYWORDS.find((k) => k in root);
  if (complex) return fallback(`The input schema uses "${complex}".`, root);
  if (root.properties !== undefined && !isRecord(root.properties)) {
    return { kind: 'fallback', reason: 'The input schema has unreadable properties.', schema: null };
  }
  const properties = (root.properties ?? {}) as Record<string, unknown>;
  const names = Object.keys(properties);
  const required = new Set(Array.isArray(root.required) ? root.required.filter((r) => typeof r === 'string') : []);
  if (names.length === 0) {
    // Keys the runbook accepts but does not list cannot be asked for field by field.
    if (isRecord(root.additionalProperties) || required.size > 0) {
      return fallback('The input schema does not list its properties.', root);
    }
    return { kind: 'empty' };
  }
  if (names.length > MAX_FIELDS) return fallback(`The input schema has more than ${MAX_FIELDS} properties.`, root);

  const fields: FieldSpec[] = [];
  for (const name of names) {
    const field = toField(name, properties[name], required.has(name), root);
    if (typeof field === 'string') return fallback(field, root);
    fields.push(field);
  }
  assignBlockIds(fields);
  return { kind: 'fields', fields, schema: root };
}

function fallback(reason: string, schema: Record<string, unknown>): FormSpec {
  return { kind: 'fallback', reason, schema };
}

/** `"string"` → "string"; `["string","null"]` → "string"; anything ambiguous → undefined. */
function unwrapType(type: unknown): string | undefined {
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) {
    const nonNull = type.filter((t) => t !== 'null');
    if (nonNull.length === 1 && typeof nonNull[0] === 'string') return nonNull[0];
  }
  return undefined;
}

/**
 * Generators such as pydantic write an optional field as `anyOf: [X, {type: "null"}]`. That is one
 * field of type X which may be left empty, so it is unwrapped instead of forcing the JSON fallback.
 */
function unwrapNullable(schema: Record<string, unknown>): Record<string, unknown> {
  for (const key of ['anyOf', 'oneOf']) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    const nonNull = branches.filter((b) => !(isRecord(b) && b.type === 'null'));
    if (branches.length === 2 && nonNull.length === 1 && isRecord(nonNull[0])) {
      const { [key]: _dropped, ...rest } = schema;
      return { ...nonNull[0], ...rest };
    }
  }
  return schema;
}

/** The schema a local JSON pointer (`#/definitions/Region`, `#/$defs/Region`) names, if any. */
function resolvePointer(root: Record<string, unknown>, ref: string): Record<string, unknown> | undefined {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isRecord(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return isRecord(node) ? node : undefined;
}

/**
 * One property's schema as a form field sees it. Generated schemas (pydantic and the like) write an
 * enum field as `{"allOf": [{"$ref": "#/definitions/Action"}], "default": …}` or `{"$ref": …}` and an
 * optional one as `anyOf: [X, null]`; all of these are unwrapped here, a few levels deep. The
 * referenced definition's own title and description describe the type ("An enumeration."), not the
 * field, so the property's own are kept instead. A remote or dangling `$ref` is left in place (and so
 * sends the form to the JSON fallback).
 */
export function resolveSchema(node: Record<string, unknown>, root: Record<string, unknown>): Record<string, unknown> {
  let schema = node;
  for (let depth = 0; depth < 10; depth++) {
    const unwrapped = unwrapNullable(schema);
    if (unwrapped !== schema) {
      schema = unwrapped;
      continue;
    }
    const allOf = schema.allOf;
    if (Array.isArray(allOf) && allOf.length === 1 && isRecord(allOf[0])) {
      const { allOf: _one, ...rest } = schema;
      schema = { ...allOf[0], ...rest };
      continue;
    }
    const target = typeof schema.$ref === 'string' ? resolvePointer(root, schema.$ref) : undefined;
    if (target) {
      const { $ref: _ref, ...rest } = schema;
      const { title: _title, description: _description, ...definition } = target;
      schema = { ...definition, ...rest };
      continue;
    }
    break;
  }
  return schema;
}

/** Whether `value` is something this field's widget holds as it is (before any schema validation). */
export function fitsField(
  field: Pick<FieldSpec, 'kind' | 'enumValues' | 'itemType' | 'schema'>,
  value: unknown,
): boolean {
  const isEnumValue = (v: unknown) => (field.enumValues ?? []).some((e) => jsonEqual(e, v));
  switch (field.kind) {
    case 'text':
    case 'multiline':
    case 'secret':
    case 'email':
    case 'url':
    case 'date':
    case 'datetime':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'select':
    case 'external_select':
      return isEnumValue(value);
    case 'multi_select':
    case 'multi_external_select':
      return Array.isArray(value) && value.every(isEnumValue);
    case 'string_list':
      return (
        Array.isArray(value) &&
        value.every((item) =>
          field.itemType === 'string'
            ? typeof item === 'string'
            : typeof item === 'number' && (field.itemType === 'number' || Number.isInteger(item)),
        )
      );
    case 'json': {
      const type = unwrapType(field.schema.type);
      return type === 'object' ? isRecord(value) : type === 'array' ? Array.isArray(value) : true;
    }
  }
}

/** The raw default, or its JSON-decoded form when only that one fits the field. */
function decodeDefault(field: FieldSpec, raw: unknown): unknown {
  if (fitsField(field, raw) || typeof raw !== 'string') return raw;
  const decoded = decodeJson(raw);
  return decoded.ok && fitsField(field, decoded.value) ? decoded.value : raw;
}

/** JSON.parse without throwing. */
export function decodeJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function finiteNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function nonNegativeInt(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** Builds one field, or returns the reason the property cannot be a form field. */
function toField(name: string, raw: unknown, required: boolean, root: Record<string, unknown>): FieldSpec | string {
  const label = name.length > 40 ? `${name.slice(0, 40)}…` : name;
  if (!isRecord(raw)) return `Property "${label}" has no readable schema.`;
  const schema = resolveSchema(raw, root);
  const complex = UNSUPPORTED_KEYWORDS.find((k) => k in schema);
  if (complex) return `Property "${label}" uses "${complex}".`;
  const kindInfo = classify(schema, root);
  if (typeof kindInfo === 'string') return `Property "${label}" ${kindInfo}.`;
  const title = typeof schema.title === 'string' && schema.title.trim() !== '' ? schema.title.trim() : '';
  const field: FieldSpec = {
    name,
    blockId: '',
    kind: kindInfo.kind,
    // Generated schemas often repeat the raw name as the title ("dry_run"): humanise those too.
    title: title === '' || title === name ? humanizeName(name) || 'Value' : title,
    description: typeof schema.description === 'string' ? schema.description.trim() : '',
    required,
    secret: kindInfo.kind === 'secret',
    schema,
  };
  if (kindInfo.enumValues) field.enumValues = kindInfo.enumValues;
  if (kindInfo.itemType) field.itemType = kindInfo.itemType;
  if ('default' in schema) field.default = decodeDefault(field, schema.default);
  const minimum = finiteNumber(schema.minimum);
  const maximum = finiteNumber(schema.maximum);
  const minLength = nonNegativeInt(schema.minLength);
  const maxLength = nonNegativeInt(schema.maxLength);
  if (minimum !== undefined) field.minimum = minimum;
  if (maximum !== undefined) field.maximum = maximum;
  if (minLength !== undefined) field.minLength = minLength;
  if (maxLength !== undefined) field.maxLength = maxLength;
  return field;
}

interface KindInfo {
  kind: FieldKind;
  enumValues?: unknown[];
  itemType?: 'string' | 'number' | 'integer';
}

function enumOf(schema: Record<string, unknown>): unknown[] | undefined | 'empty' {
  if (Array.isArray(schema.enum)) return schema.enum.length === 0 ? 'empty' : schema.enum;
  if ('const' in schema) return [schema.const];
  return undefined;
}

function classify(schema: Record<string, unknown>, root: Record<string, unknown>): KindInfo | string {
  if (isSecretSchema(schema)) return { kind: 'secret' };
  const enumValues = enumOf(schema);
  if (enumValues === 'empty') return 'has an empty enum';
  if (enumValues) return { kind: enumValues.length > MAX_STATIC_OPTIONS ? 'external_select' : 'select', enumValues };
  const type = unwrapType(schema.type);
  if (schema.type !== undefined && type === undefined) return 'has more than one type';
  switch (type) {
    case 'boolean':
      return { kind: 'boolean' };
    case 'integer':
      return { kind: 'integer' };
    case 'number':
      return { kind: 'number' };
    case 'string':
      return classifyString(schema);
    case 'array':
      return classifyArray(schema, root);
    case 'object':
    case undefined:
      // Untyped properties accept any JSON value, so they are entered as JSON.
      return { kind: 'json' };
    default:
      return `has the unsupported type "${String(type).slice(0, 40)}"`;
  }
}

function classifyString(schema: Record<string, unknown>): KindInfo {
  switch (schema.format) {
    case 'date':
      return { kind: 'date' };
    case 'date-time':
      return { kind: 'datetime' };
    case 'email':
      return { kind: 'email' };
    case 'uri':
    case 'url':
      return { kind: 'url' };
  }
  const maxLength = nonNegativeInt(schema.maxLength);
  const longDefault = typeof schema.default === 'string' && schema.default.length > MULTILINE_THRESHOLD;
  const multiline =
    schema.format === 'textarea' ||
    schema['x-multiline'] === true ||
    (maxLength !== undefined && maxLength > MULTILINE_THRESHOLD) ||
    longDefault;
  return { kind: multiline ? 'multiline' : 'text' };
}

function classifyArray(schema: Record<string, unknown>, root: Record<string, unknown>): KindInfo | string {
  const items = schema.items;
  if (items === undefined || items === true) return { kind: 'string_list', itemType: 'string' };
  if (!isRecord(items)) return { kind: 'json' };
  const inner = resolveSchema(items, root);
  const enumValues = enumOf(inner);
  if (enumValues === 'empty') return 'has an empty enum';
  if (enumValues) {
    return { kind: enumValues.length > MAX_STATIC_OPTIONS ? 'multi_external_select' : 'multi_select', enumValues };
  }
  if (UNSUPPORTED_KEYWORDS.some((k) => k in inner)) return { kind: 'json' };
  const itemType = unwrapType(inner.type);
  if (itemType === 'number' || itemType === 'integer') return { kind: 'string_list', itemType };
  if (itemType === 'string' || (inner.type === undefined && !('properties' in inner) && !('items' in inner))) {
    return { kind: 'string_list', itemType: 'string' };
  }
  // Objects, nested arrays and booleans are clearer to type as JSON than as lines of text.
  return { kind: 'json' };
}

/**
 * `field_<name>` when the name is short and plain, else `field_<index>`; de-duplicated so a
 * property literally named "3" cannot collide with the fourth property's index id.
 */
function assignBlockIds(fields: FieldSpec[]): void {
  const used = new Set<string>();
  fields.forEach((field) => {
    const id = FIELD_BLOCK_PREFIX + field.name;
    if (SAFE_NAME.test(field.name) && id.length <= 255 && id !== FALLBACK_BLOCK_ID) {
      field.blockId = id;
      used.add(id);
    }
  });
  fields.forEach((field, index) => {
    if (field.blockId !== '') return;
    let id = `${FIELD_BLOCK_PREFIX}${index}`;
    while (used.has(id)) id += '_';
    field.blockId = id;
    used.add(id);
  });
}

/** The field behind a block_id (for typeahead requests and error mapping). */
export function findField(spec: FormSpec, blockId: string): FieldSpec | undefined {
  return spec.kind === 'fields' ? spec.fields.find((f) => f.blockId === blockId) : undefined;
}

/** Structural equality for JSON values, so a prefilled `{"a":1}` finds its enum entry. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every(
    (k) => Object.hasOwn(b, k) && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
  );
}
