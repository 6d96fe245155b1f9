import { parseAddressRanges, type AddressRange } from '../shared/address-ranges.js';
import { isTimeZone } from '../shared/business-hours.js';
import { parseDurationList } from '../shared/durations.js';
import { parseDataKeySettings, type DataKeySettings } from '../secrets/data-key.js';
import { parsePharmacyIdentity, type PharmacyIdentity } from '../pharmacy-identity.js';
import { operatorTokenOf, parseEasyPostWebhookSecret } from './credentials.js';
import type { Environment } from './setting.js';
import type { SettingValues } from './settings.js';
import { parseDatabaseUrl, parseOAuthIssuer, parsePublicBaseUrl, parseRedisUrl, type DatabaseConfig } from './urls.js';

/**
 * The settings made of several variables or of a text that needs parsing, and the rules that hold
 * between settings (a pair given together, a value longer than another, a production requirement).
 * Each adds its problems to `problems`; what it returns then is not used.
 */

/** TLS_CERT_FILE and TLS_KEY_FILE: the server speaks HTTPS itself (read at start by main.ts). */
export interface TlsFiles {
  readonly certFile: string;
  readonly keyFile: string;
}

/** HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, in milliseconds. */
export interface HttpTimeouts {
  readonly headersMs: number;
  readonly requestMs: number;
  readonly keepAliveMs: number;
}

export interface DerivedSettings {
  readonly database: DatabaseConfig;
  readonly operatorToken: { token: string; generated: boolean };
  readonly trustProxy: readonly AddressRange[];
  readonly tls: TlsFiles | null;
  readonly httpTimeouts: HttpTimeouts;
  readonly webhookRetryScheduleMs: readonly number[];
  readonly dataKeys: DataKeySettings;
  readonly redisUrl: string | null;
  readonly oauthIssuer: string;
  readonly publicBaseUrl: string | null;
  readonly pharmacy: PharmacyIdentity | null;
  readonly easyPostWebhookSecret: string | null;
}

export function deriveSettings(values: SettingValues, environment: Environment, problems: string[]): DerivedSettings {
  const derived: DerivedSettings = {
    database: parseDatabaseUrl(values.DATABASE_URL, problems),
    operatorToken: operatorTokenOf(values.ADMIN_TOKEN, environment, problems),
    trustProxy: Object.freeze(parseTrustProxy(values.TRUST_PROXY, problems)),
    tls: parseTlsFiles(values.TLS_CERT_FILE, values.TLS_KEY_FILE, problems),
    httpTimeouts: Object.freeze({
      headersMs: values.HEADERS_TIMEOUT_MS,
      requestMs: values.REQUEST_TIMEOUT_MS,
      keepAliveMs: values.KEEP_ALIVE_TIMEOUT_MS,
    }),
    webhookRetryScheduleMs: Object.freeze(parseRetrySchedule(values.WEBHOOK_RETRY_SCHEDULE, problems)),
    dataKeys: parseDataKeySettings(
      values.DATA_ENCRYPTION_KEY,
      values.DATA_ENCRYPTION_KEY_PREVIOUS,
      environment === 'production',
      problems,
    ),
    redisUrl: parseRedisUrl(values.REDIS_URL, problems),
    oauthIssuer: parseOAuthIssuer(values.OAUTH_ISSUER, environment, problems),
    publicBaseUrl: parsePublicBaseUrl(values.PUBLIC_BASE_URL, problems),
    pharmacy: parsePharmacyIdentity(values, environment, problems),
    easyPostWebhookSecret: parseEasyPostWebhookSecret(values.EASYPOST_WEBHOOK_SECRET, environment, problems),
  };
  checkTogether(values, derived, environment, problems);
  return derived;
}

/** The rules between settings, each checked on values that were each accepted (a refused one reads as its default). */
function checkTogether(values: SettingValues, derived: DerivedSettings, environment: Environment, problems: string[]): void {
  if (values.TRUST_FORWARDED_HOST && derived.trustProxy.length === 0) {
    problems.push('TRUST_FORWARDED_HOST=true needs TRUST_PROXY: only a trusted proxy\u2019s X-Forwarded-Host can be believed');
  }
  // Neither can be turned off: a client that never finishes its request would hold its connection, and a stopping process.
  if (values.HEADERS_TIMEOUT_MS > values.REQUEST_TIMEOUT_MS) {
    problems.push(
      `HEADERS_TIMEOUT_MS (${values.HEADERS_TIMEOUT_MS}) must not be longer than REQUEST_TIMEOUT_MS (${values.REQUEST_TIMEOUT_MS}): the headers are part of the request (and Node refuses a headers timeout above the request timeout)`,
    );
  }
  if (values.SANDBOX_AUTO_ADVANCE_MS > 0 && environment === 'production') {
    problems.push('SANDBOX_AUTO_ADVANCE_MS is a development setting and must not be set in production');
  }
  if (values.IDEMPOTENCY_LOCK_TIMEOUT_MS <= values.WEBHOOK_TIMEOUT_MS) {
    // A webhook test call runs up to WEBHOOK_TIMEOUT_MS: a shorter lock would let its retry run it a second time.
    problems.push('IDEMPOTENCY_LOCK_TIMEOUT_MS must be longer than WEBHOOK_TIMEOUT_MS (the slowest request runs that long)');
  }
  if (!isTimeZone(values.PHARMACY_TIME_ZONE)) {
    problems.push(
      `PHARMACY_TIME_ZONE must be an IANA time zone (e.g. America/New_York), got "${values.PHARMACY_TIME_ZONE.slice(0, 100)}"`,
    );
  }
}

/**
 * TRUST_PROXY: a comma-separated list of proxy addresses and CIDR ranges. `true` (which used to
 * trust every hop, so that any client could name its own address) is refused with a hint;
 * unset or `false`: no proxy.
 */
function parseTrustProxy(value: string | undefined, problems: string[]): AddressRange[] {
  if (value === undefined || value.toLowerCase() === 'false') return [];
  if (value.toLowerCase() === 'true') {
    problems.push(
      'TRUST_PROXY=true is no longer accepted (it let any client forge its address): list the addresses or CIDR ranges of your proxies, e.g. TRUST_PROXY=10.0.0.0/8,127.0.0.1',
    );
    return [];
  }
  const ranges = parseAddressRanges(value);
  if (typeof ranges === 'string') {
    problems.push(`TRUST_PROXY ${ranges}`);
    return [];
  }
  return ranges;
}

/** TLS_CERT_FILE and TLS_KEY_FILE go together: both (HTTPS) or neither (plain HTTP). */
function parseTlsFiles(certFile: string | undefined, keyFile: string | undefined, problems: string[]): TlsFiles | null {
  if (certFile === undefined && keyFile === undefined) return null;
  if (certFile === undefined || keyFile === undefined) {
    const [missing, given] = certFile === undefined ? ['TLS_CERT_FILE', 'TLS_KEY_FILE'] : ['TLS_KEY_FILE', 'TLS_CERT_FILE'];
    problems.push(`${missing} is required when ${given} is set: HTTPS needs both the certificate and its private key`);
    return null;
  }
  return Object.freeze({ certFile, keyFile });
}

/** WEBHOOK_RETRY_SCHEDULE: 1 to 50 delays of at most 7 days each. */
function parseRetrySchedule(value: string, problems: string[]): number[] {
  const schedule = parseDurationList(value, { maxItems: 50, maxDays: 7 });
  if (typeof schedule !== 'string') return schedule;
  problems.push(`WEBHOOK_RETRY_SCHEDULE ${schedule}`);
  return [];
}
