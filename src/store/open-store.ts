// Picks the implementation from config and returns a migrated store: SQLite (embedded default, one
// process) or Postgres (several replicas share it).
import type { Logger } from '../logger.ts';
import { assertSchemaName, openPostgresDriver } from './postgres-driver.ts';
import { createSqlStore } from './sql-store.ts';
import { openSqliteDriver } from './sqlite-driver.ts';
import type { Store, StoreConfig } from './store.ts';

export async function openStore(config: StoreConfig, logger?: Logger): Promise<Store> {
  const log = logger?.child({ component: 'store' });
  let store: Store;
  if (config.kind === 'sqlite') {
    store = createSqlStore(openSqliteDriver(config.path));
  } else {
    if (config.schema !== undefined) assertSchemaName(config.schema);
    store = createSqlStore(openPostgresDriver({ url: config.url, schema: config.schema, logger: log }), {
      schema: config.schema,
    });
  }
  try {
    const { version, applied } = await store.migrate();
    log?.info({ kind: store.kind, schemaVersion: version, applied }, 'store ready');
    return store;
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
}
