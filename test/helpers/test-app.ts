import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { pino, type DestinationStream } from 'pino';
import { buildApp, type App } from '../../src/app.js';
import { openRuntime } from '../../src/bootstrap.js';
import { createClinic, issueApiKey } from '../../src/clinics/clinic.service.js';
import { loadConfig, type LingeringLimits, type PasswordHashing } from '../../src/config.js';
import { logSerializers } from '../../src/http/logging.js';
import type { AppContext } from '../../src/context.js';
import type { DialectName } from '../../src/db/database.js';
import type { Clock } from '../../src/clock.js';
import { addMedication } from '../../src/medications/medication.service.js';
import type { FlushTimer } from '../../src/request-log/request-log-buffer.js';
import { createTestDatabase } from './test-db.js';

export const OPERATOR_TOKEN = 'test-operator-token-0123456789-abcdef';
/**
 * DATA_ENCRYPTION_KEY of the tests (one per test process): given in code, so that no test writes the
 * development key file into the repository's data folder.
 */
export const TEST_DATA_ENCRYPTION_KEY = randomBytes(32).toString('base64');
/**
 * scrypt's cost in the in-process tests: N = 2^10 (1 MiB, about 2 ms a hash) instead of the
 * production 2^15 (32 MiB, about 80 ms), since accounts are made and signed in hundreds of times. A
 * config no variable sets (config.ts); test/staff/password.test.ts holds the production cost.
 */
export const TEST_PASSWORD_HASHING: PasswordHashing = { N: 1024, r: 8, p: 1 };

export interface TestAppOptions {
  dialect: DialectName;
  /** Environment variables on top of the test defaults (FULFILLMENT_ENV, RATE_LIMIT_PER_MINUTE...). */
  env?: Record<string, string>;
  clock?: Clock;
  /**
   * Captures the logs: every line (pino's JSON) is written to this stream, at level `info` unless
   * `env.LOG_LEVEL` says otherwise. Without it the app logs nothing.
   */
  logStream?: DestinationStream;
  /**
   * The request log's buffer: by default its timer never fires, so that no batch is written in the
   * middle of a test's statement counts; a test reads the log after `t.ctx.requestLog.flush()`.
   */
  requestLog?: { timer?: FlushTimer; batchRows?: number; maxBuffered?: number };
  /** The bounds of a lingering close, which no environment variable sets (config.ts `LINGERING_CLOSE`). */
  lingeringClose?: LingeringLimits;
}

/** A flush timer that never fires: batches are written by `flush()` or at close. */
export const heldFlushTimer: FlushTimer = () => () => undefined;

export interface Reply {
  status: number;
  body: any;
  headers: LightMyRequestResponse['headers'];
}

export interface TestClinic {
  clinicId: string;
  apiKey: string;
  apiKeyId: string;
}

/**
 * A real application on a database of its own, called through Fastify's `inject`
 * (the whole HTTP pipeline: hooks, parsing, validation, serialization).
 */
export class TestApp {
  private constructor(
    readonly app: App,
    readonly ctx: AppContext,
    private readonly closeRuntime: () => Promise<void>,
    private readonly dropDatabase: () => Promise<void>,
  ) {}

  static async start(options: TestAppOptions): Promise<TestApp> {
    // Migrated already (PostgreSQL: a replay of the migrations' statements): the runtime finds nothing to do.
    const database = await createTestDatabase(options.dialect, { migrated: true });
    const config = loadConfig({
      ADMIN_TOKEN: OPERATOR_TOKEN,
      DATA_ENCRYPTION_KEY: TEST_DATA_ENCRYPTION_KEY,
      LOG_LEVEL: options.logStream ? 'info' : 'silent',
      RUN_WORKER: 'false',
      RATE_LIMIT_PER_MINUTE: '100000',
      ...options.env,
    });
    const runtime = await openRuntime(
      {
        ...config,
        database: database.config,
        passwordHashing: TEST_PASSWORD_HASHING,
        ...(options.lingeringClose ? { lingeringClose: options.lingeringClose } : {}),
      },
      {
        ...(options.clock ? { clock: options.clock } : {}),
        postgres: { schema: database.schema, poolSize: 5 },
        // With REDIS_URL: the runtime's lines (Redis outages) land in the same stream as the app's,
        // and each app's counters are its own on the shared Redis.
        ...(options.logStream
          ? { logger: pino({ level: config.logLevel, serializers: logSerializers }, options.logStream) }
          : { logger: pino({ level: 'silent' }) }),
        redisKeyPrefix: `pf:test:${randomBytes(6).toString('hex')}:`,
        requestLog: { timer: heldFlushTimer, ...options.requestLog },
      },
    );
    const app = await buildApp(runtime.ctx, options.logStream ? { logStream: options.logStream } : {});
    return new TestApp(
      app,
      runtime.ctx,
      () => runtime.close(),
      () => database.drop(),
    );
  }

  async close(): Promise<void> {
    await this.app.close();
    // A test may already have closed the database to simulate an outage.
    await this.closeRuntime().catch(() => undefined);
    await this.dropDatabase();
  }

  /** A raw request: nothing added but what `headers` says. */
  async request(
    method: string,
    url: string,
    options: { headers?: Record<string, string>; body?: unknown; payload?: string; remoteAddress?: string } = {},
  ): Promise<Reply> {
    const response = await this.app.inject({
      method: method as 'GET',
      url,
      headers: options.headers,
      ...(options.remoteAddress !== undefined ? { remoteAddress: options.remoteAddress } : {}),
      ...(options.payload !== undefined
        ? { payload: options.payload }
        : options.body !== undefined
          ? { payload: JSON.stringify(options.body) }
          : {}),
    });
    let body: unknown = response.body;
    try {
      body = response.json();
    } catch {
      // Not JSON (the docs page): keep the text.
    }
    return { status: response.statusCode, body, headers: response.headers };
  }

  /** A partner call with the spec's three headers. */
  partner(apiKey: string) {
    const headers = (body: boolean): Record<string, string> => ({
      'x-api-key': apiKey,
      accept: 'application/json',
      ...(body ? { 'content-type': 'application/json' } : {}),
    });
    return {
      get: (url: string) => this.request('GET', url, { headers: headers(false) }),
      post: (url: string, body?: unknown) => this.request('POST', url, { headers: headers(body !== undefined), body }),
      put: (url: string, body?: unknown) => this.request('PUT', url, { headers: headers(body !== undefined), body }),
      patch: (url: string, body?: unknown) => this.request('PATCH', url, { headers: headers(body !== undefined), body }),
      delete: (url: string, body?: unknown) => this.request('DELETE', url, { headers: headers(body !== undefined), body }),
    };
  }

  /** An operator call with the bearer token. */
  get operator() {
    const headers = (body: boolean): Record<string, string> => ({
      authorization: `Bearer ${OPERATOR_TOKEN}`,
      ...(body ? { 'content-type': 'application/json' } : {}),
    });
    return {
      get: (url: string) => this.request('GET', url, { headers: headers(false) }),
      post: (url: string, body?: unknown) => this.request('POST', url, { headers: headers(body !== undefined), body }),
      put: (url: string, body?: unknown) => this.request('PUT', url, { headers: headers(body !== undefined), body }),
      patch: (url: string, body?: unknown) => this.request('PATCH', url, { headers: headers(body !== undefined), body }),
      delete: (url: string, body?: unknown) => this.request('DELETE', url, { headers: headers(body !== undefined), body }),
    };
  }

  /**
   * A clinic with an API key of the server's environment, in one call (through the services,
   * as the operator command line does). `formulary` adds medications by name.
   */
  async createClinic(options: { name?: string; freeShipping?: boolean; formulary?: string[] } = {}): Promise<TestClinic> {
    const clinic = await createClinic(
      this.ctx,
      {
        name: options.name ?? 'Test Clinic',
        free_shipping: options.freeShipping ?? false,
      },
      null,
    );
    for (const name of options.formulary ?? []) await addMedication(this.ctx, clinic.clinic_id, { name }, null);
    const key = await issueApiKey(this.ctx, clinic.clinic_id, null);
    return { clinicId: clinic.clinic_id, apiKey: key.api_key, apiKeyId: key.api_key_id };
  }
}
