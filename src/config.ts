import { deriveSettings, type HttpTimeouts, type TlsFiles } from './config/derived.js';
import { readSettings } from './config/read-settings.js';
import type { COLD_CHAIN_POLICIES } from './config/pharmacy.settings.js';
import type { LOG_FORMATS } from './config/server.settings.js';
import { SETTINGS } from './config/settings.js';
import type { Environment } from './config/setting.js';
import type { DatabaseConfig } from './config/urls.js';
import type { AddressRange } from './shared/address-ranges.js';
import type { DataKeySettings } from './secrets/data-key.js';
import type { PharmacyIdentity } from './pharmacy-identity.js';

/**
 * The configuration every part of the server reads (`ctx.config`), loaded once at start. Each
 * environment variable is declared once, with its type, default, bounds and documentation, in
 * src/config/*.settings.ts; docs/configuration.md's table is generated from those declarations
 * (`npm run docs:config`). The fields below say what the code gets; the variables' own docs say
 * what an operator sets.
 */

export type { Environment } from './config/setting.js';
export type { DatabaseConfig } from './config/urls.js';
export type { HttpTimeouts } from './config/derived.js';
export { isInMemoryDatabase } from './config/urls.js';
export { DEFAULT_SQLITE_FILE } from './config/server.settings.js';
export { DEFAULT_RETRY_SCHEDULE } from './config/events.settings.js';
export { DEFAULT_IDEMPOTENCY_LOCK_TIMEOUT_MS } from './config/edge.settings.js';
export { COLD_CHAIN_POLICIES } from './config/pharmacy.settings.js';

export type LogFormatSetting = (typeof LOG_FORMATS)[number];
export type ColdChainPolicy = (typeof COLD_CHAIN_POLICIES)[number];

export interface Config {
  /** FULFILLMENT_ENV. */
  readonly env: Environment;
  /** HOST. */
  readonly host: string;
  /** PORT. */
  readonly port: number;
  /** DATABASE_URL. */
  readonly database: DatabaseConfig;
  /** The operator's bearer token for /api/admin (ADMIN_TOKEN). */
  readonly operatorToken: string;
  /** True when ADMIN_TOKEN was not set and one was generated for this run (development only). */
  readonly operatorTokenGenerated: boolean;
  /** LOG_LEVEL. */
  readonly logLevel: string;
  /** LOG_FORMAT: `json` lines, `pretty` one readable line each, or `auto` (pretty in development on a terminal). */
  readonly logFormat: LogFormatSetting;
  /** RATE_LIMIT_PER_MINUTE. */
  readonly rateLimitPerMinute: number;
  /** Largest accepted request body, in bytes (fixed: BODY_LIMIT_BYTES). */
  readonly bodyLimitBytes: number;
  /** How much of a body answered before it all arrived is still read and discarded (http/lingering-close.ts; fixed). */
  readonly lingeringClose: LingeringLimits;
  /** TRUST_PROXY: the proxies whose X-Forwarded-For / X-Forwarded-Proto are believed; empty: none. */
  readonly trustProxy: readonly AddressRange[];
  /** TRUST_FORWARDED_HOST: a trusted proxy's X-Forwarded-Host is the request's host (the console's own origin). */
  readonly trustForwardedHost: boolean;
  /** TLS_CERT_FILE and TLS_KEY_FILE: the server speaks HTTPS itself (read at start by main.ts). */
  readonly tls: TlsFiles | null;
  /** SHUTDOWN_TIMEOUT_MS: how long a graceful shutdown may wait for requests and webhook attempts in flight. */
  readonly shutdownTimeoutMs: number;
  /** HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS (http/server-timeouts.ts). */
  readonly httpTimeouts: HttpTimeouts;
  /** RUN_WORKER: the webhook delivery worker runs inside the server process. */
  readonly runWorker: boolean;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS (see urlPolicyOf in delivery/url-safety.ts). */
  readonly webhookAllowPrivateTargets: boolean;
  /** WEBHOOK_TIMEOUT_MS: per-attempt timeout of a webhook delivery. */
  readonly webhookTimeoutMs: number;
  /** WEBHOOK_LEASE_MS: a living delivery worker renews every third of it (docs/webhooks.md, "Running the delivery worker"). */
  readonly webhookLeaseMs: number;
  /** WEBHOOK_RETRY_SCHEDULE, in milliseconds; its length is the number of attempts. */
  readonly webhookRetryScheduleMs: readonly number[];
  /** SANDBOX_AUTO_ADVANCE_MS: development only, 0 = off. */
  readonly sandboxAutoAdvanceMs: number;
  /** DATA_ENCRYPTION_KEY (null in development when unset: the key file is used) and DATA_ENCRYPTION_KEY_PREVIOUS. */
  readonly dataKeys: DataKeySettings;
  /** REDIS_URL, or null for per-process counting. */
  readonly redisUrl: string | null;
  /** IDEMPOTENCY_LOCK_TIMEOUT_MS (docs/idempotency.md). */
  readonly idempotencyLockTimeoutMs: number;
  /** CONSOLE_IDLE_TIMEOUT_MINUTES, in milliseconds. */
  readonly consoleIdleTimeoutMs: number;
  /** OAUTH_ISSUER, or its default naming the environment (docs/oauth.md). */
  readonly oauthIssuer: string;
  /** PUBLIC_BASE_URL without its trailing slash; null: the console's request address, or http://localhost:PORT. */
  readonly publicBaseUrl: string | null;
  /** REQUIRE_ADMIN_TOTP. */
  readonly requireAdminTotp: boolean;
  /** REQUIRE_PRESCRIBER_STATE_LICENSE (docs/practitioners-and-patients.md#credentials). */
  readonly requirePrescriberStateLicense: boolean;
  /** COLD_CHAIN_POLICY (docs/shipping.md#cold-chain). */
  readonly coldChainPolicy: ColdChainPolicy;
  /** REQUIRE_PHARMACIST_SIGNOFF (docs/compounding.md#sign-offs). */
  readonly requirePharmacistSignoff: boolean;
  /** REQUIRE_INDEPENDENT_CHECK (docs/compounding.md#sign-offs): the final check by someone who did not fill. */
  readonly requireIndependentCheck: boolean;
  /** REQUEST_LOG_RETENTION_DAYS (docs/request-log.md). */
  readonly requestLogRetentionDays: number;
  /** EVENT_RETENTION_DAYS (docs/webhooks.md#the-event-log). */
  readonly eventRetentionDays: number;
  /** EVENT_LOG_SETTLE_MS (docs/webhooks.md#the-event-log). */
  readonly eventLogSettleMs: number;
  /** PHARMACY_TIME_ZONE: the IANA zone of the pharmacy's working day (Monday to Friday, 09:00-17:00). */
  readonly pharmacyTimeZone: string;
  /** PHARMACY_NAME and its address (pharmacy-identity.ts): a made-up one in development when unset; null in production. */
  readonly pharmacy: PharmacyIdentity | null;
  /**
   * scrypt's cost for staff and portal passwords: always PASSWORD_HASHING, no variable sets it. Only
   * the in-process tests lower it, by overriding the loaded config (test/helpers/test-app.ts).
   */
  readonly passwordHashing: PasswordHashing;
  /** EASYPOST_WEBHOOK_SECRET; null: the receiver answers 503 (docs/shipping.md#the-easypost-receiver). */
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

export const BODY_LIMIT_BYTES = 1024 * 1024;
/**
 * The bounds of a lingering close (docs/operations.md "Slow clients"), fixed like the body limit: 8 MiB
 * covers the rest of any body a partner plausibly sends by mistake (a 5 MB scan is refused at 1 MiB),
 * and 30 s is nginx's `lingering_time`.
 */
export const LINGERING_CLOSE: LingeringLimits = Object.freeze({ maxBytes: 8 * 1024 * 1024, maxMs: 30_000 });

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads and validates the configuration once. Throws a ConfigError naming every
 * bad variable, so that a misconfigured deployment fails at start, not at first use.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  // The defaults that differ between the environments follow FULFILLMENT_ENV; a bad one is reported with the rest.
  const environment: Environment = env.FULFILLMENT_ENV?.trim() === 'production' ? 'production' : 'development';
  const values = readSettings(SETTINGS, env, environment, problems);
  const derived = deriveSettings(values, environment, problems);
  if (problems.length > 0) throw new ConfigError(problems);

  return Object.freeze({
    env: environment,
    host: values.HOST,
    port: values.PORT,
    database: derived.database,
    operatorToken: derived.operatorToken.token,
    operatorTokenGenerated: derived.operatorToken.generated,
    logLevel: values.LOG_LEVEL,
    logFormat: values.LOG_FORMAT,
    rateLimitPerMinute: values.RATE_LIMIT_PER_MINUTE,
    bodyLimitBytes: BODY_LIMIT_BYTES,
    lingeringClose: LINGERING_CLOSE,
    trustProxy: derived.trustProxy,
    trustForwardedHost: values.TRUST_FORWARDED_HOST,
    tls: derived.tls,
    shutdownTimeoutMs: values.SHUTDOWN_TIMEOUT_MS,
    httpTimeouts: derived.httpTimeouts,
    runWorker: values.RUN_WORKER,
    webhookAllowPrivateTargets: values.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    webhookTimeoutMs: values.WEBHOOK_TIMEOUT_MS,
    webhookLeaseMs: values.WEBHOOK_LEASE_MS,
    webhookRetryScheduleMs: derived.webhookRetryScheduleMs,
    sandboxAutoAdvanceMs: values.SANDBOX_AUTO_ADVANCE_MS,
    dataKeys: derived.dataKeys,
    redisUrl: derived.redisUrl,
    idempotencyLockTimeoutMs: values.IDEMPOTENCY_LOCK_TIMEOUT_MS,
    consoleIdleTimeoutMs: values.CONSOLE_IDLE_TIMEOUT_MINUTES * 60_000,
    oauthIssuer: derived.oauthIssuer,
    requestLogRetentionDays: values.REQUEST_LOG_RETENTION_DAYS,
    eventRetentionDays: values.EVENT_RETENTION_DAYS,
    eventLogSettleMs: values.EVENT_LOG_SETTLE_MS,
    pharmacyTimeZone: values.PHARMACY_TIME_ZONE,
    pharmacy: derived.pharmacy,
    publicBaseUrl: derived.publicBaseUrl,
    requireAdminTotp: values.REQUIRE_ADMIN_TOTP,
    requirePrescriberStateLicense: values.REQUIRE_PRESCRIBER_STATE_LICENSE,
    coldChainPolicy: values.COLD_CHAIN_POLICY,
    requirePharmacistSignoff: values.REQUIRE_PHARMACIST_SIGNOFF,
    requireIndependentCheck: values.REQUIRE_INDEPENDENT_CHECK,
    passwordHashing: PASSWORD_HASHING,
    easyPostWebhookSecret: derived.easyPostWebhookSecret,
  });
}
