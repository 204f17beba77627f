// The Store, written once over a SqlDriver. Every "exactly once" guarantee is a single conditional
// write whose affected-row count says who won: an INSERT ... ON CONFLICT DO NOTHING (notifications,
// watches), an UPDATE ... WHERE <still in the expected state> (replies, approvals, leases). Both
// databases serialise conflicting writes on the same row, so only one caller sees rowCount = 1.
import { randomUUID } from 'node:crypto';
import {
  ASSIGN_APPROVAL_INSTALLATIONS,
  ASSIGN_AUDIT_INSTALLATIONS,
  ASSIGN_INTENT_INSTALLATIONS,
  ASSIGN_MESSAGE_CLAIM_INSTALLATIONS,
  ASSIGN_OWNER_INSTALLATIONS,
  ASSIGN_SUBSCRIPTION_INSTALLATIONS,
  ASSIGN_UPLOAD_INSTALLATIONS,
  ASSIGN_WATCH_INSTALLATIONS,
  runMigrations,
} from './migrations.ts';
import {
  parseStarts,
  toApproval,
  toAuditEntry,
  toRunDraft,
  toScheduleOwner,
  toSubscription,
  toWatch,
} from './row-mappers.ts';
import { apiConnectionStore } from './sql-api-connections.ts';
import type { SqlDialect, SqlDriver, SqlRow } from './sql-driver.ts';
import { installationSettingsStore } from './sql-installation-settings.ts';
import { installationRecordStore, oauthStateStore } from './sql-installations.ts';
import { aliasStore, channelDefaultsStore, workflowStepStore } from './sql-saved-runs.ts';
import { freezePassStore, schedulePauseStore } from './sql-schedule-pauses.ts';
import type {
  ApprovalStore,
  AuditStore,
  ClaimKind,
  CoordinationStore,
  CursorStore,
  FairClaim,
  NotificationStore,
  OutputUploadStore,
  RunDraftStore,
  RunIntent,
  RunIntentState,
  RunIntentStore,
  RunLimitStore,
  ScheduleOwner,
  ScheduleOwnerStore,
  SlackEventStore,
  Store,
  SubscriptionStore,
  Watch,
  WatchState,
  WatchStore,
} from './store.ts';
import { SLACK_EVENT_MEMORY_MS } from './store.ts';

export interface SqlStoreOptions {
  /** Postgres schema this store lives in (created by migrate()). */
  schema?: string;
}

/** `column` is one of the ids bound as an array parameter `$n`. */
/**
 * `state = 'active'` beside a lookup by a list of ids. On SQLite the unary `+` keeps the planner from
 * preferring the (state, …) indexes, which scanned every active watch per call, over the primary key.
 */
function activeById(dialect: SqlDialect): string {
  return dialect === 'postgres' ? `state = 'active'` : `+state = 'active'`;
}

function inList(dialect: SqlDialect, column: string, n: number): string {
  return dialect === 'postgres'
    ? `${column} = ANY($${n}::text[])`
    : `${column} IN (SELECT value FROM json_each($${n}))`;
}

/** A watch's tenant in SQL, as `tenantOf`: its installation, or its team when kept for ''. */
const TENANT = `COALESCE(NULLIF(installation_id, ''), team_id)`;

/**
 * claimDue's round-robin over tenants: due watches ranked within their tenant by next check, then
 * taken rank by rank (every tenant's first, then every tenant's second, …), at most `perTenant` each.
 * Postgres locks in the outer select (window functions cannot be locked), skipping rows being claimed.
 */
async function claimFairly(
  db: SqlDriver,
  dialect: SqlDialect,
  owner: string,
  now: number,
  leaseMs: number,
  limit: number,
  fair: FairClaim,
): Promise<Watch[]> {
  const due = `state = 'active' AND next_check_at <= $3 AND (lease_owner IS NULL OR lease_until <= $3)`;
  const tenants = `(${TENANT} IS NULL OR NOT (${inList(dialect, TENANT, 6)}))${fair.excludeNoTenant ? ` AND ${TENANT} IS NOT NULL` : ''}`;
  const sql = `UPDATE watches SET lease_owner = $1, lease_until = $2
    WHERE (installation_id, execution_id) IN (
      SELECT installation_id, execution_id FROM watches WHERE ${due} AND (installation_id, execution_id) IN (
        SELECT installation_id, execution_id FROM (
          SELECT installation_id, execution_id, next_check_at,
            ROW_NUMBER() OVER (PARTITION BY ${TENANT} ORDER BY next_check_at, installation_id, execution_id) AS rank_in_tenant
          FROM watches WHERE ${due} AND ${tenants}) ranked
        WHERE rank_in_tenant <= $5
        ORDER BY rank_in_tenant, next_check_at, installation_id, execution_id
        LIMIT $4)
      ${dialect === 'postgres' ? 'FOR UPDATE SKIP LOCKED' : ''})
    RETURNING *`;
  const params = [
    owner,
    now + leaseMs,
    now,
    Math.trunc(limit),
    Math.max(1, Math.trunc(fair.perTenant)),
    unique(fair.excludeTenants),
  ];
  const { rows } =
    dialect === 'sqlite' ? await db.transaction((tx) => tx.query(sql, params)) : await db.query(sql, params);
  return rows.map(toWatch).sort(byNextCheck);
}

function unique(ids: string[]): string[] {
  return [...new Set(ids)];
}

const nullableMs = (ms: number | null): number | null => (ms === null ? null : Math.round(ms));
/** A watch's thread holds in its channel only: a card that moved (a DM instead) leaves it behind. */
const KEEP_THREAD_IN_CHANNEL = 'thread_ts = CASE WHEN channel = $2 THEN thread_ts ELSE NULL END';

const order = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function byNextCheck(a: Watch, b: Watch): number {
  return (
    a.nextCheckAt - b.nextCheckAt || order(a.installationId, b.installationId) || order(a.executionId, b.executionId)
  );
}

function outputUploadStore(db: SqlDriver): OutputUploadStore {
  return {
    async claim(executionId, now, installationId = '') {
      const result = await db.query(
        `INSERT INTO output_uploads (installation_id, execution_id, claimed_at) VALUES ($3, $1, $2)
         ON CONFLICT (installation_id, execution_id) DO NOTHING`,
        [executionId, now, installationId],
      );
      return result.rowCount === 1;
    },
    async complete(executionId, fileId, now, installationId = '') {
      await db.query(
        `UPDATE output_uploads SET file_id = $2, completed_at = $3
         WHERE installation_id = $4 AND execution_id = $1 AND file_id IS NULL`,
        [executionId, fileId, now, installationId],
      );
    },
    async release(executionId, installationId = '') {
      await db.query(
        'DELETE FROM output_uploads WHERE installation_id = $2 AND execution_id = $1 AND file_id IS NULL',
        [executionId, installationId],
      );
    },
    async pruneUnwatched(before, limit) {
      const result = await db.query(
        `DELETE FROM output_uploads WHERE (installation_id, execution_id) IN (
           SELECT u.installation_id, u.execution_id FROM output_uploads u WHERE u.claimed_at < $1
             AND NOT EXISTS (SELECT 1 FROM watches w
               WHERE w.installation_id = u.installation_id AND w.execution_id = u.execution_id)
           ORDER BY u.claimed_at LIMIT $2)`,
        [before, Math.max(0, Math.trunc(limit))],
      );
      return result.rowCount;
    },
    async get(executionId, installationId = '') {
      const { rows } = await db.query('SELECT * FROM output_uploads WHERE installation_id = $2 AND execution_id = $1', [
        executionId,
        installationId,
      ]);
      const row = rows[0];
      if (!row) return null;
      return {
        executionId: String(row.execution_id),
        claimedAt: Number(row.claimed_at),
        fileId: row.file_id === null || row.file_id === undefined ? null : String(row.file_id),
        completedAt: row.completed_at === null || row.completed_at === undefined ? null : Number(row.completed_at),
      };
    },
    async assignInstallations() {
      return (await db.query(ASSIGN_UPLOAD_INSTALLATIONS)).rowCount ?? 0;
    },
  };
}

function watchStore(db: SqlDriver): WatchStore {
  const { dialect } = db;
  return {
    async insert(w, now) {
      const result = await db.query(
        `INSERT INTO watches (execution_id, runbook_id, runbook_name, channel, message_ts, thread_ts, started_by,
           team_id, proxy_id, inputs_summary, origin, state, next_check_at, attempts, created_at, updated_at,
           source_link, approved_by, proxy_name, started_at, installation_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'active', $12, 0, $13, $13, $14, $15, $16, $17, $18)
         ON CONFLICT (installation_id, execution_id) DO NOTHING`,
        [
          w.executionId,
          w.runbookId,
          w.runbookName,
          w.channel,
          w.messageTs ?? null,
          w.threadTs ?? null,
          w.startedBy ?? null,
          w.teamId ?? null,
          w.proxyId,
          w.inputsSummary,
          w.origin,
          w.nextCheckAt ?? now,
          now,
          w.sourceLink ?? null,
          w.approvedBy?.length ? JSON.stringify([...w.approvedBy]) : null,
          w.proxyName ?? null,
          w.startedAt ?? null,
          w.installationId ?? '',
        ],
      );
      return result.rowCount === 1;
    },

    async get(executionId, installationId = '') {
      const { rows } = await db.query('SELECT * FROM watches WHERE installation_id = $2 AND execution_id = $1', [
        executionId,
        installationId,
      ]);
      return rows[0] ? toWatch(rows[0]) : null;
    },

    async setMessage(executionId, channel, ts, now, eta, installationId = '') {
      if (!eta) {
        await db.query(
          `UPDATE watches SET channel = $2, message_ts = $3, updated_at = $4, ${KEEP_THREAD_IN_CHANNEL}
           WHERE installation_id = $5 AND execution_id = $1`,
          [executionId, channel, ts, now, installationId],
        );
        return;
      }
      await db.query(
        `UPDATE watches SET channel = $2, message_ts = $3, updated_at = $4, eta_median_ms = $5, eta_p95_ms = $6,
           eta_runs = $7, ${KEEP_THREAD_IN_CHANNEL} WHERE installation_id = $8 AND execution_id = $1`,
        [executionId, channel, ts, now, Math.round(eta.medianMs), nullableMs(eta.p95Ms), eta.runs, installationId],
      );
    },

    async claimDue(owner, now, leaseMs, limit, fair) {
      if (limit <= 0) return [];
      if (fair) return claimFairly(db, dialect, owner, now, leaseMs, limit, fair);
      // Postgres: rows another replica is claiming right now are skipped, not waited for.
      // SQLite: the transaction holds the write lock (BEGIN IMMEDIATE), so the select and the
      // update see no other writer in between.
      const sql = `UPDATE watches SET lease_owner = $1, lease_until = $2
        WHERE (installation_id, execution_id) IN (
          SELECT installation_id, execution_id FROM watches
          WHERE state = 'active' AND next_check_at <= $3 AND (lease_owner IS NULL OR lease_until <= $3)
          ORDER BY next_check_at, installation_id, execution_id
          LIMIT $4${dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : ''})
        RETURNING *`;
      const params = [owner, now + leaseMs, now, Math.trunc(limit)];
      const { rows } =
        dialect === 'sqlite' ? await db.transaction((tx) => tx.query(sql, params)) : await db.query(sql, params);
      // RETURNING gives no order guarantee.
      return rows.map(toWatch).sort(byNextCheck);
    },

    async claimIds(owner, executionIds, now, leaseMs, installationId = '') {
      if (executionIds.length === 0) return [];
      const sql = `UPDATE watches SET lease_owner = $1, lease_until = $2
        WHERE installation_id = $5 AND execution_id IN (
          SELECT execution_id FROM watches
          WHERE installation_id = $5 AND ${inList(dialect, 'execution_id', 4)} AND ${activeById(dialect)}
            AND (lease_owner IS NULL OR lease_until <= $3)
          ${dialect === 'postgres' ? 'FOR UPDATE SKIP LOCKED' : ''})
        RETURNING *`;
      const params = [owner, now + leaseMs, now, unique(executionIds), installationId];
      const { rows } =
        dialect === 'sqlite' ? await db.transaction((tx) => tx.query(sql, params)) : await db.query(sql, params);
      return rows.map(toWatch).sort(byNextCheck);
    },

    async renewLeases(owner, executionIds, until, installationId = '') {
      if (executionIds.length === 0) return 0;
      const result = await db.query(
        `UPDATE watches SET lease_until = $3
         WHERE installation_id = $4 AND ${inList(dialect, 'execution_id', 1)} AND lease_owner = $2
           AND ${activeById(dialect)}`,
        [unique(executionIds), owner, until, installationId],
      );
      return result.rowCount;
    },

    async reschedule(executionId, owner, nextCheckAt, attempts, now, installationId = '') {
      const result = await db.query(
        `UPDATE watches SET next_check_at = $3, attempts = $4, updated_at = $5, lease_owner = NULL, lease_until = NULL
         WHERE installation_id = $6 AND execution_id = $1 AND lease_owner = $2 AND state = 'active'`,
        [executionId, owner, nextCheckAt, attempts, now, installationId],
      );
      return result.rowCount === 1;
    },

    async complete(executionId, owner, state, finalStatus, now, installationId = '') {
      const result = await db.query(
        `UPDATE watches SET state = $3, final_status = $4, updated_at = $5, lease_owner = NULL, lease_until = NULL
         WHERE installation_id = $6 AND execution_id = $1 AND lease_owner = $2 AND state = 'active'`,
        [executionId, owner, state, finalStatus, now, installationId],
      );
      return result.rowCount === 1;
    },

    async markResultPosted(executionId, now, installationId = '') {
      await db.query(
        `UPDATE watches SET result_posted_at = $2, updated_at = $2
         WHERE installation_id = $3 AND execution_id = $1 AND result_posted_at IS NULL`,
        [executionId, now, installationId],
      );
    },

    async claimReply(executionId, now, installationId = '') {
      const result = await db.query(
        `UPDATE watches SET reply_posted_at = $2, updated_at = $2
         WHERE installation_id = $3 AND execution_id = $1 AND reply_posted_at IS NULL`,
        [executionId, now, installationId],
      );
      return result.rowCount === 1;
    },

    async stopInstallation(installationId, now) {
      if (!installationId) return 0;
      const result = await db.query(
        `UPDATE watches SET state = 'stale', updated_at = $2, lease_owner = NULL, lease_until = NULL
         WHERE installation_id = $1 AND state = 'active'`,
        [installationId, now],
      );
      return result.rowCount;
    },

    async stopTeam(installationId, teamId, now) {
      if (!installationId || !teamId) return 0;
      const result = await db.query(
        `UPDATE watches SET state = 'stale', updated_at = $3, lease_owner = NULL, lease_until = NULL
         WHERE installation_id = $1 AND team_id = $2 AND state = 'active'`,
        [installationId, teamId, now],
      );
      return result.rowCount;
    },

    async releaseAll(owner) {
      const result = await db.query(
        'UPDATE watches SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1',
        [owner],
      );
      return result.rowCount;
    },

    async countByState() {
      const counts: Record<WatchState, number> = { active: 0, finished: 0, stale: 0 };
      const { rows } = await db.query('SELECT state, COUNT(*) AS n FROM watches GROUP BY state');
      for (const row of rows) {
        const state = String(row.state);
        if (state === 'active' || state === 'finished' || state === 'stale') counts[state] = Number(row.n);
      }
      return counts;
    },

    async countActiveByTenant() {
      const { rows } = await db.query(
        `SELECT ${TENANT} AS tenant, COUNT(*) AS n FROM watches WHERE state = 'active' GROUP BY ${TENANT}`,
      );
      return rows.map((r) => ({ tenant: r.tenant === null ? null : String(r.tenant), count: Number(r.n) }));
    },

    async countDue(now) {
      const { rows } = await db.query(
        `SELECT COUNT(*) AS n FROM watches WHERE state = 'active' AND next_check_at <= $1`,
        [now],
      );
      return Number(rows[0]?.n ?? 0);
    },

    async listActive(limit) {
      const { rows } = await db.query(
        `SELECT * FROM watches WHERE state = 'active' ORDER BY created_at, installation_id, execution_id LIMIT $1`,
        [Math.max(0, Math.trunc(limit))],
      );
      return rows.map(toWatch);
    },

    async listActiveIds(limit, installationId = '') {
      const { rows } = await db.query(
        `SELECT execution_id FROM watches WHERE installation_id = $2 AND state = 'active' LIMIT $1`,
        [Math.max(0, Math.trunc(limit)), installationId],
      );
      return rows.map((r) => String(r.execution_id));
    },

    async listActiveKeys(limit) {
      const { rows } = await db.query(
        `SELECT installation_id, execution_id, team_id, created_at FROM watches WHERE state = 'active' LIMIT $1`,
        [Math.max(0, Math.trunc(limit))],
      );
      return rows.map((r) => ({
        installationId: String(r.installation_id),
        executionId: String(r.execution_id),
        teamId: r.team_id === null ? null : String(r.team_id),
        createdAt: Number(r.created_at),
      }));
    },

    async oldestActiveCreatedAt(installationId = '') {
      const { rows } = await db.query(
        `SELECT MIN(created_at) AS oldest FROM watches WHERE installation_id = $1 AND state = 'active'`,
        [installationId],
      );
      const oldest = rows[0]?.oldest;
      return oldest === null || oldest === undefined ? null : Number(oldest);
    },

    async deferSeen(executionIds, nextCheckAt, now, installationId = '') {
      if (executionIds.length === 0) return 0;
      const result = await db.query(
        `UPDATE watches SET next_check_at = $2, attempts = 1, updated_at = $3
         WHERE installation_id = $4 AND ${inList(dialect, 'execution_id', 1)} AND ${activeById(dialect)}
           AND attempts = 0 AND message_ts IS NOT NULL AND (lease_owner IS NULL OR lease_until <= $3)
           AND next_check_at < $2`,
        [unique(executionIds), nextCheckAt, now, installationId],
      );
      return result.rowCount;
    },

    async expedite(executionIds, now, installationId = '') {
      if (executionIds.length === 0) return;
      await db.query(
        `UPDATE watches SET next_check_at = $2
         WHERE installation_id = $3 AND ${inList(dialect, 'execution_id', 1)} AND ${activeById(dialect)}
           AND next_check_at > $2`,
        [unique(executionIds), now, installationId],
      );
    },

    async listUnposted(limit) {
      const { rows } = await db.query(
        `SELECT * FROM watches WHERE state = 'active' AND message_ts IS NULL
         ORDER BY created_at, installation_id, execution_id LIMIT $1`,
        [Math.max(0, Math.trunc(limit))],
      );
      return rows.map(toWatch);
    },

    assignInstallations() {
      // The card claims first: they are found through the watches still kept for ''.
      return db.transaction(async (tx) => {
        await tx.query(ASSIGN_MESSAGE_CLAIM_INSTALLATIONS);
        return (await tx.query(ASSIGN_WATCH_INSTALLATIONS)).rowCount ?? 0;
      });
    },

    async pruneEnded(before, limit) {
      // created_at <= updated_at: the bound on created_at changes nothing but lets its index narrow the scan.
      const result = await db.query(
        `DELETE FROM watches WHERE (installation_id, execution_id) IN (
           SELECT installation_id, execution_id FROM watches
           WHERE state IN ('finished', 'stale') AND created_at < $1 AND updated_at < $1
           ORDER BY created_at LIMIT $2)`,
        [before, Math.max(0, Math.trunc(limit))],
      );
      return result.rowCount ?? 0;
    },
  };
}

function slackEventStore(db: SqlDriver): SlackEventStore {
  return {
    async claim(keys, now) {
      await db.query('DELETE FROM slack_events WHERE seen_at < $1', [now - SLACK_EVENT_MEMORY_MS]);
      // In one order everywhere, stopping at the first key already there: two deliveries of the same
      // event race on its first key, so exactly one of them goes on (and wins the rest).
      const sorted = [...new Set(keys)].sort();
      for (const key of sorted) {
        const result = await db.query(
          'INSERT INTO slack_events (key, seen_at) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING',
          [key, now],
        );
        if (result.rowCount !== 1) return false;
      }
      return sorted.length > 0;
    },
  };
}

function notificationStore(db: SqlDriver): NotificationStore {
  return {
    async claim(key, now, by) {
      const result = await db.query(
        'INSERT INTO notifications (key, claimed_at, claimed_by) VALUES ($1, $2, $3) ON CONFLICT (key) DO NOTHING',
        [key, now, by ?? null],
      );
      return result.rowCount === 1;
    },
    async has(key) {
      const { rows } = await db.query('SELECT 1 AS found FROM notifications WHERE key = $1', [key]);
      return rows.length > 0;
    },
    async holder(key) {
      const { rows } = await db.query('SELECT claimed_by, claimed_at FROM notifications WHERE key = $1', [key]);
      const row = rows[0];
      if (!row) return null;
      return { by: typeof row.claimed_by === 'string' ? row.claimed_by : null, at: Number(row.claimed_at) };
    },
    async release(key) {
      await db.query('DELETE FROM notifications WHERE key = $1', [key]);
    },
    async prune(kind, before, limit) {
      const result = await db.query(
        `DELETE FROM notifications WHERE key IN (SELECT n.key FROM notifications n
           WHERE n.claimed_at < $1 AND (${CLAIMS_OF[kind]}) ORDER BY n.claimed_at LIMIT $2)`,
        [before, limit],
      );
      return result.rowCount;
    },
  };
}

/** Which keys are a kind's (`n`: the claim's row); LIKE, not a parsed key: the same on both databases. */
const CLAIMS_OF: Record<ClaimKind, string> = {
  // A watch's card key (watch/watcher.ts): `message:<installation>:<execution id>`, '' without the installation.
  card: `n.key LIKE 'message:%' AND NOT EXISTS (SELECT 1 FROM watches w WHERE w.state = 'active'
           AND n.key = 'message:' || CASE WHEN w.installation_id = '' THEN '' ELSE w.installation_id || ':' END
             || w.execution_id)`,
  notice: `n.key LIKE 'sub:%'`,
  form: `n.key LIKE 'submission:%' OR n.key LIKE 'click:schedule-save:%' OR n.key LIKE 'click:%:schedule-save:%'`,
  // Also an older release's key, which the installation may lead (runs/once.ts).
  confirmation: `n.key LIKE 'click:confirmation:%' OR n.key LIKE 'click:%:confirmation:%'
    OR n.key LIKE 'confirm-run:%' OR n.key LIKE '%:confirm-run:%'`,
};

function subscriptionStore(db: SqlDriver): SubscriptionStore {
  return {
    async add(s, now, installationId = '') {
      // Insert-or-update without a dialect-specific "was it inserted?" trick; a concurrent remove
      // between the two statements just means we try the insert again.
      for (let attempt = 0; attempt < 5; attempt++) {
        const inserted = await db.query(
          `INSERT INTO subscriptions (installation_id, channel, runbook_id, runbook_name, failures_only, created_by,
             team_id, created_at, updated_at)
           VALUES ($8, $1, $2, $3, $4, $5, $6, $7, $7)
           ON CONFLICT (installation_id, channel, runbook_id) DO NOTHING`,
          [s.channel, s.runbookId, s.runbookName, s.failuresOnly, s.createdBy, s.teamId, now, installationId],
        );
        if (inserted.rowCount === 1) return 'added';
        const updated = await db.query(
          `UPDATE subscriptions SET runbook_name = $3, failures_only = $4, updated_at = $5
           WHERE installation_id = $6 AND channel = $1 AND runbook_id = $2`,
          [s.channel, s.runbookId, s.runbookName, s.failuresOnly, now, installationId],
        );
        if (updated.rowCount === 1) return 'updated';
      }
      throw new Error('subscription kept changing concurrently; try again');
    },
    async remove(channel, runbookId, installationId = '') {
      const result = await db.query(
        'DELETE FROM subscriptions WHERE installation_id = $3 AND channel = $1 AND runbook_id = $2',
        [channel, runbookId, installationId],
      );
      return result.rowCount === 1;
    },
    async listForChannel(channel, installationId = '') {
      const { rows } = await db.query(
        'SELECT * FROM subscriptions WHERE installation_id = $2 AND channel = $1 ORDER BY created_at, runbook_id',
        [channel, installationId],
      );
      return rows.map(toSubscription);
    },
    async listAll(installationId) {
      const { rows } =
        installationId === undefined
          ? await db.query('SELECT * FROM subscriptions ORDER BY channel, created_at, runbook_id')
          : await db.query(
              'SELECT * FROM subscriptions WHERE installation_id = $1 ORDER BY channel, created_at, runbook_id',
              [installationId],
            );
      return rows.map(toSubscription);
    },
    async assignInstallations() {
      return (await db.query(ASSIGN_SUBSCRIPTION_INSTALLATIONS)).rowCount ?? 0;
    },
  };
}

function toRunIntent(r: SqlRow): RunIntent {
  const ids = String(r.execution_ids ?? '');
  return {
    id: String(r.id),
    userId: String(r.user_id),
    userEmail: r.user_email === null || r.user_email === undefined ? null : String(r.user_email),
    teamId: r.team_id === null || r.team_id === undefined ? null : String(r.team_id),
    runbookId: String(r.runbook_id),
    runbookName: String(r.runbook_name),
    proxyId: String(r.proxy_id),
    paramsHash: String(r.params_hash),
    channel: r.channel === null || r.channel === undefined ? null : String(r.channel),
    inputsSummary: String(r.inputs_summary),
    via: r.via === null || r.via === undefined ? null : String(r.via),
    installationId: String(r.installation_id ?? ''),
    state: String(r.state) as RunIntentState,
    executionIds: ids === '' ? [] : ids.split(','),
    createdAt: Number(r.created_at),
    settledAt: r.settled_at === null || r.settled_at === undefined ? null : Number(r.settled_at),
  };
}

function intentStore(db: SqlDriver): RunIntentStore {
  return {
    async record(i, now) {
      await db.query(
        `INSERT INTO run_intents (id, user_id, user_email, team_id, runbook_id, runbook_name, proxy_id, params_hash,
           channel, inputs_summary, state, created_at, via, installation_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'open', $11, $12, $13)`,
        [
          i.id,
          i.userId,
          i.userEmail,
          i.teamId,
          i.runbookId,
          i.runbookName,
          i.proxyId,
          i.paramsHash,
          i.channel,
          i.inputsSummary,
          now,
          i.via,
          i.installationId ?? '',
        ],
      );
    },
    async settle(id, state, executionIds, now) {
      const result = await db.query(
        `UPDATE run_intents SET state = $2, execution_ids = $3, settled_at = $4 WHERE id = $1 AND state = 'open'`,
        [id, state, executionIds.join(','), now],
      );
      return result.rowCount === 1;
    },
    async listOpen(before, limit, installationId) {
      const { rows } =
        installationId === undefined
          ? await db.query(
              `SELECT * FROM run_intents WHERE state = 'open' AND created_at < $1 ORDER BY created_at LIMIT $2`,
              [before, Math.max(0, Math.trunc(limit))],
            )
          : await db.query(
              `SELECT * FROM run_intents WHERE installation_id = $3 AND state = 'open' AND created_at < $1
               ORDER BY created_at LIMIT $2`,
              [before, Math.max(0, Math.trunc(limit)), installationId],
            );
      return rows.map(toRunIntent);
    },
    async get(id) {
      const { rows } = await db.query('SELECT * FROM run_intents WHERE id = $1', [id]);
      return rows[0] ? toRunIntent(rows[0]) : null;
    },
    async assignInstallations() {
      return (await db.query(ASSIGN_INTENT_INSTALLATIONS)).rowCount ?? 0;
    },
    async pruneSettled(before, limit) {
      // created_at <= settled_at: the bound on created_at changes nothing but lets its index narrow the scan.
      const result = await db.query(
        `DELETE FROM run_intents WHERE id IN (SELECT id FROM run_intents
           WHERE state IN ('started', 'failed', 'reconciled', 'lost') AND created_at < $1 AND settled_at < $1
           ORDER BY created_at LIMIT $2)`,
        [before, Math.max(0, Math.trunc(limit))],
      );
      return result.rowCount;
    },
  };
}

function cursorStore(db: SqlDriver): CursorStore {
  return {
    async get(name, installationId = '') {
      const { rows } = await db.query('SELECT value FROM cursors WHERE installation_id = $2 AND name = $1', [
        name,
        installationId,
      ]);
      return rows[0] ? String(rows[0].value) : null;
    },
    async list(name) {
      const { rows } = await db.query('SELECT installation_id, value FROM cursors WHERE name = $1', [name]);
      return rows.map((row) => ({ installationId: String(row.installation_id), value: String(row.value) }));
    },
    async set(name, value, now, installationId = '') {
      await db.query(
        `INSERT INTO cursors (installation_id, name, value, updated_at) VALUES ($4, $1, $2, $3)
         ON CONFLICT (installation_id, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
        [name, value, now, installationId],
      );
    },
  };
}

function scheduleOwnerStore(db: SqlDriver): ScheduleOwnerStore {
  return {
    async set(scheduleId, o, now, installationId = '') {
      // Re-setting the same user without a name keeps the name we already had.
      await db.query(
        `INSERT INTO schedule_owners (schedule_id, user_id, team_id, user_name, created_at, updated_at, channel,
           installation_id)
         VALUES ($1, $2, $3, $4, $5, $5, $6, $7)
         ON CONFLICT (installation_id, schedule_id) DO UPDATE SET
           user_id = excluded.user_id,
           team_id = excluded.team_id,
           channel = COALESCE(excluded.channel, schedule_owners.channel),
           user_name = CASE WHEN excluded.user_id = schedule_owners.user_id
                            THEN COALESCE(excluded.user_name, schedule_owners.user_name)
                            ELSE excluded.user_name END,
           updated_at = excluded.updated_at`,
        [scheduleId, o.userId, o.teamId, o.userName ?? null, now, o.channel ?? null, installationId],
      );
    },
    async get(scheduleId, installationId = '') {
      const { rows } = await db.query('SELECT * FROM schedule_owners WHERE schedule_id = $1 AND installation_id = $2', [
        scheduleId,
        installationId,
      ]);
      return rows[0] ? toScheduleOwner(rows[0]) : null;
    },
    async getMany(ids, installationId = '') {
      const owners = new Map<string, ScheduleOwner>();
      if (ids.length === 0) return owners;
      const { rows } = await db.query(
        `SELECT * FROM schedule_owners WHERE ${inList(db.dialect, 'schedule_id', 1)} AND installation_id = $2`,
        [unique(ids), installationId],
      );
      for (const row of rows) {
        const owner = toScheduleOwner(row);
        owners.set(owner.scheduleId, owner);
      }
      return owners;
    },
    async list(limit, installationId = '') {
      const { rows } = await db.query(
        'SELECT * FROM schedule_owners WHERE installation_id = $1 ORDER BY created_at, schedule_id LIMIT $2',
        [installationId, limit],
      );
      return rows.map(toScheduleOwner);
    },
    async remove(scheduleId, installationId = '') {
      await db.query('DELETE FROM schedule_owners WHERE schedule_id = $1 AND installation_id = $2', [
        scheduleId,
        installationId,
      ]);
    },
    async assignInstallations() {
      return (await db.query(ASSIGN_OWNER_INSTALLATIONS)).rowCount ?? 0;
    },
  };
}

function approvalStore(db: SqlDriver): ApprovalStore {
  return {
    async create(a, now) {
      const { rows } = await db.query(
        `INSERT INTO approvals (id, runbook_id, runbook_name, proxy_id, params, params_masked, requester_id,
           requester_team, channel, state, created_at, expires_at, execution_ids, quorum, installation_id, api_account)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'pending', $10, $11, '[]', $12, $13, $14)
         RETURNING *`,
        [
          randomUUID(),
          a.runbookId,
          a.runbookName,
          a.proxyId,
          a.params,
          a.paramsMasked,
          a.requesterId,
          a.requesterTeam,
          a.channel,
          now,
          a.expiresAt,
          a.quorum ? JSON.stringify({ count: a.quorum.count, eachOf: a.quorum.eachOf }) : null,
          a.installationId ?? null,
          a.apiAccount ?? null,
        ],
      );
      return toApproval(rows[0]!);
    },
    async get(id) {
      const { rows } = await db.query('SELECT * FROM approvals WHERE id = $1', [id]);
      return rows[0] ? toApproval(rows[0]) : null;
    },
    async decide(id, to, by, reason, now) {
      const unexpired = to === 'expired' ? '' : ' AND expires_at > $5';
      const result = await db.query(
        `UPDATE approvals SET state = $2, decided_by = $3, reason = $4, decided_at = $5
         WHERE id = $1 AND state = 'pending'${unexpired}`,
        [id, to, by, reason, now],
      );
      return result.rowCount === 1;
    },
    async setRunResult(id, executionIds, error, now) {
      await db.query('UPDATE approvals SET execution_ids = $2, error = $3, ran_at = $4 WHERE id = $1', [
        id,
        JSON.stringify(executionIds),
        error,
        now,
      ]);
    },
    async setMessages(id, m) {
      await db.query(
        `UPDATE approvals SET
           approvers_channel = COALESCE($2, approvers_channel),
           approvers_ts = COALESCE($3, approvers_ts),
           requester_channel = COALESCE($4, requester_channel),
           requester_ts = COALESCE($5, requester_ts)
         WHERE id = $1`,
        [id, m.approversChannel ?? null, m.approversTs ?? null, m.requesterChannel ?? null, m.requesterTs ?? null],
      );
    },
    async vote(id, userId, groups, now) {
      const result = await db.query(
        `INSERT INTO approval_votes (approval_id, user_id, groups_json, voted_at)
         SELECT $1, $2, $3, $4 WHERE EXISTS (
           SELECT 1 FROM approvals WHERE id = $1 AND state = 'pending' AND expires_at > $4)
         ON CONFLICT (approval_id, user_id) DO NOTHING`,
        [id, userId, JSON.stringify([...groups]), now],
      );
      return result.rowCount === 1;
    },
    async votes(id) {
      const { rows } = await db.query(
        'SELECT * FROM approval_votes WHERE approval_id = $1 ORDER BY voted_at, user_id',
        [id],
      );
      return rows.map((row) => {
        let groups: string[] = [];
        try {
          const parsed: unknown = JSON.parse(String(row.groups_json));
          if (Array.isArray(parsed)) groups = parsed.filter((g): g is string => typeof g === 'string');
        } catch {
          // A damaged row still counts as an approval, just without groups.
        }
        return { userId: String(row.user_id), groups, at: Number(row.voted_at) };
      });
    },
    async withdrawVote(id, userId) {
      const result = await db.query(
        `DELETE FROM approval_votes WHERE approval_id = $1 AND user_id = $2
         AND EXISTS (SELECT 1 FROM approvals WHERE id = $1 AND state = 'pending')`,
        [id, userId],
      );
      return result.rowCount === 1;
    },
    async listPending(now, limit, installationId) {
      const scoped = installationId === undefined ? '' : ' AND installation_id = $3';
      const { rows } = await db.query(
        `SELECT * FROM approvals WHERE state = 'pending' AND expires_at > $1${scoped} ORDER BY created_at, id LIMIT $2`,
        [now, Math.max(0, Math.trunc(limit)), ...(installationId === undefined ? [] : [installationId])],
      );
      return rows.map(toApproval);
    },
    async assignInstallations() {
      return (await db.query(ASSIGN_APPROVAL_INSTALLATIONS)).rowCount ?? 0;
    },
    async listExpired(now, limit) {
      const { rows } = await db.query(
        `SELECT * FROM approvals WHERE state = 'pending' AND expires_at <= $1 ORDER BY expires_at, id LIMIT $2`,
        [now, Math.max(0, Math.trunc(limit))],
      );
      return rows.map(toApproval);
    },
    async pruneDecided(before, limit) {
      return db.transaction(async (tx) => {
        const { rows } = await tx.query(
          `SELECT id FROM approvals WHERE state <> 'pending' AND decided_at < $1 AND (ran_at IS NULL OR ran_at < $1)
           ORDER BY decided_at, id LIMIT $2`,
          [before, Math.max(0, Math.trunc(limit))],
        );
        const ids = rows.map((row) => String(row.id));
        if (ids.length === 0) return 0;
        // A vote is only ever added to a pending request: none comes after these are read.
        await tx.query(`DELETE FROM approval_votes WHERE ${inList(db.dialect, 'approval_id', 1)}`, [ids]);
        const result = await tx.query(
          `DELETE FROM approvals WHERE ${inList(db.dialect, 'id', 1)} AND state <> 'pending'`,
          [ids],
        );
        return result.rowCount;
      });
    },
  };
}

function auditStore(db: SqlDriver): AuditStore {
  return {
    async append(e) {
      await db.query(
        `INSERT INTO audit (at, user_id, team_id, channel, action, target, outcome, detail, tid, installation_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [e.at, e.userId, e.teamId, e.channel, e.action, e.target, e.outcome, e.detail, e.tid, e.installationId ?? null],
      );
    },
    async recent(limit, installationId) {
      const count = Math.max(0, Math.trunc(limit));
      const { rows } =
        installationId === undefined
          ? await db.query('SELECT * FROM audit ORDER BY at DESC, id DESC LIMIT $1', [count])
          : await db.query('SELECT * FROM audit WHERE installation_id = $2 ORDER BY at DESC, id DESC LIMIT $1', [
              count,
              installationId,
            ]);
      return rows.map(toAuditEntry);
    },
    async assignInstallations() {
      return (await db.query(ASSIGN_AUDIT_INSTALLATIONS)).rowCount ?? 0;
    },
    async deleteBefore(before, limit) {
      // By id through the index on (at): a bounded batch, so a first pass over years of entries never
      // holds the table for long (SQLite has no DELETE … LIMIT).
      const { rowCount } = await db.query(
        'DELETE FROM audit WHERE id IN (SELECT id FROM audit WHERE at < $1 ORDER BY at, id LIMIT $2)',
        [before, Math.max(0, Math.trunc(limit))],
      );
      return rowCount;
    },
  };
}

function runDraftStore(db: SqlDriver): RunDraftStore {
  return {
    async save(d, now, installationId = '') {
      const id = randomUUID();
      await db.query(
        `INSERT INTO run_drafts (id, runbook_id, proxy_id, channel, params, created_at, expires_at, installation_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [id, d.runbookId, d.proxyId, d.channel, d.params, now, d.expiresAt, installationId],
      );
      return id;
    },
    async get(id, now, installationId = '') {
      const { rows } = await db.query(
        'SELECT * FROM run_drafts WHERE id = $1 AND expires_at > $2 AND installation_id = $3',
        [id, now, installationId],
      );
      return rows[0] ? toRunDraft(rows[0]) : null;
    },
    async deleteExpired(now) {
      return (await db.query('DELETE FROM run_drafts WHERE expires_at <= $1', [now])).rowCount;
    },
  };
}

function runLimitStore(db: SqlDriver): RunLimitStore {
  return {
    take(key, now, windowMs, limit, installationId = '') {
      return db.transaction(async (tx) => {
        // The upsert takes the key's row lock (Postgres) or runs under the write lock (SQLite), so
        // two replicas counting the same person's starts are serialised: the second one reads the
        // first one's start. Only this one row is locked, so takes of different keys never deadlock.
        const { rows } = await tx.query(
          `INSERT INTO run_limits (installation_id, key, starts, last_at) VALUES ($3, $1, '[]', $2)
           ON CONFLICT (installation_id, key) DO UPDATE SET last_at = run_limits.last_at
           RETURNING starts`,
          [key, now, installationId],
        );
        const recent = parseStarts(rows[0]?.starts).filter((t) => now - t < windowMs);
        // A start stamped slightly after `now` (another replica's clock runs ahead) still counts.
        const full = recent.length >= limit;
        if (!full) recent.push(now);
        await tx.query('UPDATE run_limits SET starts = $2, last_at = $3 WHERE installation_id = $4 AND key = $1', [
          key,
          JSON.stringify(recent),
          recent.length ? Math.max(...recent) : now,
          installationId,
        ]);
        if (!full) return { ok: true as const };
        const oldest = recent.length ? Math.min(...recent) : now;
        return { ok: false as const, retryInMs: Math.max(0, windowMs - (now - oldest)) };
      });
    },
    async deleteIdle(before) {
      return (await db.query('DELETE FROM run_limits WHERE last_at <= $1', [before])).rowCount;
    },
  };
}

function coordinationStore(db: SqlDriver): CoordinationStore {
  return {
    async takeTokens(name, spec, want, now, installationId = '') {
      const rate = Math.max(1e-6, spec.ratePerSecond);
      const burst = Math.max(1, spec.burst);
      return db.transaction(async (tx) => {
        await tx.query(
          `INSERT INTO rate_buckets (name, tokens, at, installation_id) VALUES ($1, $2, $3, $4)
           ON CONFLICT (name) DO NOTHING`,
          [name, burst, now, installationId],
        );
        // Postgres: the row lock serialises replicas; SQLite: the transaction holds the write lock.
        const { rows } = await tx.query(
          `SELECT tokens, at FROM rate_buckets WHERE name = $1${db.dialect === 'postgres' ? ' FOR UPDATE' : ''}`,
          [name],
        );
        const at = Number(rows[0]?.at ?? now);
        // A replica whose clock is behind never refills the bucket backwards.
        const stamp = Math.max(at, now);
        const tokens = Math.min(burst, Number(rows[0]?.tokens ?? burst) + ((stamp - at) * rate) / 1000);
        const granted = Math.max(0, Math.min(Math.floor(want), Math.floor(tokens)));
        const left = tokens - granted;
        // A bucket kept from before it was recorded per installation takes its installation on this use.
        await tx.query('UPDATE rate_buckets SET tokens = $2, at = $3, installation_id = $4 WHERE name = $1', [
          name,
          left,
          stamp,
          installationId,
        ]);
        const waitMs = granted >= want ? 0 : Math.ceil((Math.max(0, 1 - left) * 1000) / rate);
        return { granted, waitMs };
      });
    },

    async holdLease(name, owner, until, now) {
      const result = await db.query(
        `INSERT INTO leases (name, owner, lease_until) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE SET owner = $2, lease_until = $3
         WHERE leases.owner = $2 OR leases.lease_until <= $4`,
        [name, owner, until, now],
      );
      return result.rowCount === 1;
    },

    async releaseLease(name, owner) {
      await db.query('DELETE FROM leases WHERE name = $1 AND owner = $2', [name, owner]);
    },
  };
}

export function createSqlStore(db: SqlDriver, options: SqlStoreOptions = {}): Store {
  return {
    kind: db.dialect,
    migrate: () => runMigrations(db, { schema: options.schema }),
    close: () => db.close(),
    watches: watchStore(db),
    notifications: notificationStore(db),
    slackEvents: slackEventStore(db),
    intents: intentStore(db),
    outputUploads: outputUploadStore(db),
    subscriptions: subscriptionStore(db),
    cursors: cursorStore(db),
    scheduleOwners: scheduleOwnerStore(db),
    schedulePauses: schedulePauseStore(db),
    freezePasses: freezePassStore(db),
    approvals: approvalStore(db),
    audit: auditStore(db),
    runDrafts: runDraftStore(db),
    runLimits: runLimitStore(db),
    aliases: aliasStore(db),
    channelDefaults: channelDefaultsStore(db),
    workflowSteps: workflowStepStore(db),
    coordination: coordinationStore(db),
    installations: installationRecordStore(db),
    oauthStates: oauthStateStore(db),
    apiConnections: apiConnectionStore(db),
    installationSettings: installationSettingsStore(db),
  };
}
