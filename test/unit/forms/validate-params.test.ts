import { describe, expect, it } from 'vitest';
import { parseInputSchema, validateParams } from '../../../src/forms/index.ts';
import { validatorCacheSize } from '../../../src/forms/validate-params.ts';

function spec(properties: Record<string, unknown>, required: string[] = []) {
  return parseInputSchema(JSON.stringify({ type: 'object', properties, required }));
}

describe('validateParams', () => {
  it.each([
    [{ type: 'integer', maximum: 10 }, 11, 'Must be at most 10'],
    [{ type: 'integer', minimum: 1 }, 0, 'Must be at least 1'],
    [{ type: 'number', exclusiveMaximum: 1 }, 1, 'Must be less than 1'],
    [{ type: 'number', exclusiveMinimum: 0 }, 0, 'Must be greater than 0'],
    [{ type: 'number', multipleOf: 5 }, 7, 'Must be a multiple of 5'],
    [{ type: 'integer' }, 1.5, 'Must be a whole number'],
    [{ type: 'string', maxLength: 3 }, 'abcd', 'Must be at most 3 characters'],
    [{ type: 'string', pattern: '^[a-z]+$' }, 'A1', 'Must match the pattern ^[a-z]+$'],
    [{ type: 'string', format: 'email' }, 'nope', 'Must be a valid email address'],
    [{ type: 'string', format: 'date' }, '2024-13-01', 'Must be a valid date (YYYY-MM-DD)'],
    [{ type: 'string', enum: ['a', 'b', 'c'] }, 'd', 'Must be one of: a, b, c'],
    [{ type: 'array', items: { type: 'string' }, maxItems: 1 }, ['a', 'b'], 'Must have at most 1 values'],
    [{ type: 'array', items: { type: 'integer', maximum: 5 } }, [1, 9], '[1]: Must be at most 5'],
    [{ type: 'secret', minLength: 8 }, 'short', 'Must be at least 8 characters'],
  ])('%j with %j → %s', (property, value, message) => {
    expect(validateParams(spec({ p: property }), { p: value })).toEqual({ ok: false, errors: { field_p: message } });
  });

  it('accepts valid params unchanged, reading type "secret" as a string', () => {
    const s = spec({ token: { type: 'secret' }, n: { type: ['integer', 'null'] } }, ['token']);
    expect(validateParams(s, { token: 'x', n: null })).toEqual({ ok: true, params: { token: 'x', n: null } });
    expect(validateParams(s, { token: 5 })).toEqual({ ok: false, errors: { field_token: 'Must be text' } });
  });

  it('ignores unknown formats and keywords and a foreign $schema', () => {
    const s = parseInputSchema(
      JSON.stringify({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: { a: { type: 'string', format: 'textarea', 'x-ui': { rows: 3 } } },
      }),
    );
    expect(validateParams(s, { a: 'anything' }).ok).toBe(true);
  });

  it('reports only the real error of a nullable field, not the null branch', () => {
    const s = spec({ n: { anyOf: [{ type: 'integer', maximum: 3 }, { type: 'null' }] } });
    expect(validateParams(s, { n: 5 })).toEqual({ ok: false, errors: { field_n: 'Must be at most 3' } });
  });

  it('puts errors on no known field on the first field', () => {
    const s = parseInputSchema(
      JSON.stringify({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false }),
    );
    expect(validateParams(s, { a: 'x', b: 1 })).toEqual({ ok: false, errors: { field_a: 'Unexpected key "b"' } });
  });

  it('accepts any object when ajv cannot compile the schema (the server still validates)', () => {
    const s = parseInputSchema(
      JSON.stringify({ type: 'object', properties: { a: { type: 'object' } }, $ref: '#/nowhere' }),
    );
    expect(s.kind).toBe('fallback');
    expect(validateParams(s, { a: 1 })).toEqual({ ok: true, params: { a: 1 } });
  });

  it('keeps at most 200 compiled validators', () => {
    for (let i = 0; i < 230; i++) validateParams(spec({ [`p${i}`]: { type: 'string' } }), {});
    expect(validatorCacheSize()).toBeLessThanOrEqual(200);
    expect(validatorCacheSize()).toBeGreaterThan(0);
  });
});
