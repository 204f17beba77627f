// Modal private_metadata travels through the client, so a crafted view_submission could switch the
// runbook or the destination. We seal it with an HMAC keyed from the bot token (secret, and the same
// on every replica) and refuse submissions whose seal does not verify.
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface MetadataSeal {
  seal(payload: string): string;
  /** The payload, or null when the seal is missing or wrong. */
  open(sealed: string | undefined): string | null;
}

export function createMetadataSeal(secret: string): MetadataSeal {
  const key = createHmac('sha256', 'runbook-bot/private_metadata').update(secret).digest();
  const mac = (payload: string) => createHmac('sha256', key).update(payload).digest('base64url').slice(0, 27);
  return {
    seal: (payload) => `${mac(payload)}.${payload}`,
    open(sealed) {
      if (!sealed) return null;
      const dot = sealed.indexOf('.');
      if (dot !== 27) return null;
      const payload = sealed.slice(dot + 1);
      const given = Buffer.from(sealed.slice(0, dot));
      const expected = Buffer.from(mac(payload));
      return given.length === expected.length && timingSafeEqual(given, expected) ? payload : null;
    },
  };
}
