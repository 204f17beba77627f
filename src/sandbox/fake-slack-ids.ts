// Identifiers in the formats Slack uses, so code that parses or compares them behaves the same
// against the fake as against Slack.
import { randomBytes } from 'node:crypto';

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A Slack-style id: prefix letter plus uppercase alphanumerics ("V0A1B2C3D4"). */
export function mintSlackId(prefix: string, length = 10): string {
  let out = prefix;
  for (const byte of randomBytes(length)) out += ID_ALPHABET[byte % ID_ALPHABET.length];
  return out;
}

/** View hashes look like "1569362015.55b5e41b": seconds, then a random hex tag. */
export function mintViewHash(nowMs: number): string {
  return `${Math.floor(nowMs / 1000)}.${randomBytes(4).toString('hex')}`;
}

/** Trigger ids look like "12345.98765.abcd2358fdea". */
export function mintTriggerId(nowMs: number): string {
  return `${Math.floor(nowMs / 1000)}.${randomDigits(10)}.${randomBytes(16).toString('hex')}`;
}

export function randomDigits(count: number): string {
  let out = '';
  for (const byte of randomBytes(count)) out += String(byte % 10);
  return out;
}

/**
 * Message timestamps: seconds with six decimals ("1732180000.000100"), unique and strictly
 * increasing per workspace even when the clock stands still or steps back — code keys messages
 * by ts, so two equal ones would be a bug Slack never lets happen.
 */
export function createTsClock(now: () => number): () => string {
  let lastMicros = 0;
  return () => {
    const candidate = Math.floor(now()) * 1000;
    lastMicros = Math.max(candidate, lastMicros + 100);
    const seconds = Math.floor(lastMicros / 1_000_000);
    const micros = lastMicros % 1_000_000;
    return `${seconds}.${String(micros).padStart(6, '0')}`;
  };
}

/** Compare two Slack ts strings numerically without float rounding. */
export function compareTs(a: string, b: string): number {
  const [as, af = ''] = a.split('.');
  const [bs, bf = ''] = b.split('.');
  const bySeconds = Number(as) - Number(bs);
  if (bySeconds !== 0) return bySeconds;
  return af.padEnd(6, '0').localeCompare(bf.padEnd(6, '0'));
}
