// Block Kit limits, checked before Slack does. Used by tests over every builder's output and by the fake Slack
// Web API, which answers invalid_blocks when a surface breaks one of these rules. Numbers follow Slack's Block Kit
// reference; lengths are counted in code points, like the helpers in mrkdwn.ts.
import { codePointLength } from './mrkdwn.ts';

export type SurfaceKind = 'message' | 'modal' | 'home';

export interface LimitViolation {
  path: string;
  rule: string;
}

type Json = Record<string, unknown>;

interface Context {
  kind: SurfaceKind;
  violations: LimitViolation[];
  blockIds: Set<string>;
  /** action_ids seen in the block being walked: Slack requires them unique within their containing block. */
  actionIds: Set<string>;
}

const MAX_BLOCKS: Record<SurfaceKind, number> = { message: 50, modal: 100, home: 100 };

const SELECT_TYPES = [
  'static_select',
  'multi_static_select',
  'external_select',
  'multi_external_select',
  'users_select',
  'multi_users_select',
  'conversations_select',
  'multi_conversations_select',
  'channels_select',
  'multi_channels_select',
];
const PICKER_TYPES = ['datepicker', 'timepicker', 'datetimepicker'];
const TEXT_INPUT_TYPES = [
  'plain_text_input',
  'email_text_input',
  'url_text_input',
  'number_input',
  'rich_text_input',
  'file_input',
];
const SECTION_ACCESSORIES = new Set([
  'button',
  'overflow',
  'image',
  'checkboxes',
  'radio_buttons',
  ...SELECT_TYPES,
  ...PICKER_TYPES,
]);
const ACTIONS_ELEMENTS = new Set([
  'button',
  'overflow',
  'checkboxes',
  'radio_buttons',
  'rich_text_input',
  ...SELECT_TYPES,
  ...PICKER_TYPES,
]);
const INPUT_ELEMENTS = new Set(['checkboxes', 'radio_buttons', ...SELECT_TYPES, ...PICKER_TYPES, ...TEXT_INPUT_TYPES]);
// Block types Slack knows but whose contents this checker does not inspect beyond block_id.
const OPAQUE_BLOCKS = new Set(['rich_text', 'video', 'file', 'table', 'context_actions', 'markdown']);

export function checkBlocks(blocks: unknown[], kind: SurfaceKind): LimitViolation[] {
  const ctx: Context = { kind, violations: [], blockIds: new Set(), actionIds: new Set() };
  walkBlocks(ctx, blocks, 'blocks');
  return ctx.violations;
}

export function checkView(view: unknown): LimitViolation[] {
  const violations: LimitViolation[] = [];
  const push = (path: string, rule: string) => violations.push({ path, rule });
  if (!isObject(view)) return [{ path: '', rule: 'view must be an object' }];
  const type = view.type;
  if (type !== 'modal' && type !== 'home') {
    push('type', 'view type must be modal or home');
    return violations;
  }
  const ctx: Context = { kind: type, violations, blockIds: new Set(), actionIds: new Set() };
  if (type === 'modal') {
    checkText(ctx, view.title, 'title', { max: 24, plainOnly: true, label: 'modal title', required: true });
  } else if (view.title !== undefined) {
    checkText(ctx, view.title, 'title', { max: 24, plainOnly: true, label: 'view title' });
  }
  checkText(ctx, view.submit, 'submit', { max: 24, plainOnly: true, label: 'submit' });
  checkText(ctx, view.close, 'close', { max: 24, plainOnly: true, label: 'close' });
  checkString(ctx, view.callback_id, 'callback_id', 255, 'callback_id');
  checkString(ctx, view.private_metadata, 'private_metadata', 3000, 'private_metadata');
  checkString(ctx, view.external_id, 'external_id', 255, 'external_id');
  if (!Array.isArray(view.blocks)) {
    push('blocks', 'view needs a blocks array');
    return violations;
  }
  walkBlocks(ctx, view.blocks, 'blocks');
  const hasInput = view.blocks.some((b) => isObject(b) && b.type === 'input');
  if (type === 'modal' && hasInput && view.submit === undefined) {
    push('submit', 'modal with input blocks needs a submit button');
  }
  return violations;
}

export function checkMessage(message: { text?: string; blocks?: unknown[] }): LimitViolation[] {
  const violations: LimitViolation[] = [];
  const ctx: Context = { kind: 'message', violations, blockIds: new Set(), actionIds: new Set() };
  const hasText = typeof message.text === 'string' && message.text.length > 0;
  const hasBlocks = Array.isArray(message.blocks) && message.blocks.length > 0;
  if (!hasText && !hasBlocks) violations.push({ path: '', rule: 'message needs text or blocks' });
  checkString(ctx, message.text, 'text', 40_000, 'message text');
  if (message.blocks !== undefined) {
    if (Array.isArray(message.blocks)) walkBlocks(ctx, message.blocks, 'blocks');
    else violations.push({ path: 'blocks', rule: 'blocks must be an array' });
  }
  return violations;
}

/** Throws when `surface` (a message, a view, or a bare blocks array) breaks a limit; for tests. */
export function assertWithinLimits(surface: unknown, kind: SurfaceKind): void {
  let violations: LimitViolation[];
  if (Array.isArray(surface)) violations = checkBlocks(surface, kind);
  else if (kind === 'message') {
    violations = isObject(surface)
      ? checkMessage(surface as { text?: string; blocks?: unknown[] })
      : [{ path: '', rule: 'message must be an object' }];
  } else {
    violations = checkView(surface);
    if (isObject(surface) && surface.type !== kind && (surface.type === 'modal' || surface.type === 'home')) {
      violations.push({ path: 'type', rule: `expected a ${kind} view` });
    }
  }
  if (violations.length > 0) {
    const list = violations.map((v) => `  - ${v.path || '(surface)'}: ${v.rule}`).join('\n');
    throw new Error(`Block Kit limits broken (${kind}):\n${list}`);
  }
}

function walkBlocks(ctx: Context, blocks: unknown[], path: string): void {
  const max = MAX_BLOCKS[ctx.kind];
  if (blocks.length > max) push(ctx, path, `more than ${max} blocks in a ${ctx.kind}`);
  blocks.forEach((block, i) => {
    ctx.actionIds = new Set();
    checkBlock(ctx, block, `${path}[${i}]`);
  });
}

function checkBlock(ctx: Context, block: unknown, path: string): void {
  if (!isObject(block)) {
    push(ctx, path, 'block must be an object');
    return;
  }
  if (typeof block.block_id === 'string') {
    if (codePointLength(block.block_id) > 255) push(ctx, `${path}.block_id`, 'block_id longer than 255');
    if (ctx.blockIds.has(block.block_id)) push(ctx, `${path}.block_id`, `duplicate block_id "${block.block_id}"`);
    ctx.blockIds.add(block.block_id);
  } else if (block.block_id !== undefined) {
    push(ctx, `${path}.block_id`, 'block_id must be a string');
  }
  switch (block.type) {
    case 'section':
      checkSection(ctx, block, path);
      return;
    case 'header':
      checkText(ctx, block.text, `${path}.text`, { max: 150, plainOnly: true, label: 'header text', required: true });
      return;
    case 'divider':
      return;
    case 'context':
      checkContext(ctx, block, path);
      return;
    case 'actions':
      checkElementList(ctx, block.elements, `${path}.elements`, {
        min: 1,
        max: 25,
        label: 'actions',
        allowed: ACTIONS_ELEMENTS,
      });
      return;
    case 'input':
      checkInput(ctx, block, path);
      return;
    case 'image':
      checkImage(ctx, block, path, 'image block');
      return;
    default:
      if (typeof block.type === 'string' && OPAQUE_BLOCKS.has(block.type)) return;
      push(ctx, `${path}.type`, `unknown block type "${String(block.type)}"`);
  }
}

function checkSection(ctx: Context, block: Json, path: string): void {
  if (block.text === undefined && block.fields === undefined) push(ctx, path, 'section needs text or fields');
  if (block.text !== undefined) {
    checkText(ctx, block.text, `${path}.text`, { max: 3000, label: 'section text' });
  }
  if (block.fields !== undefined) {
    if (!Array.isArray(block.fields)) push(ctx, `${path}.fields`, 'section fields must be an array');
    else {
      if (block.fields.length > 10) push(ctx, `${path}.fields`, 'section has more than 10 fields');
      block.fields.forEach((field, i) => {
        checkText(ctx, field, `${path}.fields[${i}]`, { max: 2000, label: 'section field', required: true });
      });
    }
  }
  if (block.accessory !== undefined) checkElement(ctx, block.accessory, `${path}.accessory`, SECTION_ACCESSORIES);
}

function checkContext(ctx: Context, block: Json, path: string): void {
  const elements = block.elements;
  if (!Array.isArray(elements) || elements.length === 0) {
    push(ctx, `${path}.elements`, 'context needs at least one element');
    return;
  }
  if (elements.length > 10) push(ctx, `${path}.elements`, 'context has more than 10 elements');
  elements.forEach((element, i) => {
    const elementPath = `${path}.elements[${i}]`;
    if (isObject(element) && element.type === 'image') checkImage(ctx, element, elementPath, 'context image');
    else checkText(ctx, element, elementPath, { max: 3000, label: 'context text', required: true });
  });
}

function checkInput(ctx: Context, block: Json, path: string): void {
  if (ctx.kind === 'message') push(ctx, path, 'input blocks are not allowed in messages');
  checkText(ctx, block.label, `${path}.label`, { max: 2000, plainOnly: true, label: 'input label', required: true });
  if (block.hint !== undefined) {
    checkText(ctx, block.hint, `${path}.hint`, { max: 2000, plainOnly: true, label: 'input hint' });
  }
  if (block.element === undefined) push(ctx, `${path}.element`, 'input needs an element');
  else checkElement(ctx, block.element, `${path}.element`, INPUT_ELEMENTS);
}

function checkImage(ctx: Context, image: Json, path: string, label: string): void {
  if (image.image_url === undefined && image.slack_file === undefined) push(ctx, path, `${label} needs image_url`);
  if (image.image_url !== undefined && image.slack_file !== undefined) {
    push(ctx, path, `${label} takes image_url or slack_file, not both`);
  }
  checkString(ctx, image.image_url, `${path}.image_url`, 3000, `${label} url`);
  if (image.slack_file !== undefined) checkSlackFile(ctx, image.slack_file, `${path}.slack_file`);
  if (typeof image.alt_text !== 'string' || image.alt_text.length === 0) {
    push(ctx, `${path}.alt_text`, `${label} needs alt_text`);
  } else checkString(ctx, image.alt_text, `${path}.alt_text`, 2000, `${label} alt_text`);
  if (image.title !== undefined) {
    checkText(ctx, image.title, `${path}.title`, { max: 2000, plainOnly: true, label: `${label} title` });
  }
}

/** Slack's file object: exactly one of `id` (F…) or `url` (the file's url_private or permalink). */
function checkSlackFile(ctx: Context, ref: unknown, path: string): void {
  if (!isObject(ref)) {
    push(ctx, path, 'slack_file must be an object');
    return;
  }
  if ((ref.id === undefined) === (ref.url === undefined)) push(ctx, path, 'slack_file takes id or url, exactly one');
  if (ref.id !== undefined && (typeof ref.id !== 'string' || !/^F[A-Z0-9]{8,}$/.test(ref.id))) {
    push(ctx, `${path}.id`, 'input must match regex pattern: ^[F][A-Z0-9]{8,}$');
  }
  checkString(ctx, ref.url, `${path}.url`, 3000, 'slack_file url');
}

function checkElementList(
  ctx: Context,
  elements: unknown,
  path: string,
  opts: { min: number; max: number; label: string; allowed: Set<string> },
): void {
  if (!Array.isArray(elements) || elements.length < opts.min) {
    push(ctx, path, `${opts.label} needs at least ${opts.min} element`);
    return;
  }
  if (elements.length > opts.max) push(ctx, path, `${opts.label} has more than ${opts.max} elements`);
  elements.forEach((element, i) => {
    checkElement(ctx, element, `${path}[${i}]`, opts.allowed);
  });
}

function checkElement(ctx: Context, element: unknown, path: string, allowed: Set<string>): void {
  if (!isObject(element)) {
    push(ctx, path, 'element must be an object');
    return;
  }
  const type = typeof element.type === 'string' ? element.type : '';
  if (!allowed.has(type)) {
    const known = INPUT_ELEMENTS.has(type) || SECTION_ACCESSORIES.has(type) || ACTIONS_ELEMENTS.has(type);
    push(ctx, `${path}.type`, known ? `element "${type}" not allowed here` : `unknown element type "${type}"`);
    return;
  }
  if (type === 'image') {
    checkImage(ctx, element, path, 'image element');
    return;
  }
  checkActionId(ctx, element.action_id, `${path}.action_id`);
  if (element.confirm !== undefined) checkConfirm(ctx, element.confirm, `${path}.confirm`);
  if (element.placeholder !== undefined) {
    checkText(ctx, element.placeholder, `${path}.placeholder`, { max: 150, plainOnly: true, label: 'placeholder' });
  }
  if (type === 'button') checkButton(ctx, element, path);
  else if (type === 'overflow') {
    checkOptions(ctx, element.options, `${path}.options`, { min: 1, max: 5, label: 'overflow', urls: true });
  } else if (type === 'checkboxes' || type === 'radio_buttons') {
    checkOptions(ctx, element.options, `${path}.options`, { min: 1, max: 10, label: type, mrkdwn: true });
  } else if (type === 'static_select' || type === 'multi_static_select') checkStaticSelect(ctx, element, path);
  else if (type === 'plain_text_input') {
    checkString(ctx, element.initial_value, `${path}.initial_value`, 3000, 'plain_text_input initial_value');
    for (const key of ['max_length', 'min_length'] as const) {
      const value = element[key];
      if (value !== undefined && (typeof value !== 'number' || value < 0 || value > 3000)) {
        push(ctx, `${path}.${key}`, `plain_text_input ${key} must be between 0 and 3000`);
      }
    }
  }
}

function checkButton(ctx: Context, button: Json, path: string): void {
  checkText(ctx, button.text, `${path}.text`, { max: 75, plainOnly: true, label: 'button text', required: true });
  checkString(ctx, button.value, `${path}.value`, 2000, 'button value');
  checkString(ctx, button.url, `${path}.url`, 3000, 'button url');
  checkString(ctx, button.accessibility_label, `${path}.accessibility_label`, 75, 'button accessibility_label');
  checkStyle(ctx, button.style, `${path}.style`);
}

function checkStaticSelect(ctx: Context, select: Json, path: string): void {
  if (select.options === undefined && select.option_groups === undefined) {
    push(ctx, path, 'static select needs options or option_groups');
  }
  if (select.options !== undefined) {
    checkOptions(ctx, select.options, `${path}.options`, { min: 1, max: 100, label: 'static select' });
  }
  if (select.option_groups !== undefined) {
    if (!Array.isArray(select.option_groups)) {
      push(ctx, `${path}.option_groups`, 'option_groups must be an array');
      return;
    }
    if (select.option_groups.length > 100) push(ctx, `${path}.option_groups`, 'more than 100 option_groups');
    select.option_groups.forEach((group, i) => {
      const groupPath = `${path}.option_groups[${i}]`;
      if (!isObject(group)) {
        push(ctx, groupPath, 'option group must be an object');
        return;
      }
      checkText(ctx, group.label, `${groupPath}.label`, {
        max: 75,
        plainOnly: true,
        label: 'option group label',
        required: true,
      });
      checkOptions(ctx, group.options, `${groupPath}.options`, { min: 1, max: 100, label: 'option group' });
    });
  }
}

function checkOptions(
  ctx: Context,
  options: unknown,
  path: string,
  opts: { min: number; max: number; label: string; urls?: boolean; mrkdwn?: boolean },
): void {
  if (!Array.isArray(options) || options.length < opts.min) {
    push(ctx, path, `${opts.label} needs at least ${opts.min} option`);
    return;
  }
  if (options.length > opts.max) push(ctx, path, `${opts.label} has more than ${opts.max} options`);
  options.forEach((option, i) => {
    const optionPath = `${path}[${i}]`;
    if (!isObject(option)) {
      push(ctx, optionPath, 'option must be an object');
      return;
    }
    checkText(ctx, option.text, `${optionPath}.text`, {
      max: 75,
      plainOnly: !opts.mrkdwn,
      label: 'option text',
      required: true,
    });
    if (typeof option.value !== 'string') push(ctx, `${optionPath}.value`, 'option needs a string value');
    else checkString(ctx, option.value, `${optionPath}.value`, 150, 'option value');
    if (option.description !== undefined) {
      checkText(ctx, option.description, `${optionPath}.description`, {
        max: 75,
        plainOnly: !opts.mrkdwn,
        label: 'option description',
      });
    }
    if (option.url !== undefined) {
      if (opts.urls) checkString(ctx, option.url, `${optionPath}.url`, 3000, 'option url');
      else push(ctx, `${optionPath}.url`, 'option url is only allowed in overflow menus');
    }
  });
}

function checkConfirm(ctx: Context, confirm: unknown, path: string): void {
  if (!isObject(confirm)) {
    push(ctx, path, 'confirm must be an object');
    return;
  }
  checkText(ctx, confirm.title, `${path}.title`, { max: 100, plainOnly: true, label: 'confirm title', required: true });
  checkText(ctx, confirm.text, `${path}.text`, { max: 300, label: 'confirm text', required: true });
  checkText(ctx, confirm.confirm, `${path}.confirm`, {
    max: 30,
    plainOnly: true,
    label: 'confirm button',
    required: true,
  });
  checkText(ctx, confirm.deny, `${path}.deny`, { max: 30, plainOnly: true, label: 'deny button', required: true });
  checkStyle(ctx, confirm.style, `${path}.style`);
}

function checkActionId(ctx: Context, actionId: unknown, path: string): void {
  if (actionId === undefined) return;
  if (typeof actionId !== 'string' || actionId.length === 0) {
    push(ctx, path, 'action_id must be a non-empty string');
    return;
  }
  if (codePointLength(actionId) > 255) push(ctx, path, 'action_id longer than 255');
  if (ctx.actionIds.has(actionId)) push(ctx, path, `duplicate action_id "${actionId}" in the same block`);
  ctx.actionIds.add(actionId);
}

function checkStyle(ctx: Context, style: unknown, path: string): void {
  if (style !== undefined && style !== 'primary' && style !== 'danger') {
    push(ctx, path, 'style must be primary or danger');
  }
}

function checkText(
  ctx: Context,
  value: unknown,
  path: string,
  opts: { max: number; label: string; plainOnly?: boolean; required?: boolean },
): void {
  if (value === undefined) {
    if (opts.required) push(ctx, path, `${opts.label} is required`);
    return;
  }
  if (!isObject(value)) {
    push(ctx, path, `${opts.label} must be a text object`);
    return;
  }
  if (opts.plainOnly && value.type !== 'plain_text') push(ctx, `${path}.type`, `${opts.label} must be plain_text`);
  else if (value.type !== 'plain_text' && value.type !== 'mrkdwn') {
    push(ctx, `${path}.type`, `${opts.label} must be plain_text or mrkdwn`);
  }
  if (typeof value.text !== 'string' || value.text.length === 0) {
    push(ctx, `${path}.text`, `${opts.label} must not be empty`);
    return;
  }
  if (codePointLength(value.text) > opts.max) push(ctx, `${path}.text`, `${opts.label} longer than ${opts.max}`);
}

function checkString(ctx: Context, value: unknown, path: string, max: number, label: string): void {
  if (value === undefined) return;
  if (typeof value !== 'string') push(ctx, path, `${label} must be a string`);
  else if (codePointLength(value) > max) push(ctx, path, `${label} longer than ${max}`);
}

function push(ctx: Context, path: string, rule: string): void {
  ctx.violations.push({ path, rule });
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
