import net from 'node:net';
import pg from 'pg';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The PostgreSQL URL suites run against, or null when PostgreSQL suites are skipped. */
    postgresUrl: string | null;
    /** The Redis URL suites run against, or null when Redis suites are skipped. */
    redisUrl: string | null;
  }
}

const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';
const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/**
 * Finds out once, before any suite, whether PostgreSQL and Redis are reachable. Suites that need
 * one are skipped with a clear line when it is not, unless CI requires it (TEST_REQUIRE_POSTGRES; Redis
 * under CI=true or TEST_REQUIRE_REDIS).
 */
export default async function setup(project: TestProject): Promise<void> {
  const postgresUrl = process.env.TEST_POSTGRES_URL ?? DEFAULT_POSTGRES_URL;
  const postgresError =
    process.env.TEST_POSTGRES_URL === 'off' ? 'disabled by TEST_POSTGRES_URL=off' : await probePostgres(postgresUrl);
  if (postgresError) {
    if (process.env.TEST_REQUIRE_POSTGRES === 'true') {
      throw new Error(
        `PostgreSQL is required (TEST_REQUIRE_POSTGRES=true) but ${postgresUrl} is not reachable: ${postgresError}`,
      );
    }
    console.warn(`\n*** SKIPPING PostgreSQL suites: ${postgresError} (${postgresUrl}). Only SQLite is tested. ***\n`);
    project.provide('postgresUrl', null);
  } else {
    console.log(`PostgreSQL suites run against ${postgresUrl}`);
    project.provide('postgresUrl', postgresUrl);
  }

  const redisUrl = process.env.TEST_REDIS_URL ?? DEFAULT_REDIS_URL;
  const redisError = process.env.TEST_REDIS_URL === 'off' ? 'disabled by TEST_REDIS_URL=off' : await probeTcp(redisUrl);
  if (redisError) {
    if (process.env.TEST_REQUIRE_REDIS === 'true' || process.env.CI === 'true') {
      throw new Error(`Redis is required (CI or TEST_REQUIRE_REDIS=true) but ${redisUrl} is not reachable: ${redisError}`);
    }
    console.warn(`\n*** SKIPPING Redis suites: ${redisError} (${redisUrl}). ***\n`);
    project.provide('redisUrl', null);
  } else {
    project.provide('redisUrl', redisUrl);
  }
}

async function probePostgres(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

function probeTcp(url: string): Promise<string | null> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || 6379), timeout: 2000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(null);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve('connection timed out');
    });
    socket.once('error', (error) => resolve(error.message));
  });
}
