// Secrets at any depth: a value marked secret behind $ref/$defs/definitions, inside anyOf/oneOf/allOf,
// items, prefixItems, additionalProperties or patternProperties, in a form field or typed into the
// JSON fallback, never reaches a card, a draft, a prefilled form or a log line. The property test
// builds schemas with the secret at random depths and scans every output for the secret's text.
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Execution } from '../../../src/api/schemas.ts';
import { buildFormBlocks, maskSecrets, parseInputSchema, SECRET_MASK } from '../../../src/forms/index.ts';
import { secretFieldNames, stripSecrets } from '../../../src/forms/secrets.ts';
import { createLogger } from '../../../src/logger.ts';
import { buildResultCard, buildRunningCard } from '../../../src/slack/kit/execution-card.ts';

type Schema = Record<string, unknown>;

const spec = (schema: Schema) => parseInputSchema(JSON.stringify(schema));

describe('secret detection at any depth (examples from the issue)', () => {
  it('finds an optional password written as anyOf [password, null]', () => {
    const s = spec({
      type: 'object',
      properties: { pw: { anyOf: [{ type: 'string', format: 'password' }, { type: 'null' }] } },
    });
    expect(maskSecrets(s, { pw: 'hunter2' })).toEqual({ pw: SECRET_MASK });
    expect(secretFieldNames(s)).toEqual(['pw']);
  });

  it('treats writeOnly as secret: a secret input, never prefilled', () => {
    const s = spec({ type: 'object', properties: { key: { type: 'string', writeOnly: true } } });
    expect(s.kind === 'fields' && s.fields[0]?.kind).toBe('secret');
    expect(JSON.stringify(buildFormBlocks(s, { key: 'hunter2' }))).not.toContain('hunter2');
  });

  it('follows $ref into $defs and definitions, and local pointers', () => {
    const s = spec({
      type: 'object',
      $defs: {
        Creds: {
          type: 'object',
          properties: { password: { type: 'string', writeOnly: true }, user: { type: 'string' } },
        },
      },
      definitions: { Token: { type: 'secret' } },
      properties: {
        creds: { $ref: '#/$defs/Creds' },
        token: { $ref: '#/definitions/Token' },
        again: { $ref: '#/properties/token' },
      },
    });
    expect(maskSecrets(s, { creds: { user: 'u', password: 'p' }, token: 't', again: 'a' })).toEqual({
      creds: { user: 'u', password: SECRET_MASK },
      token: SECRET_MASK,
      again: SECRET_MASK,
    });
  });

  it('masks values typed into the JSON fallback, under additionalProperties and patternProperties', () => {
    const s = spec({
      type: 'object',
      oneOf: [{ required: ['a'] }, { required: ['b'] }],
      properties: {
        env: { type: 'object', additionalProperties: { type: 'string', 'x-secret': true } },
        keys: {
          type: 'object',
          patternProperties: { '^key_': { type: 'secret' } },
          additionalProperties: { type: 'string' },
        },
        list: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'string', format: 'password' }] },
      },
    });
    expect(s.kind).toBe('fallback');
    expect(
      maskSecrets(s, { env: { A: '1' }, keys: { key_1: 'k', name: 'n' }, list: ['first', 'second'], extra: 'x' }),
    ).toEqual({
      env: { A: SECRET_MASK },
      keys: { key_1: SECRET_MASK, name: 'n' },
      list: ['first', SECRET_MASK],
      extra: 'x',
    });
  });

  it('hides a JSON text typed where a structure with secrets is expected', () => {
    const s = spec({
      type: 'object',
      properties: { db: { type: 'object', properties: { pass: { type: 'secret' } } } },
    });
    expect(maskSecrets(s, { db: '{"pass":"hunter2"}' })).toEqual({ db: SECRET_MASK });
  });

  it('survives reference cycles', () => {
    const s = spec({
      type: 'object',
      $defs: { Node: { type: 'object', properties: { next: { $ref: '#/$defs/Node' }, key: { type: 'secret' } } } },
      properties: { head: { $ref: '#/$defs/Node' } },
    });
    expect(maskSecrets(s, { head: { next: { next: { key: 'k' } }, key: 'k' } })).toEqual({
      head: { next: { next: { key: SECRET_MASK } }, key: SECRET_MASK },
    });
  });
});

// ---- the property test --------------------------------------------------------------------------

const LEAVES: Schema[] = [
  { type: 'secret' },
  { type: 'string', format: 'password' },
  { type: 'string', 'x-secret': true },
  { type: 'string', writeOnly: true },
  { type: ['secret', 'null'] },
];

type Wrap =
  | 'property'
  | 'defs'
  | 'definitions'
  | 'anyOf'
  | 'oneOf'
  | 'allOf'
  | 'items'
  | 'prefixItems'
  | 'additionalProperties'
  | 'patternProperties';

const WRAPS: Wrap[] = [
  'property',
  'defs',
  'definitions',
  'anyOf',
  'oneOf',
  'allOf',
  'items',
  'prefixItems',
  'additionalProperties',
  'patternProperties',
];

/** Wraps (schema, value) once; definitions go to the root. */
function wrap(kind: Wrap, inner: { schema: Schema; value: unknown }, root: Schema, n: number) {
  switch (kind) {
    case 'property':
      return {
        schema: { type: 'object', properties: { [`p${n}`]: inner.schema, open: { type: 'string' } } },
        value: { [`p${n}`]: inner.value, open: `visible-${n}` },
      };
    case 'defs':
    case 'definitions': {
      const key = kind === 'defs' ? '$defs' : 'definitions';
      if (!root[key]) root[key] = {};
      const table = root[key] as Schema;
      table[`D${n}`] = inner.schema;
      return { schema: { $ref: `#/${key}/D${n}` }, value: inner.value };
    }
    case 'anyOf':
    case 'oneOf':
      return { schema: { [kind]: [inner.schema, { type: 'null' }] }, value: inner.value };
    case 'allOf':
      return { schema: { allOf: [{ description: 'x' }, inner.schema] }, value: inner.value };
    case 'items':
      return { schema: { type: 'array', items: inner.schema }, value: [inner.value, inner.value] };
    case 'prefixItems':
      return {
        schema: { type: 'array', prefixItems: [{ type: 'string' }, inner.schema] },
        value: [`visible-${n}`, inner.value],
      };
    case 'additionalProperties':
      return {
        schema: { type: 'object', properties: { known: { type: 'string' } }, additionalProperties: inner.schema },
        value: { known: `visible-${n}`, [`any${n}`]: inner.value },
      };
    case 'patternProperties':
      return {
        schema: {
          type: 'object',
          patternProperties: { '^s_': inner.schema },
          additionalProperties: { type: 'string' },
        },
        value: { [`s_${n}`]: inner.value, plain: `visible-${n}` },
      };
  }
}

function build(leaf: number, wraps: Wrap[], secret: string) {
  const root: Schema = { type: 'object' };
  let node = { schema: LEAVES[leaf]!, value: secret as unknown };
  wraps.forEach((w, i) => {
    node = wrap(w, node, root, i);
  });
  root.properties = { top: node.schema, region: { type: 'string' } };
  return { schema: root, params: { top: node.value, region: 'eu-visible' } };
}

/** Every line a logger writes while logging these params (as the bot logs inputs). */
function logged(params: Record<string, unknown>): string {
  let out = '';
  const sink = new Writable({
    write(chunk, _enc, done) {
      out += String(chunk);
      done();
    },
  });
  const logger = createLogger({ level: 'trace', destination: sink });
  for (const level of ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const)
    logger[level]({ inputs: params }, 'run');
  return out;
}

describe('secrets at random depths (property)', () => {
  it('never reach the mask output, drafts, prefilled forms, cards or logs', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: LEAVES.length - 1 }),
        fc.array(fc.constantFrom(...WRAPS), { minLength: 0, maxLength: 6 }),
        fc.stringMatching(/^[a-z0-9]{6,12}$/),
        (leaf, wraps, tail) => {
          const secret = `S3CRET-${tail}`;
          const { schema, params } = build(leaf, wraps, secret);
          const s = spec(schema);
          const masked = maskSecrets(s, params);
          const stripped = stripSecrets(s, params);
          const run = { runbookId: 'rb', runbookName: 'Runbook', proxyId: 'p', startedBy: 'U01ALICE', inputs: masked };
          const execution = Execution.parse({
            id: 'e1',
            workflowName: 'Runbook',
            executionStatus: 'EXECUTION_STATUS_SUCCEEDED',
          });
          const outputs = {
            masked: JSON.stringify(masked),
            stripped: JSON.stringify(stripped),
            draftForm: JSON.stringify(buildFormBlocks(s, stripped)),
            runningCard: JSON.stringify(buildRunningCard(run, ['e1'])),
            resultCard: JSON.stringify(buildResultCard(run, execution)),
            logs: logged(masked),
          };
          for (const [where, text] of Object.entries(outputs)) {
            expect(text.includes(secret), `${where} leaks the secret (wraps ${wraps.join(' > ')})`).toBe(false);
          }
          // Masking hides the secret, not the rest.
          expect(masked.region).toBe('eu-visible');
          expect(outputs.masked).toContain(SECRET_MASK);
        },
      ),
      { numRuns: 300 },
    );
  });
});
