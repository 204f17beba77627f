// Which installation the work in progress is for (many-workspace mode), carried through awaits with
// AsyncLocalStorage: a request runs in its installation's scope, background work enters the scope of the
// record it handles (a watch's, a subscription's, an approval's team). A RoutedWebClient reads the scope
// on every call and sends the installation's current token (clientFor's, refreshed when rotated), so code
// that holds one long-lived client — the watcher, the scanner — posts into the right workspace. A token
// Slack answers as dead (uninstalled at another replica, say) is reported, so the token kept for the
// installation is dropped and the next call reads the store again instead of reusing it; a token already
// answered as dead is never sent again (`DeadTokenError`, no call), while a reinstall's new token is.
import { AsyncLocalStorage } from 'node:async_hooks';
import { ErrorCode, type WebAPICallResult, WebClient, type WebClientOptions } from '@slack/web-api';
import { tokenStateOf } from './revocation.ts';

/** The bot of an installation (Bolt's authorize: its bot user id and bot id), for reading its own posts back. */
export interface OwnBot {
  userId: string | null;
  botId: string | null;
}

const scope = new AsyncLocalStorage<string>();

/** Runs `fn` for one installation (null: outside any, e.g. single-workspace mode). */
export function inInstallation<T>(installationId: string | null, fn: () => T): T {
  return installationId ? scope.run(installationId, fn) : fn();
}

/** The installation the current work is for, if any. */
export function currentInstallation(): string | undefined {
  return scope.getStore();
}

/** The key records kept per installation are stored under: the installation in scope, '' outside any. */
export function installationKey(): string {
  return currentInstallation() ?? '';
}

export class NoInstallationInScopeError extends Error {
  constructor(method: string) {
    super(`${method} was called outside any installation's scope: no workspace token to send.`);
    this.name = 'NoInstallationInScopeError';
  }
}

/**
 * A call not made: Slack already answered this installation's token as dead. Shaped as Slack's own
 * refusal (`token_revoked`), so callers treat it as one; nothing was sent.
 */
export class DeadTokenError extends Error {
  readonly code = ErrorCode.PlatformError;
  readonly data = { ok: false as const, error: 'token_revoked' };
  constructor(installationId: string) {
    super(`Slack already answered installation ${installationId}'s token as revoked; the call was not made.`);
    this.name = 'DeadTokenError';
  }
}

/** A Web API client without a token of its own: each call carries the token of the installation in scope. */
export class RoutedWebClient extends WebClient {
  readonly #tokenFor: (installationId: string) => Promise<string>;

  readonly #options: WebClientOptions;

  readonly #onDeadToken: ((installationId: string, token: string) => void) | undefined;

  readonly #botFor: ((installationId: string) => Promise<OwnBot>) | undefined;

  /**
   * `tokenFor` throws DeadTokenError for a token already answered as dead. `onDeadToken`: Slack answered
   * an installation's token as revoked (remember it, drop what is kept and queued for it).
   * `botFor`: who the installation's bot posts as (reading Slack back matches only its own messages).
   */
  constructor(
    tokenFor: (installationId: string) => Promise<string>,
    options: WebClientOptions,
    onDeadToken?: (installationId: string, token: string) => void,
    botFor?: (installationId: string) => Promise<OwnBot>,
  ) {
    super(undefined, options);
    this.#tokenFor = tokenFor;
    this.#options = options;
    this.#onDeadToken = onDeadToken;
    this.#botFor = botFor;
  }

  /** The same routing with other client options (a copy without retries, say). */
  derive(options: WebClientOptions): RoutedWebClient {
    return new RoutedWebClient(this.#tokenFor, { ...this.#options, ...options }, this.#onDeadToken, this.#botFor);
  }

  /** The bot of the installation in scope, when the client was told how to know it; else undefined. */
  async ownBot(): Promise<OwnBot | undefined> {
    const installationId = currentInstallation();
    if (!installationId || !this.#botFor) return undefined;
    return this.#botFor(installationId);
  }

  override async apiCall(method: string, options: Record<string, unknown> = {}): Promise<WebAPICallResult> {
    if (options.token) return super.apiCall(method, options);
    const installationId = currentInstallation();
    if (!installationId) throw new NoInstallationInScopeError(method);
    const token = await this.#tokenFor(installationId);
    try {
      return await super.apiCall(method, { ...options, token });
    } catch (error) {
      if (tokenStateOf({ error }) === 'revoked') this.#onDeadToken?.(installationId, token);
      throw error;
    }
  }
}
