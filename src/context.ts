import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Db, DialectName } from './db/database.js';
import type { Clock } from './clock.js';
import type { OutboxNotifier } from './events/outbox-notifier.js';
import type { RateLimitStore } from './http/rate-limit-store.js';
import type { Metrics } from './metrics.js';
import type { AuditReadBuffer } from './audit/audit-buffer.js';
import type { DeprecationUsageTally } from './deprecations/usage-tally.js';
import type { KeyUsageRecorder } from './clinics/key-usage.js';
import type { Keyring } from './secrets/keyring.js';
import type { RedisConnection } from './redis/redis-connection.js';
import type { RequestLogBuffer } from './request-log/request-log-buffer.js';

/**
 * What services need from the outside world, built once in main.ts (or by a test) and passed
 * down. Services take it as their first argument so that the API, the worker and the operator
 * command line all run the same code.
 */
export interface AppContext {
  readonly config: Config;
  readonly db: Db;
  readonly dialect: DialectName;
  readonly clock: Clock;
  readonly outbox: OutboxNotifier;
  readonly rateLimitStore: RateLimitStore;
  /** This process's Prometheus metrics (GET /metrics). */
  readonly metrics: Metrics;
  /** The audit trail's read buffer (changes are recorded in their own transaction instead). */
  readonly audit: AuditReadBuffer;
  /** When each API key was last used: written off the request's path, at most once a minute per key. */
  readonly keyUsage: KeyUsageRecorder;
  /** Uses of deprecated routes, parameters and fields per credential, counted in memory and written in batches. */
  readonly deprecationUsage: DeprecationUsageTally;
  /** The partner request log's writer: answered requests recorded in memory, written in batches off the request's path. */
  readonly requestLog: RequestLogBuffer;
  /** The data encryption keys (DATA_ENCRYPTION_KEY): webhook signing secrets are encrypted at rest. */
  readonly keyring: Keyring;
  /** The Redis every instance shares, when REDIS_URL is set (rate limits; /readyz checks it). */
  readonly redis?: RedisConnection;
  readonly logger?: FastifyBaseLogger;
}

/*
 * The few slices of the context a layer needs, named once. A function asks for the smallest one
 * that covers what it uses, so that its signature tells whether it can write or record events.
 */

/** Reads only. */
export type ReadContext = Pick<AppContext, 'db'>;

/** Reads that the audit trail records (who was shown which patient, order...). */
export type AuditedReadContext = Pick<AppContext, 'db' | 'audit'>;

/**
 * A service that writes: the database (and its dialect), the clock, the settings, and the wake-up of
 * the delivery worker (its changes may record events: changes/run-change.ts).
 */
export type ServiceContext = Pick<AppContext, 'db' | 'dialect' | 'clock' | 'config' | 'outbox'>;

/** A service that encrypts or decrypts values at rest (webhook signing secrets). */
export type KeyringContext = Pick<AppContext, 'keyring'>;
