import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox, parseSecretKey, SecretBoxError } from '../../../src/tenants/secret-box.ts';

const TOKEN = 'xoxb-1234567890-abcdefghijklmnop';

describe('secret box (AES-256-GCM at rest)', () => {
  it('seals to text that holds the secret in no readable form and opens it again', () => {
    const box = createSecretBox({ key: randomBytes(32) });
    const sealed = box.seal(TOKEN);
    expect(sealed).toMatch(/^v1\.[0-9a-f]{8}\.[A-Za-z0-9+/=]+$/);
    for (const form of [TOKEN, Buffer.from(TOKEN).toString('base64'), Buffer.from(TOKEN).toString('hex')]) {
      expect(sealed).not.toContain(form);
    }
    expect(box.open(sealed)).toBe(TOKEN);
    // A fresh IV each time: the same secret never seals to the same text.
    expect(box.seal(TOKEN)).not.toBe(sealed);
  });

  it('after a rotation opens rows of the previous key and seals new ones with the current key', () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const before = createSecretBox({ key: oldKey });
    const oldRow = before.seal(TOKEN);
    const after = createSecretBox({ key: newKey, previousKey: oldKey });
    expect(after.open(oldRow)).toBe(TOKEN);
    expect(after.isCurrent(oldRow)).toBe(false);
    const newRow = after.seal(TOKEN);
    expect(after.isCurrent(newRow)).toBe(true);
    // The new row is sealed with the new key: the old key alone cannot open it.
    expect(() => before.open(newRow)).toThrow(SecretBoxError);
    expect(createSecretBox({ key: newKey }).open(newRow)).toBe(TOKEN);
  });

  it('refuses a row sealed with an unknown key, and one altered by a single character, naming no secret', () => {
    const box = createSecretBox({ key: randomBytes(32) });
    const stranger = createSecretBox({ key: randomBytes(32) }).seal(TOKEN);
    expect(() => box.open(stranger)).toThrow(/neither SECRETS_ENCRYPTION_KEY nor SECRETS_ENCRYPTION_KEY_PREVIOUS/);
    const sealed = box.seal(TOKEN);
    const body = sealed.split('.')[2]!;
    const flipped = `${body.slice(0, 20)}${body[20] === 'A' ? 'B' : 'A'}${body.slice(21)}`;
    const altered = sealed.replace(body, flipped);
    let message = '';
    try {
      box.open(altered);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/integrity/);
    expect(message).not.toContain(TOKEN);
    expect(() => box.open('plain-text')).toThrow(SecretBoxError);
  });

  it('reads keys as base64 (openssl rand -base64 32) or 64 hex digits, nothing shorter', () => {
    const key = randomBytes(32);
    expect(parseSecretKey(key.toString('base64'))?.equals(key)).toBe(true);
    expect(parseSecretKey(key.toString('hex'))?.equals(key)).toBe(true);
    expect(parseSecretKey(key.toString('base64url'))?.equals(key)).toBe(true);
    expect(parseSecretKey(randomBytes(16).toString('base64'))).toBeNull();
    expect(parseSecretKey('correct horse battery staple')).toBeNull();
    expect(() => createSecretBox({ key: randomBytes(16) })).toThrow(/openssl rand -base64 32/);
  });
});
