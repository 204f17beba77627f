// Text helpers every builder uses so that text from the Runbook API can never ping, link or break a surface.
// Lengths are counted in code points (what a person sees as characters, emoji included) so a cut never
// leaves half of a surrogate pair behind.

import { unsealMentions } from '../../mentions.ts';

const ELLIPSIS = '…';
const ZERO_WIDTH_SPACE = '\u200b';
const ZERO_WIDTH_JOINER = '\u200d';

export interface PlainTextObject {
  type: 'plain_text';
  text: string;
  emoji: true;
}

export interface MrkdwnTextObject {
  type: 'mrkdwn';
  text: string;
}

/** Number of code points in `text`; the unit every max in this module is measured in. */
export function codePointLength(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

function escapeAll(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Look-alikes for the marks that would start *bold*, _italic_ or ~strike~ (Slack has no escape for them). */
const FORMAT_MARKS: Record<string, string> = { '*': '\u2217', _: '\u02cd', '~': '\u223c' };
/** What may stand before an opening mark or after a closing one (Slack's word boundaries). */
const MARK_BOUNDARY = /[\s.,;:!?()[\]{}'"/\\-]/;

function closesAt(text: string, mark: string, from: number): boolean {
  for (let j = from + 1; j < text.length; j++) {
    if (text[j] === mark && !/\s/.test(text[j - 1]!) && (j + 1 === text.length || MARK_BOUNDARY.test(text[j + 1]!))) {
      return true;
    }
  }
  return false;
}

/**
 * Text is shown as written: an opening *, _ or ~ that has a closing one (so Slack would format the span)
 * becomes a look-alike (∗ ˍ ∼), the way inlineCode turns backticks into ˋ, and so does any mark that could
 * close a span (after a word, before a boundary): builders wrap escaped text in *…*, and a stray closing
 * mark would end their span early (`*Big* freeze*`). Marks that can do neither (`node_name`, `2 * 3`)
 * are left alone.
 */
function disarmFormatting(text: string): string {
  if (!/[*_~]/.test(text)) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    const like = FORMAT_MARKS[ch];
    const opens =
      like !== undefined &&
      (i === 0 || MARK_BOUNDARY.test(text[i - 1]!)) &&
      i + 1 < text.length &&
      !/\s/.test(text[i + 1]!) &&
      closesAt(text, ch, i + 1);
    const closes =
      like !== undefined &&
      i > 0 &&
      !/\s/.test(text[i - 1]!) &&
      (i + 1 === text.length || MARK_BOUNDARY.test(text[i + 1]!));
    out += opens || closes ? like : ch;
  }
  return out;
}

/**
 * Slack's escaping rule: only &, < and > are control characters in mrkdwn; on top of that, text from
 * outside is shown literally, never as *bold*, _italic_ or ~strike~ (disarmFormatting). Deliberately not
 * idempotent. Mentions sealed by src/mentions.ts (from validated ids) stay live; nothing else can. Inside
 * code (inlineCode, codeBlock) nothing is formatted anyway, so `escapeCode` keeps the characters as they are.
 */
export function escapeMrkdwn(text: string): string {
  return unsealMentions(text, (part) => disarmFormatting(escapeAll(part)), ourToken);
}

/** Escaping for text inside ` or ``` (no formatting applies there, so the marks stay as they are). */
export function escapeCode(text: string): string {
  return unsealMentions(text, escapeAll, ourToken);
}

// ---- tokens we made ------------------------------------------------------------------------------
// Every <…> the bot means to send (mentions of validated ids, dates) is made by a helper here and
// remembered, so the outgoing guard (src/slack/kit/outgoing-guard.ts) can keep exactly those and escape
// any other <…> in text that reaches Slack. Bounded: the oldest are forgotten first.

const OUR_TOKENS = new Set<string>();
const MAX_OUR_TOKENS = 20_000;

function ourToken(token: string): string {
  if (OUR_TOKENS.has(token)) OUR_TOKENS.delete(token);
  OUR_TOKENS.add(token);
  if (OUR_TOKENS.size > MAX_OUR_TOKENS) OUR_TOKENS.delete(OUR_TOKENS.values().next().value!);
  return token;
}

/** Whether a <…> token was made by one of the helpers here (or unsealed from src/mentions.ts). */
export function isOurToken(token: string): boolean {
  return OUR_TOKENS.has(token);
}

/**
 * mrkdwn as it may reach Slack: sealed mentions unsealed, every <…> token we made kept, anything else
 * that Slack would read as a mention, broadcast or link (<!channel>, <@U…>, <#C…>, <http…>) escaped.
 * Text that was escaped already is unchanged (it holds no raw < or >).
 */
export function neutralizeMrkdwn(text: string): string {
  return unsealMentions(
    text,
    (part) =>
      part
        .replace(/<[^<>]*>/g, (token) => (OUR_TOKENS.has(token) ? token : `&lt;${token.slice(1, -1)}&gt;`))
        .replace(/<(?![^<>]*>)/g, '&lt;'),
    ourToken,
  );
}

/** Cuts `text` to at most `max` code points, ending with '…' when something was removed. */
export function truncate(text: string, max: number): string {
  const limit = Math.max(0, Math.floor(max));
  const chars = Array.from(text);
  if (chars.length <= limit) return text;
  if (limit === 0) return '';
  return dropDanglingJoiner(chars.slice(0, limit - 1).join('')) + ELLIPSIS;
}

/** A plain_text object that Slack will accept: never empty, never longer than `max`. */
export function plainText(text: string, max = 150): PlainTextObject {
  const cut = truncate(text, max);
  // Slack rejects an empty text field with invalid_blocks; a single space renders as nothing.
  return { type: 'plain_text', text: cut.length > 0 ? cut : ' ', emoji: true };
}

/**
 * A mrkdwn object from text the caller has ALREADY escaped. Cutting never splits an entity such as '&amp;',
 * never leaves a '<…' link/mention open, and closes a ``` block the cut left open.
 */
export function mrkdwnText(text: string, max = 3000): MrkdwnTextObject {
  return { type: 'mrkdwn', text: truncateMrkdwn(text.length > 0 ? text : ' ', max) };
}

/** Truncates already-escaped mrkdwn so that what remains is still well-formed. */
export function truncateMrkdwn(text: string, max: number): string {
  const limit = Math.max(1, Math.floor(max));
  const chars = Array.from(text);
  if (chars.length <= limit) return text;
  let cut = chars.slice(0, limit - 1).join('');
  cut = dropOpenEntity(cut);
  cut = dropOpenAngle(cut);
  cut = dropDanglingJoiner(cut);
  const fenceClose = '\n```';
  if (countFences(cut) % 2 === 1) {
    // Make room for the closing fence, then re-check the entity/angle rules on the shorter text.
    const room = limit - 1 - codePointLength(fenceClose);
    let shorter = Array.from(cut).slice(0, Math.max(0, room)).join('');
    shorter = dropDanglingJoiner(dropOpenAngle(dropOpenEntity(shorter)));
    if (countFences(shorter) % 2 === 1) return shorter + ELLIPSIS + fenceClose;
    return shorter + ELLIPSIS;
  }
  return cut + ELLIPSIS;
}

/**
 * A ``` fenced block of raw (unescaped) text, at most `max` code points including the fences. When it does not
 * fit, the LAST lines are kept — the tail of a log is where the failure is — under a note saying how many
 * earlier lines were left out.
 */
export function codeBlock(text: string, max = 2900): string {
  const open = '```\n';
  const close = '\n```';
  const budget = Math.max(1, Math.floor(max) - codePointLength(open) - codePointLength(close));
  const lines = text.replace(/\r\n?/g, '\n').replace(/\n+$/, '').split('\n');
  const rendered = lines.map(renderCodeLine);
  const whole = rendered.join('\n');
  if (whole.trim().length === 0) return open + ' ' + close;
  if (codePointLength(whole) <= budget) return open + whole + close;

  // Walk back from the last line, keeping whole lines while they and the note still fit.
  const kept: string[] = [];
  let used = 0;
  for (let i = rendered.length - 1; i >= 0; i--) {
    const line = rendered[i]!;
    const extra = codePointLength(line) + (kept.length > 0 ? 1 : 0);
    const note = omittedNote(i);
    if (used + extra + codePointLength(note) + 1 > budget) break;
    kept.unshift(line);
    used += extra;
  }
  if (kept.length > 0) {
    const omitted = rendered.length - kept.length;
    return open + omittedNote(omitted) + '\n' + kept.join('\n') + close;
  }
  // Not even the last line fits whole: keep its tail.
  const omitted = rendered.length - 1;
  const note = omitted > 0 ? omittedNote(omitted) + '\n' : '';
  const room = budget - codePointLength(note) - 1;
  return open + note + ELLIPSIS + fitLineTail(lines[lines.length - 1]!, room) + close;
}

/** `text` as inline code: escaped, on one line, no backticks inside (Slack has no way to escape them). */
export function inlineCode(text: string, max?: number): string {
  const oneLine = text.replace(/\s*[\r\n]+\s*/g, ' ').replace(/`/g, 'ˋ');
  const content = oneLine.length > 0 ? oneLine : ' ';
  if (max === undefined) return '`' + escapeCode(content) + '`';
  return '`' + escapeToFit(content, Math.max(1, Math.floor(max) - 2)) + '`';
}

/** A mention for a real Slack user id; anything else is shown as escaped text so it can never ping. */
export function userMention(userId: string): string {
  return /^[UW][A-Z0-9]+$/.test(userId) ? ourToken(`<@${userId}>`) : escapeMrkdwn(userId);
}

/** A link to a channel for a real Slack channel id; anything else is shown as escaped text so it can never ping. */
export function channelMention(channelId: string): string {
  return /^[CGD][A-Z0-9]+$/.test(channelId) ? ourToken(`<#${channelId}>`) : escapeMrkdwn(channelId);
}

/** Only a plain https link can be made: anything else could break out of the mrkdwn link. */
const SAFE_LINK = /^https:\/\/[^\s<>|]{1,900}$/;

/** Whether `slackLink` would make a link of this URL. */
export function isSafeLink(url: string): boolean {
  return SAFE_LINK.test(url);
}

/** A link to a plain https URL with an escaped label; anything else is shown as the escaped label alone. */
export function slackLink(url: string, label: string): string {
  const text = escapeMrkdwn(label.replace(/\|/g, '¦'));
  return SAFE_LINK.test(url) ? ourToken(`<${url}|${text}>`) : text;
}

/** A short human duration: "45s", "3m 12s", "2h 5m", "1d 3h". Sub-second durations read "<1s". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return '0s';
  if (ms < 1000) return '<1s';
  const totalSeconds = Math.floor(ms / 1000);
  const days = Math.floor(totalSeconds / 86_400);
  const hours = Math.floor((totalSeconds % 86_400) / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  if (days > 0) return joinUnits([days, 'd'], [hours, 'h']);
  if (hours > 0) return joinUnits([hours, 'h'], [minutes, 'm']);
  if (minutes > 0) return joinUnits([minutes, 'm'], [seconds, 's']);
  return `${seconds}s`;
}

/** Slack's date token, rendered in each viewer's own time zone; `fallback` shows where tokens are unsupported. */
export function slackDate(epochSeconds: number, fallback: string, format = '{date_short_pretty} {time}'): string {
  const seconds = Math.floor(epochSeconds);
  // '^' and '|' delimit the token's parts, so they must not appear inside the format.
  const safeFormat = escapeCode(format.replace(/[\^|]/g, ' '));
  return ourToken(`<!date^${seconds}^${safeFormat}|${escapeMrkdwn(fallback.replace(/\|/g, '¦'))}>`);
}

function joinUnits(major: [number, string], minor: [number, string]): string {
  return minor[0] > 0 ? `${major[0]}${major[1]} ${minor[0]}${minor[1]}` : `${major[0]}${major[1]}`;
}

function omittedNote(count: number): string {
  return `… (${count} earlier ${count === 1 ? 'line' : 'lines'} not shown)`;
}

/** Escapes one line and breaks any ``` run so the content cannot close the fence early. */
function renderCodeLine(line: string): string {
  return escapeCode(line).replace(/`{3,}/g, (run) => Array.from(run).join(ZERO_WIDTH_SPACE));
}

/** The longest tail of `raw` whose rendering fits in `room` code points. */
function fitLineTail(raw: string, room: number): string {
  const chars = Array.from(raw);
  let low = 0;
  let high = chars.length;
  // Binary search on how many trailing code points to keep; rendering grows with the kept count.
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (codePointLength(renderCodeLine(chars.slice(chars.length - mid).join(''))) <= room) low = mid;
    else high = mid - 1;
  }
  return renderCodeLine(chars.slice(chars.length - low).join(''));
}

/** Escapes raw text and truncates it so the escaped result fits in `max`; entities are never split. */
function escapeToFit(raw: string, max: number): string {
  const escaped = escapeCode(raw);
  if (codePointLength(escaped) <= max) return escaped;
  let out = '';
  let used = 0;
  for (const ch of raw) {
    const piece = escapeCode(ch);
    const size = codePointLength(piece);
    if (used + size > max - 1) break;
    out += piece;
    used += size;
  }
  return dropDanglingJoiner(out) + ELLIPSIS;
}

/** Drops a trailing '&…' that was cut before its ';'. */
function dropOpenEntity(text: string): string {
  const amp = text.lastIndexOf('&');
  if (amp === -1) return text;
  return text.indexOf(';', amp) === -1 && /^&#?[a-zA-Z0-9]*$/.test(text.slice(amp)) ? text.slice(0, amp) : text;
}

/** Drops a trailing '<…' (link, mention, date token) that was cut before its '>'. */
function dropOpenAngle(text: string): string {
  const lt = text.lastIndexOf('<');
  if (lt === -1) return text;
  return text.indexOf('>', lt) === -1 ? text.slice(0, lt) : text;
}

/** A cut right after a zero-width joiner would glue the ellipsis onto half an emoji sequence. */
function dropDanglingJoiner(text: string): string {
  return text.endsWith(ZERO_WIDTH_JOINER) ? text.slice(0, -1) : text;
}

function countFences(text: string): number {
  return text.match(/```/g)?.length ?? 0;
}
