import { describe, expect, it } from 'vitest';
import { maskSecrets, parseInputSchema, SECRET_MASK, secretFieldNames } from '../../../src/forms/index.ts';

const SCHEMA = {
  type: 'object',
  properties: {
    region: { type: 'string' },
    token: { type: 'secret' },
    password: { type: 'string', format: 'password' },
    key: { type: 'string', 'x-secret': true },
    // A name alone does not make a secret: only what the schema declares counts.
    api_token_hint: { type: 'string' },
    db: { type: 'object', properties: { user: { type: 'string' }, pass: { type: 'secret' } } },
  },
};

describe('secrets', () => {
  const spec = parseInputSchema(JSON.stringify(SCHEMA));

  it('lists the declared secret fields', () => {
    expect(secretFieldNames(spec)).toEqual(['token', 'password', 'key']);
  });

  it('masks secret values, also nested ones, without changing the input', () => {
    const params = {
      region: 'eu',
      token: 't',
      password: 'p',
      key: 'k',
      api_token_hint: 'h',
      db: { user: 'u', pass: 'x' },
    };
    const masked = maskSecrets(spec, params);
    expect(masked).toEqual({
      region: 'eu',
      token: SECRET_MASK,
      password: SECRET_MASK,
      key: SECRET_MASK,
      api_token_hint: 'h',
      db: { user: 'u', pass: SECRET_MASK },
    });
    expect(params.token).toBe('t');
    expect(SECRET_MASK).toBe('••••••');
  });

  it('masks secrets in the fallback form too', () => {
    const fallback = parseInputSchema(JSON.stringify({ ...SCHEMA, allOf: [{ type: 'object' }] }));
    expect(fallback.kind).toBe('fallback');
    expect(secretFieldNames(fallback)).toEqual(['token', 'password', 'key']);
    expect(maskSecrets(fallback, { token: 'secret', region: 'eu' })).toEqual({ token: SECRET_MASK, region: 'eu' });
  });

  it('has nothing to mask without a readable schema', () => {
    expect(secretFieldNames(parseInputSchema(''))).toEqual([]);
    expect(maskSecrets(parseInputSchema('{bad'), { a: 1 })).toEqual({ a: 1 });
  });
});

describe('stripSecrets', () => {
  it('removes secret values at every depth, for drafts, re-runs and edit forms', async () => {
    const { stripSecrets } = await import('../../../src/forms/secrets.ts');
    const { parseInputSchema } = await import('../../../src/forms/input-schema.ts');
    const spec = parseInputSchema(
      JSON.stringify({
        type: 'object',
        properties: {
          token: { type: 'secret' },
          db: {
            type: 'object',
            properties: { user: { type: 'string' }, password: { type: 'string', format: 'password' } },
          },
          region: { type: 'string' },
        },
      }),
    );
    const stripped = stripSecrets(spec, { token: 't0p', db: { user: 'u', password: 'hunter2' }, region: 'eu' });
    expect(stripped).toEqual({ db: { user: 'u' }, region: 'eu' });
    expect(JSON.stringify(stripped)).not.toContain('hunter2');
  });
});
