import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { parseAddressRanges, type AddressRange } from './shared/address-ranges.js';
import { parseDurationList } from './shared/durations.js';
import { parseDataKeySettings, type DataKeySettings } from './secrets/data-key.js';
import { isTimeZone } from './shared/business-hours.js';
import { parsePharmacyIdentity, type PharmacyIdentity } from './pharmacy-identity.js';

/** The two deployments of this service; the environment of an API key must match the server's. */
export type Environment = 'development' | 'production';

export type DatabaseConfig = { kind: 'sqlite'; filename: string } | { kind: 'postgres'; url: string };

/** `sqlite::memory:`: the data dies with the process, and so may the development secrets (nothing is written to disk). */
export function isInMemoryDatabase(database: DatabaseConfig): boolean {
  return database.kind === 'sqlite' && database.filename === ':memory:';
}

export interface Config {
  readonly env: Environment;
  readonly host: string;
  readonly port: number;
  readonly database: DatabaseConfig;
  /** The operator's bearer token for /api/admin. */
  readonly operatorToken: string;
  /** True when ADMIN_TOKEN was not set and one was generated for this run (development only). */
  readonly operatorTokenGenerated: boolean;
  readonly logLevel: string;
  /** LOG_FORMAT: `json` lines, `pretty` one readable line each, or `auto` (pretty in development on a terminal). */
  readonly logFormat: LogFormatSetting;
  readonly rateLimitPerMinute: number;
  /** Largest accepted request body, in bytes. */
  readonly bodyLimitBytes: number;
  /** How much of a body answered before it all arrived is still read and discarded (http/lingering-close.ts). */
  readonly lingeringClose: LingeringLimits;
  /**
   * The proxies (addresses and CIDR ranges, TRUST_PROXY) whose X-Forwarded-For / X-Forwarded-Proto
   * are believed; empty: no proxy, every request is taken from its direct peer. See docs/operations.md.
   */
  readonly trustProxy: readonly AddressRange[];
  /**
   * TRUST_FORWARDED_HOST: the host a trusted proxy names in X-Forwarded-Host is taken as the
   * request's (the console's own origin, for its cross-site request check); otherwise that header is
   * ignored and the Host header counts. Needs TRUST_PROXY. See docs/configuration.md.
   */
  readonly trustForwardedHost: boolean;
  /** TLS_CERT_FILE and TLS_KEY_FILE: the server speaks HTTPS itself (read at start by main.ts). */
  readonly tls: { readonly certFile: string; readonly keyFile: string } | null;
  /** How long a graceful shutdown may wait for requests and webhook attempts in flight (SHUTDOWN_TIMEOUT_MS). */
  readonly shutdownTimeoutMs: number;
  /** How long a client may take to send its headers, its whole request, and how long an idle keep-alive connection stays open (http/server-timeouts.ts). */
  readonly httpTimeouts: HttpTimeouts;
  /** Runs the webhook delivery worker inside the server process. */
  readonly runWorker: boolean;
  /** Allow webhook URLs that resolve to loopback/private addresses (see urlPolicyOf in delivery/url-safety.ts). */
  readonly webhookAllowPrivateTargets: boolean;
  /** Per-attempt timeout of a webhook delivery, in milliseconds. */
  readonly webhookTimeoutMs: number;
  /**
   * How long a delivery worker owns an endpoint, and the deliveries it took of it, without renewing
   * (WEBHOOK_LEASE_MS): a living worker renews every third of it, so a dead one's work is taken over
   * this long after its last renewal (docs/webhooks.md, "Running the delivery worker").
   */
  readonly webhookLeaseMs: number;
  /** Delays before each webhook delivery attempt, in milliseconds (WEBHOOK_RETRY_SCHEDULE); its length is the number of attempts. */
  readonly webhookRetryScheduleMs: readonly number[];
  /** Development only: advance every new order one state on this interval (0 = off). */
  readonly sandboxAutoAdvanceMs: number;
  /** DATA_ENCRYPTION_KEY (null in development when unset: the key file is used) and DATA_ENCRYPTION_KEY_PREVIOUS. */
  readonly dataKeys: DataKeySettings;
  /** REDIS_URL: the Redis shared by every instance (rate limits), or null for per-process counting. */
  readonly redisUrl: string | null;
  /**
   * IDEMPOTENCY_LOCK_TIMEOUT_MS: how long a request may hold its Idempotency-Key before a retry may
   * take it over (its process died): longer than any request runs. See docs/idempotency.md.
   */
  readonly idempotencyLockTimeoutMs: number;
  /** CONSOLE_IDLE_TIMEOUT_MINUTES, in milliseconds: a console session unused this long has ended. */
  readonly consoleIdleTimeoutMs: number;
  /**
   * OAUTH_ISSUER: who issues this deployment's OAuth access tokens (their `iss` and `aud`), and what a
   * private_key_jwt client assertion names as its `aud` (or this followed by /oauth/token). See docs/oauth.md.
   */
  readonly oauthIssuer: string;
  /**
   * PUBLIC_BASE_URL: the address people reach this deployment at (`https://fulfillment.example.com`),
   * used in links the server hands out when it has no request to take its address from (the command
   * line's portal invitations); null: the console's request address, or http://localhost:PORT.
   */
  readonly publicBaseUrl: string | null;
  /** REQUIRE_ADMIN_TOTP: console admins must turn on two-step sign-in (TOTP) before anything else. */
  readonly requireAdminTotp: boolean;
  /**
   * REQUIRE_PRESCRIBER_STATE_LICENSE: an order (or refill) is refused unless its prescriber holds an
   * unexpired licence in the patient's state (docs/practitioners-and-patients.md#credentials).
   */
  readonly requirePrescriberStateLicense: boolean;
  /**
   * COLD_CHAIN_POLICY: what an order (`is_refrigerated`) on a service that is not cold-chain eligible
   * gets: `warn` (default; accepted, with `warnings` in the answer) or `refuse` (400 naming
   * `service_id`). docs/shipping.md#cold-chain.
   */
  readonly coldChainPolicy: ColdChainPolicy;
  /**
   * REQUIRE_PHARMACIST_SIGNOFF: the pharmacy's move of an order to `processing` needs the
   * pharmacist's prescription review, and to `shipped` their product check (docs/compounding.md#sign-offs).
   * Default true in production, false in development.
   */
  readonly requirePharmacistSignoff: boolean;
  /** REQUEST_LOG_RETENTION_DAYS: how long the partner request log keeps a request (docs/request-log.md). */
  readonly requestLogRetentionDays: number;
  /** EVENT_RETENTION_DAYS: how long the event log (`GET /api/external/events`) keeps an event (docs/webhooks.md#the-event-log). */
  readonly eventRetentionDays: number;
  /**
   * EVENT_LOG_SETTLE_MS: how old an event must be before the event log returns it, so that a change
   * still committing never lands behind a cursor already handed out (docs/webhooks.md#the-event-log).
   */
  readonly eventLogSettleMs: number;
  /**
   * PHARMACY_TIME_ZONE: the IANA zone of the pharmacy's working day (Monday to Friday, 09:00-17:00),
   * for the order queue's age in business hours and its date filters. Default UTC.
   */
  readonly pharmacyTimeZone: string;
  /**
   * PHARMACY_NAME, PHARMACY_ADDRESS_LINE1 (and _LINE2), PHARMACY_CITY, PHARMACY_STATE,
   * PHARMACY_POSTAL_CODE, PHARMACY_PHONE: the pharmacy its labels name (pharmacy-identity.ts).
   * A made-up one in development when unset; null in production when unset.
   */
  readonly pharmacy: PharmacyIdentity | null;
  /**
   * scrypt's cost for staff and portal passwords: always PASSWORD_HASHING, no variable sets it. Only
   * the in-process tests lower it, by overriding the loaded config (test/helpers/test-app.ts).
   */
  readonly passwordHashing: PasswordHashing;
  /**
   * EASYPOST_WEBHOOK_SECRET: the `webhook_secret` of the EasyPost webhook that posts tracker.updated
   * Events to POST /api/carrier-events/easypost (their HMAC key); null: that receiver answers 503.
   * See docs/shipping.md#the-easypost-receiver.
   */
  readonly easyPostWebhookSecret: string | null;
}

/** How much of a refused request's body is still read and thrown away after its answer (http/lingering-close.ts). */
export interface LingeringLimits {
  /** Bytes read after the answer, at most; past them the connection is cut off. */
  readonly maxBytes: number;
  /** Milliseconds after the answer, at most; past them the connection is cut off. */
  readonly maxMs: number;
}

/** scrypt's cost parameters (src/staff/password.ts); a stored hash carries the ones it was made with. */
export interface PasswordHashing {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

/**
 * N = 2^15, r = 8, p = 1: 32 MiB and tens of milliseconds per hash on this project's 2-core machines
 * (Node's default is 2^14; OWASP's cheat sheet asks 2^17 where memory allows: the stored parameters
 * let a later change raise them).
 */
export const PASSWORD_HASHING: PasswordHashing = Object.freeze({ N: 32_768, r: 8, p: 1 });

/** HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, in milliseconds. */
export interface HttpTimeouts {
  readonly headersMs: number;
  readonly requestMs: number;
  readonly keepAliveMs: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormatSetting = (typeof LOG_FORMATS)[number];
export const COLD_CHAIN_POLICIES = ['warn', 'refuse'] as const;
export type ColdChainPolicy = (typeof COLD_CHAIN_POLICIES)[number];
export const DEFAULT_SQLITE_FILE = path.join('data', 'fulfillment.sqlite');
export const BODY_LIMIT_BYTES = 1024 * 1024;
/**
 * The bounds of a lingering close (docs/operations.md "Slow clients"), fixed like the body limit: 8 MiB
 * covers the rest of any body a partner plausibly sends by mistake (a 5 MB scan is refused at 1 MiB),
 * and 30 s is nginx's `lingering_time`.
 */
export const LINGERING_CLOSE: LingeringLimits = Object.freeze({ maxBytes: 8 * 1024 * 1024, maxMs: 30_000 });
/**
 * WEBHOOK_RETRY_SCHEDULE's default, Svix's schedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h,
 * 10 h, 10 h (8 attempts over about 28 hours). @see https://docs.svix.com/retries
 */
export const DEFAULT_RETRY_SCHEDULE = '0,5s,5m,30m,2h,5h,10h,10h';
/**
 * IDEMPOTENCY_LOCK_TIMEOUT_MS's default: longer than any request runs (the slowest, a webhook test
 * call, is bounded by WEBHOOK_TIMEOUT_MS, at most 60 s), short enough that a request lost with its
 * process does not lock its key for long.
 */
export const DEFAULT_IDEMPOTENCY_LOCK_TIMEOUT_MS = 2 * 60 * 1000;

/**
 * Reads and validates the configuration once. Throws a ConfigError naming every
 * bad variable, so that a misconfigured deployment fails at start, not at first use.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];

  const envName = env.FULFILLMENT_ENV ?? 'development';
  if (envName !== 'development' && envName !== 'production') {
    problems.push(`FULFILLMENT_ENV must be "development" or "production", got "${envName}"`);
  }
  const environment: Environment = envName === 'production' ? 'production' : 'development';

  const port = parseInteger(env, 'PORT', 3000, 0, 65535, problems);
  const host = env.HOST ?? (environment === 'production' ? '0.0.0.0' : '127.0.0.1');
  if (host.trim() === '') problems.push('HOST must not be empty');

  const database = parseDatabaseUrl(env.DATABASE_URL, problems);

  let operatorToken = env.ADMIN_TOKEN ?? '';
  let operatorTokenGenerated = false;
  if (operatorToken === '') {
    if (environment === 'production') {
      problems.push('ADMIN_TOKEN is required in production');
    } else {
      operatorToken = randomBytes(24).toString('base64url');
      operatorTokenGenerated = true;
    }
  } else {
    const tokenProblem = operatorTokenProblem(operatorToken, environment);
    if (tokenProblem) problems.push(tokenProblem);
  }

  const logLevel = env.LOG_LEVEL ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }

  const logFormat = (env.LOG_FORMAT?.trim() || 'auto') as LogFormatSetting;
  if (!LOG_FORMATS.includes(logFormat)) {
    problems.push(`LOG_FORMAT must be one of ${LOG_FORMATS.join(', ')}, got "${logFormat}"`);
  }

  const rateLimitPerMinute = parseInteger(
    env,
    'RATE_LIMIT_PER_MINUTE',
    environment === 'production' ? 60 : 100,
    1,
    1_000_000,
    problems,
  );
  const trustProxy = parseTrustProxy(env.TRUST_PROXY, problems);
  const trustForwardedHost = parseBoolean(env, 'TRUST_FORWARDED_HOST', false, problems);
  if (trustForwardedHost && trustProxy.length === 0) {
    problems.push('TRUST_FORWARDED_HOST=true needs TRUST_PROXY: only a trusted proxy\u2019s X-Forwarded-Host can be believed');
  }
  const tls = parseTlsFiles(env, problems);
  const shutdownTimeoutMs = parseInteger(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 100, 600_000, problems);
  const httpTimeouts = parseHttpTimeouts(env, problems);
  const runWorker = parseBoolean(env, 'RUN_WORKER', true, problems);
  const webhookAllowPrivateTargets = parseBoolean(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS', false, problems);
  const webhookTimeoutMs = parseInteger(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000, problems);
  const webhookLeaseMs = parseInteger(env, 'WEBHOOK_LEASE_MS', 5_000, 1_000, 60_000, problems);
  const retrySchedule = parseDurationList(env.WEBHOOK_RETRY_SCHEDULE?.trim() || DEFAULT_RETRY_SCHEDULE, {
    maxItems: 50,
    maxDays: 7,
  });
  if (typeof retrySchedule === 'string') problems.push(`WEBHOOK_RETRY_SCHEDULE ${retrySchedule}`);
  const sandboxAutoAdvanceMs = parseInteger(env, 'SANDBOX_AUTO_ADVANCE_MS', 0, 0, 86_400_000, problems);
  if (sandboxAutoAdvanceMs > 0 && environment === 'production') {
    problems.push('SANDBOX_AUTO_ADVANCE_MS is a development setting and must not be set in production');
  }
  const dataKeys = parseDataKeySettings(env, environment === 'production', problems);

  const redisUrl = parseRedisUrl(env.REDIS_URL, problems);
  const idempotencyLockTimeoutMs = parseInteger(
    env,
    'IDEMPOTENCY_LOCK_TIMEOUT_MS',
    DEFAULT_IDEMPOTENCY_LOCK_TIMEOUT_MS,
    1_000,
    3_600_000,
    problems,
  );
  if (idempotencyLockTimeoutMs <= webhookTimeoutMs) {
    // A webhook test call runs up to WEBHOOK_TIMEOUT_MS: a shorter lock would let its retry run it a second time.
    problems.push('IDEMPOTENCY_LOCK_TIMEOUT_MS must be longer than WEBHOOK_TIMEOUT_MS (the slowest request runs that long)');
  }

  const consoleIdleTimeoutMinutes = parseInteger(env, 'CONSOLE_IDLE_TIMEOUT_MINUTES', 15, 1, 720, problems);
  const oauthIssuer = parseOAuthIssuer(env.OAUTH_ISSUER, environment, problems);
  const requestLogRetentionDays = parseInteger(env, 'REQUEST_LOG_RETENTION_DAYS', 14, 1, 366, problems);
  const eventRetentionDays = parseInteger(env, 'EVENT_RETENTION_DAYS', 30, 1, 366, problems);
  const eventLogSettleMs = parseInteger(env, 'EVENT_LOG_SETTLE_MS', 5_000, 0, 300_000, problems);
  const publicBaseUrl = parsePublicBaseUrl(env.PUBLIC_BASE_URL, problems);
  const requireAdminTotp = parseBoolean(env, 'REQUIRE_ADMIN_TOTP', false, problems);
  const requirePrescriberStateLicense = parseBoolean(env, 'REQUIRE_PRESCRIBER_STATE_LICENSE', false, problems);
  const coldChainPolicy = (env.COLD_CHAIN_POLICY?.trim() || 'warn') as ColdChainPolicy;
  if (!COLD_CHAIN_POLICIES.includes(coldChainPolicy)) {
    problems.push(`COLD_CHAIN_POLICY must be one of ${COLD_CHAIN_POLICIES.join(', ')}, got "${coldChainPolicy.slice(0, 100)}"`);
  }
  const requirePharmacistSignoff = parseBoolean(env, 'REQUIRE_PHARMACIST_SIGNOFF', environment === 'production', problems);
  const pharmacyTimeZone = env.PHARMACY_TIME_ZONE?.trim() || 'UTC';
  if (!isTimeZone(pharmacyTimeZone)) {
    problems.push(
      `PHARMACY_TIME_ZONE must be an IANA time zone (e.g. America/New_York), got "${pharmacyTimeZone.slice(0, 100)}"`,
    );
  }
  const pharmacy = parsePharmacyIdentity(env, environment, problems);
  const easyPostWebhookSecret = parseEasyPostWebhookSecret(env.EASYPOST_WEBHOOK_SECRET, environment, problems);

  if (problems.length > 0) throw new ConfigError(problems);

  return Object.freeze({
    env: environment,
    host,
    port,
    database,
    operatorToken,
    operatorTokenGenerated,
    logLevel,
    logFormat,
    rateLimitPerMinute,
    bodyLimitBytes: BODY_LIMIT_BYTES,
    lingeringClose: LINGERING_CLOSE,
    trustProxy: Object.freeze(trustProxy),
    trustForwardedHost,
    tls,
    shutdownTimeoutMs,
    httpTimeouts,
    runWorker,
    webhookAllowPrivateTargets,
    webhookTimeoutMs,
    webhookLeaseMs,
    webhookRetryScheduleMs: Object.freeze(typeof retrySchedule === 'string' ? [] : retrySchedule),
    sandboxAutoAdvanceMs,
    dataKeys,
    redisUrl,
    idempotencyLockTimeoutMs,
    consoleIdleTimeoutMs: consoleIdleTimeoutMinutes * 60_000,
    oauthIssuer,
    requestLogRetentionDays,
    eventRetentionDays,
    eventLogSettleMs,
    pharmacyTimeZone,
    pharmacy,
    publicBaseUrl,
    requireAdminTotp,
    requirePrescriberStateLicense,
    coldChainPolicy,
    requirePharmacistSignoff,
    passwordHashing: PASSWORD_HASHING,
    easyPostWebhookSecret,
  });
}

/**
 * EASYPOST_WEBHOOK_SECRET: unset or empty → null (the receiver is off). Kept as given (EasyPost's
 * libraries NFKD-normalize it when they sign: shipments/easypost-signature.ts); never quoted
 * back. In production at least 16 characters: anyone who guesses it can forge carrier events.
 */
export function parseEasyPostWebhookSecret(
  value: string | undefined,
  environment: Environment,
  problems: string[] = [],
): string | null {
  if (value === undefined || value === '') return null;
  if (value.trim() === '') {
    problems.push('EASYPOST_WEBHOOK_SECRET must not be only whitespace');
    return null;
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) {
    problems.push('EASYPOST_WEBHOOK_SECRET must not contain control characters (a line break pasted with it?)');
    return null;
  }
  if (environment === 'production' && Array.from(value).length < 16) {
    problems.push(
      'EASYPOST_WEBHOOK_SECRET must be at least 16 characters in production (set the same webhook_secret on the EasyPost webhook, e.g. from `openssl rand -hex 32`)',
    );
    return null;
  }
  return value;
}

/** PUBLIC_BASE_URL: an http(s) origin, optionally with a path; no query or fragment; a trailing slash dropped. */
function parsePublicBaseUrl(value: string | undefined, problems: string[]): string | null {
  const text = value?.trim();
  if (!text) return null;
  let url: URL;
  try {
    url = new URL(text);
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

/**
 * OAUTH_ISSUER: the deployment's public base address (`https://api.example.com`) or a URN; unset →
 * `urn:partner-fulfillment-api:<environment>`. A trailing slash is dropped; no query or fragment.
 */
export function parseOAuthIssuer(value: string | undefined, environment: Environment, problems: string[] = []): string {
  const fallback = `urn:partner-fulfillment-api:${environment}`;
  if (value === undefined || value.trim() === '') return fallback;
  const raw = value.trim().replace(/\/+$/, '');
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
    return fallback;
  }
  return raw;
}

/**
 * REDIS_URL: `redis://[[user]:password@]host[:port][/db]`, or `rediss://…` for TLS (ioredis reads
 * both, the database number included). Unset or empty → null.
 */
export function parseRedisUrl(value: string | undefined, problems: string[] = []): string | null {
  if (value === undefined || value.trim() === '') return null;
  const raw = value.trim();
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
 * DATABASE_URL: unset → ./data/fulfillment.sqlite; `postgres://` or `postgresql://` → PostgreSQL;
 * `sqlite::memory:` → in-memory SQLite; `sqlite:<path>` or a plain path → SQLite at that path.
 */
export function parseDatabaseUrl(value: string | undefined, problems: string[] = []): DatabaseConfig {
  if (value === undefined || value.trim() === '') return { kind: 'sqlite', filename: DEFAULT_SQLITE_FILE };
  const url = value.trim();
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
 * TRUST_PROXY: a comma-separated list of proxy addresses and CIDR ranges. `true` (which used to
 * trust every hop, so that any client could name its own address) is refused with a hint;
 * unset, empty or `false`: no proxy.
 */
/**
 * What is wrong with an operator token, if anything (the token itself is never echoed). Production
 * asks for one a guesser cannot enumerate: 32 characters or more, and at least 16 distinct ones,
 * which refuses padding, repeated letters and short words (`openssl rand -base64 32` passes).
 */
function operatorTokenProblem(token: string, environment: Environment): string | null {
  // Code points, so that a character outside the BMP counts once.
  const characters = Array.from(token);
  if (environment !== 'production') {
    return characters.length < 16 ? 'ADMIN_TOKEN must be at least 16 characters' : null;
  }
  const advice = 'generate one with `openssl rand -base64 32`';
  if (token.trim() === '') return `ADMIN_TOKEN must not be only whitespace; ${advice}`;
  if (characters.length < 32) {
    return `ADMIN_TOKEN must be at least 32 characters in production, got ${characters.length}; ${advice}`;
  }
  const distinct = new Set(characters).size;
  if (distinct < 16) {
    return `ADMIN_TOKEN is too predictable: ${distinct} distinct characters, production needs at least 16; ${advice}`;
  }
  return null;
}

function parseTrustProxy(value: string | undefined, problems: string[]): AddressRange[] {
  const text = value?.trim() ?? '';
  if (text === '' || text.toLowerCase() === 'false') return [];
  if (text.toLowerCase() === 'true') {
    problems.push(
      'TRUST_PROXY=true is no longer accepted (it let any client forge its address): list the addresses or CIDR ranges of your proxies, e.g. TRUST_PROXY=10.0.0.0/8,127.0.0.1',
    );
    return [];
  }
  const ranges = parseAddressRanges(text);
  if (typeof ranges === 'string') {
    problems.push(`TRUST_PROXY ${ranges}`);
    return [];
  }
  return ranges;
}

/** TLS_CERT_FILE and TLS_KEY_FILE go together: both (HTTPS) or neither (plain HTTP). */
function parseTlsFiles(env: NodeJS.ProcessEnv, problems: string[]): Config['tls'] {
  const certFile = env.TLS_CERT_FILE?.trim() ?? '';
  const keyFile = env.TLS_KEY_FILE?.trim() ?? '';
  if (certFile === '' && keyFile === '') return null;
  if (certFile === '' || keyFile === '') {
    problems.push(
      `${certFile === '' ? 'TLS_CERT_FILE' : 'TLS_KEY_FILE'} is required when ${certFile === '' ? 'TLS_KEY_FILE' : 'TLS_CERT_FILE'} is set: HTTPS needs both the certificate and its private key`,
    );
    return null;
  }
  return Object.freeze({ certFile, keyFile });
}

/**
 * The timeouts of slow clients. Neither can be turned off: a client that never finishes its request
 * would otherwise hold its connection, and a stopping process, for as long as it likes.
 */
function parseHttpTimeouts(env: NodeJS.ProcessEnv, problems: string[]): HttpTimeouts {
  const headersMs = parseInteger(env, 'HEADERS_TIMEOUT_MS', 10_000, 100, 600_000, problems);
  const requestMs = parseInteger(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000, problems);
  const keepAliveMs = parseInteger(env, 'KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000, problems);
  if (headersMs > requestMs) {
    problems.push(
      `HEADERS_TIMEOUT_MS (${headersMs}) must not be longer than REQUEST_TIMEOUT_MS (${requestMs}): the headers are part of the request (and Node refuses a headers timeout above the request timeout)`,
    );
  }
  return Object.freeze({ headersMs, requestMs, keepAliveMs });
}

function parseInteger(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
  problems: string[],
): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) {
    problems.push(`${name} must be a whole number, got "${raw}"`);
    return fallback;
  }
  const value = Number(raw.trim());
  if (value < min || value > max) {
    problems.push(`${name} must be between ${min} and ${max}, got ${value}`);
    return fallback;
  }
  return value;
}

function parseBoolean(env: NodeJS.ProcessEnv, name: string, fallback: boolean, problems: string[]): boolean {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = raw.trim().toLowerCase();
  if (['true', '1', 'yes'].includes(value)) return true;
  if (['false', '0', 'no'].includes(value)) return false;
  problems.push(`${name} must be true or false, got "${raw}"`);
  return fallback;
}
