// Property test: whatever a runbook's inputSchema holds, the form builds, fits in a modal next to
// the meta blocks, keeps every Block Kit limit, and reading it back never throws.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildFormBlocks, maskSecrets, parseInputSchema, readFormValues } from '../../../src/forms/index.ts';
import { checkBlocks } from '../../../src/slack/kit/limits.ts';
import { submit } from './slack-state.ts';

/** Limits checked here in UTF-16 units (stricter than Slack's characters) on top of checkBlocks. */
const LIMITS: Record<string, number> = {
  label: 2000,
  hint: 2000,
  placeholder: 150,
  initial_value: 3000,
  block_id: 255,
  action_id: 255,
};

function limitViolations(node: unknown, path: string, out: string[]): string[] {
  if (Array.isArray(node)) {
    node.forEach((n, i) => {
      limitViolations(n, `${path}[${i}]`, out);
    });
    return out;
  }
  if (typeof node !== 'object' || node === null) return out;
  const record = node as Record<string, unknown>;
  for (const [key, value] of Object.entries(record)) {
    const max = LIMITS[key];
    const text = typeof value === 'string' ? value : (value as { text?: unknown } | null)?.text;
    if (max !== undefined && typeof text === 'string' && text.length > max) out.push(`${path}.${key} > ${max}`);
    if (key === 'options' && Array.isArray(value)) {
      if (value.length > 100) out.push(`${path}.options > 100`);
      for (const option of value as { text: { text: string }; value: string }[]) {
        if (option.text.text.length > 75 || option.text.text.length === 0) out.push(`${path} option text`);
        if (option.value.length > 150) out.push(`${path} option value`);
      }
    }
    limitViolations(value, `${path}.${key}`, out);
  }
  return out;
}

const name = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', minLength: 240, maxLength: 400 }),
  fc.constantFrom('region', 'dry_run', '_json', '0', '1', 'a.b', 'with space', '__proto__', 'constructor'),
);
// Texts right around each limit catch off-by-one cuts; long random ones catch the rest.
const aroundLimit = fc
  .constantFrom(74, 75, 76, 149, 150, 151, 1999, 2000, 2001, 2999, 3000, 3001)
  .chain((n) => fc.oneof(fc.constant('x'.repeat(n)), fc.constant(`${'x'.repeat(n - 1)}😀`)));
const longText = fc.oneof(
  fc.string({ maxLength: 20 }),
  aroundLimit,
  fc.string({ unit: 'binary', minLength: 60, maxLength: 3500 }),
);
const scalar = fc.oneof(longText, fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
const type = fc.constantFrom<unknown>(
  'string',
  'number',
  'integer',
  'boolean',
  'array',
  'object',
  'secret',
  'null',
  'file',
  ['string', 'null'],
  ['string', 'number'],
);
const format = fc.constantFrom('date', 'date-time', 'email', 'uri', 'url', 'password', 'textarea', 'uuid');

const renderableType = fc.constantFrom<unknown>('string', 'number', 'integer', 'boolean', 'array', 'object', 'secret');

const leafOf = (typeArb: fc.Arbitrary<unknown>) =>
  fc.record(
    {
      type: typeArb,
      format,
      title: longText,
      description: longText,
      enum: fc.array(scalar, { maxLength: 160 }),
      default: fc.oneof(scalar, fc.jsonValue({ maxDepth: 2 })),
      minimum: fc.double(),
      maximum: fc.double(),
      minLength: fc.integer({ min: -5, max: 5000 }),
      maxLength: fc.integer({ min: -5, max: 5000 }),
      'x-secret': fc.boolean(),
    },
    { requiredKeys: [] },
  );
const leafSchema = leafOf(type);
// Mostly renderable properties, so that most generated schemas exercise the field path, not the fallback.
const propertySchema = fc.oneof(
  { weight: 12, arbitrary: leafOf(renderableType) },
  leafSchema,
  {
    weight: 2,
    arbitrary: fc.record(
      { type: fc.constant('array'), items: leafSchema, default: fc.jsonValue({ maxDepth: 2 }) },
      { requiredKeys: ['type'] },
    ),
  },
  { weight: 2, arbitrary: fc.record({ anyOf: fc.tuple(leafOf(renderableType), fc.constant({ type: 'null' })) }) },
  fc.constantFrom<unknown>(true, {}, { oneOf: [] }, { $ref: '#/x' }),
);
const schemaObject = fc.dictionary(name, propertySchema, { maxKeys: 120 }).chain((properties) =>
  fc.record({
    type: fc.constantFrom<unknown>('object', 'object', 'object', 'string', undefined),
    properties: fc.constant(properties),
    required: fc.subarray(Object.keys(properties)),
  }),
);
const inputSchema = fc.oneof(
  { weight: 8, arbitrary: schemaObject.map((s) => JSON.stringify(s)) },
  { weight: 1, arbitrary: fc.string() },
  { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
);
const prefill = fc.dictionary(name, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 10 });

describe('forms under arbitrary schemas', () => {
  it('always builds a valid, bounded form and reads it back without throwing', () => {
    const STATS = { empty: 0, fields: 0, fallback: 0 };
    fc.assert(
      fc.property(inputSchema, fc.option(prefill, { nil: undefined }), (text, values) => {
        const spec = parseInputSchema(text);
        STATS[spec.kind]++;
        const blocks = buildFormBlocks(spec, values);
        expect(blocks.length).toBeLessThanOrEqual(95);
        expect(checkBlocks(blocks, 'modal')).toEqual([]);
        expect(limitViolations(blocks, 'blocks', [])).toEqual([]);
        for (const block of blocks) expect((block as { block_id: string }).block_id.startsWith('field_')).toBe(true);
        const result = readFormValues(spec, submit(blocks));
        if (result.ok) expect(() => maskSecrets(spec, result.params)).not.toThrow();
        else for (const id of Object.keys(result.errors)) expect(id.startsWith('field_')).toBe(true);
      }),
      { numRuns: 300 },
    );
    // The generators must reach every outcome, or the property proves less than it claims.
    expect(STATS.fields).toBeGreaterThan(0);
    expect(STATS.fallback).toBeGreaterThan(0);
    expect(STATS.empty).toBeGreaterThan(0);
  });
});
