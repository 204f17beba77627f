// Runbook API connections over the SQL driver (the interface: api-connections.ts).
import type { ApiConnectionRecord, ApiConnectionStore } from './api-connections.ts';
import { num, text } from './row-mappers.ts';
import type { SqlDriver, SqlRow } from './sql-driver.ts';

function toConnection(row: SqlRow): ApiConnectionRecord {
  return {
    installationId: text(row.installation_id),
    baseUrl: text(row.base_url),
    sealedKey: text(row.sealed_key),
    connectedBy: text(row.connected_by),
    connectedAt: num(row.connected_at),
    account: text(row.account ?? ''),
  };
}

export function apiConnectionStore(db: SqlDriver): ApiConnectionStore {
  return {
    async get(installationId) {
      const { rows } = await db.query('SELECT * FROM api_connections WHERE installation_id = $1', [installationId]);
      return rows[0] ? toConnection(rows[0]) : null;
    },
    async put(record, now) {
      const { rows } = await db.query(
        `INSERT INTO api_connections (installation_id, base_url, sealed_key, connected_by, connected_at, account)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (installation_id) DO UPDATE SET
           base_url = excluded.base_url,
           sealed_key = excluded.sealed_key,
           connected_by = excluded.connected_by,
           connected_at = excluded.connected_at,
           account = excluded.account
         RETURNING *`,
        [record.installationId, record.baseUrl, record.sealedKey, record.connectedBy, now, record.account ?? ''],
      );
      return toConnection(rows[0]!);
    },
    async remove(installationId) {
      const result = await db.query('DELETE FROM api_connections WHERE installation_id = $1', [installationId]);
      return result.rowCount === 1;
    },
  };
}
