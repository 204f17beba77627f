// Slack mrkdwn → DOM, safely: text is parsed into a small node tree and turned into elements and
// text nodes; bot text never goes through innerHTML. parseMrkdwn is pure (no DOM) so it can be
// tested in Node; renderMrkdwn builds the DOM in the browser.

const ENTITIES = { '&lt;': '<', '&gt;': '>', '&amp;': '&' };

/** Slack escapes only these three; decode them when text is shown. */
export function decodeEntities(text) {
  return text.replace(/&(lt|gt|amp);/g, (m) => ENTITIES[m]);
}

// The shortcodes the bot uses (and a few common ones); unknown ones stay as typed, like Slack.
const EMOJI = {
  warning: '⚠️',
  no_entry: '⛔',
  heavy_minus_sign: '➖',
  mag: '🔍',
  x: '❌',
  lock: '🔒',
  hourglass_flowing_sand: '⏳',
  hourglass: '⌛',
  white_check_mark: '✅',
  grey_question: '❔',
  wastebasket: '🗑️',
  speech_balloon: '💬',
  scissors: '✂️',
  red_circle: '🔴',
  large_green_circle: '🟢',
  large_yellow_circle: '🟡',
  information_source: 'ℹ️',
  calendar: '📆',
  clock3: '🕒',
  rocket: '🚀',
  tada: '🎉',
  eyes: '👀',
  bell: '🔔',
  repeat: '🔁',
  stopwatch: '⏱️',
  no_entry_sign: '🚫',
  no_bell: '🔕',
  floppy_disk: '💾',
  pushpin: '📌',
  double_vertical_bar: '⏸️',
  arrow_forward: '▶️',
  fast_forward: '⏩',
  large_green_square: '🟩',
  large_red_square: '🟥',
  large_yellow_square: '🟨',
  white_large_square: '⬜',
  bar_chart: '📊',
  stethoscope: '🩺',
  electric_plug: '🔌',
  snowflake: '❄️',
  white_small_square: '▫️',
  rotating_light: '🚨',
};

/** Whether the sandbox shows this :shortcode: as an emoji (a test checks every one the bot sends). */
export function knowsEmoji(name) {
  return Object.hasOwn(EMOJI, name);
}

/** Known :shortcodes: as emoji (plain_text with emoji: true shows them too). */
export function emojify(text) {
  return text.replace(/:([a-z0-9_+-]+):/g, (m, name) => EMOJI[name] ?? m);
}

/** Text as shown: entities decoded, known shortcodes as emoji. */
function displayText(raw) {
  return emojify(decodeEntities(raw));
}

const MARKS = { '*': 'bold', _: 'italic', '~': 'strike' };
const BOUNDARY = /[\s.,;:!?()[\]{}'"/\\-]/;

/**
 * @param {string} text
 * @returns {Array<object>} nodes: {type:'text',text} | {type:'bold'|'italic'|'strike'|'quote',children}
 *   | {type:'code',text} | {type:'pre',text} | {type:'br'} | {type:'link',url,children}
 *   | {type:'user',id,label} | {type:'channel',id,label} | {type:'group',id,label} | {type:'broadcast',name} | {type:'date',text}
 */
export function parseMrkdwn(text) {
  const nodes = [];
  const parts = String(text ?? '').split('```');
  parts.forEach((part, i) => {
    // Odd parts sit between ``` fences (an unclosed fence stays literal text).
    if (i % 2 === 1 && i < parts.length - 1) {
      nodes.push({ type: 'pre', text: decodeEntities(part.replace(/^\n/, '')) });
      return;
    }
    const literal = i % 2 === 1 ? '```' + part : part;
    parseLines(literal, nodes);
  });
  return nodes;
}

function parseLines(text, nodes) {
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (i > 0) nodes.push({ type: 'br' });
    const quote = line.match(/^(?:&gt;|>) ?(.*)$/);
    if (quote) nodes.push({ type: 'quote', children: parseInline(quote[1]) });
    else nodes.push(...parseInline(line));
  });
}

function parseInline(text) {
  const out = [];
  let buffer = '';
  const flush = () => {
    if (buffer) out.push({ type: 'text', text: displayText(buffer) });
    buffer = '';
  };
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '`') {
      const end = text.indexOf('`', i + 1);
      if (end > i + 1) {
        flush();
        out.push({ type: 'code', text: decodeEntities(text.slice(i + 1, end)) });
        i = end + 1;
        continue;
      }
    }
    if (ch === '<') {
      const end = text.indexOf('>', i + 1);
      if (end > i + 1) {
        flush();
        out.push(parseAngle(text.slice(i + 1, end)));
        i = end + 1;
        continue;
      }
    }
    if (MARKS[ch] && (i === 0 || BOUNDARY.test(text[i - 1])) && text[i + 1] && !/\s/.test(text[i + 1])) {
      const end = findClosing(text, ch, i + 1);
      if (end > 0) {
        flush();
        out.push({ type: MARKS[ch], children: parseInline(text.slice(i + 1, end)) });
        i = end + 1;
        continue;
      }
    }
    buffer += ch;
    i += 1;
  }
  flush();
  return out;
}

function findClosing(text, mark, from) {
  for (let j = from + 1; j < text.length; j += 1) {
    if (text[j] === '<') {
      // Skip over links so a mark inside a URL does not close the span.
      const end = text.indexOf('>', j);
      if (end > 0) j = end;
      continue;
    }
    if (text[j] === mark && !/\s/.test(text[j - 1]) && (j + 1 === text.length || BOUNDARY.test(text[j + 1]))) {
      return j;
    }
  }
  return -1;
}

function parseAngle(inner) {
  const bar = inner.indexOf('|');
  const target = bar === -1 ? inner : inner.slice(0, bar);
  const label = bar === -1 ? '' : inner.slice(bar + 1);
  if (target.startsWith('@')) return { type: 'user', id: target.slice(1), label: decodeEntities(label) };
  if (target.startsWith('#')) return { type: 'channel', id: target.slice(1), label: decodeEntities(label) };
  if (target.startsWith('!date^')) {
    // <!date^SECONDS^FORMAT[^LINK]|fallback>: the format is rendered in the viewer's time zone.
    const [, seconds, format = '', link] = target.split('^');
    const node = {
      type: 'date',
      seconds: Number(seconds),
      format: decodeEntities(format),
      text: decodeEntities(label || target),
    };
    if (link) node.link = decodeEntities(link);
    return node;
  }
  if (target.startsWith('!subteam^')) {
    // A user group: Slack shows its handle (the label, else the group the reader's workspace knows).
    return { type: 'group', id: target.slice('!subteam^'.length), label: decodeEntities(label) };
  }
  if (target.startsWith('!')) return { type: 'broadcast', name: target.slice(1).split('^')[0] };
  const url = decodeEntities(target);
  return { type: 'link', url, children: parseInline(label || target) };
}

/** Only web and mail links become clickable; anything else (javascript:, data:) stays text. */
export function safeUrl(url) {
  return /^(https?:|mailto:)/i.test(url) ? url : null;
}

/**
 * @param {string} text mrkdwn
 * @param {{ userName?: (id: string) => string, channelName?: (id: string) => string, groupName?: (id: string) => string | undefined, timeZone?: string }} [ctx]
 * @returns {DocumentFragment}
 */
export function renderMrkdwn(text, ctx = {}) {
  const fragment = document.createDocumentFragment();
  appendNodes(fragment, parseMrkdwn(text), ctx);
  return fragment;
}

function appendNodes(parent, nodes, ctx) {
  for (const node of nodes) parent.append(toDom(node, ctx));
}

function el(tag, className, children, ctx) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (children) appendNodes(e, children, ctx);
  return e;
}

function toDom(node, ctx) {
  switch (node.type) {
    case 'text':
      return document.createTextNode(node.text);
    case 'br':
      return document.createElement('br');
    case 'bold':
      return el('strong', '', node.children, ctx);
    case 'italic':
      return el('em', '', node.children, ctx);
    case 'strike':
      return el('del', '', node.children, ctx);
    case 'quote':
      return el('blockquote', 'md-quote', node.children, ctx);
    case 'code': {
      const e = el('code', 'md-code');
      e.textContent = node.text;
      return e;
    }
    case 'pre': {
      const e = el('pre', 'md-pre');
      e.textContent = node.text;
      return e;
    }
    case 'user': {
      const e = el('span', 'md-mention');
      e.textContent = `@${node.label || ctx.userName?.(node.id) || node.id}`;
      return e;
    }
    case 'channel': {
      const e = el('span', 'md-mention');
      e.textContent = `#${node.label || ctx.channelName?.(node.id) || node.id}`;
      return e;
    }
    case 'group': {
      const e = el('span', 'md-mention');
      e.textContent = `@${node.label || ctx.groupName?.(node.id) || 'group'}`;
      return e;
    }
    case 'broadcast': {
      const e = el('span', 'md-mention');
      e.textContent = `@${node.name}`;
      return e;
    }
    case 'date': {
      const text = Number.isFinite(node.seconds)
        ? formatSlackDate(node.seconds, node.format, { timeZone: ctx.timeZone })
        : node.text;
      return document.createTextNode(text);
    }
    case 'link': {
      const href = safeUrl(node.url);
      if (!href) return el('span', '', node.children, ctx);
      const a = el('a', 'md-link', node.children, ctx);
      a.href = href;
      a.target = '_blank';
      a.rel = 'noopener noreferrer';
      return a;
    }
    default:
      return document.createTextNode('');
  }
}

const DAY_MS = 86_400_000;

/**
 * Slack's date tokens ({date_num} {date} {date_short} {date_long}, their _pretty forms, {time}, {time_secs},
 * {ago}) for a Unix time, in the viewer's time zone (the browser's when none is given). Pure, for tests.
 * @param {number} seconds
 * @param {string} format
 * @param {{ timeZone?: string, now?: number }} [options] now in ms
 */
export function formatSlackDate(seconds, format, options = {}) {
  const date = new Date(seconds * 1000);
  const now = options.now ?? Date.now();
  let timeZone = options.timeZone;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
  } catch {
    timeZone = undefined;
  }
  const fmt = (opts) => new Intl.DateTimeFormat('en-US', { timeZone, ...opts }).format(date);
  const dayKey = (ms) => new Intl.DateTimeFormat('en-CA', { timeZone, dateStyle: 'short' }).format(new Date(ms));
  const ordinal = (d) => {
    const n = Number(d);
    const suffix =
      n % 10 === 1 && n !== 11 ? 'st' : n % 10 === 2 && n !== 12 ? 'nd' : n % 10 === 3 && n !== 13 ? 'rd' : 'th';
    return `${n}${suffix}`;
  };
  const day = fmt({ day: 'numeric' });
  const month = fmt({ month: 'long' });
  const year = fmt({ year: 'numeric' });
  const tokens = {
    date_num: dayKey(date.getTime()),
    date: `${month} ${ordinal(day)}, ${year}`,
    date_short: fmt({ month: 'short', day: 'numeric', year: 'numeric' }),
    date_long: `${fmt({ weekday: 'long' })}, ${month} ${ordinal(day)}, ${year}`,
    time: fmt({ hour: 'numeric', minute: '2-digit' }),
    time_secs: fmt({ hour: 'numeric', minute: '2-digit', second: '2-digit' }),
    ago: ago(now - date.getTime()),
  };
  const relative = { [dayKey(now)]: 'today', [dayKey(now - DAY_MS)]: 'yesterday', [dayKey(now + DAY_MS)]: 'tomorrow' };
  const pretty = relative[tokens.date_num];
  tokens.date_pretty = pretty ?? tokens.date;
  tokens.date_short_pretty = pretty ?? tokens.date_short;
  tokens.date_long_pretty = pretty ?? tokens.date_long;
  return format.replace(/\{([a-z_]+)\}/g, (m, name) => tokens[name] ?? m);
}

function ago(ms) {
  const future = ms < 0;
  const s = Math.round(Math.abs(ms) / 1000);
  const [n, unit] =
    s < 60
      ? [s, 'second']
      : s < 3600
        ? [Math.round(s / 60), 'minute']
        : s < 86_400
          ? [Math.round(s / 3600), 'hour']
          : [Math.round(s / 86_400), 'day'];
  const text = `${n} ${unit}${n === 1 ? '' : 's'}`;
  return future ? `in ${text}` : `${text} ago`;
}

/** A usable IANA zone name, or undefined (the browser's zone) when the name is unknown. */
function knownZone(timeZone) {
  if (!timeZone) return undefined;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return timeZone;
  } catch {
    return undefined;
  }
}

/** Wall-clock parts of an instant in a zone. */
function wallParts(ms, timeZone) {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: knownZone(timeZone),
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(ms));
  const n = (type) => Number(parts.find((p) => p.type === type)?.value);
  return {
    year: n('year'),
    month: n('month'),
    day: n('day'),
    hour: n('hour'),
    minute: n('minute'),
    second: n('second'),
  };
}

/**
 * A message's time ("14:05") in the viewer's time zone, as Slack shows it to each person (the browser's
 * zone only when the viewer's is unknown).
 * @param {string|number} ts Slack ts (seconds, with a fraction)
 * @param {string} [timeZone]
 */
export function formatMessageTime(ts, timeZone) {
  const d = new Date(Number.parseFloat(String(ts)) * 1000);
  return new Intl.DateTimeFormat('en-GB', { timeZone: knownZone(timeZone), hour: '2-digit', minute: '2-digit' }).format(
    d,
  );
}

/**
 * A datetimepicker's value as <input type="datetime-local"> shows it ("2026-12-01T02:00"), in the viewer's
 * zone: Slack's picker works in the person's Slack time zone, not the computer's.
 * @param {number} seconds
 * @param {string} [timeZone]
 */
export function wallTimeOf(seconds, timeZone) {
  const p = wallParts(seconds * 1000, timeZone);
  const pad = (n) => String(n).padStart(2, '0');
  return `${p.year}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}`;
}

/**
 * The instant (Unix seconds) of a wall time ("2026-12-01T02:00") in the viewer's zone; null when unreadable.
 * @param {string} value
 * @param {string} [timeZone]
 */
export function instantOfWallTime(value, timeZone) {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(value ?? '');
  if (!m) return null;
  const asUtc = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]));
  // The zone's offset at that time, found by asking what wall time the first guess shows (twice, for DST).
  let guess = asUtc;
  for (let i = 0; i < 2; i++) {
    const p = wallParts(guess, timeZone);
    const shown = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
    guess += asUtc - shown;
  }
  return Math.floor(guess / 1000);
}
