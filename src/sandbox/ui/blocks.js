// Block Kit → DOM for the sandbox. Layout blocks render read-only; interactive elements call
// ctx.act() with the fields a block_actions payload carries for that element type; input
// elements register a reader so collectValues() can build view.state.values the way Slack does.
// Every bot string goes through textContent or renderMrkdwn, never innerHTML.
import { emojify, instantOfWallTime, renderMrkdwn, safeUrl, wallTimeOf } from './mrkdwn.js';

/** element node → () => state object ({type, value | selected_* }) */
const readers = new WeakMap();

/**
 * @typedef {object} BlockContext
 * @property {(id: string) => string} userName
 * @property {(id: string) => string} channelName
 * @property {Array<{id: string, name: string}>} channels
 * @property {Array<{id: string, real_name: string, is_bot: boolean}>} [users]
 * @property {string} [currentChannel]
 * @property {Record<string, Record<string, object>>} [values] stored state to start inputs from
 * @property {Record<string, string>} [errors] block_id → error under that input
 * @property {(action: object) => void} act
 * @property {(actionId: string, blockId: string, query: string) => Promise<{options: object[], option_groups: object[]}>} [suggest]
 * @property {(dialog: object) => Promise<boolean>} confirm
 */

/** @returns {HTMLElement} */
export function renderBlocks(blocks, ctx) {
  const root = h('div', 'bk-blocks');
  for (const block of blocks ?? []) {
    const node = renderBlock(block, ctx);
    if (node) root.append(node);
  }
  return root;
}

/** view.state.values from every stateful element under root: block_id → action_id → state. */
export function collectValues(root) {
  const values = {};
  for (const node of root.querySelectorAll('[data-action-id]')) {
    const read = readers.get(node);
    if (!read) continue;
    const blockId = node.dataset.blockId;
    values[blockId] ??= {};
    values[blockId][node.dataset.actionId] = read();
  }
  return values;
}

function h(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** A text object (plain_text or mrkdwn). */
export function renderText(text, ctx, tag = 'span') {
  const e = h(tag, 'bk-text');
  if (!text) return e;
  if (text.type === 'mrkdwn') e.append(renderMrkdwn(text.text, ctx));
  else e.textContent = text.emoji === false ? (text.text ?? '') : emojify(text.text ?? '');
  return e;
}

function plain(text) {
  return text?.text ?? '';
}

function renderBlock(block, ctx) {
  const blockId = block.block_id ?? '';
  switch (block.type) {
    case 'header':
      return renderText(block.text, ctx, 'h3');
    case 'divider':
      return h('hr', 'bk-divider');
    case 'section':
      return renderSection(block, blockId, ctx);
    case 'context': {
      const e = h('div', 'bk-context');
      for (const item of block.elements ?? []) {
        if (item.type === 'image') e.append(image(item, 'bk-context-image'));
        else e.append(renderText(item, ctx));
      }
      return e;
    }
    case 'image': {
      const e = h('figure', 'bk-image');
      if (block.title) e.append(renderText(block.title, ctx, 'figcaption'));
      e.append(image(block, ''));
      return e;
    }
    case 'actions': {
      const e = h('div', 'bk-actions');
      for (const element of block.elements ?? []) e.append(renderElement(element, blockId, ctx, { input: false }));
      return e;
    }
    case 'input':
      return renderInput(block, blockId, ctx);
    case 'rich_text':
      return h('div', 'bk-text', richTextToPlain(block));
    default: {
      const e = h('div', 'bk-unknown', `[${block.type} block]`);
      return e;
    }
  }
}

function richTextToPlain(block) {
  const walk = (node) =>
    node.text ?? (node.type === 'user' ? `@${node.user_id}` : '') + (node.elements ?? []).map(walk).join('');
  return walk(block);
}

/** An uploaded image is served by the sandbox at /files/<id>; `slack_file` names it by id or by its URL. */
export function slackFileSrc(ref) {
  const id = typeof ref?.id === 'string' ? ref.id : /\/files\/(F[A-Z0-9]+)$/.exec(String(ref?.url ?? ''))?.[1];
  return id && /^F[A-Z0-9]+$/.test(id) ? `/files/${id}` : '';
}

function image(item, className) {
  const img = h('img', className);
  const src = item.slack_file ? slackFileSrc(item.slack_file) : safeUrl(item.image_url ?? '');
  if (src) img.src = src;
  img.alt = item.alt_text ?? '';
  return img;
}

function renderSection(block, blockId, ctx) {
  const e = h('div', 'bk-section');
  const body = h('div', 'bk-section-body');
  if (block.text) body.append(renderText(block.text, ctx, 'div'));
  if (block.fields?.length) {
    const fields = h('div', 'bk-fields');
    for (const field of block.fields) fields.append(renderText(field, ctx, 'div'));
    body.append(fields);
  }
  e.append(body);
  if (block.accessory) {
    const accessory = h('div', 'bk-accessory');
    accessory.append(
      block.accessory.type === 'image'
        ? image(block.accessory, 'bk-accessory-image')
        : renderElement(block.accessory, blockId, ctx, { input: false }),
    );
    e.append(accessory);
  }
  return e;
}

function renderInput(block, blockId, ctx) {
  const e = h('div', 'bk-input');
  e.dataset.blockId = blockId;
  const label = h('label', 'bk-label');
  label.append(renderText(block.label, ctx));
  if (block.optional) label.append(h('span', 'bk-optional', ' (optional)'));
  e.append(label);
  const element = renderElement(block.element, blockId, ctx, {
    input: true,
    dispatch: block.dispatch_action === true,
  });
  e.append(element);
  if (block.hint) {
    const hint = renderText(block.hint, ctx, 'div');
    hint.classList.add('bk-hint');
    e.append(hint);
  }
  const error = ctx.errors?.[blockId];
  const errorNode = h('div', 'bk-error', error ?? '');
  errorNode.hidden = !error;
  e.append(errorNode);
  if (error) e.classList.add('has-error');
  return e;
}

/** Stored state for an element (what the user entered before a re-render), if any. */
function stored(ctx, blockId, actionId) {
  return ctx.values?.[blockId]?.[actionId];
}

function register(node, element, blockId, read) {
  node.dataset.blockId = blockId;
  node.dataset.actionId = element.action_id ?? '';
  node.dataset.type = element.type;
  readers.set(node, read);
}

/**
 * @param {{input: boolean, dispatch?: boolean}} where — input: inside an input block (state only
 *   unless dispatch_action), otherwise every change is an action.
 */
function renderElement(element, blockId, ctx, where) {
  // Outside input blocks every interactive element sends block_actions; inside, only with dispatch_action.
  const live = !where.input || where.dispatch;
  const act = (fields) => {
    if (!live) return;
    send(element, ctx, { actionId: element.action_id, blockId, type: element.type, ...fields });
  };
  switch (element.type) {
    case 'button':
      return button(element, blockId, ctx);
    case 'overflow':
      return overflow(element, blockId, ctx);
    case 'static_select':
    case 'multi_static_select':
      return staticSelect(element, blockId, ctx, act);
    case 'external_select':
    case 'multi_external_select':
      return externalSelect(element, blockId, ctx, act);
    case 'conversations_select':
    case 'channels_select':
    case 'users_select':
      return conversationSelect(element, blockId, ctx, act);
    case 'checkboxes':
    case 'radio_buttons':
      return choices(element, blockId, ctx, act);
    case 'datepicker':
    case 'timepicker':
    case 'datetimepicker':
      return picker(element, blockId, ctx, act);
    case 'plain_text_input':
    case 'number_input':
    case 'email_text_input':
    case 'url_text_input':
      return textInput(element, blockId, ctx, act);
    default:
      return h('span', 'bk-unknown', `[${element.type}]`);
  }
}

async function send(element, ctx, action) {
  if (element.confirm && !(await ctx.confirm(element.confirm))) return;
  ctx.act(action);
}

function button(element, blockId, ctx) {
  const b = h('button', `bk-button${element.style ? ` bk-${element.style}` : ''}`);
  b.type = 'button';
  b.textContent = plain(element.text);
  b.dataset.actionId = element.action_id ?? '';
  b.dataset.blockId = blockId;
  b.addEventListener('click', () => {
    const url = element.url ? safeUrl(element.url) : null;
    if (url) window.open(url, '_blank', 'noopener');
    send(element, ctx, {
      actionId: element.action_id,
      blockId,
      type: 'button',
      ...(element.value !== undefined ? { value: element.value } : {}),
    });
  });
  return b;
}

function optionText(option) {
  return plain(option.text);
}

/** Options as Slack echoes them in payloads: text + value (+ description). */
function toOption(option) {
  return { text: option.text, value: option.value, ...(option.description ? { description: option.description } : {}) };
}

function overflow(element, blockId, ctx) {
  const wrap = h('div', 'bk-overflow');
  const toggle = h('button', 'bk-button bk-overflow-toggle', '⋯');
  toggle.type = 'button';
  toggle.title = 'More actions';
  toggle.dataset.actionId = element.action_id ?? '';
  const menu = h('div', 'bk-menu');
  menu.hidden = true;
  for (const option of element.options ?? []) {
    const item = h('button', 'bk-menu-item', optionText(option));
    item.type = 'button';
    item.addEventListener('click', () => {
      menu.hidden = true;
      const url = option.url ? safeUrl(option.url) : null;
      if (url) window.open(url, '_blank', 'noopener');
      send(element, ctx, { actionId: element.action_id, blockId, type: 'overflow', selected_option: toOption(option) });
    });
    menu.append(item);
  }
  toggle.addEventListener('click', () => {
    menu.hidden = !menu.hidden;
  });
  wrap.append(toggle, menu);
  return wrap;
}

function allOptions(element) {
  return [...(element.options ?? []), ...(element.option_groups ?? []).flatMap((g) => g.options ?? [])];
}

function staticSelect(element, blockId, ctx, act) {
  const multi = element.type.startsWith('multi_');
  const select = h('select', 'bk-select');
  select.multiple = multi;
  const options = allOptions(element);
  const saved = stored(ctx, blockId, element.action_id);
  const initial = multi
    ? (saved?.selected_options ?? element.initial_options ?? []).map((o) => o.value)
    : [(saved ? saved.selected_option : element.initial_option)?.value].filter((v) => v !== undefined);
  if (!multi) {
    const placeholder = h('option', '', plain(element.placeholder) || 'Select an item');
    placeholder.value = '';
    select.append(placeholder);
  }
  const addOption = (parent, option) => {
    const o = h('option', '', optionText(option));
    o.value = option.value;
    o.selected = initial.includes(option.value);
    parent.append(o);
  };
  for (const option of element.options ?? []) addOption(select, option);
  for (const group of element.option_groups ?? []) {
    const g = h('optgroup');
    g.label = plain(group.label);
    for (const option of group.options ?? []) addOption(g, option);
    select.append(g);
  }
  const selected = () =>
    [...select.selectedOptions].map((o) => options.find((x) => x.value === o.value)).filter(Boolean);
  const read = () =>
    multi
      ? { type: element.type, selected_options: selected().map(toOption) }
      : { type: element.type, selected_option: selected()[0] ? toOption(selected()[0]) : null };
  register(select, element, blockId, read);
  select.addEventListener('change', () => act(read()));
  return select;
}

function externalSelect(element, blockId, ctx, act) {
  const multi = element.type.startsWith('multi_');
  const wrap = h('div', 'bk-typeahead');
  const chips = h('div', 'bk-chips');
  const input = h('input', 'bk-text-input');
  input.type = 'text';
  input.placeholder = plain(element.placeholder) || 'Type to search';
  input.autocomplete = 'off';
  const list = h('div', 'bk-menu bk-typeahead-list');
  list.hidden = true;
  const saved = stored(ctx, blockId, element.action_id);
  let picked = multi
    ? [...(saved?.selected_options ?? element.initial_options ?? [])]
    : [saved ? saved.selected_option : element.initial_option].filter(Boolean);
  const read = () =>
    multi
      ? { type: element.type, selected_options: picked.map(toOption) }
      : { type: element.type, selected_option: picked[0] ? toOption(picked[0]) : null };
  register(wrap, element, blockId, read);

  const showPicked = () => {
    chips.replaceChildren();
    if (multi) {
      for (const option of picked) {
        const chip = h('button', 'bk-chip', `${optionText(option)} ×`);
        chip.type = 'button';
        chip.addEventListener('click', () => {
          picked = picked.filter((o) => o.value !== option.value);
          showPicked();
          act(read());
        });
        chips.append(chip);
      }
    } else {
      input.value = picked[0] ? optionText(picked[0]) : '';
    }
  };
  const minLength = element.min_query_length ?? 3;
  let seq = 0;
  const search = async () => {
    const query = multi || !picked[0] || input.value !== optionText(picked[0]) ? input.value : '';
    if (query.length < minLength || !ctx.suggest) {
      list.hidden = true;
      return;
    }
    const mine = ++seq;
    const answer = await ctx.suggest(element.action_id, blockId, query);
    if (mine !== seq) return;
    list.replaceChildren();
    const options = [...(answer.options ?? []), ...(answer.option_groups ?? []).flatMap((g) => g.options ?? [])];
    if (options.length === 0) list.append(h('div', 'bk-menu-empty', 'No results'));
    for (const option of options) {
      const item = h('button', 'bk-menu-item', optionText(option));
      item.type = 'button';
      // mousedown: pick before the input's blur hides the list.
      item.addEventListener('mousedown', (event) => {
        event.preventDefault();
        picked = multi ? [...picked.filter((o) => o.value !== option.value), option] : [option];
        list.hidden = true;
        if (multi) input.value = '';
        showPicked();
        act(read());
      });
      list.append(item);
    }
    list.hidden = false;
  };
  let timer;
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(search, 150);
  });
  input.addEventListener('focus', () => {
    if (!multi && picked[0]) input.select();
    search();
  });
  input.addEventListener('blur', () => {
    list.hidden = true;
    if (!multi) showPicked();
  });
  showPicked();
  wrap.append(chips, input, list);
  return wrap;
}

function conversationSelect(element, blockId, ctx, act) {
  const kind =
    element.type === 'users_select' ? 'user' : element.type === 'channels_select' ? 'channel' : 'conversation';
  const field = `selected_${kind}`;
  const select = h('select', 'bk-select');
  const placeholder = h('option', '', plain(element.placeholder) || 'Select');
  placeholder.value = '';
  select.append(placeholder);
  const saved = stored(ctx, blockId, element.action_id);
  let initial = saved ? saved[field] : (element[`initial_${kind}`] ?? null);
  if (!saved && !initial && element.default_to_current_conversation) initial = ctx.currentChannel ?? null;
  const entries =
    kind === 'user'
      ? (ctx.users ?? []).filter((u) => !u.is_bot).map((u) => ({ id: u.id, label: u.real_name }))
      : ctx.channels.map((c) => ({ id: c.id, label: `#${c.name}` }));
  for (const entry of entries) {
    const o = h('option', '', entry.label);
    o.value = entry.id;
    o.selected = entry.id === initial;
    select.append(o);
  }
  const read = () => ({ type: element.type, [field]: select.value || null });
  register(select, element, blockId, read);
  select.addEventListener('change', () => act(read()));
  return select;
}

function choices(element, blockId, ctx, act) {
  const radio = element.type === 'radio_buttons';
  const wrap = h('div', 'bk-choices');
  const saved = stored(ctx, blockId, element.action_id);
  const initial = radio
    ? [(saved ? saved.selected_option : element.initial_option)?.value]
    : (saved?.selected_options ?? element.initial_options ?? []).map((o) => o.value);
  const name = `${blockId}-${element.action_id}-${Math.random().toString(36).slice(2)}`;
  const boxes = [];
  for (const option of element.options ?? []) {
    const label = h('label', 'bk-choice');
    const box = h('input');
    box.type = radio ? 'radio' : 'checkbox';
    box.name = name;
    box.value = option.value;
    box.checked = initial.includes(option.value);
    boxes.push([box, option]);
    label.append(box, renderText(option.text, ctx));
    if (option.description) label.append(renderText(option.description, ctx, 'small'));
    wrap.append(label);
  }
  const chosen = () => boxes.filter(([b]) => b.checked).map(([, o]) => toOption(o));
  const read = () =>
    radio
      ? { type: element.type, selected_option: chosen()[0] ?? null }
      : { type: element.type, selected_options: chosen() };
  register(wrap, element, blockId, read);
  wrap.addEventListener('change', () => act(read()));
  return wrap;
}

function picker(element, blockId, ctx, act) {
  const input = h('input', 'bk-text-input bk-picker');
  const saved = stored(ctx, blockId, element.action_id);
  let read;
  if (element.type === 'datepicker') {
    input.type = 'date';
    input.value = (saved ? saved.selected_date : element.initial_date) ?? '';
    read = () => ({ type: element.type, selected_date: input.value || null });
  } else if (element.type === 'timepicker') {
    input.type = 'time';
    input.value = (saved ? saved.selected_time : element.initial_time) ?? '';
    read = () => ({ type: element.type, selected_time: input.value || null });
  } else {
    // datetimepicker: Unix seconds both ways, picked in the viewer's Slack time zone (as Slack does),
    // not the computer's.
    input.type = 'datetime-local';
    const seconds = saved ? saved.selected_date_time : element.initial_date_time;
    if (typeof seconds === 'number') input.value = wallTimeOf(seconds, ctx.timeZone);
    read = () => ({
      type: element.type,
      selected_date_time: input.value ? instantOfWallTime(input.value, ctx.timeZone) : null,
    });
  }
  register(input, element, blockId, read);
  input.addEventListener('change', () => act(read()));
  return input;
}

function textInput(element, blockId, ctx, act) {
  const multiline = element.type === 'plain_text_input' && element.multiline;
  const input = h(multiline ? 'textarea' : 'input', 'bk-text-input');
  if (!multiline) {
    input.type =
      element.type === 'number_input'
        ? 'text'
        : element.type === 'email_text_input'
          ? 'email'
          : element.type === 'url_text_input'
            ? 'url'
            : 'text';
  }
  if (element.type === 'number_input') input.inputMode = element.is_decimal_allowed ? 'decimal' : 'numeric';
  if (element.max_length) input.maxLength = element.max_length;
  input.placeholder = plain(element.placeholder);
  const saved = stored(ctx, blockId, element.action_id);
  input.value = (saved ? saved.value : element.initial_value) ?? '';
  const read = () => ({ type: element.type, value: input.value === '' ? null : input.value });
  register(input, element, blockId, read);
  const triggers = element.dispatch_action_config?.trigger_actions_on ?? ['on_enter_pressed'];
  if (triggers.includes('on_character_entered')) {
    let timer;
    input.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(() => act(read()), 300);
    });
  }
  if (triggers.includes('on_enter_pressed')) {
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey && !multiline) {
        event.preventDefault();
        act(read());
      }
    });
  }
  return input;
}
