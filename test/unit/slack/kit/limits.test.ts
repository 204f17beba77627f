import { describe, expect, it } from 'vitest';
import {
  assertWithinLimits,
  checkBlocks,
  checkMessage,
  checkView,
  type LimitViolation,
} from '../../../../src/slack/kit/limits.ts';

const plain = (text: string) => ({ type: 'plain_text', text });
const md = (text: string) => ({ type: 'mrkdwn', text });
const x = (n: number) => 'x'.repeat(n);
const option = (text: string, value: string, extra: Record<string, unknown> = {}) => ({
  text: plain(text),
  value,
  ...extra,
});
const button = (extra: Record<string, unknown> = {}) => ({
  type: 'button',
  text: plain('Run'),
  action_id: 'run',
  value: 'rb-1',
  ...extra,
});
const options = (n: number) => Array.from({ length: n }, (_, i) => option(`Option ${i}`, `v${i}`));

/** One violation whose rule mentions `fragment`, at `path`. */
function expectViolation(violations: LimitViolation[], path: string, fragment: string): void {
  expect(violations).toContainEqual({ path, rule: expect.stringContaining(fragment) });
}

function validModal(blocks: unknown[] = []) {
  return {
    type: 'modal',
    callback_id: 'run_modal',
    title: plain('Run runbook'),
    submit: plain('Run'),
    close: plain('Cancel'),
    private_metadata: '{"runbookId":"x"}',
    blocks: [
      {
        type: 'input',
        block_id: 'region',
        label: plain('Region'),
        hint: plain('AWS region'),
        element: { type: 'plain_text_input', action_id: 'value', initial_value: 'us-west-2', max_length: 100 },
      },
      ...blocks,
    ],
  };
}

/** Checks one block as a message block and as a modal block. */
function violationsOf(block: unknown, kind: 'message' | 'modal' = 'message'): LimitViolation[] {
  return checkBlocks([block], kind);
}

describe('a valid surface', () => {
  it('passes as a message with every common block type', () => {
    const message = {
      text: 'Runbook finished',
      blocks: [
        { type: 'header', text: plain('Restart pods') },
        {
          type: 'section',
          block_id: 'summary',
          text: md('*Restart pods* &amp; more'),
          fields: [md('*Status*\nSucceeded'), md('*By*\n<@U1>')],
          accessory: button({ style: 'primary' }),
        },
        { type: 'divider' },
        { type: 'context', elements: [md('took 3m'), { type: 'image', image_url: 'https://x/i.png', alt_text: 'ok' }] },
        {
          type: 'actions',
          block_id: 'actions',
          elements: [
            button({
              confirm: { title: plain('Sure?'), text: md('Really'), confirm: plain('Yes'), deny: plain('No') },
            }),
            button({ action_id: 'open', url: 'https://example.com', style: 'danger' }),
            { type: 'overflow', action_id: 'more', options: options(5) },
            { type: 'static_select', action_id: 'pick', placeholder: plain('Pick'), options: options(100) },
          ],
        },
        { type: 'image', image_url: 'https://x/chart.png', alt_text: 'chart', title: plain('Chart') },
      ],
    };
    expect(checkMessage(message)).toEqual([]);
    expect(() => assertWithinLimits(message, 'message')).not.toThrow();
  });

  it('passes as a modal and as a home view', () => {
    expect(checkView(validModal())).toEqual([]);
    expect(checkView({ type: 'home', blocks: [{ type: 'section', text: md('Hi') }] })).toEqual([]);
  });
});

describe('surface rules', () => {
  it('limits blocks to 50 in a message and 100 in a modal or home tab', () => {
    const blocks = (n: number) => Array.from({ length: n }, () => ({ type: 'divider' }));
    expect(checkBlocks(blocks(50), 'message')).toEqual([]);
    expectViolation(checkBlocks(blocks(51), 'message'), 'blocks', 'more than 50 blocks');
    expect(checkBlocks(blocks(100), 'modal')).toEqual([]);
    expectViolation(checkBlocks(blocks(101), 'home'), 'blocks', 'more than 100 blocks');
  });

  it('needs text or blocks in a message and limits text to 40000', () => {
    expectViolation(checkMessage({}), '', 'needs text or blocks');
    expect(checkMessage({ text: x(40_000) })).toEqual([]);
    expectViolation(checkMessage({ text: x(40_001) }), 'text', 'longer than 40000');
  });

  it('requires block_id ≤ 255 and unique within the surface', () => {
    expect(checkBlocks([{ type: 'divider', block_id: x(255) }], 'message')).toEqual([]);
    expectViolation(checkBlocks([{ type: 'divider', block_id: x(256) }], 'message'), 'blocks[0].block_id', '255');
    const dup = [
      { type: 'divider', block_id: 'a' },
      { type: 'divider', block_id: 'a' },
    ];
    expectViolation(checkBlocks(dup, 'message'), 'blocks[1].block_id', 'duplicate block_id');
  });

  it('requires action_id ≤ 255 and unique within its block (not across blocks)', () => {
    const inTwoBlocks = [
      { type: 'actions', elements: [button()] },
      { type: 'actions', elements: [button()] },
    ];
    expect(checkBlocks(inTwoBlocks, 'message')).toEqual([]);
    const inOneBlock = { type: 'actions', elements: [button(), button()] };
    expectViolation(violationsOf(inOneBlock), 'blocks[0].elements[1].action_id', 'duplicate action_id');
    const long = { type: 'actions', elements: [button({ action_id: x(256) })] };
    expectViolation(violationsOf(long), 'blocks[0].elements[0].action_id', 'longer than 255');
  });

  it('flags unknown block types and input blocks in messages', () => {
    expectViolation(violationsOf({ type: 'banner' }), 'blocks[0].type', 'unknown block type');
    const input = validModal().blocks[0];
    expect(violationsOf(input, 'modal')).toEqual([]);
    expectViolation(violationsOf(input, 'message'), 'blocks[0]', 'not allowed in messages');
  });
});

describe('block rules', () => {
  it('an image shows image_url or slack_file (an id F… or a url, exactly one), never both', () => {
    const image = (extra: Record<string, unknown>) => ({ type: 'image', alt_text: 'chart', ...extra });
    expect(violationsOf(image({ slack_file: { id: 'F0123456789' } }))).toEqual([]);
    expect(violationsOf(image({ slack_file: { url: 'https://files.example/F1/x.png' } }))).toEqual([]);
    expectViolation(violationsOf(image({})), 'blocks[0]', 'needs image_url');
    expectViolation(
      violationsOf(image({ image_url: 'https://x.example/a.png', slack_file: { id: 'F0123456789' } })),
      'blocks[0]',
      'not both',
    );
    expectViolation(violationsOf(image({ slack_file: {} })), 'blocks[0].slack_file', 'exactly one');
    expectViolation(
      violationsOf(image({ slack_file: { id: 'F0123456789', url: 'https://x.example' } })),
      'blocks[0].slack_file',
      'exactly one',
    );
    expectViolation(violationsOf(image({ slack_file: { id: 'f-lower' } })), 'blocks[0].slack_file.id', 'regex');
    expectViolation(violationsOf(image({ slack_file: 'F0123456789' })), 'blocks[0].slack_file', 'must be an object');
  });

  it('section text is 1..3000 and needs text or fields', () => {
    expect(violationsOf({ type: 'section', text: md(x(3000)) })).toEqual([]);
    expectViolation(violationsOf({ type: 'section', text: md(x(3001)) }), 'blocks[0].text.text', 'longer than 3000');
    expectViolation(violationsOf({ type: 'section', text: md('') }), 'blocks[0].text.text', 'must not be empty');
    expectViolation(violationsOf({ type: 'section' }), 'blocks[0]', 'needs text or fields');
  });

  it('section fields are at most 10, each at most 2000', () => {
    const fields = (n: number, len = 5) => Array.from({ length: n }, () => md(x(len)));
    expect(violationsOf({ type: 'section', fields: fields(10, 2000) })).toEqual([]);
    expectViolation(violationsOf({ type: 'section', fields: fields(11) }), 'blocks[0].fields', 'more than 10');
    expectViolation(
      violationsOf({ type: 'section', fields: fields(1, 2001) }),
      'blocks[0].fields[0].text',
      'longer than 2000',
    );
  });

  it('header text is plain_text and at most 150', () => {
    expect(violationsOf({ type: 'header', text: plain(x(150)) })).toEqual([]);
    expectViolation(violationsOf({ type: 'header', text: plain(x(151)) }), 'blocks[0].text.text', 'longer than 150');
    expectViolation(violationsOf({ type: 'header', text: md('hi') }), 'blocks[0].text.type', 'must be plain_text');
  });

  it('context has 1..10 elements', () => {
    const elements = (n: number) => Array.from({ length: n }, () => md('a'));
    expect(violationsOf({ type: 'context', elements: elements(10) })).toEqual([]);
    expectViolation(violationsOf({ type: 'context', elements: elements(11) }), 'blocks[0].elements', 'more than 10');
    expectViolation(violationsOf({ type: 'context', elements: [] }), 'blocks[0].elements', 'at least one');
  });

  it('actions has 1..25 elements', () => {
    const elements = (n: number) => Array.from({ length: n }, (_, i) => button({ action_id: `b${i}` }));
    expect(violationsOf({ type: 'actions', elements: elements(25) })).toEqual([]);
    expectViolation(violationsOf({ type: 'actions', elements: elements(26) }), 'blocks[0].elements', 'more than 25');
  });

  it('input label and hint are at most 2000', () => {
    const input = (extra: Record<string, unknown>) => ({ ...(validModal().blocks[0] as object), ...extra });
    expect(violationsOf(input({ label: plain(x(2000)), hint: plain(x(2000)) }), 'modal')).toEqual([]);
    expectViolation(violationsOf(input({ label: plain(x(2001)) }), 'modal'), 'blocks[0].label.text', '2000');
    expectViolation(violationsOf(input({ hint: plain(x(2001)) }), 'modal'), 'blocks[0].hint.text', '2000');
  });

  it('image alt_text is at most 2000 and url at most 3000', () => {
    const image = (extra: Record<string, unknown>) => ({
      type: 'image',
      image_url: 'https://x',
      alt_text: 'a',
      ...extra,
    });
    expect(violationsOf(image({ alt_text: x(2000), image_url: x(3000) }))).toEqual([]);
    expectViolation(violationsOf(image({ alt_text: x(2001) })), 'blocks[0].alt_text', '2000');
    expectViolation(violationsOf(image({ image_url: x(3001) })), 'blocks[0].image_url', '3000');
  });
});

describe('element rules', () => {
  const inActions = (element: unknown) => violationsOf({ type: 'actions', elements: [element] });
  const inInput = (element: unknown) =>
    violationsOf(
      { type: 'input', label: plain('Field'), element: { action_id: 'v', ...(element as object) } },
      'modal',
    );

  it('button text ≤ 75, value ≤ 2000, url ≤ 3000, style primary|danger', () => {
    expect(inActions(button({ text: plain(x(75)), value: x(2000), url: x(3000) }))).toEqual([]);
    expectViolation(inActions(button({ text: plain(x(76)) })), 'blocks[0].elements[0].text.text', '75');
    expectViolation(inActions(button({ value: x(2001) })), 'blocks[0].elements[0].value', '2000');
    expectViolation(inActions(button({ url: x(3001) })), 'blocks[0].elements[0].url', '3000');
    expectViolation(inActions(button({ style: 'default' })), 'blocks[0].elements[0].style', 'primary or danger');
  });

  it('confirm dialog title ≤ 100, text ≤ 300, buttons ≤ 30', () => {
    const confirm = (extra: Record<string, unknown>) =>
      button({ confirm: { title: plain('T'), text: md('t'), confirm: plain('Y'), deny: plain('N'), ...extra } });
    expect(
      inActions(confirm({ title: plain(x(100)), text: md(x(300)), confirm: plain(x(30)), deny: plain(x(30)) })),
    ).toEqual([]);
    const base = 'blocks[0].elements[0].confirm';
    expectViolation(inActions(confirm({ title: plain(x(101)) })), `${base}.title.text`, '100');
    expectViolation(inActions(confirm({ text: md(x(301)) })), `${base}.text.text`, '300');
    expectViolation(inActions(confirm({ confirm: plain(x(31)) })), `${base}.confirm.text`, '30');
    expectViolation(inActions(confirm({ deny: plain(x(31)) })), `${base}.deny.text`, '30');
  });

  it('option text ≤ 75, value ≤ 150, description ≤ 75', () => {
    const select = (opt: unknown) => ({ type: 'static_select', action_id: 's', options: [opt] });
    expect(inActions(select(option(x(75), x(150), { description: plain(x(75)) })))).toEqual([]);
    const base = 'blocks[0].elements[0].options[0]';
    expectViolation(inActions(select(option(x(76), 'v'))), `${base}.text.text`, '75');
    expectViolation(inActions(select(option('t', x(151)))), `${base}.value`, '150');
    expectViolation(
      inActions(select(option('t', 'v', { description: plain(x(76)) }))),
      `${base}.description.text`,
      '75',
    );
  });

  it('static_select options ≤ 100 and option_groups ≤ 100', () => {
    const path = 'blocks[0].elements[0]';
    expectViolation(inActions({ type: 'static_select', options: options(101) }), `${path}.options`, 'more than 100');
    const groups = (n: number) => Array.from({ length: n }, (_, i) => ({ label: plain(`G${i}`), options: options(1) }));
    expect(inActions({ type: 'static_select', option_groups: groups(100) })).toEqual([]);
    expectViolation(
      inActions({ type: 'static_select', option_groups: groups(101) }),
      `${path}.option_groups`,
      'more than 100',
    );
  });

  it('overflow has 1..5 options', () => {
    expectViolation(inActions({ type: 'overflow', options: options(6) }), 'blocks[0].elements[0].options', '5');
    expectViolation(inActions({ type: 'overflow', options: [] }), 'blocks[0].elements[0].options', 'at least 1');
  });

  it('checkboxes and radio buttons have at most 10 options', () => {
    expect(inInput({ type: 'checkboxes', options: options(10) })).toEqual([]);
    expectViolation(inInput({ type: 'checkboxes', options: options(11) }), 'blocks[0].element.options', '10');
    expectViolation(inInput({ type: 'radio_buttons', options: options(11) }), 'blocks[0].element.options', '10');
  });

  it('placeholder ≤ 150', () => {
    expect(inInput({ type: 'plain_text_input', placeholder: plain(x(150)) })).toEqual([]);
    expectViolation(
      inInput({ type: 'plain_text_input', placeholder: plain(x(151)) }),
      'blocks[0].element.placeholder.text',
      '150',
    );
  });

  it('plain_text_input initial_value ≤ 3000 and max_length ≤ 3000', () => {
    expect(inInput({ type: 'plain_text_input', initial_value: x(3000), max_length: 3000 })).toEqual([]);
    expectViolation(
      inInput({ type: 'plain_text_input', initial_value: x(3001) }),
      'blocks[0].element.initial_value',
      '3000',
    );
    expectViolation(inInput({ type: 'plain_text_input', max_length: 3001 }), 'blocks[0].element.max_length', '3000');
  });

  it('flags unknown element types and elements in the wrong place', () => {
    expectViolation(inActions({ type: 'slider', action_id: 'a' }), 'blocks[0].elements[0].type', 'unknown element');
    expectViolation(
      inActions({ type: 'plain_text_input', action_id: 'a' }),
      'blocks[0].elements[0].type',
      'not allowed',
    );
  });

  it('text objects need non-empty text', () => {
    expectViolation(inActions(button({ text: plain('') })), 'blocks[0].elements[0].text.text', 'must not be empty');
  });
});

describe('checkView', () => {
  it('needs a modal or home type', () => {
    expectViolation(checkView({ type: 'popup', blocks: [] }), 'type', 'modal or home');
  });

  it('modal title, submit and close are plain_text ≤ 24', () => {
    expectViolation(checkView({ ...validModal(), title: plain(x(25)) }), 'title.text', '24');
    expectViolation(checkView({ ...validModal(), submit: plain(x(25)) }), 'submit.text', '24');
    expectViolation(checkView({ ...validModal(), close: plain(x(25)) }), 'close.text', '24');
    expectViolation(checkView({ ...validModal(), title: undefined }), 'title', 'required');
  });

  it('callback_id ≤ 255, private_metadata ≤ 3000, external_id ≤ 255', () => {
    expect(checkView({ ...validModal(), callback_id: x(255), private_metadata: x(3000), external_id: x(255) })).toEqual(
      [],
    );
    expectViolation(checkView({ ...validModal(), callback_id: x(256) }), 'callback_id', '255');
    expectViolation(checkView({ ...validModal(), private_metadata: x(3001) }), 'private_metadata', '3000');
    expectViolation(checkView({ ...validModal(), external_id: x(256) }), 'external_id', '255');
  });

  it('a modal with inputs needs submit; blocks ≤ 100', () => {
    expectViolation(checkView({ ...validModal(), submit: undefined }), 'submit', 'needs a submit');
    const many = Array.from({ length: 100 }, () => ({ type: 'divider' }));
    expectViolation(checkView(validModal(many)), 'blocks', 'more than 100');
  });
});

describe('assertWithinLimits', () => {
  it('throws listing every violation', () => {
    const message = { blocks: [{ type: 'header', text: plain(x(151)) }, { type: 'banner' }] };
    expect(() => assertWithinLimits(message, 'message')).toThrow(/blocks\[0\]\.text\.text.*\n.*blocks\[1\]\.type/);
  });

  it('checks views against the expected kind', () => {
    expect(() => assertWithinLimits(validModal(), 'modal')).not.toThrow();
    expect(() => assertWithinLimits(validModal(), 'home')).toThrow(/expected a home view/);
  });

  it('accepts a bare blocks array', () => {
    expect(() => assertWithinLimits([{ type: 'divider' }], 'message')).not.toThrow();
    expect(() => assertWithinLimits([validModal().blocks[0]], 'message')).toThrow(/not allowed in messages/);
  });
});
