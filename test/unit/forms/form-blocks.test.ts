import type { InputBlock, KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { buildFormBlocks, parseInputSchema } from '../../../src/forms/index.ts';
import { checkBlocks } from '../../../src/slack/kit/limits.ts';

function build(properties: Record<string, unknown>, required: string[] = [], prefill?: Record<string, unknown>) {
  const blocks = buildFormBlocks(parseInputSchema(JSON.stringify({ type: 'object', properties, required })), prefill);
  expect(checkBlocks(blocks, 'modal')).toEqual([]);
  return blocks as InputBlock[];
}

function only(property: Record<string, unknown>, required = false, prefill?: unknown): InputBlock {
  return build({ p: property }, required ? ['p'] : [], prefill === undefined ? undefined : { p: prefill })[0]!;
}

describe('buildFormBlocks', () => {
  it('builds no blocks for an empty schema', () => {
    expect(buildFormBlocks(parseInputSchema(''))).toEqual([]);
  });

  it('renders the service example exactly', () => {
    const blocks = buildFormBlocks(
      parseInputSchema(
        '{"properties":{"region":{"default":"us-west-2","description":"AWS Region","title":"region","type":"string"},"dry_run":{"default":false,"title":"dry_run","type":"boolean"}},"required":["region"],"title":"Schema","type":"object"}',
      ),
    );
    expect(blocks).toEqual([
      {
        type: 'input',
        block_id: 'field_region',
        label: { type: 'plain_text', text: 'Region' },
        hint: { type: 'plain_text', text: 'AWS Region' },
        optional: false,
        element: { type: 'plain_text_input', action_id: 'value', initial_value: 'us-west-2' },
      },
      {
        type: 'input',
        block_id: 'field_dry_run',
        label: { type: 'plain_text', text: 'Dry run' },
        optional: true,
        element: {
          type: 'checkboxes',
          action_id: 'value',
          options: [{ text: { type: 'plain_text', text: 'Dry run' }, value: 'true' }],
        },
      },
    ] satisfies KnownBlock[]);
  });

  it('marks fields outside `required` optional and required ones not', () => {
    const [a, b] = build({ a: { type: 'string' }, b: { type: 'string' } }, ['a']);
    expect(a!.optional).toBe(false);
    expect(b!.optional).toBe(true);
  });

  it('never makes a checkbox required: unticked means false', () => {
    expect(only({ type: 'boolean' }, true).optional).toBe(true);
  });

  it('checks the box when the default is true', () => {
    const element = only({ type: 'boolean', title: 'Force' }).element;
    expect(element).not.toHaveProperty('initial_options');
    expect(only({ type: 'boolean', title: 'Force', default: true }).element).toEqual({
      type: 'checkboxes',
      action_id: 'value',
      options: [{ text: { type: 'plain_text', text: 'Force' }, value: 'true' }],
      initial_options: [{ text: { type: 'plain_text', text: 'Force' }, value: 'true' }],
    });
  });

  it('maps text with lengths and multiline', () => {
    expect(only({ type: 'string', minLength: 2, maxLength: 20, default: 'abc' }).element).toEqual({
      type: 'plain_text_input',
      action_id: 'value',
      min_length: 2,
      max_length: 20,
      initial_value: 'abc',
    });
    expect(only({ type: 'string', maxLength: 1000 }).element).toEqual({
      type: 'plain_text_input',
      action_id: 'value',
      multiline: true,
      max_length: 1000,
    });
    // Bounds Slack does not accept are left to validation instead of breaking the modal.
    expect(only({ type: 'string', maxLength: 5000 }).element).not.toHaveProperty('max_length');
  });

  it('maps numbers and integers to number_input with string bounds', () => {
    expect(only({ type: 'number', minimum: 0.5, maximum: 10, default: 2.5 }).element).toEqual({
      type: 'number_input',
      action_id: 'value',
      is_decimal_allowed: true,
      min_value: '0.5',
      max_value: '10',
      initial_value: '2.5',
    });
    expect(only({ type: 'integer', minimum: 0.5, maximum: 9.5, default: 3 }).element).toEqual({
      type: 'number_input',
      action_id: 'value',
      is_decimal_allowed: false,
      min_value: '1',
      max_value: '9',
      initial_value: '3',
    });
  });

  it('does not prefill numbers of the wrong type or out of range', () => {
    expect(only({ type: 'integer', default: 'abc' }).element).not.toHaveProperty('initial_value');
    expect(only({ type: 'integer', default: 1.5 }).element).not.toHaveProperty('initial_value');
    expect(only({ type: 'integer', maximum: 5, default: 7 }).element).not.toHaveProperty('initial_value');
    expect(only({ type: 'number', default: 1e21 }).element).not.toHaveProperty('initial_value');
  });

  it('maps enums to static_select with index values and the default selected', () => {
    const block = only({ type: 'string', enum: ['small', 'large', 'x'.repeat(100)], default: 'large' });
    expect(block.element).toEqual({
      type: 'static_select',
      action_id: 'value',
      placeholder: { type: 'plain_text', text: 'Choose a value' },
      options: [
        { text: { type: 'plain_text', text: 'small' }, value: '0' },
        { text: { type: 'plain_text', text: 'large' }, value: '1' },
        { text: { type: 'plain_text', text: `${'x'.repeat(74)}…` }, value: '2' },
      ],
      initial_option: { text: { type: 'plain_text', text: 'large' }, value: '1' },
    });
  });

  it('shows non-string enum values as JSON', () => {
    const element = only({ enum: [1, true, null, ''], default: null }).element as { options: unknown[] };
    expect(element.options).toEqual([
      { text: { type: 'plain_text', text: '1' }, value: '0' },
      { text: { type: 'plain_text', text: 'true' }, value: '1' },
      { text: { type: 'plain_text', text: 'null' }, value: '2' },
      { text: { type: 'plain_text', text: '(empty)' }, value: '3' },
    ]);
    expect(element).toHaveProperty('initial_option.value', '2');
  });

  it('switches to external_select above 100 values', () => {
    const values = Array.from({ length: 250 }, (_, i) => `region-${i}`);
    expect(only({ type: 'string', enum: values, default: 'region-200' }).element).toEqual({
      type: 'external_select',
      action_id: 'value',
      placeholder: { type: 'plain_text', text: 'Type to search' },
      min_query_length: 0,
      initial_option: { text: { type: 'plain_text', text: 'region-200' }, value: '200' },
    });
  });

  it('maps arrays of enums to multi selects with the defaults selected', () => {
    const element = only({ type: 'array', items: { enum: ['a', 'b', 'c'] }, default: ['c', 'a'] }).element;
    expect(element).toMatchObject({
      type: 'multi_static_select',
      action_id: 'value',
      initial_options: [
        { text: { type: 'plain_text', text: 'c' }, value: '2' },
        { text: { type: 'plain_text', text: 'a' }, value: '0' },
      ],
    });
    const big = only({ type: 'array', items: { enum: Array.from({ length: 101 }, (_, i) => i) }, default: [100] });
    expect(big.element).toMatchObject({
      type: 'multi_external_select',
      min_query_length: 0,
      initial_options: [{ text: { type: 'plain_text', text: '100' }, value: '100' }],
    });
    // A default the schema refuses ('zz' is no member) is not prefilled at all; a prefill keeps its valid part.
    const refused = { type: 'array', items: { enum: ['a', 'b', 'c'] }, default: ['c', 'zz'] };
    expect(only(refused).element).not.toHaveProperty('initial_options');
    const [block] = buildFormBlocks(parseInputSchema(JSON.stringify({ type: 'object', properties: { p: refused } })), {
      p: ['c', 'zz'],
    });
    expect((block as { element: { initial_options: unknown[] } }).element.initial_options).toHaveLength(1);
  });

  it('maps lists to one value per line and objects to JSON', () => {
    const list = only({ type: 'array', items: { type: 'string' }, default: ['a', 'b'], description: 'Hosts.' });
    expect(list.element).toEqual({
      type: 'plain_text_input',
      action_id: 'value',
      multiline: true,
      placeholder: { type: 'plain_text', text: 'One value per line' },
      initial_value: 'a\nb',
    });
    expect(list.hint).toEqual({ type: 'plain_text', text: 'Hosts. Enter one value per line.' });
    const json = only({ type: 'object', default: { a: 1 } });
    expect(json.element).toEqual({
      type: 'plain_text_input',
      action_id: 'value',
      multiline: true,
      placeholder: { type: 'plain_text', text: '{"key": "value"}' },
      initial_value: '{\n  "a": 1\n}',
    });
  });

  it('maps dates, date-times, emails and URLs to their pickers and inputs', () => {
    expect(only({ type: 'string', format: 'date', default: '2024-02-29' }).element).toEqual({
      type: 'datepicker',
      action_id: 'value',
      initial_date: '2024-02-29',
    });
    expect(only({ type: 'string', format: 'date', default: '2023-02-29' }).element).not.toHaveProperty('initial_date');
    expect(only({ type: 'string', format: 'date-time', default: '2024-05-01T12:00:00Z' }).element).toEqual({
      type: 'datetimepicker',
      action_id: 'value',
      initial_date_time: 1714564800,
    });
    expect(only({ type: 'string', format: 'email', default: 'ops@example.com' }).element).toEqual({
      type: 'email_text_input',
      action_id: 'value',
      initial_value: 'ops@example.com',
    });
    expect(only({ type: 'string', format: 'uri', default: 'https://example.com' }).element).toEqual({
      type: 'url_text_input',
      action_id: 'value',
      initial_value: 'https://example.com',
    });
  });

  it('prefers prefill over defaults', () => {
    const blocks = build(
      { region: { type: 'string', default: 'us-west-2' }, count: { type: 'integer', default: 1 } },
      [],
      { region: 'eu-west-1', count: 4 },
    );
    expect(blocks[0]!.element).toHaveProperty('initial_value', 'eu-west-1');
    expect(blocks[1]!.element).toHaveProperty('initial_value', '4');
  });

  it('never prefills a secret, from prefill or default', () => {
    for (const property of [
      { type: 'secret', default: 'hunter2' },
      { type: 'string', format: 'password', default: 'hunter2' },
      { type: 'string', 'x-secret': true, default: 'hunter2' },
    ]) {
      const block = only(property, true, 'hunter2');
      expect(block.element).toEqual({ type: 'plain_text_input', action_id: 'value' });
      expect(JSON.stringify(block)).not.toContain('hunter2');
      expect(block.hint?.text).toMatch(/hidden/);
    }
  });

  it('cuts long titles, descriptions and option texts to Slack limits', () => {
    const block = only({ type: 'string', title: 'T'.repeat(3000), description: 'D'.repeat(5000) });
    expect(block.label.text).toHaveLength(2000);
    expect(block.hint!.text).toHaveLength(2000);
    expect(block.label.text.endsWith('…')).toBe(true);
  });

  it('does not prefill values that do not fit the element', () => {
    expect(only({ type: 'string', maxLength: 3, default: 'abcdef' }).element).not.toHaveProperty('initial_value');
    expect(only({ type: 'string', default: 'x'.repeat(3001) }).element).not.toHaveProperty('initial_value');
    expect(only({ type: 'string', default: { a: 1 } }).element).not.toHaveProperty('initial_value');
    expect(only({ type: 'array', default: ['a\nb'] }).element).not.toHaveProperty('initial_value');
  });

  describe('fallback', () => {
    it('renders one JSON box prefilled with the defaults, secrets left out', () => {
      const schema = {
        type: 'object',
        properties: {
          region: { type: 'string', default: 'us-west-2' },
          token: { type: 'secret', default: 'hunter2' },
          mode: { oneOf: [{ type: 'string' }, { type: 'integer' }], default: 'fast' },
        },
      };
      const blocks = buildFormBlocks(parseInputSchema(JSON.stringify(schema)), { token: 'old-secret', extra: 1 });
      expect(checkBlocks(blocks, 'modal')).toEqual([]);
      expect(blocks).toHaveLength(1);
      const block = blocks[0] as InputBlock;
      expect(block.block_id).toBe('field__json');
      expect(block.optional).toBe(true);
      expect(block.element).toMatchObject({ type: 'plain_text_input', action_id: 'value', multiline: true });
      const initial = JSON.parse((block.element as { initial_value: string }).initial_value);
      expect(initial).toEqual({ region: 'us-west-2', mode: 'fast', extra: 1 });
      expect(block.hint!.text).toMatch(/JSON object/);
      expect(JSON.stringify(blocks)).not.toMatch(/hunter2|old-secret/);
    });

    it('says when the schema could not be read', () => {
      const [block] = buildFormBlocks(parseInputSchema('{not json')) as InputBlock[];
      expect(block!.block_id).toBe('field__json');
      expect(block!.hint!.text).toMatch(/could not be read/);
      expect(block!.element).not.toHaveProperty('initial_value');
    });

    it('renders 200 properties as one box', () => {
      const properties = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`p${i}`, { type: 'string' }]));
      const blocks = buildFormBlocks(parseInputSchema(JSON.stringify({ type: 'object', properties })));
      expect(blocks).toHaveLength(1);
      expect(checkBlocks(blocks, 'modal')).toEqual([]);
    });
  });
});
