import type { Environment } from './setting.js';

/** The settings that are addresses: DATABASE_URL, REDIS_URL, OAUTH_ISSUER, PUBLIC_BASE_URL. Pure. */

export type DatabaseConfig = { kind: 'sqlite'; filename: string } | { kind: 'postgres'; url: string };

/** `sqlite::memory:`: the data dies with the process, and so may the development secrets (nothing is written to disk). */
export function isInMemoryDatabase(database: DatabaseConfig): boolean {
  return database.kind === 'sqlite' && database.filename === ':memory:';
}

/**
 * DATABASE_URL: `postgres://` or `postgresql://` → PostgreSQL; `sqlite::memory:` → in-memory SQLite;
 * `sqlite:<path>` or a plain path → SQLite at that path.
 */
export function parseDatabaseUrl(url: string, problems: string[]): DatabaseConfig {
  if (/^postgres(ql)?:\/\//i.test(url)) {
    try {
      new URL(url);
    } catch {
      problems.push('DATABASE_URL is not a valid PostgreSQL URL');
    }
    return { kind: 'postgres', url };
  }
  if (url === 'sqlite::memory:' || url === ':memory:') return { kind: 'sqlite', filename: ':memory:' };
  if (/^sqlite:/i.test(url)) {
    const filename = url.replace(/^sqlite:(\/\/)?/i, '');
    if (filename === '') problems.push('DATABASE_URL "sqlite:" needs a file path, e.g. sqlite:./data/app.sqlite');
    return { kind: 'sqlite', filename };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    problems.push(`DATABASE_URL scheme is not supported (use postgres://, postgresql://, sqlite: or a file path)`);
  }
  return { kind: 'sqlite', filename: url };
}

/**
 * REDIS_URL: `redis://[[user]:password@]host[:port][/db]`, or `rediss://…` for TLS (ioredis reads
 * both, the database number included). Unset → null.
 */
export function parseRedisUrl(raw: string | undefined, problems: string[]): string | null {
  if (raw === undefined) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // The value may hold a password: it is not quoted back.
    problems.push('REDIS_URL is not a valid URL (expected redis://host:port/db or rediss://…)');
    return null;
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    problems.push(`REDIS_URL must start with redis:// or rediss://, got "${url.protocol}//"`);
  } else if (url.hostname === '') {
    problems.push('REDIS_URL must name a host (redis://host:port/db)');
  } else if (!/^\/?(\d{1,5})?$/.test(url.pathname)) {
    problems.push(`REDIS_URL's path must be a database number (redis://host:port/0), got "${url.pathname}"`);
  }
  // ioredis turns TLS on only for a lower-case `rediss://`: `REDISS://` must not quietly mean plain text.
  return raw.replace(/^[a-z]+:/i, (scheme) => scheme.toLowerCase());
}

/**
 * OAUTH_ISSUER: the deployment's public base address (`https://api.example.com`) or a URN (its
 * default names the environment). A trailing slash is dropped; no query or fragment.
 */
export function parseOAuthIssuer(value: string, environment: Environment, problems: string[]): string {
  const raw = value.replace(/\/+$/, '');
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    url = null;
  }
  const allowed = environment === 'production' ? ['https:', 'urn:'] : ['https:', 'http:', 'urn:'];
  if (url === null || !allowed.includes(url.protocol) || url.search !== '' || url.hash !== '' || raw.length > 200) {
    problems.push(
      `OAUTH_ISSUER must be an ${environment === 'production' ? 'https://' : 'http(s)://'} address or a urn:, without query or fragment, at most 200 characters (e.g. https://api.example.com), got "${raw.slice(0, 200)}"`,
    );
  }
  return raw;
}

/** PUBLIC_BASE_URL: an http(s) origin, optionally with a path; no query or fragment; a trailing slash dropped. */
export function parsePublicBaseUrl(value: string | undefined, problems: string[]): string | null {
  if (value === undefined) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    problems.push('PUBLIC_BASE_URL must be an absolute http(s) URL, e.g. https://fulfillment.example.com');
    return null;
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.search !== '' || url.hash !== '') {
    problems.push('PUBLIC_BASE_URL must be an http(s) URL without query or fragment, e.g. https://fulfillment.example.com');
    return null;
  }
  return url.href.replace(/\/+$/, '');
}
