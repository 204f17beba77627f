// app_uninstalled and tokens_revoked: the installation's tokens are deleted and its work stops at once.
// The two events come in either order and may race a reinstall, so a revocation deletes only tokens that
// are really dead: it asks Slack (auth.test) about the stored bot token, and a token that still works
// belongs to a reinstall that landed first (kept). When Slack cannot say, tokens saved after the event
// was sent are kept. The delete is a compare-and-set on the row it looked at, so a reinstall saved in
// between keeps its fresh tokens. A tokens_revoked naming only user tokens removes the user token alone.
import type { Installation } from '@slack/oauth';
import type { InstallationRecordStore } from '../store/installations.ts';
import type { SealedInstallationStore } from './installation-store.ts';

export type TokenState = 'valid' | 'revoked' | 'unknown';
export type RevocationOutcome = 'revoked' | 'kept' | 'absent' | 'user-token-removed';

/** Slack's answers that mean the token is gone for good. */
const DEAD_TOKEN_ERRORS = new Set([
  'token_revoked',
  'invalid_auth',
  'account_inactive',
  'not_authed',
  'app_uninstalled',
]);

/** Reads a Web API error (or answer) as what it says about a token. */
export function tokenStateOf(outcome: { ok: true } | { error: unknown }): TokenState {
  if ('ok' in outcome) return 'valid';
  const code = (outcome.error as { data?: { error?: unknown } })?.data?.error;
  return typeof code === 'string' && DEAD_TOKEN_ERRORS.has(code) ? 'revoked' : 'unknown';
}

export interface RevocationOptions {
  installations: SealedInstallationStore;
  records: InstallationRecordStore;
  /** Asks Slack whether a bot token still works (auth.test). */
  tokenState: (token: string) => Promise<TokenState>;
  /** Stops the installation's work and drops what is kept for it (clients, caches). */
  onRevoked: (installationId: string) => void | Promise<void>;
  now?: () => number;
}

export interface RevocationEvent {
  kind: 'app_uninstalled' | 'tokens_revoked';
  /** When Slack sent it (event_time, in ms). */
  sentAt: number;
  /** tokens_revoked: the user ids whose user tokens and the bot user ids whose bot tokens were revoked. */
  tokens?: { oauth?: string[]; bot?: string[] };
}

export async function revokeInstallation(
  options: RevocationOptions,
  installationId: string,
  event: RevocationEvent,
  attempt = 1,
): Promise<RevocationOutcome> {
  const now = options.now ?? Date.now;
  const found = await options.installations.load(installationId).catch(() => null);
  if (!found) {
    const record = await options.records.get(installationId);
    // Tokens we cannot open (a key no longer configured) are deleted all the same: the event says they are dead.
    if (record?.sealed && record.updatedAt <= event.sentAt) {
      await options.records.revoke(installationId, record.generation, now());
    }
    await options.onRevoked(installationId);
    return 'absent';
  }
  const { installation, record } = found;
  const botRevoked = event.kind === 'app_uninstalled' || (event.tokens?.bot?.length ?? 0) > 0;
  if (!botRevoked) return removeUserToken(options, installation, event);
  const token = installation.bot?.token;
  const state: TokenState = token ? await options.tokenState(token).catch(() => 'unknown' as const) : 'revoked';
  if (state === 'valid') return 'kept';
  // Slack could not say: tokens saved after the event was sent are a reinstall's.
  if (state === 'unknown' && record.updatedAt > event.sentAt) return 'kept';
  if (!(await options.records.revoke(installationId, record.generation, now()))) {
    // Saved in between (a reinstall, most likely): look at the new tokens the same way.
    const again = await options.records.get(installationId);
    if (again?.sealed) return attempt < 3 ? revokeInstallation(options, installationId, event, attempt + 1) : 'kept';
  }
  await options.onRevoked(installationId);
  return 'revoked';
}

async function removeUserToken(
  options: RevocationOptions,
  installation: Installation,
  event: RevocationEvent,
): Promise<RevocationOutcome> {
  const users = event.tokens?.oauth ?? [];
  if (!installation.user?.token || !users.includes(installation.user.id)) return 'kept';
  const { refreshToken: _r, expiresAt: _e, ...user } = installation.user;
  await options.installations.storeInstallation({ ...installation, user: { ...user, token: undefined } });
  return 'user-token-removed';
}
