// Paused schedules over the SQL driver (the interface and the protocol: store.ts, src/runs/schedule-pauses.ts).
import { num, numOrNull, text, textOrNull } from './row-mappers.ts';
import type { SqlDriver, SqlRow } from './sql-driver.ts';
import type { SchedulePause, SchedulePauseState, SchedulePauseStore } from './store.ts';

const STATES: readonly SchedulePauseState[] = ['pausing', 'paused', 'resuming'];

function toSchedulePause(row: SqlRow): SchedulePause {
  const state = text(row.state) as SchedulePauseState;
  return {
    scheduleId: text(row.schedule_id),
    // An unknown state is treated as in flight toward paused: reconciliation finishes the pause.
    state: STATES.includes(state) ? state : 'pausing',
    cron: text(row.cron),
    runbookId: text(row.runbook_id),
    runbookName: text(row.runbook_name),
    pausedBy: text(row.paused_by),
    teamId: textOrNull(row.team_id),
    resumeAt: numOrNull(row.resume_at),
    pausedAt: num(row.paused_at),
    updatedAt: num(row.updated_at),
  };
}

const limitOf = (limit: number) => Math.max(0, Math.trunc(limit));

export function schedulePauseStore(db: SqlDriver): SchedulePauseStore {
  return {
    async begin(p, now) {
      const result = await db.query(
        `INSERT INTO schedule_pauses
           (schedule_id, state, cron, runbook_id, runbook_name, paused_by, team_id, resume_at, paused_at, updated_at)
         VALUES ($1, 'pausing', $2, $3, $4, $5, $6, $7, $8, $8)
         ON CONFLICT (schedule_id) DO NOTHING`,
        [p.scheduleId, p.cron, p.runbookId, p.runbookName, p.pausedBy, p.teamId, p.resumeAt ?? null, now],
      );
      return result.rowCount === 1;
    },
    async move(scheduleId, from, to, now) {
      const result = await db.query(
        'UPDATE schedule_pauses SET state = $3, updated_at = $4 WHERE schedule_id = $1 AND state = $2',
        [scheduleId, from, to, now],
      );
      return result.rowCount === 1;
    },
    async remove(scheduleId, state) {
      const result = state
        ? await db.query('DELETE FROM schedule_pauses WHERE schedule_id = $1 AND state = $2', [scheduleId, state])
        : await db.query('DELETE FROM schedule_pauses WHERE schedule_id = $1', [scheduleId]);
      return result.rowCount === 1;
    },
    async get(scheduleId) {
      const { rows } = await db.query('SELECT * FROM schedule_pauses WHERE schedule_id = $1', [scheduleId]);
      return rows[0] ? toSchedulePause(rows[0]) : null;
    },
    async list(limit) {
      const { rows } = await db.query('SELECT * FROM schedule_pauses ORDER BY paused_at, schedule_id LIMIT $1', [
        limitOf(limit),
      ]);
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
  };
}
