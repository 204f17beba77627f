// The one masking of secret VALUES in free text. secrets.ts hides secret positions in params; a run's
// output (and its failure reason, and text an input holds) is free text that may echo those values —
// as typed, base64 (standard or URL-safe, at any byte alignment inside a longer encoded text),
// percent-encoded (any encoder: upper- or lower-case hex, `+` or `%20` for a space, reserved
// characters kept or encoded) or JSON-escaped. `secretValuesOf` says which values are secret (the
// same rule as maskSecrets, plus credential-like key names at any depth); `maskSecretText` replaces
// every echo of them with the mask; `maskSecretsAndEchoes` is maskSecrets for params that people read
// (cards, approval requests, schedules, the audit trail): the secret positions masked, and every echo of
// a secret value in the other inputs too (a careless `ssh_user = "ops <the key>"`). Values shorter than MIN_SECRET_LENGTH characters are not masked
// in text: a 3-character value would blank out every word that contains it, and says little anyway.
// Pure; nothing is kept.
import type { FormSpec } from './input-schema.ts';
import { isRecord } from './input-schema.ts';
import { SECRET_KEY } from './secret-schema.ts';
import { maskSecrets, SECRET_MASK } from './secrets.ts';

/** Secret values shorter than this (in characters) are not masked in free text. */
export const MIN_SECRET_LENGTH = 4;
/** At most this many secret values are looked for in one text (a run's inputs are small). */
const MAX_SECRETS = 200;
/** Values longer than this are looked for in parts of this length, each masked (keeps the pattern bounded). */
const MAX_SECRET_CHARS = 4_096;

/** A long value as consecutive parts of nearly equal length, at most MAX_SECRET_CHARS, that cover all of it. */
function parts(value: string): string[] {
  if (value.length <= MAX_SECRET_CHARS) return [value];
  const size = Math.ceil(value.length / Math.ceil(value.length / MAX_SECRET_CHARS));
  const out: string[] = [];
  for (let at = 0; at < value.length; at += size) out.push(value.slice(at, at + size));
  return out;
}

/** Every scalar under `value`, as text (booleans and null say nothing about a secret). */
function leaves(value: unknown, out: string[], depth = 0): void {
  if (depth > 32) return;
  if (typeof value === 'string') out.push(value);
  else if (typeof value === 'number' || typeof value === 'bigint') out.push(String(value));
  else if (Array.isArray(value)) for (const item of value) leaves(item, out, depth + 1);
  else if (isRecord(value)) for (const item of Object.values(value)) leaves(item, out, depth + 1);
}

/** Leaves of `original` wherever `masked` holds the mask (what maskSecrets hid). */
function hiddenLeaves(original: unknown, masked: unknown, out: string[], depth = 0): void {
  if (depth > 32) return;
  if (masked === SECRET_MASK) {
    if (original !== SECRET_MASK) leaves(original, out);
    return;
  }
  if (Array.isArray(original) && Array.isArray(masked)) {
    for (const [i, item] of original.entries()) hiddenLeaves(item, masked[i], out, depth + 1);
  } else if (isRecord(original) && isRecord(masked)) {
    for (const [key, item] of Object.entries(original)) hiddenLeaves(item, masked[key], out, depth + 1);
  }
}

/** Leaves under credential-like keys at any depth, whatever the schema says of them. */
function keyNamedLeaves(value: unknown, out: string[], depth = 0): void {
  if (depth > 32) return;
  if (Array.isArray(value)) for (const item of value) keyNamedLeaves(item, out, depth + 1);
  else if (isRecord(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (SECRET_KEY.test(key)) leaves(item, out);
      else keyNamedLeaves(item, out, depth + 1);
    }
  }
}

/**
 * The secret values among `params`: what the schemas mask (several when several runbooks share the
 * name: any of them may apply), and anything under a credential-like key. `specs` null means the
 * schema could not be read: then every value counts as secret (fails closed).
 */
export function secretValuesOf(specs: readonly FormSpec[] | null, params: Record<string, unknown>): string[] {
  const found: string[] = [];
  if (specs === null) leaves(params, found);
  else {
    for (const spec of specs) hiddenLeaves(params, maskSecrets(spec, params), found);
    // maskSecrets(spec) for no spec at all: the key names alone.
    keyNamedLeaves(params, found);
  }
  const unique = new Set<string>();
  for (const value of found) {
    for (const v of [value, value.trim()])
      for (const part of parts(v)) if (part.length >= MIN_SECRET_LENGTH) unique.add(part);
  }
  return [...unique].sort((a, b) => b.length - a.length).slice(0, MAX_SECRETS);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** A hex digit in either case. */
function hexClass(digit: string): string {
  return /[A-F]/.test(digit) ? `[${digit}${digit.toLowerCase()}]` : digit;
}

/** The short escapes JSON writes for some control characters. */
const JSON_SHORT_ESCAPES: Record<string, string> = { '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `\uXXXX` for each UTF-16 unit of `char` (a surrogate pair past U+FFFF), either hex case. */
function unicodeEscapes(char: string): string {
  const units = [];
  for (let i = 0; i < char.length; i++) {
    units.push(`\\\\u${[...char.charCodeAt(i).toString(16).toUpperCase().padStart(4, '0')].map(hexClass).join('')}`);
  }
  return units.join('');
}

/** One character as it may appear: itself, percent-encoded (any case), JSON-escaped, `+` for a space. */
function charPattern(char: string): string {
  if (/^[A-Za-z0-9]$/.test(char)) return char;
  const percent = [...Buffer.from(char, 'utf8')]
    .map((byte) => `%${[...byte.toString(16).toUpperCase().padStart(2, '0')].map(hexClass).join('')}`)
    .join('');
  const forms = [escapeRegExp(char), percent];
  if (char === ' ') forms.push('\\+');
  if (char === '"' || char === '\\' || char === '/') forms.push(escapeRegExp(`\\${char}`));
  // JSON's short escapes (a multi-line key printed as JSON), and a line break printed as CRLF.
  const short = JSON_SHORT_ESCAPES[char];
  if (short) forms.push(escapeRegExp(short));
  if (char === '\n') forms.push('\\r\\n', escapeRegExp('\\r\\n'));
  const code = char.codePointAt(0)!;
  // \uXXXX: control characters, and what an ASCII-only JSON encoder (Python's default) does to the rest.
  if (code < 0x20 || code >= 0x7f) forms.push(unicodeEscapes(char));
  return `(?:${forms.join('|')})`;
}

/**
 * The base64 characters that depend on the secret's bytes alone, for each of the three byte
 * alignments it may have inside a longer encoded text (standard and URL-safe alphabets), and the
 * whole encoding with and without padding when it stands alone.
 */
function base64Forms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const forms = new Set<string>();
  const whole = bytes.toString('base64');
  forms.add(whole);
  forms.add(whole.replace(/=+$/, ''));
  for (let offset = 0; offset < 3; offset++) {
    const padded = Buffer.concat([Buffer.alloc(offset), bytes, Buffer.alloc(2)]).toString('base64');
    const first = Math.ceil((8 * offset) / 6);
    const last = Math.floor((8 * (offset + bytes.length)) / 6);
    const core = padded.slice(first, last);
    if (core.length >= MIN_SECRET_LENGTH) forms.add(core);
  }
  for (const form of [...forms]) forms.add(form.replace(/\+/g, '-').replace(/\//g, '_'));
  return [...forms].filter((f) => f.length >= MIN_SECRET_LENGTH && f !== secret);
}

/** One pattern that finds every echo of every secret (longest forms first). */
function secretPattern(secrets: readonly string[]): RegExp | null {
  const usable = secrets.filter((s) => s.length >= MIN_SECRET_LENGTH);
  if (usable.length === 0) return null;
  const encoded = usable.flatMap(base64Forms).sort((a, b) => b.length - a.length);
  const plain = [...usable].sort((a, b) => b.length - a.length).map((s) => [...s].map(charPattern).join(''));
  return new RegExp([...plain, ...encoded.map(escapeRegExp)].join('|'), 'g');
}

/** `text` with every echo of every secret value (plain, base64, percent-encoded, JSON-escaped) masked. */
export function maskSecretText(text: string, secrets: readonly string[]): string {
  return secretTextMasker(secrets)(text);
}

/** maskSecretText for many texts with the same secrets (the pattern is built once). */
export function secretTextMasker(secrets: readonly string[]): (text: string) => string {
  const pattern = secretPattern(secrets);
  return pattern ? (text) => (text === '' ? text : text.replace(pattern, SECRET_MASK)) : (text) => text;
}

/** Every string under `value` passed through `mask` (objects and arrays copied, other scalars kept). */
export function maskStrings(value: unknown, mask: (text: string) => string, depth = 0): unknown {
  if (typeof value === 'string') return mask(value);
  if (depth > 32 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => maskStrings(item, mask, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskStrings(v, mask, depth + 1)]));
}

/**
 * A copy of params as people may read them: secret positions masked (maskSecrets), and every echo of a
 * secret value inside the other inputs' text masked too.
 */
export function maskSecretsAndEchoes(spec: FormSpec, params: Record<string, unknown>): Record<string, unknown> {
  const mask = secretTextMasker(secretValuesOf([spec], params));
  return maskStrings(maskSecrets(spec, params), mask) as Record<string, unknown>;
}
