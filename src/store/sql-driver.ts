// The seam between the store's logic (sql-store.ts) and a database. Statements are written once,
// Postgres-style: numbered `$1` placeholders, `RETURNING`, `ON CONFLICT`. Each driver adapts the
// rest: placeholders, booleans, array parameters, bigint parsing, transactions.

export type SqlDialect = 'sqlite' | 'postgres';

/** A parameter: arrays are bound as Postgres text[] or as a JSON string for SQLite's json_each. */
export type SqlParam = string | number | boolean | null | string[];

export type SqlRow = Record<string, unknown>;

export interface SqlResult {
  rows: SqlRow[];
  /** Rows inserted/updated/deleted, or returned. */
  rowCount: number;
}

export interface SqlExecutor {
  query(sql: string, params?: SqlParam[]): Promise<SqlResult>;
  /** Several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface SqlDriver extends SqlExecutor {
  readonly dialect: SqlDialect;
  /**
   * Runs `fn` in one transaction, committed if it resolves and rolled back if it throws.
   * SQLite takes the write lock up front (BEGIN IMMEDIATE), so a transaction never fails half-way
   * on a lock upgrade.
   */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
