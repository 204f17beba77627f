// Web API clients for background work in many-workspace mode (the watcher's posts and uploads, approval
// expiry, subscriptions, run recovery): `clientFor(installationId)` goes through the same authorize path
// as a request — Bolt's installer reads the installation store and refreshes a rotated token that is
// about to expire, saving the new one — so background work never holds a stale token. The answer is kept
// for a short while (never past the token's own expiry window) and dropped when the installation is
// saved again or uninstalled. A token Slack answered as dead is remembered (`markDead`): it is never handed
// out again (DeadTokenError), though the store may still hold it until the uninstall event lands.
import type { InstallationQuery } from '@slack/oauth';
import type { WebClient } from '@slack/web-api';
import type { InstallationRecordStore } from '../store/installations.ts';
import { InstallationNotFoundError } from './installation-store.ts';
import { DeadTokenError, type OwnBot } from './tenant-scope.ts';

interface Authorized {
  botToken?: string;
  botTokenExpiresAt?: number;
  /** The installation's own bot: its user id and bot id (what it posts as). */
  botUserId?: string;
  botId?: string;
}

/** Who an installation's bot posts as: messages with either id are its own. */
export interface TenantClientsOptions {
  records: InstallationRecordStore;
  /** Bolt's installer authorize (InstallProvider#authorize): fetches, refreshes and saves rotated tokens. */
  authorize: (query: InstallationQuery<boolean>) => Promise<Authorized>;
  /** A Web API client for a bot token (the caller picks retries, timeouts, the guard). */
  makeClient: (token: string) => WebClient;
  now?: () => number;
  /** How long one authorize answer is reused (default 60 s). */
  cacheMs?: number;
}

/** Bolt refreshes a rotated token within 2 hours of its expiry; reuse an answer only outside that window. */
const REFRESH_WINDOW_MS = 2 * 60 * 60_000;
/** Dead tokens remembered (the oldest forgotten first; a forgotten one costs one refused call). */
const MAX_DEAD_TOKENS = 10_000;

export class TenantClients {
  readonly #o: TenantClientsOptions;
  readonly #cache = new Map<string, { token: string; client: WebClient; bot: OwnBot; until: number }>();
  readonly #teams = new Map<string, { installationId: string; until: number }>();
  readonly #seen = new Set<string>();
  readonly #dead = new Set<string>();
  readonly #now: () => number;

  constructor(options: TenantClientsOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  /**
   * The bot token of an installation, fresh (refreshed first when rotation says so). Throws
   * DeadTokenError for a token Slack already answered as dead (markDead).
   */
  async tokenFor(installationId: string): Promise<string> {
    const { token } = await this.#entry(installationId);
    if (this.#dead.has(token)) {
      // Not kept: the next call reads the store again, so a reinstall's new token is used at once.
      this.#cache.delete(installationId);
      throw new DeadTokenError(installationId);
    }
    return token;
  }

  /** Slack answered this token (of this installation, when known) as dead: never send it again. */
  markDead(token: string, installationId?: string): void {
    this.#dead.add(token);
    if (this.#dead.size > MAX_DEAD_TOKENS) this.#dead.delete(this.#dead.values().next().value!);
    if (installationId) this.forget(installationId);
  }

  /** Whether Slack already answered this token as dead (markDead). */
  isDead(token: string): boolean {
    return this.#dead.has(token);
  }

  /** The installation's bot (from the stored installation, as authorize gives it). */
  async botFor(installationId: string): Promise<OwnBot> {
    return (await this.#entry(installationId)).bot;
  }

  /** A client holding the installation's current bot token; throws InstallationNotFoundError when not installed. */
  async clientFor(installationId: string): Promise<WebClient> {
    return (await this.#entry(installationId)).client;
  }

  /**
   * Drops what is kept for an installation (saved again, refreshed, or uninstalled), also which of its
   * workspaces this process has written as seen: a purge may have deleted them since, so the next
   * request from each writes it again (a reinstall's workspaces are found by background work).
   */
  forget(installationId: string): void {
    this.#cache.delete(installationId);
    for (const [team, known] of this.#teams) if (known.installationId === installationId) this.#teams.delete(team);
    for (const key of this.#seen) if (key.endsWith(`:${installationId}`)) this.#seen.delete(key);
  }

  /**
   * The installation serving a workspace (a record's team): its own, or the org-wide installation it was
   * seen under. Kept for 30 s; null when none holds tokens, which is never kept: it ends that workspace's
   * work (a watch is dropped), so a reinstall on any replica must be seen at once — a run started right
   * after Add to Slack again is followed to its card.
   */
  async installationForTeam(teamId: string | null): Promise<string | null> {
    if (!teamId) return null;
    const now = this.#now();
    const kept = this.#teams.get(teamId);
    if (kept && kept.until > now) return kept.installationId;
    const installationId = await this.#o.records.installationOfTeam(teamId);
    if (installationId) this.#teams.set(teamId, { installationId, until: now + 30_000 });
    else this.#teams.delete(teamId);
    return installationId;
  }

  /** A request from a workspace of an org-wide installation: remembered (once per process), so background work finds it. */
  async seen(installation: { id: string; teamId: string | null; isEnterpriseInstall: boolean }): Promise<void> {
    if (!installation.isEnterpriseInstall || !installation.teamId) return;
    const key = `${installation.teamId}:${installation.id}`;
    if (this.#seen.has(key)) return;
    await this.#o.records.rememberTeam(installation.teamId, installation.id, this.#now());
    this.#seen.add(key);
    this.#teams.delete(installation.teamId);
  }

  async #entry(installationId: string) {
    const now = this.#now();
    const kept = this.#cache.get(installationId);
    if (kept && kept.until > now) return kept;
    const record = await this.#o.records.get(installationId);
    if (!record?.sealed) {
      this.#cache.delete(installationId);
      throw new InstallationNotFoundError(installationId);
    }
    const authorized = await this.#o.authorize({
      teamId: record.isEnterpriseInstall ? undefined : (record.teamId ?? undefined),
      enterpriseId: record.enterpriseId ?? undefined,
      isEnterpriseInstall: record.isEnterpriseInstall,
    } as InstallationQuery<boolean>);
    if (!authorized.botToken) throw new InstallationNotFoundError(installationId);
    const expiresAt = authorized.botTokenExpiresAt ? authorized.botTokenExpiresAt * 1000 : Number.POSITIVE_INFINITY;
    const until = Math.min(now + (this.#o.cacheMs ?? 60_000), expiresAt - REFRESH_WINDOW_MS);
    const client = kept?.token === authorized.botToken ? kept.client : this.#o.makeClient(authorized.botToken);
    const bot = { userId: authorized.botUserId ?? null, botId: authorized.botId ?? null };
    const entry = { token: authorized.botToken, client, bot, until };
    this.#cache.set(installationId, entry);
    return entry;
  }
}
