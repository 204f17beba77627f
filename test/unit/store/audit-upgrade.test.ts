// The upgrade to migration 17: audit rows written by a single-workspace deployment belong, afterwards, to
// that workspace's installation (or its Grid org's, where the workspace is known to be in an org-wide one).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, runMigrations } from '../../../src/store/migrations.ts';
import { createSqlStore } from '../../../src/store/sql-store.ts';
import { openSqliteDriver } from '../../../src/store/sqlite-driver.ts';

describe('upgrade to installation scoping (migrations 17 and 18)', () => {
  it("assigns today's audit rows and approval requests to their workspace's installation", async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'audit-upgrade-')), 'db.sqlite');
    const before = openSqliteDriver(file);
    await runMigrations(before, { migrations: MIGRATIONS.filter((m) => m.version <= 16) });
    for (const [at, team] of [
      [1, 'T0SINGLE'],
      [2, 'T0SINGLE'],
      [3, 'T0GRIDA'],
      [4, null],
    ] as const) {
      await before.query(
        `INSERT INTO audit (at, user_id, team_id, channel, action, target, outcome, detail, tid)
         VALUES ($1, 'U1', $2, 'C1', 'run.start', 'r', 'ok', NULL, NULL)`,
        [at, team],
      );
    }
    await before.query(
      `INSERT INTO approvals (id, runbook_id, runbook_name, proxy_id, params, params_masked, requester_id,
         requester_team, channel, state, created_at, expires_at, execution_ids)
       VALUES ('a-1', 'r', 'R', 'p', '{}', '{}', 'U1', 'T0GRIDA', 'C1', 'pending', 0, 9999999999999, '[]')`,
    );
    await before.query(
      `INSERT INTO installation_teams (team_id, installation_id, seen_at) VALUES ('T0GRIDA', 'E0GRID', 0)`,
    );
    await before.close();

    const store = createSqlStore(openSqliteDriver(file));
    try {
      expect((await store.migrate()).version).toBeGreaterThanOrEqual(17);
      expect((await store.audit.recent(10, 'T0SINGLE')).map((e) => e.at)).toEqual([2, 1]);
      expect((await store.audit.recent(10, 'E0GRID')).map((e) => e.at)).toEqual([3]);
      expect((await store.approvals.get('a-1'))?.installationId).toBe('E0GRID');
      // A row that names no workspace stays unscoped: no installation reads it.
      expect((await store.audit.recent(10)).find((e) => e.at === 4)?.installationId).toBeUndefined();
    } finally {
      await store.close();
    }
  });
});
