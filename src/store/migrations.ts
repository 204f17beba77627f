// Versioned schema migrations, one list for both databases so they cannot drift. A migration is
// never edited once released: add a new one. Both databases run them inside one transaction that
// first takes a lock (Postgres: a transaction-scoped advisory lock; SQLite: BEGIN IMMEDIATE), so two
// replicas starting at once apply each migration exactly once.

import type { SqlDialect, SqlDriver } from './sql-driver.ts';
import type { MigrationResult } from './store.ts';

export interface Migration {
  version: number;
  name: string;
  up(dialect: SqlDialect): string;
}

/**
 * Epoch milliseconds are BIGINT (an INTEGER in SQLite). Booleans are BOOLEAN (stored 0/1 by
 * SQLite). Ids are TEXT.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial',
    up: (dialect) => `
      CREATE TABLE watches (
        execution_id     TEXT PRIMARY KEY,
        runbook_id       TEXT NOT NULL,
        runbook_name     TEXT NOT NULL,
        channel          TEXT NOT NULL,
        message_ts       TEXT,
        thread_ts        TEXT,
        started_by       TEXT,
        team_id          TEXT,
        proxy_id         TEXT NOT NULL,
        inputs_summary   TEXT NOT NULL,
        origin           TEXT NOT NULL,
        state            TEXT NOT NULL,
        next_check_at    BIGINT NOT NULL,
        attempts         INTEGER NOT NULL DEFAULT 0,
        created_at       BIGINT NOT NULL,
        updated_at       BIGINT NOT NULL,
        lease_owner      TEXT,
        lease_until      BIGINT,
        final_status     TEXT,
        result_posted_at BIGINT,
        reply_posted_at  BIGINT
      );
      CREATE INDEX watches_due ON watches (state, next_check_at);
      CREATE INDEX watches_active_created ON watches (state, created_at);

      CREATE TABLE notifications (
        key        TEXT PRIMARY KEY,
        claimed_at BIGINT NOT NULL
      );

      CREATE TABLE subscriptions (
        channel       TEXT NOT NULL,
        runbook_id    TEXT NOT NULL,
        runbook_name  TEXT NOT NULL,
        failures_only BOOLEAN NOT NULL,
        created_by    TEXT NOT NULL,
        team_id       TEXT,
        created_at    BIGINT NOT NULL,
        updated_at    BIGINT NOT NULL,
        PRIMARY KEY (channel, runbook_id)
      );
      CREATE INDEX subscriptions_runbook ON subscriptions (runbook_id);

      CREATE TABLE cursors (
        name       TEXT PRIMARY KEY,
        value      TEXT NOT NULL,
        updated_at BIGINT NOT NULL
      );

      CREATE TABLE schedule_owners (
        schedule_id TEXT PRIMARY KEY,
        user_id     TEXT NOT NULL,
        team_id     TEXT,
        user_name   TEXT,
        created_at  BIGINT NOT NULL,
        updated_at  BIGINT NOT NULL
      );

      CREATE TABLE approvals (
        id                TEXT PRIMARY KEY,
        runbook_id        TEXT NOT NULL,
        runbook_name      TEXT NOT NULL,
        proxy_id          TEXT NOT NULL,
        params            TEXT NOT NULL,
        params_masked     TEXT NOT NULL,
        requester_id      TEXT NOT NULL,
        requester_team    TEXT,
        channel           TEXT NOT NULL,
        state             TEXT NOT NULL,
        decided_by        TEXT,
        reason            TEXT,
        created_at        BIGINT NOT NULL,
        expires_at        BIGINT NOT NULL,
        decided_at        BIGINT,
        execution_ids     TEXT NOT NULL DEFAULT '[]',
        error             TEXT,
        ran_at            BIGINT,
        approvers_channel TEXT,
        approvers_ts      TEXT,
        requester_channel TEXT,
        requester_ts      TEXT
      );
      CREATE INDEX approvals_pending_expiry ON approvals (state, expires_at);

      CREATE TABLE audit (
        id      ${dialect === 'postgres' ? 'BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY' : 'INTEGER PRIMARY KEY AUTOINCREMENT'},
        at      BIGINT NOT NULL,
        user_id TEXT,
        team_id TEXT,
        channel TEXT,
        action  TEXT NOT NULL,
        target  TEXT,
        outcome TEXT NOT NULL,
        detail  TEXT,
        tid     TEXT
      );
      CREATE INDEX audit_at ON audit (at);
    `,
  },
  {
    version: 2,
    name: 'run drafts and run limits shared by replicas',
    up: () => `
      CREATE TABLE run_drafts (
        id         TEXT PRIMARY KEY,
        runbook_id TEXT NOT NULL,
        proxy_id   TEXT,
        channel    TEXT,
        params     TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
      );
      CREATE INDEX run_drafts_expiry ON run_drafts (expires_at);

      CREATE TABLE run_limits (
        key     TEXT PRIMARY KEY,
        starts  TEXT NOT NULL,
        last_at BIGINT NOT NULL
      );
      CREATE INDEX run_limits_last ON run_limits (last_at);
    `,
  },
  {
    version: 3,
    name: 'run aliases, channel defaults, workflow steps, watch source links',
    up: () => `
      CREATE TABLE run_aliases (
        channel        TEXT NOT NULL,
        name           TEXT NOT NULL,
        runbook_id     TEXT NOT NULL,
        runbook_name   TEXT NOT NULL,
        params         TEXT NOT NULL,
        proxy_id       TEXT,
        result_channel TEXT,
        created_by     TEXT NOT NULL,
        team_id        TEXT,
        created_at     BIGINT NOT NULL,
        updated_at     BIGINT NOT NULL,
        PRIMARY KEY (channel, name)
      );

      CREATE TABLE channel_defaults (
        channel        TEXT PRIMARY KEY,
        proxy_id       TEXT,
        result_channel TEXT,
        updated_by     TEXT NOT NULL,
        updated_at     BIGINT NOT NULL
      );

      CREATE TABLE workflow_steps (
        function_execution_id TEXT PRIMARY KEY,
        runbook_id            TEXT NOT NULL,
        runbook_name          TEXT NOT NULL,
        actor_id              TEXT NOT NULL,
        channel               TEXT,
        wait_for_completion   BOOLEAN NOT NULL,
        execution_id          TEXT,
        state                 TEXT NOT NULL,
        outputs               TEXT,
        error                 TEXT,
        created_at            BIGINT NOT NULL,
        updated_at            BIGINT NOT NULL
      );
      CREATE INDEX workflow_steps_execution ON workflow_steps (execution_id, state);

      ALTER TABLE watches ADD COLUMN source_link TEXT;
    `,
  },
  {
    version: 4,
    name: 'run intents',
    // A run is recorded here before POST …/run, so a crash while the call is answered leaves a trace
    // that the next start reconciles against the executions list.
    up: () => `
      CREATE TABLE run_intents (
        id             TEXT PRIMARY KEY,
        user_id        TEXT NOT NULL,
        user_email     TEXT,
        team_id        TEXT,
        runbook_id     TEXT NOT NULL,
        runbook_name   TEXT NOT NULL,
        proxy_id       TEXT NOT NULL,
        params_hash    TEXT NOT NULL,
        channel        TEXT,
        inputs_summary TEXT NOT NULL,
        state          TEXT NOT NULL,
        execution_ids  TEXT NOT NULL DEFAULT '',
        created_at     BIGINT NOT NULL,
        settled_at     BIGINT
      );
      CREATE INDEX run_intents_open ON run_intents (state, created_at);
    `,
  },
  {
    version: 5,
    name: 'shared request budget and leases',
    up: (dialect) => `
      CREATE TABLE rate_buckets (
        name   TEXT PRIMARY KEY,
        tokens ${dialect === 'postgres' ? 'DOUBLE PRECISION' : 'REAL'} NOT NULL,
        at     BIGINT NOT NULL
      );

      CREATE TABLE leases (
        name        TEXT PRIMARY KEY,
        owner       TEXT NOT NULL,
        lease_until BIGINT NOT NULL
      );
    `,
  },
  {
    version: 6,
    name: 'output uploads',
    up: () => `
      CREATE TABLE output_uploads (
        execution_id TEXT PRIMARY KEY,
        claimed_at   BIGINT NOT NULL,
        file_id      TEXT,
        completed_at BIGINT
      );
    `,
  },
  {
    version: 7,
    name: 'approval quorums',
    up: () => `
      ALTER TABLE approvals ADD COLUMN quorum TEXT;
      CREATE TABLE approval_votes (
        approval_id TEXT NOT NULL,
        user_id     TEXT NOT NULL,
        groups_json TEXT NOT NULL,
        voted_at    BIGINT NOT NULL,
        PRIMARY KEY (approval_id, user_id)
      );
    `,
  },
  {
    version: 8,
    name: 'who approved a watched run, and its proxy by name',
    up: () => `
      ALTER TABLE watches ADD COLUMN approved_by TEXT;
      ALTER TABLE watches ADD COLUMN proxy_name TEXT;
    `,
  },
  {
    version: 9,
    name: 'slack events handled once',
    up: () => `
      CREATE TABLE slack_events (
        key     TEXT PRIMARY KEY,
        seen_at BIGINT NOT NULL
      );
      CREATE INDEX slack_events_seen_at ON slack_events (seen_at);
    `,
  },
  {
    version: 10,
    name: 'paused schedules',
    up: () => `
      CREATE TABLE schedule_pauses (
        schedule_id  TEXT PRIMARY KEY,
        state        TEXT NOT NULL,
        cron         TEXT NOT NULL,
        runbook_id   TEXT NOT NULL,
        runbook_name TEXT NOT NULL,
        paused_by    TEXT NOT NULL,
        team_id      TEXT,
        paused_at    BIGINT NOT NULL,
        updated_at   BIGINT NOT NULL
      );
      CREATE INDEX schedule_pauses_state ON schedule_pauses (state, updated_at);
    `,
  },
  {
    version: 11,
    name: 'skipping one run of a schedule',
    up: () => `
      ALTER TABLE schedule_pauses ADD COLUMN resume_at BIGINT;
      CREATE INDEX schedule_pauses_resume_at ON schedule_pauses (resume_at);
    `,
  },
  {
    version: 12,
    name: 'installations (many workspaces) and OAuth states',
    up: () => `
      CREATE TABLE installations (
        id                    TEXT PRIMARY KEY,
        team_id               TEXT,
        enterprise_id         TEXT,
        is_enterprise_install BOOLEAN NOT NULL,
        sealed                TEXT,
        generation            BIGINT NOT NULL,
        installed_at          BIGINT NOT NULL,
        updated_at            BIGINT NOT NULL,
        uninstalled_at        BIGINT
      );
      CREATE TABLE oauth_states (
        state      TEXT PRIMARY KEY,
        payload    TEXT NOT NULL,
        expires_at BIGINT NOT NULL
      );
      CREATE INDEX oauth_states_expires_at ON oauth_states (expires_at);
    `,
  },
  {
    version: 13,
    // Nullable: a release without it keeps claiming (its claims just do not say who).
    name: 'who claimed a click',
    up: () => `
      ALTER TABLE notifications ADD COLUMN claimed_by TEXT;
    `,
  },
  {
    version: 14,
    name: 'change freezes: schedules paused by a freeze, where a schedule was made, break-glass passes',
    up: () => `
      ALTER TABLE schedule_pauses ADD COLUMN frozen_by TEXT;
      ALTER TABLE schedule_owners ADD COLUMN channel TEXT;
      CREATE TABLE freeze_passes (
        id         TEXT PRIMARY KEY,
        user_id    TEXT NOT NULL,
        runbook_id TEXT NOT NULL,
        window_name TEXT NOT NULL,
        reason     TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        used_at    BIGINT
      );
      CREATE INDEX freeze_passes_user ON freeze_passes (user_id, runbook_id, expires_at);
    `,
  },
  {
    version: 15,
    name: 'workspaces of org-wide installations',
    up: () => `
      CREATE TABLE installation_teams (
        team_id         TEXT PRIMARY KEY,
        installation_id TEXT NOT NULL,
        seen_at         BIGINT NOT NULL
      );
    `,
  },
  {
    version: 16,
    name: 'each installation connects its own Runbook API',
    up: () => `
      CREATE TABLE api_connections (
        installation_id TEXT PRIMARY KEY,
        base_url        TEXT NOT NULL,
        sealed_key      TEXT NOT NULL,
        connected_by    TEXT NOT NULL,
        connected_at    BIGINT NOT NULL
      );
    `,
  },
  {
    version: 17,
    name: 'the audit trail scoped by installation (existing rows: their workspace’s)',
    up: () => `
      ALTER TABLE audit ADD COLUMN installation_id TEXT;
      ${ASSIGN_AUDIT_INSTALLATIONS};
      CREATE INDEX audit_installation_at ON audit (installation_id, at);
    `,
  },
  {
    version: 18,
    name: 'approval requests scoped by installation (existing ones: their requester’s workspace’s)',
    up: () => `
      ALTER TABLE approvals ADD COLUMN installation_id TEXT;
      ${ASSIGN_APPROVAL_INSTALLATIONS};
    `,
  },
  {
    version: 19,
    // Nullable: an intent recorded by an older release (or before this) is recovered without it.
    name: 'a run intent keeps its entry point',
    up: () => `
      ALTER TABLE run_intents ADD COLUMN via TEXT;
    `,
  },
  {
    version: 20,
    // Nullable: watches stored before it are timed from when they were stored, with the cache's ETA.
    name: 'a watched run’s own start and the usual duration its card showed',
    up: () => `
      ALTER TABLE watches ADD COLUMN started_at BIGINT;
      ALTER TABLE watches ADD COLUMN eta_median_ms BIGINT;
      ALTER TABLE watches ADD COLUMN eta_p95_ms BIGINT;
      ALTER TABLE watches ADD COLUMN eta_runs INTEGER;
    `,
  },
  {
    version: 21,
    // The key gains the installation ('' = the one workspace of single-workspace mode), so a channel shared by
    // two installed workspaces (Slack Connect) keeps one set per installation. Tables are rebuilt: SQLite
    // cannot change a primary key in place.
    name: 'aliases and channel defaults kept per installation (existing ones: their workspace’s)',
    up: () => `
      CREATE TABLE run_aliases_scoped (
        installation_id TEXT NOT NULL DEFAULT '',
        channel        TEXT NOT NULL,
        name           TEXT NOT NULL,
        runbook_id     TEXT NOT NULL,
        runbook_name   TEXT NOT NULL,
        params         TEXT NOT NULL,
        proxy_id       TEXT,
        result_channel TEXT,
        created_by     TEXT NOT NULL,
        team_id        TEXT,
        created_at     BIGINT NOT NULL,
        updated_at     BIGINT NOT NULL,
        PRIMARY KEY (installation_id, channel, name)
      );
      INSERT INTO run_aliases_scoped (installation_id, channel, name, runbook_id, runbook_name, params, proxy_id,
        result_channel, created_by, team_id, created_at, updated_at)
      SELECT '', channel, name, runbook_id, runbook_name, params, proxy_id, result_channel, created_by, team_id,
        created_at, updated_at FROM run_aliases;
      DROP TABLE run_aliases;
      ALTER TABLE run_aliases_scoped RENAME TO run_aliases;
      CREATE INDEX run_aliases_creator ON run_aliases (created_by, installation_id);

      CREATE TABLE channel_defaults_scoped (
        installation_id TEXT NOT NULL DEFAULT '',
        channel        TEXT NOT NULL,
        proxy_id       TEXT,
        result_channel TEXT,
        updated_by     TEXT NOT NULL,
        updated_at     BIGINT NOT NULL,
        PRIMARY KEY (installation_id, channel)
      );
      INSERT INTO channel_defaults_scoped (installation_id, channel, proxy_id, result_channel, updated_by, updated_at)
      SELECT '', channel, proxy_id, result_channel, updated_by, updated_at FROM channel_defaults;
      DROP TABLE channel_defaults;
      ALTER TABLE channel_defaults_scoped RENAME TO channel_defaults;

      ${ASSIGN_ALIAS_INSTALLATIONS};
      ${ASSIGN_DEFAULTS_INSTALLATIONS};
    `,
  },
  {
    version: 22,
    name: 'each installation’s own approvals channel and approver group',
    up: () => `
      CREATE TABLE installation_settings (
        installation_id   TEXT PRIMARY KEY,
        approvals_channel TEXT,
        approver_group    TEXT,
        updated_by        TEXT NOT NULL,
        updated_at        BIGINT NOT NULL
      );
    `,
  },
  {
    version: 23,
    // Schedule ids come from each installation's own Runbook API, so two tenants may hold the same id: the
    // owner is kept per (installation, schedule). Drafts (an hour long, no workspace recorded) start with ''.
    name: 'schedule owners and run drafts kept per installation (existing owners: their workspace’s)',
    up: () => `
      CREATE TABLE schedule_owners_scoped (
        installation_id TEXT NOT NULL DEFAULT '',
        schedule_id TEXT NOT NULL,
        user_id     TEXT NOT NULL,
        team_id     TEXT,
        user_name   TEXT,
        channel     TEXT,
        created_at  BIGINT NOT NULL,
        updated_at  BIGINT NOT NULL,
        PRIMARY KEY (installation_id, schedule_id)
      );
      INSERT INTO schedule_owners_scoped (installation_id, schedule_id, user_id, team_id, user_name, channel,
        created_at, updated_at)
      SELECT '', schedule_id, user_id, team_id, user_name, channel, created_at, updated_at FROM schedule_owners;
      DROP TABLE schedule_owners;
      ALTER TABLE schedule_owners_scoped RENAME TO schedule_owners;
      ${ASSIGN_OWNER_INSTALLATIONS};

      ALTER TABLE run_drafts ADD COLUMN installation_id TEXT NOT NULL DEFAULT '';
    `,
  },
  {
    version: 24,
    // The same for paused schedules: two tenants' APIs may hold the same schedule id, each paused or not.
    name: 'paused schedules kept per installation (existing pauses: their workspace’s)',
    up: () => `
      CREATE TABLE schedule_pauses_scoped (
        installation_id TEXT NOT NULL DEFAULT '',
        schedule_id  TEXT NOT NULL,
        state        TEXT NOT NULL,
        cron         TEXT NOT NULL,
        runbook_id   TEXT NOT NULL,
        runbook_name TEXT NOT NULL,
        paused_by    TEXT NOT NULL,
        team_id      TEXT,
        paused_at    BIGINT NOT NULL,
        updated_at   BIGINT NOT NULL,
        resume_at    BIGINT,
        frozen_by    TEXT,
        PRIMARY KEY (installation_id, schedule_id)
      );
      INSERT INTO schedule_pauses_scoped (installation_id, schedule_id, state, cron, runbook_id, runbook_name,
        paused_by, team_id, paused_at, updated_at, resume_at, frozen_by)
      SELECT '', schedule_id, state, cron, runbook_id, runbook_name, paused_by, team_id, paused_at, updated_at,
        resume_at, frozen_by FROM schedule_pauses;
      DROP TABLE schedule_pauses;
      ALTER TABLE schedule_pauses_scoped RENAME TO schedule_pauses;
      CREATE INDEX schedule_pauses_state ON schedule_pauses (state, updated_at);
      CREATE INDEX schedule_pauses_resume_at ON schedule_pauses (resume_at);
      ${ASSIGN_PAUSE_INSTALLATIONS};
    `,
  },
  {
    version: 25,
    // The same for subscriptions: a channel shared by two installed workspaces (Slack Connect) keeps one
    // subscription per installation and runbook, each posted from its own tenant's runs.
    name: 'subscriptions kept per installation (existing ones: their creator’s workspace’s)',
    up: () => `
      CREATE TABLE subscriptions_scoped (
        installation_id TEXT NOT NULL DEFAULT '',
        channel       TEXT NOT NULL,
        runbook_id    TEXT NOT NULL,
        runbook_name  TEXT NOT NULL,
        failures_only BOOLEAN NOT NULL,
        created_by    TEXT NOT NULL,
        team_id       TEXT,
        created_at    BIGINT NOT NULL,
        updated_at    BIGINT NOT NULL,
        PRIMARY KEY (installation_id, channel, runbook_id)
      );
      INSERT INTO subscriptions_scoped (installation_id, channel, runbook_id, runbook_name, failures_only,
        created_by, team_id, created_at, updated_at)
      SELECT '', channel, runbook_id, runbook_name, failures_only, created_by, team_id, created_at, updated_at
        FROM subscriptions;
      DROP TABLE subscriptions;
      ALTER TABLE subscriptions_scoped RENAME TO subscriptions;
      CREATE INDEX subscriptions_runbook ON subscriptions (runbook_id);
      ${ASSIGN_SUBSCRIPTION_INSTALLATIONS};
    `,
  },
  {
    version: 26,
    // The rest of what was kept by ids two tenants may share (an execution id, a user id with a service
    // runbook's id) or by a name, now per installation, so a purge finds them: uploaded outputs and Workflow
    // Builder steps (existing ones: the workspace of their run's watch), break-glass passes (the workspace the
    // grant was audited in), run limits (a minute long: they start again), the scan cursors (the installation
    // their name carried) and the request buckets (a tenant's budget by its name; any other on its next use).
    name: 'uploads, workflow steps, break-glass passes, run limits, cursors and request buckets kept per installation',
    up: () => `
      CREATE TABLE output_uploads_scoped (
        installation_id TEXT NOT NULL DEFAULT '',
        execution_id TEXT NOT NULL,
        claimed_at   BIGINT NOT NULL,
        file_id      TEXT,
        completed_at BIGINT,
        PRIMARY KEY (installation_id, execution_id)
      );
      INSERT INTO output_uploads_scoped (installation_id, execution_id, claimed_at, file_id, completed_at)
      SELECT '', execution_id, claimed_at, file_id, completed_at FROM output_uploads;
      DROP TABLE output_uploads;
      ALTER TABLE output_uploads_scoped RENAME TO output_uploads;
      ${ASSIGN_UPLOAD_INSTALLATIONS};

      CREATE TABLE workflow_steps_scoped (
        installation_id       TEXT NOT NULL DEFAULT '',
        function_execution_id TEXT NOT NULL,
        runbook_id            TEXT NOT NULL,
        runbook_name          TEXT NOT NULL,
        actor_id              TEXT NOT NULL,
        channel               TEXT,
        wait_for_completion   BOOLEAN NOT NULL,
        execution_id          TEXT,
        state                 TEXT NOT NULL,
        outputs               TEXT,
        error                 TEXT,
        created_at            BIGINT NOT NULL,
        updated_at            BIGINT NOT NULL,
        PRIMARY KEY (installation_id, function_execution_id)
      );
      INSERT INTO workflow_steps_scoped (installation_id, function_execution_id, runbook_id, runbook_name, actor_id,
        channel, wait_for_completion, execution_id, state, outputs, error, created_at, updated_at)
      SELECT '', function_execution_id, runbook_id, runbook_name, actor_id, channel, wait_for_completion,
        execution_id, state, outputs, error, created_at, updated_at FROM workflow_steps;
      DROP TABLE workflow_steps;
      ALTER TABLE workflow_steps_scoped RENAME TO workflow_steps;
      CREATE INDEX workflow_steps_execution ON workflow_steps (installation_id, execution_id, state);
      ${ASSIGN_STEP_INSTALLATIONS};

      ALTER TABLE freeze_passes ADD COLUMN installation_id TEXT NOT NULL DEFAULT '';
      DROP INDEX freeze_passes_user;
      CREATE INDEX freeze_passes_user ON freeze_passes (installation_id, user_id, runbook_id, expires_at);
      ${ASSIGN_PASS_INSTALLATIONS};

      CREATE TABLE run_limits_scoped (
        installation_id TEXT NOT NULL DEFAULT '',
        key     TEXT NOT NULL,
        starts  TEXT NOT NULL,
        last_at BIGINT NOT NULL,
        PRIMARY KEY (installation_id, key)
      );
      INSERT INTO run_limits_scoped (installation_id, key, starts, last_at)
      SELECT '', key, starts, last_at FROM run_limits;
      DROP TABLE run_limits;
      ALTER TABLE run_limits_scoped RENAME TO run_limits;
      CREATE INDEX run_limits_last ON run_limits (last_at);

      CREATE TABLE cursors_scoped (
        installation_id TEXT NOT NULL DEFAULT '',
        name       TEXT NOT NULL,
        value      TEXT NOT NULL,
        updated_at BIGINT NOT NULL,
        PRIMARY KEY (installation_id, name)
      );
      INSERT INTO cursors_scoped (installation_id, name, value, updated_at)
      SELECT CASE WHEN name LIKE 'subscriptions:%' THEN substr(name, 15) ELSE '' END,
        CASE WHEN name LIKE 'subscriptions:%' THEN 'subscriptions' ELSE name END, value, updated_at FROM cursors;
      DROP TABLE cursors;
      ALTER TABLE cursors_scoped RENAME TO cursors;

      ALTER TABLE rate_buckets ADD COLUMN installation_id TEXT NOT NULL DEFAULT '';
      UPDATE rate_buckets SET installation_id = substr(name, 20) WHERE name LIKE 'runbook-api/tenant/%';
    `,
  },
  {
    version: 27,
    // Execution ids come from each installation's own Runbook API, so two tenants may hand out the same id:
    // a watch is kept per (installation, execution id), and so is the claim to post its card. A run intent
    // carries the installation whose API it went to, so a restart reconciles it against that API only.
    name: 'watches and run intents kept per installation (existing ones: their workspace’s)',
    up: () => `
      CREATE TABLE watches_scoped (
        installation_id  TEXT NOT NULL DEFAULT '',
        execution_id     TEXT NOT NULL,
        runbook_id       TEXT NOT NULL,
        runbook_name     TEXT NOT NULL,
        channel          TEXT NOT NULL,
        message_ts       TEXT,
        thread_ts        TEXT,
        started_by       TEXT,
        team_id          TEXT,
        proxy_id         TEXT NOT NULL,
        inputs_summary   TEXT NOT NULL,
        origin           TEXT NOT NULL,
        state            TEXT NOT NULL,
        next_check_at    BIGINT NOT NULL,
        attempts         INTEGER NOT NULL DEFAULT 0,
        created_at       BIGINT NOT NULL,
        updated_at       BIGINT NOT NULL,
        lease_owner      TEXT,
        lease_until      BIGINT,
        final_status     TEXT,
        result_posted_at BIGINT,
        reply_posted_at  BIGINT,
        source_link      TEXT,
        approved_by      TEXT,
        proxy_name       TEXT,
        started_at       BIGINT,
        eta_median_ms    BIGINT,
        eta_p95_ms       BIGINT,
        eta_runs         INTEGER,
        PRIMARY KEY (installation_id, execution_id)
      );
      INSERT INTO watches_scoped (installation_id, ${WATCH_COLUMNS})
      SELECT '', ${WATCH_COLUMNS} FROM watches;
      DROP TABLE watches;
      ALTER TABLE watches_scoped RENAME TO watches;
      CREATE INDEX watches_due ON watches (state, next_check_at);
      CREATE INDEX watches_active_created ON watches (state, created_at);
      ${ASSIGN_MESSAGE_CLAIM_INSTALLATIONS};
      ${ASSIGN_WATCH_INSTALLATIONS};

      ALTER TABLE run_intents ADD COLUMN installation_id TEXT NOT NULL DEFAULT '';
      ${ASSIGN_INTENT_INSTALLATIONS};
    `,
  },
  {
    version: 28,
    // A connection's account: minted when a workspace connects, kept when its key is replaced by one of the
    // same account (a rotated key), new when it is another account. An approval request carries the account
    // it was made under, so one approved after a switch never runs on the new account. '' / NULL: before.
    name: 'the Runbook API account a connection and an approval request belong to',
    up: () => `
      ALTER TABLE api_connections ADD COLUMN account TEXT NOT NULL DEFAULT '';
      ALTER TABLE approvals ADD COLUMN api_account TEXT;
    `,
  },
  {
    version: 29,
    // The hourly claims pass deletes old claims of each kind oldest first, in batches (tenants/retention.ts).
    name: 'notification claims by when they were taken',
    up: () => `
      CREATE INDEX notifications_claimed_at ON notifications (claimed_at);
    `,
  },
  {
    version: 30,
    // team_access_revoked: a workspace removed from an org-wide install (its rows kept for a re-grant).
    name: 'workspaces removed from an org-wide installation',
    up: () => `
      ALTER TABLE installation_teams ADD COLUMN revoked_at BIGINT;
    `,
  },
];

/** Every column of watches before migration 27, in order. */
const WATCH_COLUMNS = `execution_id, runbook_id, runbook_name, channel, message_ts, thread_ts, started_by, team_id,
        proxy_id, inputs_summary, origin, state, next_check_at, attempts, created_at, updated_at, lease_owner,
        lease_until, final_status, result_posted_at, reply_posted_at, source_link, approved_by, proxy_name,
        started_at, eta_median_ms, eta_p95_ms, eta_runs`;

/**
 * Audit rows without an installation (written before migration 17, or in single-workspace mode) get their
 * workspace's: the org's installation where the workspace is known to be part of an org-wide install
 * (installation_teams), else the workspace itself (an installation's id is its team id).
 */
function assignInstallationsSql(table: string, teamColumn: string): string {
  return `UPDATE ${table} SET installation_id = COALESCE(
        (SELECT it.installation_id FROM installation_teams it WHERE it.team_id = ${table}.${teamColumn}),
        ${table}.${teamColumn})
      WHERE installation_id IS NULL AND ${teamColumn} IS NOT NULL`;
}

export const ASSIGN_AUDIT_INSTALLATIONS = assignInstallationsSql('audit', 'team_id');
/** The same for approval requests, by the requester's workspace. */
export const ASSIGN_APPROVAL_INSTALLATIONS = assignInstallationsSql('approvals', 'requester_team');

/**
 * Aliases and channel defaults kept for the single workspace ('') get their workspace's installation, but only
 * in a deployment that has installations (many-workspace mode): in single-workspace mode '' is that workspace,
 * and a later many-workspace start assigns them (`assignInstallations`). An alias's workspace is its creator's;
 * a channel's defaults', the workspace of whoever last set them there (from the audit trail).
 */
function assignScopedSql(table: string, teamOf: string): string {
  return `UPDATE ${table} SET installation_id = COALESCE(
        (SELECT it.installation_id FROM installation_teams it WHERE it.team_id = ${teamOf}), ${teamOf})
      WHERE installation_id = '' AND ${teamOf} IS NOT NULL AND EXISTS (SELECT 1 FROM installations)`;
}

export const ASSIGN_ALIAS_INSTALLATIONS = assignScopedSql('run_aliases', 'run_aliases.team_id');
export const ASSIGN_OWNER_INSTALLATIONS = assignScopedSql('schedule_owners', 'schedule_owners.team_id');
export const ASSIGN_PAUSE_INSTALLATIONS = assignScopedSql('schedule_pauses', 'schedule_pauses.team_id');
export const ASSIGN_SUBSCRIPTION_INSTALLATIONS = assignScopedSql('subscriptions', 'subscriptions.team_id');
export const ASSIGN_WATCH_INSTALLATIONS = assignScopedSql('watches', 'watches.team_id');
export const ASSIGN_INTENT_INSTALLATIONS = assignScopedSql('run_intents', 'run_intents.team_id');
/**
 * The claim to post a watch's card (`message:<execution id>`) goes with the watch: run just before
 * ASSIGN_WATCH_INSTALLATIONS, it renames the claim of each watch that statement is about to assign to
 * `message:<installation>:<execution id>`, so a card claimed before the upgrade is not claimed (and posted) again.
 */
export const ASSIGN_MESSAGE_CLAIM_INSTALLATIONS = `UPDATE notifications SET key = 'message:' || (
        SELECT COALESCE((SELECT it.installation_id FROM installation_teams it WHERE it.team_id = w.team_id), w.team_id)
        FROM watches w WHERE w.installation_id = '' AND w.execution_id = substr(notifications.key, 9)
      ) || ':' || substr(notifications.key, 9)
      WHERE notifications.key LIKE 'message:%' AND EXISTS (SELECT 1 FROM installations)
        AND EXISTS (SELECT 1 FROM watches w WHERE w.installation_id = '' AND w.team_id IS NOT NULL
          AND w.execution_id = substr(notifications.key, 9))`;
/** An uploaded output's, and a Workflow Builder step's: the workspace of the watch of its run. */
const WATCH_TEAM_OF = (table: string) =>
  `(SELECT w.team_id FROM watches w WHERE w.execution_id = ${table}.execution_id AND w.team_id IS NOT NULL
      ORDER BY w.created_at LIMIT 1)`;
export const ASSIGN_UPLOAD_INSTALLATIONS = assignScopedSql('output_uploads', WATCH_TEAM_OF('output_uploads'));
export const ASSIGN_STEP_INSTALLATIONS = assignScopedSql('workflow_steps', WATCH_TEAM_OF('workflow_steps'));
/** A break-glass pass's: the workspace its grant was audited in (by whom, for which runbook, from when). */
export const ASSIGN_PASS_INSTALLATIONS = assignScopedSql(
  'freeze_passes',
  `(SELECT a.team_id FROM audit a WHERE a.action = 'freeze.break-glass' AND a.outcome = 'ok'
      AND a.user_id = freeze_passes.user_id AND a.at >= freeze_passes.created_at
      AND a.target LIKE '%(' || freeze_passes.runbook_id || ')' AND a.team_id IS NOT NULL ORDER BY a.at LIMIT 1)`,
);
export const ASSIGN_DEFAULTS_INSTALLATIONS = assignScopedSql(
  'channel_defaults',
  `(SELECT a.team_id FROM audit a WHERE a.action = 'defaults.set' AND a.outcome = 'ok'
      AND a.target = 'channel ' || channel_defaults.channel AND a.user_id = channel_defaults.updated_by
      AND a.team_id IS NOT NULL ORDER BY a.at DESC LIMIT 1)`,
);

export interface MigrateOptions {
  /** Postgres schema to create (if missing) before migrating; it is already the search_path. */
  schema?: string;
  migrations?: readonly Migration[];
  /** Stamped into schema_migrations; not part of any logic. */
  now?: () => number;
}

export async function runMigrations(driver: SqlDriver, options: MigrateOptions = {}): Promise<MigrationResult> {
  const migrations = [...(options.migrations ?? MIGRATIONS)].sort((a, b) => a.version - b.version);
  const now = options.now ?? Date.now;
  return driver.transaction(async (tx) => {
    if (driver.dialect === 'postgres') {
      // Serialises replicas migrating the same schema; released at commit/rollback.
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`runbook-bot:migrate:${options.schema ?? ''}`]);
      if (options.schema) await tx.exec(`CREATE SCHEMA IF NOT EXISTS ${options.schema}`);
    }
    await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    INTEGER PRIMARY KEY,
      name       TEXT NOT NULL,
      applied_at BIGINT NOT NULL
    )`);
    const { rows } = await tx.query('SELECT MAX(version) AS version FROM schema_migrations');
    const current = Number(rows[0]?.version ?? 0);
    let applied = 0;
    let version = current;
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      await tx.exec(migration.up(driver.dialect));
      await tx.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
        migration.version,
        migration.name,
        now(),
      ]);
      applied += 1;
      version = migration.version;
    }
    return { version, applied };
  });
}
