// Real mentions inside sentences. A sentence mixes text from outside (a runbook name) with mentions the
// bot means to make (the approvers of a denial), and the Slack layer escapes the whole sentence before
// it shows it: a plain "<@U1>" would come out as "&lt;@U1&gt;". A mention made here is sealed instead —
// the token wrapped in private-use characters around a per-process secret that text from outside cannot
// know — and escaping (slack/kit/mrkdwn.ts escapeMrkdwn) and the outgoing guard keep exactly those
// tokens live while everything else is escaped. Ids are validated: anything else is never a mention.
// Slack-free, so the policy can name approvers.
import { randomBytes } from 'node:crypto';

const SECRET = randomBytes(9).toString('base64url');
const OPEN = `\uE000${SECRET}`;
const CLOSE = '\uE001';
const SEALED = new RegExp(`${OPEN}(<[@#!][^<>\\uE000\\uE001]*>)${CLOSE}`, 'g');

function seal(token: string): string {
  return `${OPEN}${token}${CLOSE}`;
}

export const mention = {
  /** A user (U…/W…); an invalid id comes back as plain text. */
  user: (id: string): string => (/^[UW][A-Z0-9]{2,30}$/.test(id) ? seal(`<@${id}>`) : id),
  /** A user group (S…). */
  group: (id: string): string => (/^S[A-Z0-9]{2,30}$/.test(id) ? seal(`<!subteam^${id}>`) : id),
  /** A channel (C…/G…/D…). */
  channel: (id: string): string => (/^[CGD][A-Z0-9]{2,30}$/.test(id) ? seal(`<#${id}>`) : id),
};

/**
 * `text` with each sealed mention as its live token and everything between passed through `rest`
 * (escaping, for Slack; identity, for logs and the audit trail).
 */
export function unsealMentions(
  text: string,
  rest: (part: string) => string,
  onToken?: (token: string) => void,
): string {
  if (!text.includes('\uE000')) return rest(text);
  let out = '';
  let last = 0;
  for (const m of text.matchAll(SEALED)) {
    out += rest(text.slice(last, m.index));
    out += m[1]!;
    onToken?.(m[1]!);
    last = m.index + m[0].length;
  }
  return out + rest(text.slice(last));
}

/** The text with sealed mentions as plain tokens: for logs, the audit trail, anything not shown in Slack. */
export function plainMentions(text: string): string {
  return unsealMentions(text, (part) => part);
}

/** The text with sealed mentions written as plain words (`#C123`, `@U123`): for plain_text surfaces such as field errors. */
export function plainTextMentions(text: string): string {
  return unsealMentions(text, (part) => part).replace(
    /<([#@])([A-Z0-9]+)>|<!subteam\^([A-Z0-9]+)>/g,
    (_m, sigil, id, group) => (group ? `@${group}` : `${sigil}${id}`),
  );
}

// ---- mentions kept in a stored record (the audit trail) ------------------------------------------
// A record is plain text, but a reader must still tell the bot's mentions from text from outside that
// merely looks like one. Stored, a sealed mention keeps its plain token between two private-use marks;
// the marks are removed from everything else, so only the bot's own mentions carry them.
const STORED_OPEN = '\uE002';
const STORED_CLOSE = '\uE003';
const STORED = /\uE002(<@[UW][A-Z0-9]{2,30}>|<#[CGD][A-Z0-9]{2,30}>|<!subteam\^S[A-Z0-9]{2,30}>)\uE003/g;

/** The text as a record keeps it: sealed mentions as marked plain tokens, no marks anywhere else. */
export function storedMentions(text: string): string {
  const strip = (part: string) => part.replace(/[\uE002\uE003]/g, '');
  if (!text.includes('\uE000')) return strip(text);
  let out = '';
  let last = 0;
  for (const m of text.matchAll(SEALED)) {
    out += strip(text.slice(last, m.index));
    out += `${STORED_OPEN}${m[1]!}${STORED_CLOSE}`;
    last = m.index + m[0].length;
  }
  return out + strip(text.slice(last));
}

/**
 * A stored record's text with each marked mention passed through `token` (e.g. made live again) and
 * everything else through `rest`. A mark left alone (a cut record) is dropped.
 */
export function readStoredMentions(
  text: string,
  rest: (part: string) => string,
  token: (kind: 'user' | 'channel' | 'group', id: string) => string,
): string {
  let out = '';
  let last = 0;
  const clean = (part: string) => rest(part.replace(/[\uE002\uE003]/g, ''));
  for (const m of text.matchAll(STORED)) {
    out += clean(text.slice(last, m.index));
    const t = m[1]!;
    out += t.startsWith('<@')
      ? token('user', t.slice(2, -1))
      : t.startsWith('<#')
        ? token('channel', t.slice(2, -1))
        : token('group', t.slice(10, -1));
    last = m.index + m[0].length;
  }
  return out + clean(text.slice(last));
}

/** A stored record's text as plain tokens (marks removed): for logs and anything machine-read. */
export function plainStored(text: string): string {
  return text.replace(/[\uE002\uE003]/g, '');
}
