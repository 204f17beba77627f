// Installations (many-workspace mode) and the OAuth install flow's one-time states: the interfaces and
// their SQL. The store never sees a token in clear: `sealed` is what src/tenants/ sealed.
import { num, numOrNull, text, textOrNull } from './row-mappers.ts';
import type { SqlDriver, SqlRow } from './sql-driver.ts';

export interface InstallationRecord {
  /** Team id, or enterprise id for an org-wide install. */
  id: string;
  teamId: string | null;
  enterpriseId: string | null;
  isEnterpriseInstall: boolean;
  /** The installation with its tokens, sealed (src/tenants/secret-box.ts); null once uninstalled. */
  sealed: string | null;
  /** Bumped by every save and revocation: a revocation deletes only the tokens it looked at. */
  generation: number;
  installedAt: number;
  updatedAt: number;
  /** When its tokens were deleted (app_uninstalled / tokens_revoked); null while installed. */
  uninstalledAt: number | null;
}

export interface NewInstallationRecord {
  id: string;
  teamId: string | null;
  enterpriseId: string | null;
  isEnterpriseInstall: boolean;
  sealed: string;
}

export interface InstallationRecordStore {
  /** Inserts or replaces (install, reinstall, token refresh); a reinstall after an uninstall starts anew. */
  save(record: NewInstallationRecord, now: number): Promise<InstallationRecord>;
  get(id: string): Promise<InstallationRecord | null>;
  /**
   * Deletes the tokens if the row is still at `generation` (nothing saved since the caller looked):
   * true when this call deleted them. A reinstall that landed in between keeps its fresh tokens.
   */
  revoke(id: string, generation: number, now: number): Promise<boolean>;
  /** Installations that hold tokens, by id, after `afterId` (paging through all of them). */
  listActive(afterId: string, limit: number): Promise<InstallationRecord[]>;
}

export interface OAuthStateStore {
  /** Keeps a state the install path issued, with what the redirect needs, until `expiresAt`. */
  put(state: string, payload: string, expiresAt: number, now: number): Promise<void>;
  /** Takes the state once: its payload if it was issued and has not expired, else null (a replay gets null). */
  consume(state: string, now: number): Promise<string | null>;
}

function toInstallation(row: SqlRow): InstallationRecord {
  return {
    id: text(row.id),
    teamId: textOrNull(row.team_id),
    enterpriseId: textOrNull(row.enterprise_id),
    isEnterpriseInstall: Boolean(row.is_enterprise_install),
    sealed: textOrNull(row.sealed),
    generation: num(row.generation),
    installedAt: num(row.installed_at),
    updatedAt: num(row.updated_at),
    uninstalledAt: numOrNull(row.uninstalled_at),
  };
}

export function installationRecordStore(db: SqlDriver): InstallationRecordStore {
  return {
    async save(record, now) {
      const { rows } = await db.query(
        `INSERT INTO installations
           (id, team_id, enterprise_id, is_enterprise_install, sealed, generation, installed_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, 1, $6, $6)
         ON CONFLICT (id) DO UPDATE SET
           team_id = excluded.team_id,
           enterprise_id = excluded.enterprise_id,
           is_enterprise_install = excluded.is_enterprise_install,
           sealed = excluded.sealed,
           generation = installations.generation + 1,
           installed_at = CASE WHEN installations.sealed IS NULL THEN excluded.installed_at
                               ELSE installations.installed_at END,
           updated_at = excluded.updated_at,
           uninstalled_at = NULL
         RETURNING *`,
        [record.id, record.teamId, record.enterpriseId, record.isEnterpriseInstall, record.sealed, now],
      );
      return toInstallation(rows[0]!);
    },
    async get(id) {
      const { rows } = await db.query('SELECT * FROM installations WHERE id = $1', [id]);
      return rows[0] ? toInstallation(rows[0]) : null;
    },
    async revoke(id, generation, now) {
      const result = await db.query(
        `UPDATE installations SET sealed = NULL, generation = generation + 1, uninstalled_at = $3, updated_at = $3
         WHERE id = $1 AND generation = $2 AND sealed IS NOT NULL`,
        [id, generation, now],
      );
      return result.rowCount === 1;
    },
    async listActive(afterId, limit) {
      const { rows } = await db.query(
        'SELECT * FROM installations WHERE sealed IS NOT NULL AND id > $1 ORDER BY id LIMIT $2',
        [afterId, Math.max(0, Math.trunc(limit))],
      );
      return rows.map(toInstallation);
    },
  };
}

export function oauthStateStore(db: SqlDriver): OAuthStateStore {
  return {
    async put(state, payload, expiresAt, now) {
      // Expired states are swept as new ones are issued: the table stays as small as the flows in progress.
      await db.query('DELETE FROM oauth_states WHERE expires_at <= $1', [now]);
      await db.query('INSERT INTO oauth_states (state, payload, expires_at) VALUES ($1, $2, $3)', [
        state,
        payload,
        expiresAt,
      ]);
    },
    async consume(state, now) {
      const { rows } = await db.query('DELETE FROM oauth_states WHERE state = $1 RETURNING payload, expires_at', [
        state,
      ]);
      const row = rows[0];
      if (!row || num(row.expires_at) <= now) return null;
      return text(row.payload);
    },
  };
}
