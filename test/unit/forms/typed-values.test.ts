import { describe, expect, it } from 'vitest';
import { parseInputSchema } from '../../../src/forms/input-schema.ts';
import { describeFieldErrors, typeValues, validateObject } from '../../../src/forms/typed-values.ts';

const spec = parseInputSchema(
  JSON.stringify({
    type: 'object',
    required: ['namespace'],
    properties: {
      namespace: { type: 'string', enum: ['prod', 'staging'] },
      replicas: { type: 'integer', minimum: 1, maximum: 10 },
      dryRun: { type: 'boolean' },
      zones: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] } },
      ports: { type: 'array', items: { type: 'integer' } },
      note: { type: 'string' },
    },
  }),
);

describe('typeValues', () => {
  it('types each value per the schema', () => {
    expect(
      typeValues(spec, {
        namespace: 'PROD',
        replicas: '3',
        dryRun: 'yes',
        zones: 'a, c',
        ports: '80,443',
        note: 'x=1',
      }),
    ).toEqual({
      ok: true,
      params: { namespace: 'prod', replicas: 3, dryRun: true, zones: ['a', 'c'], ports: [80, 443], note: 'x=1' },
    });
  });

  it('says what is wrong per input: conversion, unknown input, schema rule, missing required', () => {
    const r = typeValues(spec, { namespace: 'dev', replicas: 'two', colour: 'red' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.name)).toEqual(['namespace', 'replicas', 'colour']);
    expect(r.errors[0]!.message).toMatch(/one of prod, staging/);
    expect(r.errors[2]!.message).toMatch(/Not an input.*namespace, replicas/);
    const schema = typeValues(spec, { namespace: 'prod', replicas: '50' });
    expect(schema.ok).toBe(false);
    if (!schema.ok) expect(describeFieldErrors(schema.errors)).toMatch(/^replicas: .*10/);
    const missing = typeValues(spec, { replicas: '2' });
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.params).toEqual({ replicas: 2 });
  });

  it('asks an integer input for a whole number, also when the text is no number at all', () => {
    for (const replicas of ['two', '2.5']) {
      const r = typeValues(spec, { namespace: 'prod', replicas });
      expect(r.ok ? null : r.errors[0]?.message).toBe('Must be a whole number');
    }
  });

  it('an input named __proto__ cannot reach the prototype', () => {
    const fallback = parseInputSchema('{"type":"object","anyOf":[{}]}');
    const typed = JSON.parse('{"__proto__": "{\\"polluted\\": true}"}') as Record<string, string>;
    expect(Object.keys(typed)).toEqual(['__proto__']);
    const r = typeValues(fallback, typed);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((r.params as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.keys(r.params)).toEqual(['__proto__']);
  });

  it('validateObject checks a JSON object (workflow step inputs) with the same rules', () => {
    expect(validateObject(spec, { namespace: 'prod' })).toEqual({ ok: true, params: { namespace: 'prod' } });
    const bad = validateObject(spec, { namespace: 'prod', replicas: 0 });
    expect(bad.ok).toBe(false);
  });
});
