import { describe, expect, it } from 'vitest';
import { fieldMap, normalizeEnumValue, parseFilter } from '../../../src/emulator/filter.ts';

const fields = fieldMap({ name: [], tag: ['tags'], category: [] });

describe('parseFilter', () => {
  it('splits bare words, field:value and quoted values', () => {
    expect(parseFilter('  restart  tag:k8s name:"Drain Kubernetes" "disk usage" ', fields)).toEqual([
      { field: null, value: 'restart' },
      { field: 'tag', value: 'k8s' },
      { field: 'name', value: 'Drain Kubernetes' },
      { field: null, value: 'disk usage' },
    ]);
  });

  it('accepts aliases and field names in any case', () => {
    expect(parseFilter('TAGS:aws', fields)).toEqual([{ field: 'tag', value: 'aws' }]);
  });

  it('returns no terms for an empty expression', () => {
    expect(parseFilter('   ', fields)).toEqual([]);
  });

  it.each([
    ['owner:me', /unknown field "owner"/],
    ['name:', /empty value/],
    ['name:"open', /unterminated quote/],
  ])('rejects %j', (expression, why) => {
    expect(() => parseFilter(expression, fields)).toThrow(why);
  });

  it('normalises enum values in short or full form', () => {
    expect(normalizeEnumValue('secops', 'CATEGORY_TYPE_')).toBe('CATEGORY_TYPE_SECOPS');
    expect(normalizeEnumValue('CATEGORY_TYPE_COST_OPT', 'CATEGORY_TYPE_')).toBe('CATEGORY_TYPE_COST_OPT');
    expect(normalizeEnumValue('in-progress', 'EXECUTION_STATUS_')).toBe('EXECUTION_STATUS_IN_PROGRESS');
  });
});
