// Secrets at rest (installation tokens, Runbook API keys): AES-256-GCM with the key in
// SECRETS_ENCRYPTION_KEY. Each sealed value names the key that sealed it (the first bytes of the key's
// SHA-256), so after a rotation rows sealed with SECRETS_ENCRYPTION_KEY_PREVIOUS still open while every
// new value is sealed with the current key. A tampered value, or one sealed with a key we no longer
// have, fails to open with an error that names no part of the secret.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** How to make a key, said wherever one is missing or malformed. */
export const KEY_HOWTO = 'make one with `openssl rand -base64 32` (32 random bytes, base64)';

export interface SecretBox {
  /** Encrypts with the current key: `v1.<key id>.<base64 iv|tag|ciphertext>`; a fresh IV every time. */
  seal(plain: string): string;
  /** Decrypts a value sealed with the current or the previous key; throws SecretBoxError otherwise. */
  open(sealed: string): string;
  /** Whether a sealed value was sealed with the current key (false: re-seal it on the next write). */
  isCurrent(sealed: string): boolean;
}

export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

/**
 * A key from its text: 32 bytes as base64 (what `openssl rand -base64 32` prints) or 64 hex digits.
 * Returns null for anything else (the caller reports it without echoing the value).
 */
export function parseSecretKey(text: string): Buffer | null {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) return null;
  const bytes = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return bytes.length === 32 ? bytes : null;
}

function keyId(key: Buffer): string {
  return createHash('sha256').update('runbook-bot secret key id').update(key).digest('hex').slice(0, 8);
}

export function createSecretBox(keys: { key: Buffer; previousKey?: Buffer | null }): SecretBox {
  if (keys.key.length !== 32) throw new SecretBoxError(`SECRETS_ENCRYPTION_KEY must be 32 bytes: ${KEY_HOWTO}`);
  const currentId = keyId(keys.key);
  const byId = new Map<string, Buffer>([[currentId, keys.key]]);
  if (keys.previousKey) {
    if (keys.previousKey.length !== 32) {
      throw new SecretBoxError(`SECRETS_ENCRYPTION_KEY_PREVIOUS must be 32 bytes: ${KEY_HOWTO}`);
    }
    const previousId = keyId(keys.previousKey);
    if (!byId.has(previousId)) byId.set(previousId, keys.previousKey);
  }
  const parts = (sealed: string) => {
    const [version, id, body, ...rest] = sealed.split('.');
    if (version !== VERSION || !id || !body || rest.length > 0) {
      throw new SecretBoxError('A stored secret is not in the expected sealed form.');
    }
    return { id, body };
  };
  return {
    seal(plain) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', keys.key, iv);
      cipher.setAAD(Buffer.from(`${VERSION}.${currentId}`));
      const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return `${VERSION}.${currentId}.${Buffer.concat([iv, tag, ciphertext]).toString('base64')}`;
    },
    open(sealed) {
      const { id, body } = parts(sealed);
      const key = byId.get(id);
      if (!key) {
        throw new SecretBoxError(
          'A stored secret was sealed with a key that is neither SECRETS_ENCRYPTION_KEY nor SECRETS_ENCRYPTION_KEY_PREVIOUS.',
        );
      }
      const raw = Buffer.from(body, 'base64');
      if (raw.length < IV_BYTES + TAG_BYTES) throw new SecretBoxError('A stored secret is truncated.');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
        decipher.setAAD(Buffer.from(`${VERSION}.${id}`));
        decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
        return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretBoxError('A stored secret failed its integrity check (altered, or sealed with another key).');
      }
    },
    isCurrent(sealed) {
      try {
        return parts(sealed).id === currentId;
      } catch {
        return false;
      }
    },
  };
}
