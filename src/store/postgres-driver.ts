// Postgres through a small pg Pool, shared by every replica of the bot. Epoch-millisecond columns
// are BIGINT, which pg returns as strings by default; this pool parses them to numbers (exact up
// to 2^53, far beyond any timestamp) without touching pg's global parsers.
import pg from 'pg';
import type { Logger } from '../logger.ts';
import type { SqlDriver, SqlExecutor, SqlResult } from './sql-driver.ts';

const INT8_OID = 20;
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

const parseInt8 = (value: string): number => Number(value);

const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary'
      ? parseInt8
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

export interface PostgresDriverOptions {
  url: string;
  /** Schema used as search_path on every connection; must be a plain identifier. */
  schema?: string;
  poolSize?: number;
  logger?: Logger;
}

export function assertSchemaName(schema: string): void {
  if (!SCHEMA_NAME.test(schema)) {
    throw new Error(`Invalid Postgres schema name "${schema}": use letters, digits and underscores.`);
  }
}

function toExecutor(client: pg.Pool | pg.PoolClient): SqlExecutor {
  return {
    async query(sql, params = []): Promise<SqlResult> {
      const result = await client.query(sql, params);
      return { rows: result.rows, rowCount: result.rowCount ?? result.rows.length };
    },
    async exec(sql) {
      // No parameters: the simple query protocol runs several statements in one round trip.
      await client.query(sql);
    },
  };
}

export function openPostgresDriver(options: PostgresDriverOptions): SqlDriver {
  if (options.schema !== undefined) assertSchemaName(options.schema);
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 5,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
    application_name: options.schema ? `runbook-bot:${options.schema}` : 'runbook-bot',
    // Set at connection start, so every pooled connection (including ones made after a server
    // restart) sees the same schema.
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
    types,
  });
  // An idle client whose server went away (restart, failover, pg_terminate_backend) is reported
  // here. Without a listener that error would crash the process; the pool has already dropped the
  // client and opens a fresh connection on the next query.
  pool.on('error', (err) => {
    options.logger?.warn(
      { err: { message: err.message, code: (err as { code?: string }).code } },
      'postgres idle client error',
    );
  });

  const executor = toExecutor(pool);
  let ended = false;
  return {
    dialect: 'postgres',
    query: executor.query,
    exec: executor.exec,
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(toExecutor(client));
        await client.query('COMMIT');
        client.release();
        return result;
      } catch (err) {
        try {
          await client.query('ROLLBACK');
          client.release();
        } catch (rollbackErr) {
          // A connection that cannot roll back is broken: destroy it rather than reuse it.
          client.release(rollbackErr as Error);
        }
        throw err;
      }
    },
    async close() {
      if (ended) return;
      ended = true;
      await pool.end();
    },
  };
}
