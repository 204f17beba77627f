// Installations and OAuth states over the SQL driver (the interfaces: installations.ts).
import type { InstallationRecord, InstallationRecordStore, OAuthStateStore } from './installations.ts';
import { num, numOrNull, text, textOrNull } from './row-mappers.ts';
import type { SqlDriver, SqlParam, SqlRow } from './sql-driver.ts';

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
  const store: InstallationRecordStore = {
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
    async listUninstalledBefore(cutoff, limit) {
      const { rows } = await db.query(
        `SELECT * FROM installations WHERE sealed IS NULL AND uninstalled_at IS NOT NULL AND uninstalled_at <= $1
         ORDER BY uninstalled_at, id LIMIT $2`,
        [cutoff, Math.max(0, Math.trunc(limit))],
      );
      return rows.map(toInstallation);
    },
    purge(id, cutoff) {
      return db.transaction(async (tx) => {
        const { rows } = await tx.query(
          `SELECT id FROM installations WHERE id = $1 AND sealed IS NULL AND uninstalled_at IS NOT NULL
             AND uninstalled_at <= $2 ${db.dialect === 'postgres' ? 'FOR UPDATE' : ''}`,
          [id, cutoff],
        );
        if (rows.length === 0) return null;
        // Its workspaces: its own id and those seen under it (org-wide), except one now served by another
        // installation that holds tokens (its own install, or another org's).
        const seen = await tx.query('SELECT team_id FROM installation_teams WHERE installation_id = $1', [id]);
        const teams: string[] = [];
        for (const team of [id, ...seen.rows.map((row) => text(row.team_id))]) {
          const other = await tx.query(
            `SELECT 1 FROM installations WHERE id = $1 AND id <> $2 AND sealed IS NOT NULL
             UNION ALL
             SELECT 1 FROM installation_teams t JOIN installations i ON i.id = t.installation_id AND i.sealed IS NOT NULL
             WHERE t.team_id = $1 AND t.installation_id <> $2`,
            [team, id],
          );
          if (other.rows.length === 0 && !teams.includes(team)) teams.push(team);
        }
        const counts: Record<string, number> = {};
        const run = async (table: string, sql: string, params: SqlParam[]) => {
          const result = await tx.query(sql, params);
          counts[table] = (counts[table] ?? 0) + (result.rowCount ?? 0);
        };
        await run(
          'approval_votes',
          'DELETE FROM approval_votes WHERE approval_id IN (SELECT id FROM approvals WHERE installation_id = $1)',
          [id],
        );
        for (const table of [
          'approvals',
          'run_aliases',
          'channel_defaults',
          'subscriptions',
          'watches',
          'run_intents',
          'schedule_owners',
          'schedule_pauses',
          'run_drafts',
          'api_connections',
          'installation_settings',
          'output_uploads',
          'workflow_steps',
          'freeze_passes',
          'run_limits',
          'cursors',
          'rate_buckets',
        ]) {
          await run(table, `DELETE FROM ${table} WHERE installation_id = $1`, [id]);
        }
        // Claims kept under the installation's name (a card's, a subscription notice's, a click's, and a
        // click's of an older release, which the installation led alone).
        await run(
          'notifications',
          `DELETE FROM notifications WHERE key LIKE 'message:' || $1 || ':%' OR key LIKE 'sub:' || $1 || ':%'
             OR key LIKE 'click:' || $1 || ':%' OR key LIKE $1 || ':%'`,
          [id],
        );
        // Tables keyed by workspace only: by the installation's team ids.
        for (const team of teams) {
          for (const table of ['subscriptions', 'watches', 'schedule_owners', 'schedule_pauses', 'run_intents']) {
            await run(table, `DELETE FROM ${table} WHERE team_id = $1`, [team]);
          }
        }
        await run('installation_teams', 'DELETE FROM installation_teams WHERE installation_id = $1', [id]);
        await run('installations', 'DELETE FROM installations WHERE id = $1', [id]);
        return counts;
      });
    },
    async purgeRemovedTeams(cutoff, limit) {
      const { rows } = await db.query(
        `SELECT team_id, installation_id FROM installation_teams WHERE revoked_at IS NOT NULL AND revoked_at <= $1
         ORDER BY revoked_at, team_id LIMIT $2`,
        [cutoff, Math.max(0, Math.trunc(limit))],
      );
      const purged: Array<{ teamId: string; installationId: string; rows: Record<string, number> }> = [];
      for (const row of rows) {
        const teamId = text(row.team_id);
        const installationId = text(row.installation_id);
        const counts = await db.transaction(async (tx) => {
          // Re-checked here: a workspace added back in between keeps everything.
          const still = await tx.query(
            `SELECT 1 FROM installation_teams WHERE team_id = $1 AND installation_id = $2 AND revoked_at IS NOT NULL
               AND revoked_at <= $3 ${db.dialect === 'postgres' ? 'FOR UPDATE' : ''}`,
            [teamId, installationId, cutoff],
          );
          if (still.rows.length === 0) return null;
          const deleted: Record<string, number> = {};
          const run = async (table: string, sql: string) => {
            deleted[table] = (await tx.query(sql, [installationId, teamId])).rowCount ?? 0;
          };
          await run(
            'approval_votes',
            `DELETE FROM approval_votes WHERE approval_id IN
               (SELECT id FROM approvals WHERE installation_id = $1 AND requester_team = $2)`,
          );
          await run('approvals', 'DELETE FROM approvals WHERE installation_id = $1 AND requester_team = $2');
          for (const table of ['subscriptions', 'watches', 'run_intents', 'schedule_owners', 'schedule_pauses']) {
            await run(table, `DELETE FROM ${table} WHERE installation_id = $1 AND team_id = $2`);
          }
          await run('installation_teams', 'DELETE FROM installation_teams WHERE installation_id = $1 AND team_id = $2');
          return deleted;
        });
        if (counts) purged.push({ teamId, installationId, rows: counts });
      }
      return purged;
    },
    async rememberTeam(teamId, installationId, now) {
      // A request from the workspace: it is served (again).
      await db.query(
        `INSERT INTO installation_teams (team_id, installation_id, seen_at) VALUES ($1, $2, $3)
         ON CONFLICT (team_id) DO UPDATE SET installation_id = excluded.installation_id, seen_at = excluded.seen_at,
           revoked_at = NULL`,
        [teamId, installationId, now],
      );
    },
    async revokeTeam(teamId, installationId, sentAt) {
      // A retry finds it removed already (false); one sent before the workspace was seen again changes nothing.
      const result = await db.query(
        `INSERT INTO installation_teams (team_id, installation_id, seen_at, revoked_at) VALUES ($1, $2, $3, $3)
         ON CONFLICT (team_id) DO UPDATE SET revoked_at = excluded.revoked_at
         WHERE installation_teams.installation_id = excluded.installation_id AND installation_teams.revoked_at IS NULL
           AND installation_teams.seen_at < $4`,
        // Slack's event_time is in whole seconds: a request seen within the second it was sent is before it.
        [teamId, installationId, sentAt, sentAt + 1000],
      );
      return result.rowCount === 1;
    },
    async grantTeam(teamId, installationId, sentAt) {
      await db.query(
        `INSERT INTO installation_teams (team_id, installation_id, seen_at) VALUES ($1, $2, $3)
         ON CONFLICT (team_id) DO UPDATE SET installation_id = excluded.installation_id,
           seen_at = excluded.seen_at, revoked_at = NULL
         WHERE installation_teams.revoked_at IS NULL OR installation_teams.revoked_at <= $3`,
        [teamId, installationId, sentAt],
      );
    },
    async serves(installationId, teamId) {
      if (!installationId) return teamId ? (await store.installationOfTeam(teamId)) !== null : false;
      const { rows } = await db.query(
        `SELECT 1 FROM installations i WHERE i.id = $1 AND i.sealed IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM installation_teams t WHERE t.team_id = $2 AND t.installation_id = i.id
                             AND t.revoked_at IS NOT NULL)`,
        [installationId, teamId ?? ''],
      );
      return rows.length > 0;
    },
    async installationOfTeam(teamId) {
      // Its own installation wins; else the org-wide one it was last seen under, while that one holds tokens.
      const { rows } = await db.query(
        `SELECT id, 0 AS rank FROM installations WHERE id = $1 AND sealed IS NOT NULL
         UNION ALL
         SELECT t.installation_id AS id, 1 AS rank FROM installation_teams t
           JOIN installations i ON i.id = t.installation_id AND i.sealed IS NOT NULL
         WHERE t.team_id = $1 AND t.revoked_at IS NULL
         ORDER BY rank LIMIT 1`,
        [teamId],
      );
      return rows[0] ? text(rows[0].id) : null;
    },
  };
  return store;
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
