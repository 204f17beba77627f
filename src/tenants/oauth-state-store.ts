// Bolt's StateStore over our store: the install path issues a random state, kept in the store with the
// install options until it expires (10 minutes); the redirect takes it once. A replayed, forged or
// expired state is refused (InvalidStateError). The state is also signed with SLACK_STATE_SECRET, so a
// value we never issued is turned away without a store read. Several replicas share the store, so the
// redirect may land on any of them.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { type InstallURLOptions, InvalidStateError, type StateStore } from '@slack/oauth';
import type { OAuthStateStore } from '../store/installations.ts';

export const STATE_TTL_MS = 10 * 60_000;

export function createStoredStateStore(options: {
  states: OAuthStateStore;
  secret: string;
  ttlMs?: number;
}): StateStore {
  const ttlMs = options.ttlMs ?? STATE_TTL_MS;
  const sign = (nonce: string) => createHmac('sha256', options.secret).update(nonce).digest('base64url');
  return {
    async generateStateParam(installOptions: InstallURLOptions, now: Date) {
      const nonce = randomBytes(24).toString('base64url');
      const state = `${nonce}.${sign(nonce)}`;
      await options.states.put(state, JSON.stringify(installOptions), now.getTime() + ttlMs, now.getTime());
      return state;
    },
    async verifyStateParam(now: Date, state: string) {
      const [nonce, mac, ...rest] = state.split('.');
      const expected = nonce ? sign(nonce) : '';
      if (!nonce || !mac || rest.length > 0 || mac.length !== expected.length) {
        throw new InvalidStateError('The state parameter is not one this app issued.');
      }
      if (!timingSafeEqual(Buffer.from(mac), Buffer.from(expected))) {
        throw new InvalidStateError('The state parameter is not one this app issued.');
      }
      const payload = await options.states.consume(state, now.getTime());
      if (payload === null) {
        throw new InvalidStateError(
          'The install link has expired or was already used: start again from /slack/install.',
        );
      }
      return JSON.parse(payload) as InstallURLOptions;
    },
  };
}
