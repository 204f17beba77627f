// Secret values in free text: which values count (schema, credential-like keys, fail closed without a
// schema reading), every echo form is masked (plain, base64 at any alignment, URL-safe base64,
// percent-encoding by any encoder, JSON escapes), and short values are left alone.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseInputSchema } from '../../../src/forms/input-schema.ts';
import { MIN_SECRET_LENGTH, maskSecretText, secretValuesOf } from '../../../src/forms/secret-values.ts';
import { maskSecrets, SECRET_MASK } from '../../../src/forms/secrets.ts';
import { withoutBodies } from '../../../src/logger.ts';

const SCHEMA = parseInputSchema(
  JSON.stringify({
    type: 'object',
    properties: { region: { type: 'string' }, key: { type: 'string', format: 'password' } },
  }),
);

describe('secretValuesOf', () => {
  it('takes what the schema marks secret and what is named like a credential', () => {
    const values = secretValuesOf([SCHEMA], {
      region: 'us-west-2',
      key: 'schema-secret',
      extra: { api_key: 'nested-key', tokens: ['t-one', 't-two'] },
    });
    expect(values.sort()).toEqual(['nested-key', 'schema-secret', 't-one', 't-two']);
  });

  it('without a schema, key names decide; without a readable schema, every value is secret', () => {
    const params = { password: 'hunter22', target: 'edge-1' };
    expect(secretValuesOf([parseInputSchema('')], params)).toEqual(['hunter22']);
    expect(secretValuesOf(null, params).sort()).toEqual(['edge-1', 'hunter22']);
  });

  it(`ignores values shorter than ${MIN_SECRET_LENGTH} characters`, () => {
    expect(secretValuesOf([SCHEMA], { key: 'abc' })).toEqual([]);
    expect(maskSecretText('abc abcd', ['abc'])).toBe('abc abcd');
  });
});

describe('maskSecretText', () => {
  const secret = 'k3y P@ss/w+rd&x=ü?>~';
  const echoes = [
    secret,
    Buffer.from(secret).toString('base64'),
    Buffer.from(secret).toString('base64').replace(/=+$/, ''),
    Buffer.from(secret).toString('base64url'),
    encodeURIComponent(secret),
    encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
    new URLSearchParams({ s: secret }).toString().slice(2),
    JSON.stringify(secret).slice(1, -1),
  ];

  it.each(echoes)('masks %s', (echo) => {
    expect(maskSecretText(`before ${echo} after`, [secret])).toBe(`before ${SECRET_MASK} after`);
  });

  it('masks a multi-line key printed as JSON (\\n escapes), with CRLF line ends, or by an ASCII-only JSON encoder', () => {
    const pem = '-----BEGIN KEY-----\nMIIEabcdefgh\tXYZ\n-----END KEY-----';
    const asciiJson = '"p\\u00e4ss-w\\u00F6rd \\ud83d\\udd11"';
    expect(maskSecretText(`{"key":${JSON.stringify(pem)}}`, [pem])).toBe(`{"key":"${SECRET_MASK}"}`);
    expect(maskSecretText(`key:\r\n${pem.replace(/\n/g, '\r\n')}\r\n`, [pem])).toBe(`key:\r\n${SECRET_MASK}\r\n`);
    expect(maskSecretText(`{"key": ${asciiJson}}`, ['päss-wörd 🔑'])).toBe(`{"key": "${SECRET_MASK}"}`);
  });

  it('masks a secret longer than the part it is looked for by, all of it', () => {
    const long = `${'a1b2c3d4'.repeat(700)}TAIL-OF-THE-KEY`;
    const values = secretValuesOf([SCHEMA], { key: long });
    const masked = maskSecretText(`start ${long} end`, values);
    expect(masked).not.toContain('TAIL-OF-THE-KEY');
    expect(masked).not.toContain('a1b2c3d4');
    expect(masked.startsWith('start ')).toBe(true);
  });

  it('masks the secret inside a longer base64 text at any byte alignment', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), (before, after) => {
        const encoded = Buffer.from(`${before}${secret}${after}`).toString('base64');
        const masked = maskSecretText(encoded, [secret]);
        expect(masked).toContain(SECRET_MASK);
        // What is left of the secret's encoding is at most the two partial characters at each edge.
        const core = Buffer.from(secret).toString('base64').slice(0, 24);
        expect(masked).not.toContain(core);
      }),
    );
  });

  it('leaves text without the secret as it was', () => {
    expect(maskSecretText('nothing to see', [secret])).toBe('nothing to see');
    expect(maskSecretText('anything', [])).toBe('anything');
  });
});

describe('maskSecrets on a runbook without a schema', () => {
  it('masks keys named like credentials, at any depth', () => {
    expect(
      maskSecrets(parseInputSchema(''), { password: 'x1', api_key: 'x2', nested: { token: 'x3' }, host: 'h' }),
    ).toEqual({
      password: SECRET_MASK,
      api_key: SECRET_MASK,
      nested: { token: SECRET_MASK },
      host: 'h',
    });
  });
});

describe('withoutBodies (Bolt and Web API client log lines)', () => {
  it.each([
    ['http request body: {"view":{"blocks":[]}}', 'http request body: [not logged]'],
    ['http request result: {"ok":true,"message":{}}', 'http request result: [not logged]'],
    ['ack() response sent (body: {"response_action":"update"})', 'ack() response sent (body: [not logged])'],
    ['Error details: boom, storedResponse: {"view":{}}', 'Error details: boom, storedResponse: [not logged]'],
    ['{"type":"view_submission","view":{}}', '[a JSON body, not logged]'],
    ["apiCall('views.update') start", "apiCall('views.update') start"],
  ])('%s', (line, expected) => {
    expect(withoutBodies(line)).toBe(expected);
  });
});
