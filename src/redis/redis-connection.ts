import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics.js';

/** How long one command may take before it counts as an outage: a request never hangs on Redis. */
export const COMMAND_TIMEOUT_MS = 500;

type Log = Pick<Logger, 'info' | 'warn'>;

/** `host:port/db` of a REDIS_URL, without its credentials: what logs and the banner show. */
export function redisTarget(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol === 'rediss:' ? 'TLS ' : ''}${parsed.hostname}:${parsed.port || '6379'}/${parsed.pathname.slice(1) || '0'}`;
}

/**
 * The connection to the Redis that every instance shares (REDIS_URL), and whether it is up.
 *
 * Outages are tracked here, once: the first failure (a refused or lost connection, a command timed
 * out) logs one warning, counts one `redis_outages_total` and sets `redis_up` to 0; the connection
 * coming back logs one info line and sets `redis_up` to 1. ioredis reconnects by itself; commands
 * never wait for it (no offline queue, no retries), so callers fall back at once.
 */
export class RedisConnection {
  readonly client: Redis;
  /** host:port/db, never the credentials: what the logs name. */
  readonly target: string;
  /** Unknown until the first connection succeeds or fails. */
  private up: boolean | undefined;
  private closing = false;
  private readonly waiters: (() => void)[] = [];

  constructor(
    url: string,
    private readonly deps: { logger: Log; metrics: Metrics },
  ) {
    this.target = redisTarget(url);
    deps.metrics.trackRedis();
    deps.metrics.redisUp.set(0);
    this.client = new Redis(url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: 2_000,
      // Reconnect forever, at most a second apart: recovery needs no operator.
      retryStrategy: (times) => Math.min(times * 100, 1_000),
    });
    this.client.on('ready', () => this.markUp());
    // Also keeps ioredis from printing "Unhandled error event" for every failed reconnection.
    this.client.on('error', (error: Error) => this.markDown(error));
    this.client.on('close', () => this.markDown(new Error('connection closed')));
  }

  get isUp(): boolean {
    return this.up === true;
  }

  /**
   * Resolves once the first connection has succeeded or failed (at most `timeoutMs`), so that the
   * first requests after a start do not see a connection still being made as an outage.
   */
  async settled(timeoutMs: number): Promise<void> {
    if (this.up !== undefined) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Runs commands; a failure marks an outage (logged once) and is rethrown for the caller's fallback. */
  async run<T>(command: (client: Redis) => Promise<T>): Promise<T> {
    try {
      const result = await command(this.client);
      this.markUp();
      return result;
    } catch (error) {
      this.markDown(error);
      // A connection that stopped answering may stay "ready" for minutes: drop it, so that commands
      // fail at once until ioredis has made a fresh one.
      if (error instanceof Error && error.message === 'Command timed out') this.client.disconnect(true);
      throw error;
    }
  }

  /** For /readyz: true when Redis answers a PING now. */
  async ping(): Promise<boolean> {
    try {
      await this.run((client) => client.ping());
      return true;
    } catch {
      return false;
    }
  }

  /** Closes the connection (QUIT, or a plain disconnect when Redis is gone); no outage is reported. */
  async close(): Promise<void> {
    this.closing = true;
    const ended = new Promise<void>((resolve) => {
      if (this.client.status === 'end') resolve();
      this.client.once('end', resolve);
      // Between two reconnection attempts there is no socket left to end: do not wait for one.
      setTimeout(resolve, 1_000).unref();
    });
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
    await ended;
  }

  private markUp(): void {
    if (this.closing || this.up === true) return;
    const wasDown = this.up === false;
    this.up = true;
    this.deps.metrics.redisUp.set(1);
    if (wasDown) this.deps.logger.info({ redis: this.target }, 'Redis is reachable again: rate limits are shared again');
    this.settle();
  }

  private markDown(error: unknown): void {
    if (this.closing || this.up === false) return;
    this.up = false;
    this.deps.metrics.redisUp.set(0);
    this.deps.metrics.redisOutages.inc();
    this.deps.logger.warn(
      { redis: this.target, err: error },
      'Redis is unreachable: rate limits are counted per instance until it returns',
    );
    this.settle();
  }

  private settle(): void {
    for (const resolve of this.waiters.splice(0)) resolve();
  }
}
