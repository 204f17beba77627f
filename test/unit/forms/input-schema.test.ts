import { describe, expect, it } from 'vitest';
import { type FieldSpec, type FormSpec, findField, humanizeName, parseInputSchema } from '../../../src/forms/index.ts';

const EXAMPLE =
  '{"properties":{"region":{"default":"us-west-2","description":"AWS Region","title":"region","type":"string"},"dry_run":{"default":false,"title":"dry_run","type":"boolean"}},"required":["region"],"title":"Schema","type":"object"}';

function fields(spec: FormSpec): FieldSpec[] {
  if (spec.kind !== 'fields') throw new Error(`expected fields, got ${spec.kind}`);
  return spec.fields;
}

function one(property: Record<string, unknown>, required = false): FieldSpec {
  const schema = { type: 'object', properties: { p: property }, required: required ? ['p'] : [] };
  return fields(parseInputSchema(JSON.stringify(schema)))[0]!;
}

describe('parseInputSchema', () => {
  it('reads the service example: titles, descriptions, defaults, required', () => {
    const [region, dryRun] = fields(parseInputSchema(EXAMPLE));
    expect(region).toMatchObject({
      name: 'region',
      blockId: 'field_region',
      kind: 'text',
      title: 'Region',
      description: 'AWS Region',
      required: true,
      default: 'us-west-2',
      secret: false,
    });
    expect(dryRun).toMatchObject({ name: 'dry_run', blockId: 'field_dry_run', kind: 'boolean', title: 'Dry run' });
    expect(dryRun!.required).toBe(false);
    expect(dryRun!.default).toBe(false);
  });

  it('returns empty for "" and for object schemas without properties', () => {
    expect(parseInputSchema('')).toEqual({ kind: 'empty' });
    expect(parseInputSchema('   ')).toEqual({ kind: 'empty' });
    expect(parseInputSchema('{"type":"object","properties":{}}')).toEqual({ kind: 'empty' });
    expect(parseInputSchema('{"title":"Schema","type":"object"}')).toEqual({ kind: 'empty' });
  });

  it.each([
    [{ type: 'string' }, 'text'],
    [{ type: 'string', maxLength: 500 }, 'multiline'],
    [{ type: 'string', format: 'textarea' }, 'multiline'],
    [{ type: 'string', 'x-multiline': true }, 'multiline'],
    [{ type: 'string', default: 'x'.repeat(151) }, 'multiline'],
    [{ type: 'number' }, 'number'],
    [{ type: 'integer' }, 'integer'],
    [{ type: 'boolean' }, 'boolean'],
    [{ type: 'string', enum: ['a', 'b'] }, 'select'],
    [{ type: 'integer', enum: [1, 2, 3] }, 'select'],
    [{ type: 'string', enum: Array.from({ length: 101 }, (_, i) => `v${i}`) }, 'external_select'],
    [{ type: 'array', items: { type: 'string', enum: ['a', 'b'] } }, 'multi_select'],
    [{ type: 'array', items: { enum: Array.from({ length: 150 }, (_, i) => i) } }, 'multi_external_select'],
    [{ type: 'array', items: { type: 'string' } }, 'string_list'],
    [{ type: 'array' }, 'string_list'],
    [{ type: 'array', items: { type: 'integer' } }, 'string_list'],
    [{ type: 'array', items: { type: 'object' } }, 'json'],
    [{ type: 'array', items: { type: 'boolean' } }, 'json'],
    [{ type: 'object' }, 'json'],
    [{}, 'json'],
    [{ type: 'secret' }, 'secret'],
    [{ type: 'string', format: 'password' }, 'secret'],
    [{ type: 'string', 'x-secret': true }, 'secret'],
    [{ type: 'string', format: 'date' }, 'date'],
    [{ type: 'string', format: 'date-time' }, 'datetime'],
    [{ type: 'string', format: 'email' }, 'email'],
    [{ type: 'string', format: 'uri' }, 'url'],
    [{ type: 'string', format: 'url' }, 'url'],
    [{ type: ['integer', 'null'] }, 'integer'],
    [{ anyOf: [{ type: 'string', format: 'email' }, { type: 'null' }], default: null }, 'email'],
  ])('maps %j to %s', (property, kind) => {
    expect(one(property).kind).toBe(kind);
  });

  it('keeps item types, bounds and lengths for the builders', () => {
    expect(one({ type: 'array', items: { type: 'number' } }).itemType).toBe('number');
    expect(one({ type: 'integer', minimum: 1, maximum: 10 })).toMatchObject({ minimum: 1, maximum: 10 });
    expect(one({ type: 'string', minLength: 2, maxLength: 20 })).toMatchObject({ minLength: 2, maxLength: 20 });
    expect(one({ type: 'string', enum: ['x', 'y'] }).enumValues).toEqual(['x', 'y']);
    expect(one({ type: 'secret' }).secret).toBe(true);
  });

  it.each([
    ['invalid JSON', '{"properties": ', null],
    ['a JSON array', '[1,2]', null],
    ['a non-object root type', '{"type":"string"}', null],
  ])('falls back without a usable schema for %s', (_name, text, schema) => {
    const spec = parseInputSchema(text);
    expect(spec.kind).toBe('fallback');
    expect(spec.kind === 'fallback' && spec.schema).toBe(schema);
  });

  it.each([
    ['root oneOf', { oneOf: [{ type: 'object' }] }],
    ['root $ref', { $ref: '#/$defs/X', $defs: { X: { type: 'object' } } }],
    ['patternProperties', { type: 'object', patternProperties: { '^x': { type: 'string' } } }],
    [
      'a property with allOf of two',
      { type: 'object', properties: { a: { allOf: [{ type: 'string' }, { minLength: 2 }] } } },
    ],
    ['a property with $ref', { type: 'object', properties: { a: { $ref: '#/$defs/A' } } }],
    ['an unknown property type', { type: 'object', properties: { a: { type: 'file' } } }],
    ['a property with two types', { type: 'object', properties: { a: { type: ['string', 'number'] } } }],
    ['an empty enum', { type: 'object', properties: { a: { enum: [] } } }],
    ['a property schema that is not an object', { type: 'object', properties: { a: true } }],
    ['additionalProperties without properties', { type: 'object', additionalProperties: { type: 'string' } }],
    [
      '200 properties',
      { type: 'object', properties: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`p${i}`, {}])) },
    ],
  ])('falls back with the schema kept for validation on %s', (_name, schema) => {
    const spec = parseInputSchema(JSON.stringify(schema));
    expect(spec.kind).toBe('fallback');
    if (spec.kind === 'fallback') {
      expect(spec.schema).toEqual(schema);
      expect(spec.reason).not.toBe('');
    }
  });

  it('accepts exactly 80 properties as fields', () => {
    const schema = {
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`p${i}`, {}])),
    };
    expect(fields(parseInputSchema(JSON.stringify(schema)))).toHaveLength(80);
  });

  it('gives weird property names unique, safe block ids', () => {
    const long = 'x'.repeat(300);
    const properties = {
      'with space': { type: 'string' },
      'dotted.name': { type: 'string' },
      'ünïcødé 🚀': { type: 'string' },
      [long]: { type: 'string' },
      '': { type: 'string' },
      '3': { type: 'string' },
      __proto__: { type: 'string' },
      _json: { type: 'string' },
    };
    const text = `{${Object.entries(properties)
      .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`)
      .join(',')},"__proto__":{"type":"number"}}`;
    const list = fields(parseInputSchema(`{"type":"object","properties":${text}}`));
    const ids = list.map((f) => f.blockId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(id.startsWith('field_')).toBe(true);
      expect(id.length).toBeLessThanOrEqual(255);
    }
    const byName = new Map(list.map((f) => [f.name, f]));
    expect(byName.get('dotted.name')!.blockId).toBe('field_dotted.name');
    expect(byName.get('with space')!.blockId).toMatch(/^field_\d+_*$/);
    expect(byName.get(long)!.blockId).toMatch(/^field_\d+_*$/);
    expect(byName.get('_json')!.blockId).not.toBe('field__json');
    expect(byName.get('__proto__')!.kind).toBe('number');
    expect(byName.get('')!.title).toBe('Value');
    expect(findField({ kind: 'fields', fields: list, schema: {} }, byName.get('3')!.blockId)!.name).toBe('3');
  });
});

describe('humanizeName', () => {
  it.each([
    ['dry_run', 'Dry run'],
    ['region', 'Region'],
    ['instanceID', 'Instance ID'],
    ['AWS_region', 'AWS region'],
    ['max-retries', 'Max retries'],
    ['', ''],
  ])('%s → %s', (name, title) => {
    expect(humanizeName(name)).toBe(title);
  });
});
