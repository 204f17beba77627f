// Each installation's own Runbook API connection (many-workspace mode). A key is checked with one list
// call before it is saved, stored sealed (secret-box.ts), opened only in memory to build that
// installation's client, and never shown again: what anyone can read is the URL, who connected it and when.
import { randomUUID } from 'node:crypto';
import { describeApiError, ForbiddenError, UnauthorizedError } from '../api/errors.ts';
import type { ApiConnectionRecord, ApiConnectionStore } from '../store/api-connections.ts';
import type { SecretBox } from './secret-box.ts';

/** What may be shown about a connection: never the key. */
export interface ConnectionStatus {
  baseUrl: string;
  connectedBy: string;
  connectedAt: number;
  /**
   * Which Runbook API account it reaches, as the person who connected it said (opaque, minted here): kept
   * when a key of the same account replaces it, new otherwise. What was made under another is not carried on.
   */
  account: string;
}

/** An opened connection, for building the installation's client; `version` changes with every save. */
export interface OpenConnection {
  status: ConnectionStatus;
  apiKey: string;
  version: string;
}

/** What the current key follows, which a key said to be of the same account must see too. */
export interface AccountSample {
  /** Executions being followed, with the runbook each is of. */
  executions: Array<{ id: string; runbookName: string }>;
  /** Runbooks of waiting requests. */
  runbooks: string[];
}

/**
 * `sameAccount`: the new key replaces the current one for the same account (a rotated key); `sample`: what
 * it must then see as the current key does (else it is refused as not of the same account).
 */
export type ConnectInput = { apiKey: string; baseUrl?: string | null; sameAccount?: boolean; sample?: AccountSample };

/** Whether the key at the URL sees every one of `sample` as the current key does (published calls only). */
export type SeesSample = (baseUrl: string, apiKey: string, sample: AccountSample) => Promise<boolean>;

export type ConnectOutcome =
  | { ok: true; status: ConnectionStatus; previous: ConnectionStatus | null }
  | { ok: false; field: 'apiKey' | 'baseUrl'; sentence: string };

/** One list call with the key against the URL; throws the client's error when it fails. */
export type VerifyKey = (baseUrl: string, apiKey: string) => Promise<void>;

const MAX_KEY_LENGTH = 512;

/** A base URL compared without its trailing slashes. */
export function normalizeBaseUrl(url: string): string {
  return url.trim().replace(/\/+$/, '');
}

export class ApiConnections {
  readonly baseUrls: readonly string[];
  readonly #records: ApiConnectionStore;
  readonly #box: SecretBox;
  readonly #verify: VerifyKey;
  readonly #sees: SeesSample | null;
  readonly #now: () => number;

  constructor(options: {
    records: ApiConnectionStore;
    box: SecretBox;
    /** The URLs the operator allows (at least one); with one, nobody is asked for a URL. */
    baseUrls: readonly string[];
    verify: VerifyKey;
    /** Checks a same-account claim against what the current key follows (absent: the claim is taken). */
    sees?: SeesSample;
    now?: () => number;
  }) {
    if (options.baseUrls.length === 0) throw new Error('ApiConnections needs at least one allowed base URL');
    this.baseUrls = options.baseUrls.map(normalizeBaseUrl);
    this.#records = options.records;
    this.#box = options.box;
    this.#verify = options.verify;
    this.#sees = options.sees ?? null;
    this.#now = options.now ?? Date.now;
  }

  /** Whether people choose among several URLs (else the one allowed is used). */
  get asksForUrl(): boolean {
    return this.baseUrls.length > 1;
  }

  /**
   * Whether the operator still allows this address. A connection saved to an address since removed from
   * RUNBOOK_API_URLS is not used (tenant-deps.ts): nothing is sent there until an admin connects again.
   */
  allows(baseUrl: string): boolean {
    return this.baseUrls.includes(normalizeBaseUrl(baseUrl));
  }

  async status(installationId: string): Promise<ConnectionStatus | null> {
    const record = await this.#records.get(installationId);
    return record ? statusOf(record) : null;
  }

  async open(installationId: string): Promise<OpenConnection | null> {
    const record = await this.#records.get(installationId);
    if (!record) return null;
    return {
      status: statusOf(record),
      apiKey: this.#box.open(record.sealedKey),
      version: record.sealedKey,
    };
  }

  /** Checks the key with one list call, then saves it sealed (replacing any earlier connection). */
  /**
   * `beforeSwitch`: run once the key is verified and before it is saved, when it is of another account than
   * the saved one (what was open under the old account ends while nothing can yet reach the new one).
   */
  async connect(
    installationId: string,
    input: ConnectInput,
    connectedBy: string,
    beforeSwitch?: () => Promise<void>,
  ): Promise<ConnectOutcome> {
    const apiKey = input.apiKey.trim();
    if (!apiKey) return { ok: false, field: 'apiKey', sentence: 'Paste the Runbook API key.' };
    if (apiKey.length > MAX_KEY_LENGTH || /[\s\p{Cc}]/u.test(apiKey)) {
      return {
        ok: false,
        field: 'apiKey',
        sentence: `That is not an API key: a key is one word of at most ${MAX_KEY_LENGTH} characters.`,
      };
    }
    const baseUrl = input.baseUrl ? normalizeBaseUrl(input.baseUrl) : this.asksForUrl ? '' : this.baseUrls[0]!;
    if (!this.baseUrls.includes(baseUrl)) {
      return { ok: false, field: 'baseUrl', sentence: 'Choose one of the Runbook API addresses offered.' };
    }
    try {
      await this.#verify(baseUrl, apiKey);
    } catch (err) {
      return { ok: false, field: 'apiKey', sentence: verifySentence(baseUrl, err) };
    }
    const previous = await this.#records.get(installationId);
    // Same account only when the person says so and the address is unchanged; anything else is another one.
    const same = previous !== null && input.sameAccount === true && previous.baseUrl === baseUrl;
    const sample = input.sample;
    if (same && sample && this.#sees && (sample.executions.length > 0 || sample.runbooks.length > 0)) {
      const sees = await this.#sees(baseUrl, apiKey, sample).catch(() => false);
      if (!sees) {
        return {
          ok: false,
          field: 'apiKey',
          sentence:
            'This key does not see the runs or runbooks the current key does, so it is not of the same account: choose “Another account”, or check the key. Nothing was saved.',
        };
      }
    }
    if (previous && !same) await beforeSwitch?.();
    const record = await this.#records.put(
      {
        installationId,
        baseUrl,
        sealedKey: this.#box.seal(apiKey),
        connectedBy,
        account: same ? previous.account : randomUUID(),
      },
      this.#now(),
    );
    return { ok: true, status: statusOf(record), previous: previous ? statusOf(previous) : null };
  }

  /** Forgets the connection; true when there was one. */
  remove(installationId: string): Promise<boolean> {
    return this.#records.remove(installationId);
  }
}

function statusOf(record: ApiConnectionRecord): ConnectionStatus {
  const { baseUrl, connectedBy, connectedAt, account } = record;
  return { baseUrl, connectedBy, connectedAt, account };
}

/** Why a key was not saved, in one sentence that names no part of it. */
function verifySentence(baseUrl: string, err: unknown): string {
  if (err instanceof UnauthorizedError || err instanceof ForbiddenError) {
    return `The Runbook API at ${baseUrl} refused this key (HTTP ${err.status}): check it and paste it again. Nothing was saved.`;
  }
  return `The key could not be checked, so nothing was saved. ${describeApiError(err)}.`;
}
