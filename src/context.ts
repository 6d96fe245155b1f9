import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Db, DialectName } from './db/database.js';
import type { Clock } from './db/time.js';
import type { OutboxNotifier } from './events/outbox.js';
import type { RateLimitStore } from './http/rate-limit-store.js';

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
  readonly logger?: FastifyBaseLogger;
}
