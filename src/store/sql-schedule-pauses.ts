// Paused schedules and break-glass passes over the SQL driver (the interfaces and the protocol: store.ts,
// src/runs/schedule-pauses.ts, src/runs/freezes.ts).
import { randomUUID } from 'node:crypto';
import { ASSIGN_PASS_INSTALLATIONS, ASSIGN_PAUSE_INSTALLATIONS } from './migrations.ts';
import { num, numOrNull, text, textOrNull } from './row-mappers.ts';
import type { SqlDriver, SqlRow } from './sql-driver.ts';
import type { FreezePass, FreezePassStore, SchedulePause, SchedulePauseState, SchedulePauseStore } from './store.ts';

const STATES: readonly SchedulePauseState[] = ['pausing', 'paused', 'resuming'];

function toSchedulePause(row: SqlRow): SchedulePause {
  const state = text(row.state) as SchedulePauseState;
  return {
    scheduleId: text(row.schedule_id),
    installationId: text(row.installation_id),
    // An unknown state is treated as in flight toward paused: reconciliation finishes the pause.
    state: STATES.includes(state) ? state : 'pausing',
    cron: text(row.cron),
    runbookId: text(row.runbook_id),
    runbookName: text(row.runbook_name),
    pausedBy: text(row.paused_by),
    teamId: textOrNull(row.team_id),
    resumeAt: numOrNull(row.resume_at),
    freeze: textOrNull(row.frozen_by),
    pausedAt: num(row.paused_at),
    updatedAt: num(row.updated_at),
  };
}

const limitOf = (limit: number) => Math.max(0, Math.trunc(limit));

export function schedulePauseStore(db: SqlDriver): SchedulePauseStore {
  return {
    async begin(p, now, installationId = '') {
      const result = await db.query(
        `INSERT INTO schedule_pauses
           (schedule_id, state, cron, runbook_id, runbook_name, paused_by, team_id, resume_at, paused_at, updated_at,
            frozen_by, installation_id)
         VALUES ($1, 'pausing', $2, $3, $4, $5, $6, $7, $8, $8, $9, $10)
         ON CONFLICT (installation_id, schedule_id) DO NOTHING`,
        [
          p.scheduleId,
          p.cron,
          p.runbookId,
          p.runbookName,
          p.pausedBy,
          p.teamId,
          p.resumeAt ?? null,
          now,
          p.freeze ?? null,
          installationId,
        ],
      );
      return result.rowCount === 1;
    },
    async move(scheduleId, from, to, now, installationId = '') {
      const result = await db.query(
        `UPDATE schedule_pauses SET state = $3, updated_at = $4
         WHERE schedule_id = $1 AND state = $2 AND installation_id = $5`,
        [scheduleId, from, to, now, installationId],
      );
      return result.rowCount === 1;
    },
    async remove(scheduleId, state, installationId = '') {
      const result = state
        ? await db.query('DELETE FROM schedule_pauses WHERE schedule_id = $1 AND installation_id = $2 AND state = $3', [
            scheduleId,
            installationId,
            state,
          ])
        : await db.query('DELETE FROM schedule_pauses WHERE schedule_id = $1 AND installation_id = $2', [
            scheduleId,
            installationId,
          ]);
      return result.rowCount === 1;
    },
    async get(scheduleId, installationId = '') {
      const { rows } = await db.query('SELECT * FROM schedule_pauses WHERE schedule_id = $1 AND installation_id = $2', [
        scheduleId,
        installationId,
      ]);
      return rows[0] ? toSchedulePause(rows[0]) : null;
    },
    async list(limit, installationId = '') {
      const { rows } = await db.query(
        'SELECT * FROM schedule_pauses WHERE installation_id = $2 ORDER BY paused_at, schedule_id LIMIT $1',
        [limitOf(limit), installationId],
      );
      return rows.map(toSchedulePause);
    },
    async listUnsettled(before, limit) {
      const { rows } = await db.query(
        `SELECT * FROM schedule_pauses WHERE state <> 'paused' AND updated_at < $1
         ORDER BY updated_at, schedule_id LIMIT $2`,
        [before, limitOf(limit)],
      );
      return rows.map(toSchedulePause);
    },
    async listDue(now, limit) {
      const { rows } = await db.query(
        `SELECT * FROM schedule_pauses WHERE state = 'paused' AND resume_at IS NOT NULL AND resume_at <= $1
         ORDER BY resume_at, schedule_id LIMIT $2`,
        [now, limitOf(limit)],
      );
      return rows.map(toSchedulePause);
    },
    async listFrozen(limit, installationId = '') {
      const { rows } = await db.query(
        `SELECT * FROM schedule_pauses WHERE frozen_by IS NOT NULL AND installation_id = $2
         ORDER BY paused_at, schedule_id LIMIT $1`,
        [limitOf(limit), installationId],
      );
      return rows.map(toSchedulePause);
    },
    async handOver(scheduleId, from, to, now, installationId = '') {
      // $3 '' keeps whoever paused it (a skip handed to a freeze); a person's id takes the pause over.
      const set = `frozen_by = $2, resume_at = NULL, updated_at = $4,
        paused_by = CASE WHEN CAST($3 AS TEXT) = '' THEN paused_by ELSE CAST($3 AS TEXT) END,
        paused_at = CASE WHEN CAST($3 AS TEXT) = '' THEN paused_at ELSE $4 END`;
      const match = from === null ? 'frozen_by IS NULL' : 'frozen_by = $6';
      const result = await db.query(
        `UPDATE schedule_pauses SET ${set}
         WHERE schedule_id = $1 AND installation_id = $5 AND state = 'paused' AND ${match}`,
        [scheduleId, to.freeze, to.pausedBy ?? '', now, installationId, ...(from === null ? [] : [from])],
      );
      return result.rowCount === 1;
    },
    async assignInstallations() {
      return (await db.query(ASSIGN_PAUSE_INSTALLATIONS)).rowCount ?? 0;
    },
  };
}

function toFreezePass(row: SqlRow): FreezePass {
  return {
    id: text(row.id),
    userId: text(row.user_id),
    runbookId: text(row.runbook_id),
    freeze: text(row.window_name),
    reason: text(row.reason),
    createdAt: num(row.created_at),
    expiresAt: num(row.expires_at),
    usedAt: numOrNull(row.used_at),
  };
}

export function freezePassStore(db: SqlDriver): FreezePassStore {
  const peek = async (userId: string, runbookId: string, now: number, installationId = '') => {
    const { rows } = await db.query(
      `SELECT * FROM freeze_passes WHERE installation_id = $4 AND user_id = $1 AND runbook_id = $2 AND used_at IS NULL
         AND expires_at > $3
       ORDER BY created_at, id LIMIT 1`,
      [userId, runbookId, now, installationId],
    );
    return rows[0] ? toFreezePass(rows[0]) : null;
  };
  return {
    async grant(p, now, installationId = '') {
      const pass: FreezePass = { ...p, id: randomUUID(), createdAt: now, usedAt: null };
      await db.query(
        `INSERT INTO freeze_passes (id, user_id, runbook_id, window_name, reason, created_at, expires_at, installation_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [pass.id, pass.userId, pass.runbookId, pass.freeze, pass.reason, now, pass.expiresAt, installationId],
      );
      return pass;
    },
    peek,
    async take(userId, runbookId, now, installationId = '') {
      // Compare-and-set on used_at: a second run racing for the same pass finds it used and tries the next.
      for (let i = 0; i < 5; i++) {
        const pass = await peek(userId, runbookId, now, installationId);
        if (!pass) return null;
        const result = await db.query('UPDATE freeze_passes SET used_at = $2 WHERE id = $1 AND used_at IS NULL', [
          pass.id,
          now,
        ]);
        if (result.rowCount === 1) return { ...pass, usedAt: now };
      }
      return null;
    },
    async assignInstallations() {
      return (await db.query(ASSIGN_PASS_INSTALLATIONS)).rowCount ?? 0;
    },
  };
}
