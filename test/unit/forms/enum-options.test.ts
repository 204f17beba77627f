import { describe, expect, it } from 'vitest';
import { enumOptions, type FieldSpec, findField, parseInputSchema } from '../../../src/forms/index.ts';

const VALUES = [
  ...Array.from({ length: 300 }, (_, i) => `us-region-${i}`),
  'eu-west-1',
  'west-europe',
  'WEST-US',
  'x'.repeat(200),
  42,
];

function field(values: unknown[]): FieldSpec {
  const spec = parseInputSchema(JSON.stringify({ type: 'object', properties: { region: { enum: values } } }));
  return findField(spec, 'field_region')!;
}

describe('enumOptions', () => {
  const f = field(VALUES);

  it('is used for external selects of more than 100 values', () => {
    expect(f.kind).toBe('external_select');
  });

  it('lists the first 100 values for an empty query', () => {
    const options = enumOptions(f, '');
    expect(options).toHaveLength(100);
    expect(options[0]).toEqual({ text: { type: 'plain_text', text: 'us-region-0' }, value: '0' });
  });

  it('matches case-insensitively, prefix matches first', () => {
    expect(enumOptions(f, 'West').map((o) => o.text.text)).toEqual(['west-europe', 'WEST-US', 'eu-west-1']);
  });

  it('caps the result at 100 options and keeps option texts within 75 characters', () => {
    expect(enumOptions(f, 'region')).toHaveLength(100);
    const [long] = enumOptions(f, 'xxx');
    expect(long!.text.text.length).toBeLessThanOrEqual(75);
    expect(long!.value).toBe('303');
  });

  it('finds non-string values by their JSON text', () => {
    const options = enumOptions(f, '42');
    expect(options[0]).toEqual({ text: { type: 'plain_text', text: '42' }, value: '304' });
    expect(options.slice(1).map((o) => o.text.text)).toEqual(['us-region-42', 'us-region-142', 'us-region-242']);
  });

  it('returns nothing when nothing matches', () => {
    expect(enumOptions(f, 'mars')).toEqual([]);
  });
});
