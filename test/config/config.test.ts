import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_SQLITE_FILE, loadConfig, type Config } from '../../src/config.js';
import { dataKeyId } from '../../src/secrets/data-key.js';
import { startBanner } from '../../src/start-banner.js';

const PROD_TOKEN = 'prod-operator-token-0123456789-abcdef';
/** A valid DATA_ENCRYPTION_KEY (production requires one). */
const PROD_KEY = Buffer.alloc(32, 1).toString('base64');

/** The problems a bad environment produces (the thrown ConfigError's list). */
function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(env)}`);
}

describe('configuration defaults', () => {
  it('when nothing is set, then it is development on 127.0.0.1:3000 with SQLite under ./data and 100 requests a minute', () => {
    const config = loadConfig({});
    expect(config.env).toBe('development');
    expect(config.host).toBe('127.0.0.1');
    expect(config.port).toBe(3000);
    expect(config.database).toEqual({ kind: 'sqlite', filename: DEFAULT_SQLITE_FILE });
    expect(DEFAULT_SQLITE_FILE.split(path.sep)[0]).toBe('data');
    expect(config.logLevel).toBe('info');
    expect(config.rateLimitPerMinute).toBe(100);
    expect(config.bodyLimitBytes).toBe(1024 * 1024);
  });

  it('when ADMIN_TOKEN is unset in development, then a token is generated and flagged as generated', () => {
    const first = loadConfig({});
    const second = loadConfig({});
    expect(first.operatorTokenGenerated).toBe(true);
    expect(first.operatorToken.length).toBeGreaterThanOrEqual(32);
    expect(first.operatorToken).not.toBe(second.operatorToken);
  });

  it('when ADMIN_TOKEN is set in development, then it is used as given', () => {
    const config = loadConfig({ ADMIN_TOKEN: 'my-own-operator-token-1234' });
    expect(config.operatorToken).toBe('my-own-operator-token-1234');
    expect(config.operatorTokenGenerated).toBe(false);
  });

  it('when FULFILLMENT_ENV is production, then HOST defaults to 0.0.0.0 and the limit to 60 a minute', () => {
    const config = loadConfig({ FULFILLMENT_ENV: 'production', ADMIN_TOKEN: PROD_TOKEN, DATA_ENCRYPTION_KEY: PROD_KEY });
    expect(config.env).toBe('production');
    expect(config.host).toBe('0.0.0.0');
    expect(config.rateLimitPerMinute).toBe(60);
    expect(config.operatorToken).toBe(PROD_TOKEN);
    expect(config.operatorTokenGenerated).toBe(false);
  });

  it('when the configuration is loaded, then it is frozen', () => {
    const config: Config = loadConfig({});
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('when a variable is set to an empty string, then its default applies', () => {
    const config = loadConfig({ PORT: '', RATE_LIMIT_PER_MINUTE: '', DATABASE_URL: '' });
    expect(config.port).toBe(3000);
    expect(config.rateLimitPerMinute).toBe(100);
    expect(config.database).toEqual({ kind: 'sqlite', filename: DEFAULT_SQLITE_FILE });
  });
});

describe('REQUIRE_PHARMACIST_SIGNOFF', () => {
  const production = { FULFILLMENT_ENV: 'production', ADMIN_TOKEN: PROD_TOKEN, DATA_ENCRYPTION_KEY: PROD_KEY };

  it('when it is unset, then production requires the sign-offs and development does not', () => {
    expect(loadConfig(production).requirePharmacistSignoff).toBe(true);
    expect(loadConfig({}).requirePharmacistSignoff).toBe(false);
  });

  it('when it is set, then it wins over the environment, and a value not true or false stops the start', () => {
    expect(loadConfig({ ...production, REQUIRE_PHARMACIST_SIGNOFF: 'false' }).requirePharmacistSignoff).toBe(false);
    expect(loadConfig({ REQUIRE_PHARMACIST_SIGNOFF: 'true' }).requirePharmacistSignoff).toBe(true);
    expect(problemsOf({ REQUIRE_PHARMACIST_SIGNOFF: 'sometimes' })).toEqual([
      'REQUIRE_PHARMACIST_SIGNOFF must be true or false, got "sometimes"',
    ]);
  });
});

describe('REQUIRE_INDEPENDENT_CHECK', () => {
  const production = { FULFILLMENT_ENV: 'production', ADMIN_TOKEN: PROD_TOKEN, DATA_ENCRYPTION_KEY: PROD_KEY };

  it('when it is unset, then production requires another pharmacist for the final check and development does not', () => {
    expect(loadConfig(production).requireIndependentCheck).toBe(true);
    expect(loadConfig({}).requireIndependentCheck).toBe(false);
  });

  it('when it is set, then it wins over the environment, and a value not true or false stops the start', () => {
    expect(loadConfig({ ...production, REQUIRE_INDEPENDENT_CHECK: 'false' }).requireIndependentCheck).toBe(false);
    expect(loadConfig({ REQUIRE_INDEPENDENT_CHECK: 'true' }).requireIndependentCheck).toBe(true);
    expect(problemsOf({ REQUIRE_INDEPENDENT_CHECK: 'maybe' })).toEqual([
      'REQUIRE_INDEPENDENT_CHECK must be true or false, got "maybe"',
    ]);
  });
});

describe('configuration variables', () => {
  it('when PORT is set, then it is used, 0 included (any free port)', () => {
    expect(loadConfig({ PORT: '8080' }).port).toBe(8080);
    expect(loadConfig({ PORT: '0' }).port).toBe(0);
  });

  it('when HOST is set, then it wins over the environment default', () => {
    expect(loadConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
    expect(
      loadConfig({ FULFILLMENT_ENV: 'production', ADMIN_TOKEN: PROD_TOKEN, DATA_ENCRYPTION_KEY: PROD_KEY, HOST: '10.0.0.5' })
        .host,
    ).toBe('10.0.0.5');
  });

  it('when LOG_LEVEL is a pino level, then it is used', () => {
    for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) {
      expect(loadConfig({ LOG_LEVEL: level }).logLevel).toBe(level);
    }
  });

  it('when LOG_FORMAT is unset, then it is auto (readable in development at a terminal); json and pretty are taken as given', () => {
    expect(loadConfig({}).logFormat).toBe('auto');
    expect(loadConfig({ LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
  });

  it('when COLD_CHAIN_POLICY is unset, then it is warn; warn and refuse are taken as given', () => {
    expect(loadConfig({}).coldChainPolicy).toBe('warn');
    expect(loadConfig({ COLD_CHAIN_POLICY: 'warn' }).coldChainPolicy).toBe('warn');
    expect(loadConfig({ COLD_CHAIN_POLICY: ' refuse ' }).coldChainPolicy).toBe('refuse');
  });

  it('when COLD_CHAIN_POLICY is neither warn nor refuse, then loading fails naming it, the value and the valid ones', () => {
    const problems = problemsOf({ COLD_CHAIN_POLICY: 'reject' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('COLD_CHAIN_POLICY');
    expect(problems[0]).toContain('"reject"');
    expect(problems[0]).toContain('warn, refuse');
  });

  it('when RATE_LIMIT_PER_MINUTE is set, then it overrides the default of either environment', () => {
    expect(loadConfig({ RATE_LIMIT_PER_MINUTE: '3' }).rateLimitPerMinute).toBe(3);
    expect(
      loadConfig({
        FULFILLMENT_ENV: 'production',
        ADMIN_TOKEN: PROD_TOKEN,
        DATA_ENCRYPTION_KEY: PROD_KEY,
        RATE_LIMIT_PER_MINUTE: '500',
      }).rateLimitPerMinute,
    ).toBe(500);
  });

  it.each([
    ['a plain relative path', './var/app.sqlite', { kind: 'sqlite', filename: './var/app.sqlite' }],
    ['a plain absolute path', '/srv/fulfillment/app.db', { kind: 'sqlite', filename: '/srv/fulfillment/app.db' }],
    ['a sqlite: URL with a relative path', 'sqlite:./data/other.sqlite', { kind: 'sqlite', filename: './data/other.sqlite' }],
    ['a sqlite:// URL with an absolute path', 'sqlite:///srv/app.sqlite', { kind: 'sqlite', filename: '/srv/app.sqlite' }],
    ['sqlite::memory:', 'sqlite::memory:', { kind: 'sqlite', filename: ':memory:' }],
    [
      'a postgres:// URL',
      'postgres://app:secret@db.internal:5432/fulfillment',
      { kind: 'postgres', url: 'postgres://app:secret@db.internal:5432/fulfillment' },
    ],
    [
      'a postgresql:// URL',
      'postgresql://app@localhost/fulfillment',
      { kind: 'postgres', url: 'postgresql://app@localhost/fulfillment' },
    ],
  ])('when DATABASE_URL is %s, then the matching database is selected', (_name, value, expected) => {
    expect(loadConfig({ DATABASE_URL: value }).database).toEqual(expected);
  });
});

describe('configuration errors', () => {
  it('when production has no ADMIN_TOKEN, then loading fails naming ADMIN_TOKEN', () => {
    const problems = problemsOf({ FULFILLMENT_ENV: 'production', DATA_ENCRYPTION_KEY: PROD_KEY });
    expect(problems).toEqual([expect.stringContaining('ADMIN_TOKEN')]);
    expect(problems[0]).toMatch(/required in production/);
  });

  it.each([
    ['16 spaces', ' '.repeat(16), /must not be only whitespace/],
    ['40 spaces and tabs', ' \t'.repeat(20), /must not be only whitespace/],
    ['31 characters', 'abcdefghijklmnopqrstuvwxyz01234', /at least 32 characters in production, got 31/],
    ['the 30-character token development accepts', 'prod-operator-token-0123456789', /at least 32 characters/],
    ['32 identical letters', 'a'.repeat(32), /too predictable: 1 distinct characters/],
    ['a repeated short word', 'hunter2!'.repeat(5), /too predictable: 8 distinct characters, production needs at least 16/],
    ['15 distinct characters', 'abcdefghijklmno'.repeat(3), /15 distinct characters/],
  ])(
    'when production has an ADMIN_TOKEN of %s, then loading fails naming ADMIN_TOKEN, without echoing it',
    (_name, token, reason) => {
      const problems = problemsOf({ FULFILLMENT_ENV: 'production', ADMIN_TOKEN: token, DATA_ENCRYPTION_KEY: PROD_KEY });
      expect(problems).toEqual([expect.stringMatching(/^ADMIN_TOKEN /)]);
      expect(problems[0]).toMatch(reason);
      expect(problems[0]).toContain('openssl rand -base64 32');
      if (token.trim() !== '') expect(problems[0]).not.toContain(token);
    },
  );

  it.each([
    ['`openssl rand -base64 32` (44 characters)', 'q7Yd0kS2pXv9LmA4tN6bR1cZ8wE3uH5jF0gK2oT7iQs='],
    ['32 characters, exactly 16 distinct', 'abcdefghijklmnop'.repeat(2)],
  ])('when production has an ADMIN_TOKEN of %s, then it is accepted', (_name, token) => {
    const config = loadConfig({ FULFILLMENT_ENV: 'production', ADMIN_TOKEN: token, DATA_ENCRYPTION_KEY: PROD_KEY });
    expect(config.operatorToken).toBe(token);
  });

  it('when development has a 16-character ADMIN_TOKEN, then it is accepted: the stricter rule is for production', () => {
    expect(loadConfig({ ADMIN_TOKEN: 'a'.repeat(16) }).operatorToken).toBe('a'.repeat(16));
  });

  it.each([
    ['FULFILLMENT_ENV', { FULFILLMENT_ENV: 'staging' }],
    ['PORT', { PORT: 'eighty' }],
    ['PORT', { PORT: '70000' }],
    ['PORT', { PORT: '-1' }],
    ['PORT', { PORT: '3000.5' }],
    ['HOST', { HOST: '   ' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://root@localhost/app' }],
    ['DATABASE_URL', { DATABASE_URL: 'sqlite:' }],
    ['DATABASE_URL', { DATABASE_URL: 'postgres://user@[bad-host/db' }],
    ['ADMIN_TOKEN', { ADMIN_TOKEN: 'short' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'verbose' }],
    ['LOG_FORMAT', { LOG_FORMAT: 'colour' }],
    ['COLD_CHAIN_POLICY', { COLD_CHAIN_POLICY: 'REFUSE' }],
    ['RATE_LIMIT_PER_MINUTE', { RATE_LIMIT_PER_MINUTE: '0' }],
    ['RATE_LIMIT_PER_MINUTE', { RATE_LIMIT_PER_MINUTE: 'lots' }],
  ])('when %s is invalid (%j), then loading fails with a problem naming it', (name, env) => {
    const problems = problemsOf(env);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(name);
  });

  it('when several variables are wrong, then one error lists every one of them', () => {
    let caught: unknown;
    try {
      loadConfig({
        FULFILLMENT_ENV: 'production',
        PORT: 'x',
        LOG_LEVEL: 'loud',
        RATE_LIMIT_PER_MINUTE: '0',
        DATABASE_URL: 'ftp://x/y',
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const error = caught as ConfigError;
    for (const name of ['PORT', 'LOG_LEVEL', 'RATE_LIMIT_PER_MINUTE', 'DATABASE_URL', 'ADMIN_TOKEN', 'DATA_ENCRYPTION_KEY']) {
      expect(error.message).toContain(name);
    }
    expect(error.problems).toHaveLength(6);
    expect(error.message).toMatch(/^Invalid configuration:/);
  });

  it('when a bad value is reported, then the message quotes the value that was given', () => {
    expect(problemsOf({ PORT: 'eighty' })[0]).toContain('"eighty"');
    expect(problemsOf({ FULFILLMENT_ENV: 'staging' })[0]).toContain('"staging"');
  });
});

describe('DATA_ENCRYPTION_KEY and DATA_ENCRYPTION_KEY_PREVIOUS', () => {
  const key = (fill: number) => Buffer.alloc(32, fill).toString('base64');

  it('when DATA_ENCRYPTION_KEY is 32 bytes in base64, then it is the current key, named by its id', () => {
    const config = loadConfig({ DATA_ENCRYPTION_KEY: ` ${key(1)}\n` });
    expect(config.dataKeys.current?.key).toEqual(Buffer.alloc(32, 1));
    expect(config.dataKeys.current?.id).toBe(dataKeyId(Buffer.alloc(32, 1)));
    expect(config.dataKeys.previous).toEqual([]);
  });

  it('when DATA_ENCRYPTION_KEY is unset in development, then there is no configured key (the key file is used)', () => {
    expect(loadConfig({}).dataKeys).toEqual({ current: null, previous: [] });
    expect(loadConfig({ DATA_ENCRYPTION_KEY: '' }).dataKeys.current).toBeNull();
  });

  it('when DATA_ENCRYPTION_KEY is unset in production, then loading fails: it is required', () => {
    const problems = problemsOf({ FULFILLMENT_ENV: 'production', ADMIN_TOKEN: PROD_TOKEN });
    expect(problems).toEqual([expect.stringMatching(/^DATA_ENCRYPTION_KEY is required in production/)]);
  });

  it.each([
    ['not base64', 'this is not base64!', /DATA_ENCRYPTION_KEY must be base64/],
    ['badly padded', key(2).slice(0, -1), /DATA_ENCRYPTION_KEY must be base64/],
    ['16 bytes', Buffer.alloc(16, 3).toString('base64'), /DATA_ENCRYPTION_KEY must decode to exactly 32 bytes, got 16/],
    ['64 hex characters (openssl rand -hex 32)', 'ab'.repeat(32), /must decode to exactly 32 bytes, got 48/],
  ])('when DATA_ENCRYPTION_KEY is %s, then loading fails naming it, without repeating the value', (_name, value, message) => {
    const problems = problemsOf({ DATA_ENCRYPTION_KEY: value });
    expect(problems).toEqual([expect.stringMatching(message)]);
    expect(problems[0]).not.toContain(value);
  });

  it('when DATA_ENCRYPTION_KEY_PREVIOUS lists keys, then they are the previous keys, the current one left out', () => {
    const config = loadConfig({ DATA_ENCRYPTION_KEY: key(1), DATA_ENCRYPTION_KEY_PREVIOUS: `${key(2)}, ${key(1)},${key(3)},` });
    expect(config.dataKeys.previous.map((k) => k.id)).toEqual([dataKeyId(Buffer.alloc(32, 2)), dataKeyId(Buffer.alloc(32, 3))]);
  });

  it('when an item of DATA_ENCRYPTION_KEY_PREVIOUS is bad, then loading fails naming the variable and the item', () => {
    const problems = problemsOf({ DATA_ENCRYPTION_KEY: key(1), DATA_ENCRYPTION_KEY_PREVIOUS: `${key(2)},short` });
    expect(problems).toEqual([expect.stringMatching(/^DATA_ENCRYPTION_KEY_PREVIOUS \(key 2\) must be base64/)]);
  });
});

describe('REDIS_URL', () => {
  it('when REDIS_URL is unset or empty, then there is no Redis (each process counts in memory)', () => {
    expect(loadConfig({}).redisUrl).toBeNull();
    expect(loadConfig({ REDIS_URL: '  ' }).redisUrl).toBeNull();
  });

  it.each([
    'redis://127.0.0.1:6379',
    'redis://127.0.0.1:6379/7',
    'redis://cache.internal/0',
    'redis://:s3cret@cache.internal:6380/2',
    'redis://app:s3cret@cache.internal:6380/2',
    'rediss://cache.internal:6380/1',
    'redis://[::1]:6379/3',
  ])('when REDIS_URL is %s, then it is accepted as given', (value) => {
    expect(loadConfig({ REDIS_URL: value }).redisUrl).toBe(value);
  });

  it('when the scheme is written in capitals, then it is lower-cased (ioredis only turns TLS on for rediss://)', () => {
    expect(loadConfig({ REDIS_URL: 'REDISS://cache.internal:6380/1' }).redisUrl).toBe('rediss://cache.internal:6380/1');
  });

  it.each([
    ['another scheme', 'http://cache.internal:6379'],
    ['a bare host', 'cache.internal:6379'],
    ['not a URL', 'redis://[bad'],
    ['a path that is not a database number', 'redis://cache.internal:6379/sessions'],
    ['a negative database', 'redis://cache.internal:6379/-1'],
  ])('when REDIS_URL is %s, then loading fails naming REDIS_URL', (_name, value) => {
    const problems = problemsOf({ REDIS_URL: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('REDIS_URL');
  });

  it('when a REDIS_URL with a password is refused, then the message does not repeat the password', () => {
    for (const value of ['redis://:hunter2-secret@[bad', 'redis://:hunter2-secret@cache.internal/x']) {
      expect(problemsOf({ REDIS_URL: value })[0]).not.toContain('hunter2');
    }
  });
});

describe('TRUST_PROXY, TLS and shutdown variables', () => {
  it('when TRUST_FORWARDED_HOST is unset, then X-Forwarded-Host is not believed; true needs TRUST_PROXY', () => {
    expect(loadConfig({}).trustForwardedHost).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '127.0.0.1' }).trustForwardedHost).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '127.0.0.1', TRUST_FORWARDED_HOST: 'true' }).trustForwardedHost).toBe(true);
    expect(problemsOf({ TRUST_FORWARDED_HOST: 'true' })).toEqual([
      'TRUST_FORWARDED_HOST=true needs TRUST_PROXY: only a trusted proxy\u2019s X-Forwarded-Host can be believed',
    ]);
  });

  it('when TRUST_PROXY is unset, empty or false, then no proxy is trusted', () => {
    for (const value of [undefined, '', 'false', 'FALSE']) {
      expect(loadConfig(value === undefined ? {} : { TRUST_PROXY: value }).trustProxy).toEqual([]);
    }
  });

  it('when TRUST_PROXY lists addresses and CIDR ranges of both families, then each is kept with its prefix', () => {
    const config = loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,fd00::/8,::1' });
    expect(config.trustProxy).toEqual([
      { address: '10.0.0.0', prefix: 8, family: 'ipv4' },
      { address: '127.0.0.1', prefix: 32, family: 'ipv4' },
      { address: 'fd00::', prefix: 8, family: 'ipv6' },
      { address: '::1', prefix: 128, family: 'ipv6' },
    ]);
    expect(Object.isFrozen(config.trustProxy)).toBe(true);
  });

  it('when TRUST_PROXY is true, then loading fails asking for the list of proxies', () => {
    const problems = problemsOf({ TRUST_PROXY: 'true' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('TRUST_PROXY');
    expect(problems[0]).toMatch(/list the addresses or CIDR ranges of your proxies/);
  });

  it.each([['proxy.internal'], ['10.0.0.0/33'], ['::1/129'], ['10.0.0.0/0'], ['10.0.0.0/abc'], ['10.0.0.1,300.1.1.1'], ['1']])(
    'when TRUST_PROXY has the bad entry %j, then loading fails naming TRUST_PROXY and the entry',
    (value) => {
      const problems = problemsOf({ TRUST_PROXY: value });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toContain('TRUST_PROXY');
      expect(problems[0]).toContain(value.split(',').at(-1));
    },
  );

  it('when TLS_CERT_FILE and TLS_KEY_FILE are both set, then both paths are kept; when neither, TLS is off', () => {
    expect(loadConfig({ TLS_CERT_FILE: '/etc/tls/cert.pem', TLS_KEY_FILE: '/etc/tls/key.pem' }).tls).toEqual({
      certFile: '/etc/tls/cert.pem',
      keyFile: '/etc/tls/key.pem',
    });
    expect(loadConfig({}).tls).toBeNull();
  });

  it.each([
    ['TLS_KEY_FILE', { TLS_CERT_FILE: '/etc/tls/cert.pem' }],
    ['TLS_CERT_FILE', { TLS_KEY_FILE: '/etc/tls/key.pem' }],
  ])('when only one of the TLS files is set, then loading fails naming the missing %s', (missing, env) => {
    const problems = problemsOf(env);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${missing} is required`));
  });

  it('when SHUTDOWN_TIMEOUT_MS is unset, then it is 10 seconds; when set, it is used; out of range, it is refused', () => {
    expect(loadConfig({}).shutdownTimeoutMs).toBe(10_000);
    expect(loadConfig({ SHUTDOWN_TIMEOUT_MS: '30000' }).shutdownTimeoutMs).toBe(30_000);
    expect(problemsOf({ SHUTDOWN_TIMEOUT_MS: '50' })[0]).toContain('SHUTDOWN_TIMEOUT_MS');
    expect(problemsOf({ SHUTDOWN_TIMEOUT_MS: 'soon' })[0]).toContain('SHUTDOWN_TIMEOUT_MS');
  });

  it('when WEBHOOK_LEASE_MS is unset, then a delivery worker holds what it took for 5 s without renewing; when set, it is used; out of 1000–60000, it is refused', () => {
    expect(loadConfig({}).webhookLeaseMs).toBe(5_000);
    expect(loadConfig({ WEBHOOK_LEASE_MS: '2000' }).webhookLeaseMs).toBe(2_000);
    expect(problemsOf({ WEBHOOK_LEASE_MS: '999' })[0]).toContain('WEBHOOK_LEASE_MS');
    expect(problemsOf({ WEBHOOK_LEASE_MS: '60001' })[0]).toContain('WEBHOOK_LEASE_MS');
  });

  it('when the HTTP timeouts are unset, then headers get 10 s, the whole request 30 s and an idle keep-alive connection 5 s', () => {
    expect(loadConfig({}).httpTimeouts).toEqual({ headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000 });
    expect(
      loadConfig({ HEADERS_TIMEOUT_MS: '500', REQUEST_TIMEOUT_MS: '1000', KEEP_ALIVE_TIMEOUT_MS: '65000' }).httpTimeouts,
    ).toEqual({ headersMs: 500, requestMs: 1000, keepAliveMs: 65_000 });
  });

  it.each([
    ['HEADERS_TIMEOUT_MS', '0'],
    ['HEADERS_TIMEOUT_MS', '600001'],
    ['REQUEST_TIMEOUT_MS', '0'],
    ['REQUEST_TIMEOUT_MS', 'never'],
    ['KEEP_ALIVE_TIMEOUT_MS', '99'],
    ['KEEP_ALIVE_TIMEOUT_MS', '-1'],
  ])('when %s is %s, then loading fails naming it (a timeout cannot be turned off)', (name, value) => {
    const problems = problemsOf({ [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${name} must be`));
  });

  it('when HEADERS_TIMEOUT_MS is longer than REQUEST_TIMEOUT_MS, then loading fails naming both', () => {
    const problems = problemsOf({ HEADERS_TIMEOUT_MS: '20000', REQUEST_TIMEOUT_MS: '15000' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^HEADERS_TIMEOUT_MS \(20000\) must not be longer than REQUEST_TIMEOUT_MS \(15000\)/);
    expect(loadConfig({ HEADERS_TIMEOUT_MS: '15000', REQUEST_TIMEOUT_MS: '15000' }).httpTimeouts.headersMs).toBe(15_000);
  });
});

describe('IDEMPOTENCY_LOCK_TIMEOUT_MS', () => {
  it('when unset, then a key is held 2 minutes; when set, then as long as it says', () => {
    expect(loadConfig({}).idempotencyLockTimeoutMs).toBe(120_000);
    expect(loadConfig({ IDEMPOTENCY_LOCK_TIMEOUT_MS: '15000' }).idempotencyLockTimeoutMs).toBe(15_000);
  });

  it.each(['999', '3600001', 'soon'])('when it is %s, then loading fails naming it', (value) => {
    expect(problemsOf({ IDEMPOTENCY_LOCK_TIMEOUT_MS: value })).toEqual([
      expect.stringMatching(/^IDEMPOTENCY_LOCK_TIMEOUT_MS must be/),
    ]);
  });

  it('when it is not longer than WEBHOOK_TIMEOUT_MS, then loading fails naming both (a webhook test call could run twice)', () => {
    expect(problemsOf({ IDEMPOTENCY_LOCK_TIMEOUT_MS: '10000' })).toEqual([
      'IDEMPOTENCY_LOCK_TIMEOUT_MS must be longer than WEBHOOK_TIMEOUT_MS (the slowest request runs that long)',
    ]);
    expect(loadConfig({ IDEMPOTENCY_LOCK_TIMEOUT_MS: '2000', WEBHOOK_TIMEOUT_MS: '1000' }).idempotencyLockTimeoutMs).toBe(2000);
  });
});

describe('the pharmacy its labels name (PHARMACY_NAME and its address)', () => {
  it('when nothing is set in development, then labels name the made-up development pharmacy', () => {
    expect(loadConfig({}).pharmacy).toMatchObject({ name: 'Development Compounding Pharmacy', state: 'IL' });
  });

  it('when nothing is set in production, then there is no pharmacy (the label says the setting is missing)', () => {
    expect(
      loadConfig({ FULFILLMENT_ENV: 'production', ADMIN_TOKEN: PROD_TOKEN, DATA_ENCRYPTION_KEY: PROD_KEY }).pharmacy,
    ).toBeNull();
  });

  it('when the name and the address are set, then they are the pharmacy, the phone and second line optional', () => {
    const config = loadConfig({
      PHARMACY_NAME: 'Riverside Compounding',
      PHARMACY_ADDRESS_LINE1: '12 Mill Road',
      PHARMACY_CITY: 'Albany',
      PHARMACY_STATE: 'NY',
      PHARMACY_POSTAL_CODE: '12207-1234',
    });
    expect(config.pharmacy).toEqual({
      name: 'Riverside Compounding',
      address_line_1: '12 Mill Road',
      address_line_2: null,
      city: 'Albany',
      state: 'NY',
      postal_code: '12207-1234',
      phone: null,
    });
  });

  it('when the name is set without the address, or with a bad state or ZIP, then the start is refused naming each variable', () => {
    expect(problemsOf({ PHARMACY_NAME: 'Riverside Compounding' })).toEqual([
      'PHARMACY_ADDRESS_LINE1 is required when PHARMACY_NAME is set',
      'PHARMACY_CITY is required when PHARMACY_NAME is set',
      'PHARMACY_STATE is required when PHARMACY_NAME is set',
      'PHARMACY_POSTAL_CODE is required when PHARMACY_NAME is set',
    ]);
    const problems = problemsOf({
      PHARMACY_NAME: 'Riverside\u202eCompounding',
      PHARMACY_ADDRESS_LINE1: '12 Mill Road',
      PHARMACY_CITY: 'Albany',
      PHARMACY_STATE: 'ny',
      PHARMACY_POSTAL_CODE: '1220',
    });
    expect(problems).toEqual([
      'PHARMACY_NAME must be at most 100 printable characters',
      expect.stringMatching(/^PHARMACY_STATE must be a two-letter state code/),
      expect.stringMatching(/^PHARMACY_POSTAL_CODE must be a ZIP code/),
    ]);
  });
});

describe('the start banner and PUBLIC_BASE_URL', () => {
  const facts = { port: 3000, tls: false, hasStaff: true, tokenFile: null, sandbox: null, licensedStatesSet: true };
  const production = { FULFILLMENT_ENV: 'production', ADMIN_TOKEN: PROD_TOKEN, DATA_ENCRYPTION_KEY: PROD_KEY };

  it('when production starts without PUBLIC_BASE_URL, then the banner warns that FHIR links and SMART discovery take the Host header', () => {
    expect(startBanner(loadConfig(production), facts)).toContain('WARNING: PUBLIC_BASE_URL is not set');
  });

  it('when production starts with PUBLIC_BASE_URL, or development starts without it, then there is no such warning', () => {
    const set = loadConfig({ ...production, PUBLIC_BASE_URL: 'https://fulfillment.example.com' });
    expect(startBanner(set, facts)).not.toContain('PUBLIC_BASE_URL is not set');
    expect(startBanner(loadConfig({}), facts)).not.toContain('PUBLIC_BASE_URL is not set');
  });
});
