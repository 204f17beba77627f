// Aliases, channel defaults and workflow steps over a SqlDriver. The one exactly-once guarantee here
// (a step is completed or failed once) is an UPDATE … WHERE state = 'pending' whose row count names
// the winner, like approvals.decide.

import { ASSIGN_ALIAS_INSTALLATIONS, ASSIGN_DEFAULTS_INSTALLATIONS, ASSIGN_STEP_INSTALLATIONS } from './migrations.ts';
import { num, text, textOrNull } from './row-mappers.ts';
import type {
  AliasStore,
  ChannelDefaults,
  ChannelDefaultsStore,
  RunAlias,
  WorkflowStep,
  WorkflowStepState,
  WorkflowStepStore,
} from './saved-runs.ts';
import type { SqlDriver, SqlRow } from './sql-driver.ts';

function toAlias(row: SqlRow): RunAlias {
  return {
    channel: text(row.channel),
    name: text(row.name),
    runbookId: text(row.runbook_id),
    runbookName: text(row.runbook_name),
    params: text(row.params),
    proxyId: textOrNull(row.proxy_id),
    resultChannel: textOrNull(row.result_channel),
    createdBy: text(row.created_by),
    teamId: textOrNull(row.team_id),
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
  };
}

function toDefaults(row: SqlRow): ChannelDefaults {
  return {
    channel: text(row.channel),
    proxyId: textOrNull(row.proxy_id),
    resultChannel: textOrNull(row.result_channel),
    updatedBy: text(row.updated_by),
    updatedAt: num(row.updated_at),
  };
}

function toStep(row: SqlRow): WorkflowStep {
  return {
    functionExecutionId: text(row.function_execution_id),
    runbookId: text(row.runbook_id),
    runbookName: text(row.runbook_name),
    actorId: text(row.actor_id),
    channel: textOrNull(row.channel),
    waitForCompletion: Boolean(row.wait_for_completion),
    executionId: textOrNull(row.execution_id),
    state: text(row.state) as WorkflowStepState,
    outputs: textOrNull(row.outputs),
    error: textOrNull(row.error),
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
  };
}

export function aliasStore(db: SqlDriver): AliasStore {
  return {
    async add(a, now, installationId = '') {
      const name = a.name.toLowerCase();
      for (let attempt = 0; attempt < 5; attempt++) {
        const inserted = await db.query(
          `INSERT INTO run_aliases (channel, name, runbook_id, runbook_name, params, proxy_id, result_channel,
             created_by, team_id, created_at, updated_at, installation_id)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, $11)
           ON CONFLICT (installation_id, channel, name) DO NOTHING`,
          [
            a.channel,
            name,
            a.runbookId,
            a.runbookName,
            a.params,
            a.proxyId,
            a.resultChannel,
            a.createdBy,
            a.teamId,
            now,
            installationId,
          ],
        );
        if (inserted.rowCount === 1) return 'added';
        const updated = await db.query(
          `UPDATE run_aliases SET runbook_id = $3, runbook_name = $4, params = $5, proxy_id = $6,
             result_channel = $7, updated_at = $8
           WHERE channel = $1 AND name = $2 AND installation_id = $9`,
          [a.channel, name, a.runbookId, a.runbookName, a.params, a.proxyId, a.resultChannel, now, installationId],
        );
        if (updated.rowCount === 1) return 'updated';
      }
      throw new Error('alias kept changing concurrently; try again');
    },
    async get(channel, name, installationId = '') {
      const { rows } = await db.query(
        'SELECT * FROM run_aliases WHERE channel = $1 AND name = $2 AND installation_id = $3',
        [channel, name.toLowerCase(), installationId],
      );
      return rows[0] ? toAlias(rows[0]) : null;
    },
    async listForChannel(channel, installationId = '') {
      const { rows } = await db.query(
        'SELECT * FROM run_aliases WHERE channel = $1 AND installation_id = $2 ORDER BY name',
        [channel, installationId],
      );
      return rows.map(toAlias);
    },
    async listByCreator(userId, limit, installationId = '') {
      const { rows } = await db.query(
        'SELECT * FROM run_aliases WHERE created_by = $1 AND installation_id = $3 ORDER BY channel, name LIMIT $2',
        [userId, Math.max(0, Math.trunc(limit)), installationId],
      );
      return rows.map(toAlias);
    },
    async remove(channel, name, installationId = '') {
      const result = await db.query(
        'DELETE FROM run_aliases WHERE channel = $1 AND name = $2 AND installation_id = $3',
        [channel, name.toLowerCase(), installationId],
      );
      return result.rowCount === 1;
    },
    async assignInstallations() {
      return (await db.query(ASSIGN_ALIAS_INSTALLATIONS)).rowCount ?? 0;
    },
  };
}

export function channelDefaultsStore(db: SqlDriver): ChannelDefaultsStore {
  return {
    async get(channel, installationId = '') {
      const { rows } = await db.query('SELECT * FROM channel_defaults WHERE channel = $1 AND installation_id = $2', [
        channel,
        installationId,
      ]);
      return rows[0] ? toDefaults(rows[0]) : null;
    },
    async set(channel, values, by, now, installationId = '') {
      // Flags say which fields to write, so "leave as is" and "clear" stay different.
      const { rows } = await db.query(
        `INSERT INTO channel_defaults (channel, proxy_id, result_channel, updated_by, updated_at, installation_id)
         VALUES ($1, $2, $3, $4, $5, $8)
         ON CONFLICT (installation_id, channel) DO UPDATE SET
           proxy_id = CASE WHEN $6 THEN excluded.proxy_id ELSE channel_defaults.proxy_id END,
           result_channel = CASE WHEN $7 THEN excluded.result_channel ELSE channel_defaults.result_channel END,
           updated_by = excluded.updated_by,
           updated_at = excluded.updated_at
         RETURNING *`,
        [
          channel,
          values.proxyId ?? null,
          values.resultChannel ?? null,
          by,
          now,
          values.proxyId !== undefined,
          values.resultChannel !== undefined,
          installationId,
        ],
      );
      return toDefaults(rows[0]!);
    },
    async clear(channel, installationId = '') {
      const result = await db.query('DELETE FROM channel_defaults WHERE channel = $1 AND installation_id = $2', [
        channel,
        installationId,
      ]);
      return result.rowCount === 1;
    },
    async assignInstallations() {
      return (await db.query(ASSIGN_DEFAULTS_INSTALLATIONS)).rowCount ?? 0;
    },
  };
}

export function workflowStepStore(db: SqlDriver): WorkflowStepStore {
  return {
    async begin(s, now, installationId = '') {
      const result = await db.query(
        `INSERT INTO workflow_steps (installation_id, function_execution_id, runbook_id, runbook_name, actor_id,
           channel, wait_for_completion, state, created_at, updated_at)
         VALUES ($8, $1, $2, $3, $4, $5, $6, 'pending', $7, $7)
         ON CONFLICT (installation_id, function_execution_id) DO NOTHING`,
        [
          s.functionExecutionId,
          s.runbookId,
          s.runbookName,
          s.actorId,
          s.channel,
          s.waitForCompletion,
          now,
          installationId,
        ],
      );
      return result.rowCount === 1;
    },
    async attachExecution(functionExecutionId, executionId, now, installationId = '') {
      await db.query(
        `UPDATE workflow_steps SET execution_id = $2, updated_at = $3
         WHERE installation_id = $4 AND function_execution_id = $1`,
        [functionExecutionId, executionId, now, installationId],
      );
    },
    async get(functionExecutionId, installationId = '') {
      const { rows } = await db.query(
        'SELECT * FROM workflow_steps WHERE installation_id = $2 AND function_execution_id = $1',
        [functionExecutionId, installationId],
      );
      return rows[0] ? toStep(rows[0]) : null;
    },
    async pendingForExecution(executionId, installationId = '') {
      const { rows } = await db.query(
        `SELECT * FROM workflow_steps WHERE installation_id = $2 AND execution_id = $1 AND state = 'pending'
         ORDER BY created_at, function_execution_id LIMIT 1`,
        [executionId, installationId],
      );
      return rows[0] ? toStep(rows[0]) : null;
    },
    async finish(functionExecutionId, to, result, now, installationId = '') {
      const updated = await db.query(
        `UPDATE workflow_steps SET state = $2, outputs = $3, error = $4, updated_at = $5
         WHERE installation_id = $6 AND function_execution_id = $1 AND state = 'pending'`,
        [
          functionExecutionId,
          to,
          result.outputs === undefined ? null : JSON.stringify(result.outputs),
          result.error ?? null,
          now,
          installationId,
        ],
      );
      return updated.rowCount === 1;
    },
    async reopen(functionExecutionId, now, installationId = '') {
      await db.query(
        `UPDATE workflow_steps SET state = 'pending', outputs = NULL, error = NULL, updated_at = $2
         WHERE installation_id = $3 AND function_execution_id = $1`,
        [functionExecutionId, now, installationId],
      );
    },
    async assignInstallations() {
      return (await db.query(ASSIGN_STEP_INSTALLATIONS)).rowCount ?? 0;
    },
    async pruneFinished(before, limit) {
      const result = await db.query(
        `DELETE FROM workflow_steps WHERE (installation_id, function_execution_id) IN (
           SELECT installation_id, function_execution_id FROM workflow_steps
           WHERE state IN ('completed', 'failed') AND updated_at < $1 ORDER BY updated_at LIMIT $2)`,
        [before, Math.max(0, Math.trunc(limit))],
      );
      return result.rowCount;
    },
  };
}
