// PostgreSQL and Redis for the benchmark: found (DATABASE_URL / REDIS_URL, else the local ones),
// given databases of the run's own, and cleaned at the end, even after a failure.
import { URL } from 'node:url';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import process from 'node:process';
import { Redis } from 'ioredis';
import pg from 'pg';

const LOCAL_POSTGRES = 'postgres://postgres@127.0.0.1:5432/postgres';
const LOCAL_REDIS = 'redis://127.0.0.1:6379';
/**
 * The Redis database the benchmark counts in: the test suites use 0 and 7, so its keys never mix
 * with theirs, and the benchmark deletes what it wrote there (the `pf:` keys) at the end.
 */
const BENCH_REDIS_DB = 13;

/** Resolves whether host:port accepts a TCP connection within a second. */
function answers(url, defaultPort) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || defaultPort), timeout: 1000 });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

/** `url` with another database name. */
const withDatabase = (url, name) => Object.assign(new URL(url), { pathname: `/${name}` }).toString();

/**
 * Fresh databases on the PostgreSQL of DATABASE_URL (or the local one): `project` for the server,
 * `raw` for the pg ceiling, and one per name of `extra` (the drain's server, the server with its
 * workers apart), each named `<project>_<name>`. Null when none answers. `urlOf(key)` is the URL of
 * one of them; `drop()` removes them all.
 */
export async function createPostgresDatabases(extra = []) {
  const maintenanceUrl = process.env.DATABASE_URL?.startsWith('postgres') ? process.env.DATABASE_URL : LOCAL_POSTGRES;
  if (!(await answers(maintenanceUrl, 5432))) return null;
  const base = `bench_${randomBytes(5).toString('hex')}`;
  const names = { project: base, raw: `${base}_raw`, ...Object.fromEntries(extra.map((key) => [key, `${base}_${key}`])) };
  const maintenance = new pg.Client({ connectionString: maintenanceUrl });
  await maintenance.connect();
  try {
    for (const name of Object.values(names)) await maintenance.query(`CREATE DATABASE ${name}`);
  } catch (error) {
    // The caller registers drop() only once this resolves: leave none of them behind.
    for (const name of Object.values(names)) await maintenance.query(`DROP DATABASE IF EXISTS ${name}`).catch(() => undefined);
    throw error;
  } finally {
    await maintenance.end();
  }
  const rawUrl = withDatabase(maintenanceUrl, names.raw);
  return {
    names,
    projectUrl: withDatabase(maintenanceUrl, names.project),
    rawUrl,
    urlOf: (key) => withDatabase(maintenanceUrl, names[key]),
    /**
     * A schema of the raw database (the composite ceilings' home, beside the pg ceiling's tables in
     * `public`), created; resolves with a URL whose connections use it (search_path), for the
     * project and the ceilings alike. Dropped with the database.
     */
    async schemaUrl(schema) {
      const client = new pg.Client({ connectionString: rawUrl });
      await client.connect();
      try {
        await client.query(`CREATE SCHEMA ${schema}`);
      } finally {
        await client.end();
      }
      const url = new URL(rawUrl);
      url.searchParams.set('options', `-c search_path=${schema}`);
      return url.toString();
    },
    async drop() {
      const client = new pg.Client({ connectionString: maintenanceUrl });
      await client.connect();
      try {
        // WITH (FORCE): a server killed mid-run may leave connections behind (PostgreSQL 13+).
        for (const name of Object.values(names)) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** The Redis URL the PostgreSQL server counts in (database 13), or null when none answers. */
export async function findRedis() {
  const url = process.env.REDIS_URL || LOCAL_REDIS;
  if (!(await answers(url, 6379))) return null;
  const benchUrl = Object.assign(new URL(url), { pathname: `/${BENCH_REDIS_DB}` }).toString();
  return {
    url: benchUrl,
    /** Deletes the server's keys (rate-limit counters and markers) from the benchmark's database. */
    async clean() {
      const redis = new Redis(benchUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await redis.connect();
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', 'pf:*', 'COUNT', 1000);
          if (keys.length > 0) await redis.del(...keys);
          cursor = next;
        } while (cursor !== '0');
      } finally {
        redis.disconnect();
      }
    },
  };
}
