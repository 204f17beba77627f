// Real runbook schemas render within Slack's limits, open prefilled with their (decoded, valid)
// defaults, submit those untouched, and reopen filled with what they submitted.
import type { InputBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { INPUT_SCHEMAS } from '../../../src/emulator/input-schemas.ts';
import { buildFormBlocks, parseInputSchema, readFormValues } from '../../../src/forms/index.ts';
import { checkBlocks } from '../../../src/slack/kit/limits.ts';
import { FALLBACK_SCHEMA, REAL_SCHEMAS } from './fixtures/real-schemas.ts';
import { submit, untouchedState } from './slack-state.ts';

/** Whether a block's element opens holding a value. */
function prefilled(block: InputBlock): boolean {
  const state = untouchedState(block.element as unknown as Record<string, unknown>);
  return Object.entries(state).some(
    ([key, value]) => key !== 'type' && value !== null && !(Array.isArray(value) && value.length === 0),
  );
}

describe.each(REAL_SCHEMAS)('$name', ({ schema, submits, opensEmpty }) => {
  const spec = parseInputSchema(JSON.stringify(schema));

  it('is shown field by field, within Slack limits', () => {
    expect(spec.kind).toBe('fields');
    const blocks = buildFormBlocks(spec);
    expect(checkBlocks(blocks, 'modal')).toEqual([]);
    expect(blocks).toHaveLength(Object.keys(schema.properties as object).length);
  });

  it('opens with every usable default filled in, and no other', () => {
    const blocks = buildFormBlocks(spec) as InputBlock[];
    const empty = blocks.filter((b) => !prefilled(b)).map((b) => b.block_id);
    expect(empty.sort()).toEqual([...opensEmpty].sort());
  });

  it('submits the defaults untouched, and reopens filled with what it submitted', () => {
    const first = readFormValues(spec, submit(buildFormBlocks(spec)));
    expect(first).toEqual({ ok: true, params: submits });
    const again = readFormValues(spec, submit(buildFormBlocks(spec, submits)));
    expect(again).toEqual(first);
  });
});

describe('the JSON fallback of a real schema', () => {
  const spec = parseInputSchema(JSON.stringify(FALLBACK_SCHEMA));
  const [block] = buildFormBlocks(spec) as InputBlock[];
  const initial = (block!.element as { initial_value?: string }).initial_value ?? '';

  it('is prefilled only with defaults the schema accepts, decoded, and never a secret', () => {
    expect(spec.kind).toBe('fallback');
    expect(JSON.parse(initial)).toEqual({ selector: 'app=web', namespaces: ['default'], level: 'debug' });
    expect(initial).not.toContain('hunter2');
  });

  it('leaves out a secret reached through $ref, default and prefill alike', () => {
    const schema = {
      definitions: { Token: { type: 'string', format: 'password' } },
      properties: {
        token: { $ref: '#/definitions/Token', default: 'hunter2' },
        mode: { oneOf: [{ type: 'string' }, { type: 'integer' }], default: 'fast' },
      },
      type: 'object',
    };
    const fallback = parseInputSchema(JSON.stringify(schema));
    expect(fallback.kind).toBe('fallback');
    const [box] = buildFormBlocks(fallback, { token: 'hunter3', mode: 'slow' }) as InputBlock[];
    const text = (box!.element as { initial_value?: string }).initial_value ?? '';
    expect(JSON.parse(text)).toEqual({ mode: 'slow' });
  });

  it('submits its prefill untouched without an error', () => {
    expect(readFormValues(spec, submit([block!]))).toEqual({
      ok: true,
      params: { selector: 'app=web', namespaces: ['default'], level: 'debug' },
    });
  });
});

describe('defaults stored JSON-encoded', () => {
  const field = (property: Record<string, unknown>) => {
    const spec = parseInputSchema(JSON.stringify({ type: 'object', properties: { p: property } }));
    if (spec.kind !== 'fields') throw new Error(`expected fields, got ${spec.kind}`);
    return spec.fields[0]!;
  };

  it('are decoded when only the decoded value fits the field', () => {
    expect(field({ enum: ['Add', 'Remove'], default: '"Add"' }).default).toBe('Add');
    expect(field({ type: 'array', items: { type: 'string' }, default: '["abc"]' }).default).toEqual(['abc']);
    expect(field({ type: 'array', items: { enum: ['a', 'b'] }, default: '["b"]' }).default).toEqual(['b']);
    expect(field({ type: 'object', default: '{"a": 1}' }).default).toEqual({ a: 1 });
    expect(field({ type: 'integer', default: '7' }).default).toBe(7);
    expect(field({ type: 'boolean', default: 'true' }).default).toBe(true);
  });

  it('are kept as they are when the raw value fits, or when nothing does', () => {
    // A string default may well contain quotes or brackets: it fits a string field as it is.
    expect(field({ type: 'string', default: '"quoted"' }).default).toBe('"quoted"');
    expect(field({ type: 'string', default: '["abc"]' }).default).toBe('["abc"]');
    expect(field({ enum: ['"Add"', 'Add'], default: '"Add"' }).default).toBe('"Add"');
    expect(field({ type: 'number', default: '' }).default).toBe('');
    expect(field({ enum: ['Add'], default: '"Remove"' }).default).toBe('"Remove"');
  });

  it('label an enum reached through $ref with the property, not the definition', () => {
    const spec = parseInputSchema(
      JSON.stringify({
        definitions: { Action: { title: 'Action', description: 'An enumeration.', enum: ['Add'], type: 'string' } },
        properties: { tag_action: { allOf: [{ $ref: '#/definitions/Action' }], title: 'tag_action' } },
        type: 'object',
      }),
    );
    expect(spec.kind === 'fields' && spec.fields[0]).toMatchObject({
      kind: 'select',
      title: 'Tag action',
      description: '',
      enumValues: ['Add'],
    });
  });

  it('a $ref that loops or points nowhere still falls back to JSON', () => {
    const loop = { definitions: { A: { $ref: '#/definitions/A' } }, properties: { a: { $ref: '#/definitions/A' } } };
    expect(parseInputSchema(JSON.stringify(loop)).kind).toBe('fallback');
    expect(parseInputSchema(JSON.stringify({ properties: { a: { $ref: 'https://example.com/a.json' } } })).kind).toBe(
      'fallback',
    );
  });
});

describe('the emulator seeded runbooks', () => {
  it.each(Object.entries(INPUT_SCHEMAS))(
    '%s renders, and untouched asks only for required fields without a default',
    (_key, text) => {
      const spec = parseInputSchema(text);
      const blocks = buildFormBlocks(spec);
      expect(checkBlocks(blocks, 'modal')).toEqual([]);
      const result = readFormValues(spec, submit(blocks));
      if (!result.ok) expect(new Set(Object.values(result.errors))).toEqual(new Set(['Required']));
      else expect(readFormValues(spec, submit(buildFormBlocks(spec, result.params)))).toEqual(result);
    },
  );
});
