// Bolt's InstallationStore over our store: each installation (one row per workspace, or per Grid org for
// an org-wide install) is kept as one sealed JSON value — bot token, refresh token, user token and the
// rest of what Bolt's installer produced — so no token is ever in a row in clear. Bolt's installer calls
// storeInstallation after an install and after refreshing a rotated token; authorize() and clientFor()
// read through fetchInstallation.
import type { Installation, InstallationQuery, InstallationStore } from '@slack/oauth';
import type { InstallationRecord, InstallationRecordStore } from '../store/installations.ts';
import { installationIdOf } from './installation.ts';
import type { SecretBox } from './secret-box.ts';

export class InstallationNotFoundError extends Error {
  constructor(id: string | null) {
    super(
      id
        ? `No installation of the app for ${id}: it was never installed there, or it was uninstalled.`
        : 'The request names no workspace or organization to look an installation up for.',
    );
    this.name = 'InstallationNotFoundError';
  }
}

/** The installation id a query (or Bolt's installation object) is keyed by. */
export function idOfQuery(query: InstallationQuery<boolean>): string | null {
  return installationIdOf(query);
}

function idOfInstallation(installation: Installation): string | null {
  return installationIdOf({
    teamId: installation.team?.id,
    enterpriseId: installation.enterprise?.id,
    isEnterpriseInstall: installation.isEnterpriseInstall,
  });
}

export interface SealedInstallationStore extends InstallationStore {
  /** The installation and its row (for revocation's compare-and-set); null when not installed. */
  load(id: string): Promise<{ installation: Installation; record: InstallationRecord } | null>;
}

export function createInstallationStore(options: {
  records: InstallationRecordStore;
  box: SecretBox;
  now?: () => number;
  /**
   * Told after each save (install, reinstall, token refresh), and awaited: caches of that installation are
   * dropped, and records the single workspace left are assigned before the install is answered.
   */
  onSaved?: (id: string) => void | Promise<void>;
}): SealedInstallationStore {
  const now = options.now ?? Date.now;
  const load = async (id: string) => {
    const record = await options.records.get(id);
    if (!record?.sealed) return null;
    const installation = JSON.parse(options.box.open(record.sealed)) as Installation;
    return { installation, record };
  };
  return {
    load,
    async storeInstallation(installation) {
      const id = idOfInstallation(installation as Installation);
      if (!id) throw new InstallationNotFoundError(null);
      await options.records.save(
        {
          id,
          teamId: installation.team?.id ?? null,
          enterpriseId: installation.enterprise?.id ?? null,
          isEnterpriseInstall: installation.isEnterpriseInstall === true,
          sealed: options.box.seal(JSON.stringify(installation)),
        },
        now(),
      );
      await options.onSaved?.(id);
    },
    async fetchInstallation(query) {
      const id = idOfQuery(query);
      let found = id ? await load(id) : null;
      // An org's workspace named without is_enterprise_install (Slack's team_access_* envelopes, even for
      // the workspace removed): the org-wide installation, unless the workspace has its own.
      if (!found && !query.isEnterpriseInstall && query.enterpriseId) {
        const org = await load(query.enterpriseId);
        if (org?.record.isEnterpriseInstall) found = org;
      }
      if (!found) throw new InstallationNotFoundError(id);
      return found.installation;
    },
    async deleteInstallation(query) {
      const id = idOfQuery(query);
      const record = id ? await options.records.get(id) : null;
      if (record?.sealed) await options.records.revoke(record.id, record.generation, now());
    },
  };
}
