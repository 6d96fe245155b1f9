import { ConfigError, loadConfig, type Config } from './config.js';
import type { AppContext } from './context.js';
import { migrateToLatest, openDatabase, type PostgresOptions } from './db/create-db.js';
import { systemClock, type Clock } from './clock.js';
import { OutboxNotifier } from './events/outbox.js';
import { Metrics, registerBacklogGauges } from './metrics.js';
import { MemoryRateLimitStore, type RateLimitStore } from './http/rate-limit-store.js';

export interface Runtime {
  ctx: AppContext;
  /** Closes the database and the stores (after the server and the worker have stopped). */
  close(): Promise<void>;
}

/**
 * Opens everything the service runs on: the database (migrated to the newest schema) and the
 * shared stores. Used by the server, the worker and the operator command line alike.
 */
export async function openRuntime(
  config: Config,
  options: { clock?: Clock; rateLimitStore?: RateLimitStore; postgres?: PostgresOptions } = {},
): Promise<Runtime> {
  const database = openDatabase(config.database, options.postgres);
  try {
    await migrateToLatest(database.db, database.dialect === 'postgres' ? options.postgres?.schema : undefined);
  } catch (error) {
    await database.close();
    throw error;
  }
  const rateLimitStore: RateLimitStore = options.rateLimitStore ?? new MemoryRateLimitStore();
  const ctx: AppContext = {
    config,
    db: database.db,
    dialect: database.dialect,
    clock: options.clock ?? systemClock,
    outbox: new OutboxNotifier(),
    rateLimitStore,
    metrics: new Metrics(),
  };
  registerBacklogGauges(ctx.metrics, ctx.db);
  return {
    ctx,
    async close() {
      await rateLimitStore.close?.();
      await database.close();
    },
  };
}

/**
 * The configuration of a process started from the command line (the server, the worker): on a bad
 * variable it prints every problem and exits with status 1, before anything is opened.
 */
export function loadConfigOrExit(env: NodeJS.ProcessEnv): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}
