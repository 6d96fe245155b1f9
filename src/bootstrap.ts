import { ConfigError, loadConfig, type Config } from './config.js';
import type { AppContext } from './context.js';
import { migrateToLatest, openDatabase, type PostgresOptions } from './db/create-db.js';
import { systemClock, type Clock } from './clock.js';
import { OutboxNotifier } from './events/outbox-notifier.js';
import { Metrics, registerBacklogGauges } from './metrics.js';
import { MemoryRateLimitStore, type RateLimitStore } from './http/rate-limit-store.js';
import { pino, type Logger } from 'pino';
import { AuditReadBuffer, type BatchScheduler } from './audit/audit-buffer.js';
import { DeprecationUsageTally } from './deprecations/usage-tally.js';
import { LOG_REDACT_PATHS, logSerializers } from './http/logging.js';
import { logDestination } from './log-format.js';
import { openKeyring } from './secrets/key-source.js';
import { encryptPlaintextSecrets } from './webhooks/secret-encryption.service.js';
import { RedisConnection } from './redis/redis-connection.js';
import { RedisRateLimitStore } from './http/redis-rate-limit-store.js';
import { KeyUsageRecorder } from './clinics/key-usage.js';
import { RequestLogBuffer, type FlushTimer } from './request-log/request-log-buffer.js';

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
  options: {
    clock?: Clock;
    rateLimitStore?: RateLimitStore;
    postgres?: PostgresOptions;
    /** The development key file used when DATA_ENCRYPTION_KEY is unset (default ./data/encryption.key). */
    keyFile?: string;
    /** Where the audit trail logs a failed write (default: stdout at LOG_LEVEL); tests pass a scheduler to hold a batch. */
    audit?: { logger?: Logger; scheduler?: BatchScheduler };
    /** false: no Redis even with REDIS_URL (the command line and the worker count no requests). */
    redis?: boolean;
    /** Where the runtime's own lines (Redis outages) go; a JSON logger on stdout by default. */
    logger?: Logger;
    /** Tests only: keeps each test's Redis keys apart on the shared Redis. */
    redisKeyPrefix?: string;
    /** The request log's flush timer, batch size and bound (request-log/request-log-buffer.ts); tests hold the timer. */
    requestLog?: { timer?: FlushTimer; batchRows?: number; maxBuffered?: number };
  } = {},
): Promise<Runtime> {
  // Before the database: a missing or damaged key file stops the process before anything is changed.
  const keyring = openKeyring(config, { keyFile: options.keyFile });
  const database = openDatabase(config.database, options.postgres);
  try {
    await migrateToLatest(database.db, database.schema);
    // Secrets stored before they were encrypted (migration 007) are encrypted before anything is served.
    await encryptPlaintextSecrets({ db: database.db, keyring });
  } catch (error) {
    await database.close();
    throw error;
  }
  const clock = options.clock ?? systemClock;
  const metrics = new Metrics();
  const logger = options.logger ?? processLogger(config);
  // With REDIS_URL every instance counts in the same Redis; without it, each process in memory.
  let redis: RedisConnection | undefined;
  if (config.redisUrl !== null && options.redis !== false) {
    redis = new RedisConnection(config.redisUrl, { logger, metrics });
    await redis.settled(3_000);
  }
  const rateLimitStore: RateLimitStore =
    options.rateLimitStore ?? (redis ? new RedisRateLimitStore(redis, options.redisKeyPrefix) : new MemoryRateLimitStore());
  const audit = new AuditReadBuffer({
    db: database.db,
    clock,
    metrics,
    logger: options.audit?.logger ?? logger,
    ...(options.audit?.scheduler ? { scheduler: options.audit.scheduler } : {}),
  });
  const ctx: AppContext = {
    config,
    db: database.db,
    dialect: database.dialect,
    clock,
    outbox: new OutboxNotifier(),
    rateLimitStore,
    metrics,
    audit,
    keyUsage: new KeyUsageRecorder({ db: database.db, clock, logger }),
    deprecationUsage: new DeprecationUsageTally({ db: database.db, clock, logger }),
    requestLog: new RequestLogBuffer({ db: database.db, logger, metrics, ...options.requestLog }),
    keyring,
    ...(redis ? { redis } : {}),
  };
  if (database.poolUsage) ctx.metrics.observeDatabasePool(database.poolUsage);
  registerBacklogGauges(ctx.metrics, ctx.db);
  return {
    ctx,
    async close() {
      // The audit trail's last reads are written first, while the database is still open.
      // Each store is closed even when one before it fails to; the first failure is reported.
      const results = await settleInOrder([
        () => audit.close(),
        () => ctx.requestLog.close(),
        () => ctx.deprecationUsage.close(),
        () => ctx.keyUsage.close(),
        async () => rateLimitStore.close?.(),
        async () => redis?.close(),
        () => database.close(),
      ]);
      const failure = results.find((result) => result.status === 'rejected');
      if (failure) throw failure.reason;
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

/**
 * A process's own logger (the runtime's lines, the standalone worker's): errors without the driver's
 * row data, credentials censored (http/logging.ts), JSON or one readable line each (log-format.ts).
 */
export function processLogger(config: Config, base?: Record<string, string>): Logger {
  const options = { level: config.logLevel, ...(base ? { base } : {}), serializers: logSerializers, redact: LOG_REDACT_PATHS };
  return pino(options, logDestination(config));
}

/** Runs each step after the previous one has finished, whatever its outcome. */
async function settleInOrder(steps: (() => Promise<unknown>)[]): Promise<PromiseSettledResult<unknown>[]> {
  const results: PromiseSettledResult<unknown>[] = [];
  for (const step of steps) {
    try {
      results.push({ status: 'fulfilled', value: await step() });
    } catch (reason) {
      results.push({ status: 'rejected', reason });
    }
  }
  return results;
}
