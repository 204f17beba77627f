import type { InputBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { buildFormBlocks, parseInputSchema, readFormValues } from '../../../src/forms/index.ts';
import { optionByText, submit } from './slack-state.ts';

function form(properties: Record<string, unknown>, required: string[] = []) {
  const spec = parseInputSchema(JSON.stringify({ type: 'object', properties, required }));
  const blocks = buildFormBlocks(spec);
  return { spec, blocks, byId: (id: string) => blocks.find((b) => (b as InputBlock).block_id === id)! };
}

const ALL_TYPES = {
  region: { type: 'string', default: 'us-west-2' },
  notes: { type: 'string', format: 'textarea', default: 'line 1\nline 2' },
  ratio: { type: 'number', default: 0.25 },
  count: { type: 'integer', minimum: 1, maximum: 10, default: 3 },
  dry_run: { type: 'boolean', default: true },
  size: { enum: ['small', 'large'], default: 'large' },
  level: { enum: [1, 2, 3], default: 2 },
  zone: { enum: Array.from({ length: 150 }, (_, i) => `zone-${i}`), default: 'zone-120' },
  tags: { type: 'array', items: { enum: ['a', 'b', 'c'] }, default: ['a', 'c'] },
  hosts: { type: 'array', items: { type: 'string' }, default: ['web-1', 'web-2'] },
  ports: { type: 'array', items: { type: 'integer' }, default: [80, 443] },
  config: { type: 'object', default: { retries: 2, mode: 'safe' } },
  day: { type: 'string', format: 'date', default: '2024-05-01' },
  at: { type: 'string', format: 'date-time', default: '2024-05-01T12:30:00Z' },
  owner: { type: 'string', format: 'email', default: 'ops@example.com' },
  link: { type: 'string', format: 'uri', default: 'https://example.com/runbook' },
};

describe('readFormValues', () => {
  it('round-trips every type: defaults in, the same params out', () => {
    const { spec, blocks } = form(ALL_TYPES, Object.keys(ALL_TYPES));
    const result = readFormValues(spec, submit(blocks));
    const defaults = Object.fromEntries(Object.entries(ALL_TYPES).map(([k, v]) => [k, v.default]));
    expect(result).toEqual({ ok: true, params: defaults });
  });

  it('round-trips edited values of every type', () => {
    const { spec, blocks, byId } = form(ALL_TYPES);
    const state = submit(blocks, {
      field_region: { value: 'eu-west-1' },
      field_ratio: { value: '-1.5' },
      field_count: { value: '10' },
      field_dry_run: { selected_options: [] },
      field_size: { selected_option: optionByText(byId('field_size'), 'small') },
      field_level: { selected_option: optionByText(byId('field_level'), '3') },
      field_zone: { selected_option: { text: { type: 'plain_text', text: 'zone-7' }, value: '7' } },
      field_tags: { selected_options: [optionByText(byId('field_tags'), 'b')] },
      field_hosts: { value: '  db-1 \n\n db-2\r\n' },
      field_ports: { value: '22\n8080' },
      field_config: { value: '{"nested": [1, 2]}' },
      field_day: { selected_date: '2025-01-31' },
      field_at: { selected_date_time: 1735689600 },
      field_owner: { value: ' sre@example.com ' },
      field_link: { value: 'https://example.org' },
    });
    expect(readFormValues(spec, state)).toEqual({
      ok: true,
      params: {
        region: 'eu-west-1',
        notes: 'line 1\nline 2',
        ratio: -1.5,
        count: 10,
        dry_run: false,
        size: 'small',
        level: 3,
        zone: 'zone-7',
        tags: ['b'],
        hosts: ['db-1', 'db-2'],
        ports: [22, 8080],
        config: { nested: [1, 2] },
        day: '2025-01-31',
        at: '2025-01-01T00:00:00Z',
        owner: 'sre@example.com',
        link: 'https://example.org',
      },
    });
  });

  it('omits optional fields left empty but always sends booleans', () => {
    const { spec, blocks } = form({
      a: { type: 'string' },
      b: { type: 'integer' },
      c: { type: 'boolean' },
      d: { enum: ['x'] },
      e: { type: 'array', items: { enum: ['x'] } },
      f: { type: 'object' },
      g: { type: 'string', format: 'date' },
      h: { type: 'string', format: 'date-time' },
      i: { type: 'array' },
    });
    expect(readFormValues(spec, submit(blocks))).toEqual({ ok: true, params: { c: false } });
    expect(readFormValues(spec, submit(blocks, { field_a: { value: '   ' } }))).toEqual({
      ok: true,
      params: { c: false },
    });
  });

  it('treats a missing block state like an empty field', () => {
    const { spec } = form({ a: { type: 'string' }, b: { type: 'string' } }, ['b']);
    expect(readFormValues(spec, {})).toEqual({ ok: false, errors: { field_b: 'Required' } });
  });

  it('keeps secrets exactly as typed', () => {
    const { spec, blocks } = form({ token: { type: 'secret' } }, ['token']);
    expect(readFormValues(spec, submit(blocks, { field_token: { value: ' s3cr3t ' } }))).toEqual({
      ok: true,
      params: { token: ' s3cr3t ' },
    });
  });

  describe('errors on the exact block_id', () => {
    it('reports out-of-range and missing required values', () => {
      const { spec, blocks } = form(
        { count: { type: 'integer', maximum: 10 }, region: { type: 'string' }, name: { type: 'string', minLength: 3 } },
        ['region'],
      );
      const result = readFormValues(
        spec,
        submit(blocks, { field_count: { value: '11' }, field_name: { value: 'ab' } }),
      );
      expect(result).toEqual({
        ok: false,
        errors: {
          field_count: 'Must be at most 10',
          field_region: 'Required',
          field_name: 'Must be at least 3 characters',
        },
      });
    });

    it('reports invalid JSON with a short reason', () => {
      const { spec, blocks } = form({ config: { type: 'object' } });
      const result = readFormValues(spec, submit(blocks, { field_config: { value: '{"a": ' } }));
      expect(result.ok).toBe(false);
      const message = !result.ok ? result.errors.field_config! : '';
      expect(message.startsWith('Must be valid JSON: ')).toBe(true);
      expect(message.length).toBeLessThan(150);
    });

    it('reports JSON of the wrong shape', () => {
      const { spec, blocks } = form({
        config: { type: 'object', properties: { port: { type: 'integer', maximum: 9 } } },
      });
      expect(readFormValues(spec, submit(blocks, { field_config: { value: '[1]' } }))).toEqual({
        ok: false,
        errors: { field_config: 'Must be a JSON object' },
      });
      expect(readFormValues(spec, submit(blocks, { field_config: { value: '{"port": 99}' } }))).toEqual({
        ok: false,
        errors: { field_config: 'port: Must be at most 9' },
      });
    });

    it('reports a bad email and a bad URL', () => {
      const { spec, blocks } = form({
        owner: { type: 'string', format: 'email' },
        link: { type: 'string', format: 'uri' },
      });
      const result = readFormValues(
        spec,
        submit(blocks, { field_owner: { value: 'not-an-email' }, field_link: { value: 'nope' } }),
      );
      expect(result).toEqual({
        ok: false,
        errors: { field_owner: 'Must be a valid email address', field_link: 'Must be a valid URL' },
      });
    });

    it('reports a line that is not a number', () => {
      const { spec, blocks } = form({ ports: { type: 'array', items: { type: 'integer' } } });
      expect(readFormValues(spec, submit(blocks, { field_ports: { value: '80\n4.5\nabc' } }))).toEqual({
        ok: false,
        errors: { field_ports: 'Line 2: "4.5" is not a whole number' },
      });
    });

    it('reports a number the number input should not have let through', () => {
      const { spec, blocks } = form({ n: { type: 'number' } });
      expect(readFormValues(spec, submit(blocks, { field_n: { value: '12abc' } }))).toEqual({
        ok: false,
        errors: { field_n: 'Must be a number' },
      });
    });

    it('asks an integer field for a whole number, whatever was typed', () => {
      const { spec, blocks } = form({ n: { type: 'integer' } });
      expect(readFormValues(spec, submit(blocks, { field_n: { value: '12abc' } }))).toEqual({
        ok: false,
        errors: { field_n: 'Must be a whole number' },
      });
    });

    it('rejects a forged option value', () => {
      const { spec, blocks } = form({ size: { enum: ['s', 'm'] } });
      const forged = { text: { type: 'plain_text', text: 'xl' }, value: '9' };
      expect(readFormValues(spec, submit(blocks, { field_size: { selected_option: forged } }))).toEqual({
        ok: false,
        errors: { field_size: 'Choose one of the options' },
      });
    });

    it('uses index block ids for weird names', () => {
      const { spec, blocks } = form({ 'needs a value!': { type: 'integer', minimum: 5 } });
      const blockId = (blocks[0] as InputBlock).block_id!;
      expect(blockId).toBe('field_0');
      expect(readFormValues(spec, submit(blocks, { [blockId]: { value: '1' } }))).toEqual({
        ok: false,
        errors: { field_0: 'Must be at least 5' },
      });
      expect(readFormValues(spec, submit(blocks, { [blockId]: { value: '6' } }))).toEqual({
        ok: true,
        params: { 'needs a value!': 6 },
      });
    });
  });

  describe('fallback form', () => {
    const schema = {
      type: 'object',
      properties: {
        region: { type: 'string' },
        count: { type: 'integer', maximum: 10 },
        mode: { oneOf: [{ const: 'fast' }, { const: 'safe' }] },
      },
      required: ['region'],
    };
    const spec = parseInputSchema(JSON.stringify(schema));
    const state = (value: string | null) => ({ field__json: { value: { type: 'plain_text_input', value } } });

    it('parses and validates the JSON object', () => {
      expect(spec.kind).toBe('fallback');
      expect(readFormValues(spec, state('{"region": "eu", "count": 3, "mode": "safe"}'))).toEqual({
        ok: true,
        params: { region: 'eu', count: 3, mode: 'safe' },
      });
    });

    it('combines schema errors on field__json', () => {
      expect(readFormValues(spec, state('{"count": 11}'))).toEqual({
        ok: false,
        errors: { field__json: 'region: Required; count: Must be at most 10' },
      });
      expect(readFormValues(spec, state(null))).toEqual({ ok: false, errors: { field__json: 'region: Required' } });
    });

    it('rejects invalid JSON and non-objects', () => {
      const bad = readFormValues(spec, state('{"region": '));
      expect(!bad.ok && bad.errors.field__json).toMatch(/^Must be valid JSON: /);
      const array = readFormValues(spec, state('[1, 2]'));
      expect(!array.ok && array.errors.field__json).toMatch(/^Must be a JSON object/);
    });

    it('accepts any JSON object when the schema could not be read', () => {
      const unreadable = parseInputSchema('{oops');
      expect(readFormValues(unreadable, state('{"anything": [1]}'))).toEqual({ ok: true, params: { anything: [1] } });
      expect(readFormValues(unreadable, state('"text"')).ok).toBe(false);
    });
  });

  it('returns no params for an empty schema', () => {
    expect(readFormValues(parseInputSchema(''), {})).toEqual({ ok: true, params: {} });
  });
});
