// Installation settings over the SQL driver (the interface: installation-settings.ts).
import type { InstallationSettingsRecord, InstallationSettingsStore } from './installation-settings.ts';
import { num, text } from './row-mappers.ts';
import type { SqlDriver, SqlRow } from './sql-driver.ts';

function toSettings(row: SqlRow): InstallationSettingsRecord {
  return {
    installationId: text(row.installation_id),
    approvalsChannel: row.approvals_channel == null ? null : text(row.approvals_channel),
    approverGroup: row.approver_group == null ? null : text(row.approver_group),
    updatedBy: text(row.updated_by),
    updatedAt: num(row.updated_at),
  };
}

export function installationSettingsStore(db: SqlDriver): InstallationSettingsStore {
  return {
    async get(installationId) {
      const { rows } = await db.query('SELECT * FROM installation_settings WHERE installation_id = $1', [
        installationId,
      ]);
      return rows[0] ? toSettings(rows[0]) : null;
    },
    async put(record) {
      await db.query(
        `INSERT INTO installation_settings (installation_id, approvals_channel, approver_group, updated_by, updated_at)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (installation_id) DO UPDATE SET
           approvals_channel = excluded.approvals_channel,
           approver_group = excluded.approver_group,
           updated_by = excluded.updated_by,
           updated_at = excluded.updated_at`,
        [record.installationId, record.approvalsChannel, record.approverGroup, record.updatedBy, record.updatedAt],
      );
    },
    async remove(installationId) {
      const result = await db.query('DELETE FROM installation_settings WHERE installation_id = $1', [installationId]);
      return result.rowCount === 1;
    },
  };
}
