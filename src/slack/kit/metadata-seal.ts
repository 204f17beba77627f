// Modal private_metadata travels through the client, so a crafted view_submission could switch the
// runbook or the destination. We seal it with an HMAC keyed from the bot token (secret, and the same
// on every replica) and refuse submissions whose seal does not verify. With many workspaces a seal is
// also bound to its installation (`scope`): a form opened in one installation does not verify in another.
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface MetadataSeal {
  /** `scope`: the installation the form belongs to ('' or absent: one workspace). */
  seal(payload: string, scope?: string): string;
  /** The payload, or null when the seal is missing, wrong, or made for another scope. */
  open(sealed: string | undefined, scope?: string): string | null;
}

export function createMetadataSeal(secret: string): MetadataSeal {
  const key = createHmac('sha256', 'runbook-bot/private_metadata').update(secret).digest();
  // One key per installation, derived from the deployment's; no scope: the key as before.
  const keyOf = (scope: string) => (scope ? createHmac('sha256', key).update(`installation:${scope}`).digest() : key);
  const mac = (payload: string, scope: string) =>
    createHmac('sha256', keyOf(scope)).update(payload).digest('base64url').slice(0, 27);
  return {
    seal: (payload, scope = '') => `${mac(payload, scope)}.${payload}`,
    open(sealed, scope = '') {
      if (!sealed) return null;
      const dot = sealed.indexOf('.');
      if (dot !== 27) return null;
      const payload = sealed.slice(dot + 1);
      const given = Buffer.from(sealed.slice(0, dot));
      const expected = Buffer.from(mac(payload, scope));
      return given.length === expected.length && timingSafeEqual(given, expected) ? payload : null;
    },
  };
}
