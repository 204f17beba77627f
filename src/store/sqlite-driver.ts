// SQLite through the built-in node:sqlite (DatabaseSync). Calls are synchronous; they are wrapped in
// promises so the store logic is the same as for Postgres. The store's transaction bodies are async,
// so an open transaction spans microtask turns. Hence every call goes through one queue per database
// file, shared by all connections to that file in this process:
// - on one connection, a statement from another caller must never land inside someone else's open
//   transaction (and vanish with its rollback);
// - on a second connection, a write would wait on busy_timeout *synchronously*, blocking the event
//   loop that has to finish the first transaction: a deadlock until the timeout.
// Other processes on the same file are handled by SQLite's own locking (BEGIN IMMEDIATE, busy_timeout).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import type { SqlDriver, SqlExecutor, SqlParam, SqlResult } from './sql-driver.ts';

const PLACEHOLDER = /\$(\d+)/g;

interface Lane {
  tail: Promise<unknown>;
  users: number;
}

/** One queue per database file in this process (in-memory databases are private to a connection). */
const lanes = new Map<string, Lane>();

function joinLane(key: string | null): Lane {
  if (key === null) return { tail: Promise.resolve(), users: 1 };
  let lane = lanes.get(key);
  if (!lane) {
    lane = { tail: Promise.resolve(), users: 0 };
    lanes.set(key, lane);
  }
  lane.users += 1;
  return lane;
}

function leaveLane(key: string | null, lane: Lane): void {
  lane.users -= 1;
  if (key !== null && lane.users === 0 && lanes.get(key) === lane) lanes.delete(key);
}

function toSqliteValue(value: SqlParam): SQLInputValue {
  if (typeof value === 'boolean') return value ? 1 : 0;
  // Arrays are read back with json_each(?) in the SQL.
  if (Array.isArray(value)) return JSON.stringify(value);
  return value;
}

export interface SqliteDriverOptions {
  /** Milliseconds to wait for another connection's write lock (another process on the same file). */
  busyTimeoutMs?: number;
}

export function openSqliteDriver(file: string, options: SqliteDriverOptions = {}): SqlDriver {
  const inMemory = file === ':memory:' || file.startsWith('file::memory:');
  const laneKey = inMemory ? null : path.resolve(file);
  if (laneKey) mkdirSync(path.dirname(laneKey), { recursive: true });
  const db = new DatabaseSync(file);
  // WAL: readers never block the writer and a process killed mid-write recovers on next open.
  // NORMAL is durable across process crashes in WAL mode (only an OS crash may lose the last commits).
  db.exec('PRAGMA journal_mode = WAL');
  db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))}`);
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('PRAGMA foreign_keys = ON');

  const statements = new Map<string, StatementSync>();
  const prepare = (sql: string): StatementSync => {
    let statement = statements.get(sql);
    if (!statement) {
      // `$1` would be a *named* parameter in SQLite, numbered by first appearance; `?1` is positional.
      statement = db.prepare(sql.replace(PLACEHOLDER, '?$1'));
      statements.set(sql, statement);
    }
    return statement;
  };

  const executor: SqlExecutor = {
    async query(sql, params = []): Promise<SqlResult> {
      const statement = prepare(sql);
      const values = params.map(toSqliteValue);
      if (statement.columns().length > 0) {
        const rows = statement.all(...values) as Record<string, unknown>[];
        return { rows, rowCount: rows.length };
      }
      const { changes } = statement.run(...values);
      return { rows: [], rowCount: Number(changes) };
    },
    async exec(sql) {
      db.exec(sql);
    },
  };

  const lane = joinLane(laneKey);
  let closed = false;
  let closing: Promise<void> | null = null;
  const serialize = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = lane.tail.then(() => {
      if (closed) throw new Error('store is closed');
      return fn();
    });
    lane.tail = run.catch(() => undefined);
    return run;
  };

  return {
    dialect: 'sqlite',
    query: (sql, params) => serialize(() => executor.query(sql, params)),
    exec: (sql) => serialize(() => executor.exec(sql)),
    transaction: (fn) =>
      serialize(async () => {
        db.exec('BEGIN IMMEDIATE');
        try {
          const result = await fn(executor);
          db.exec('COMMIT');
          return result;
        } catch (err) {
          if (db.isTransaction) db.exec('ROLLBACK');
          throw err;
        }
      }),
    close: () => {
      // Queued behind whatever is in flight, so pending calls finish first; later calls fail.
      closing ??= serialize(async () => {
        closed = true;
        statements.clear();
        if (db.isOpen) db.close();
      }).finally(() => leaveLane(laneKey, lane));
      return closing;
    },
  };
}
