import path from 'node:path';
import { oneOf, setting, text, trueOrFalse, wholeNumber } from './setting.js';

/** The process: which deployment, where it listens, its database, its logs, how it stops. */

export const ENVIRONMENTS = ['development', 'production'] as const;
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export const DEFAULT_SQLITE_FILE = path.join('data', 'fulfillment.sqlite');

export const SERVER_SETTINGS = {
  FULFILLMENT_ENV: setting({
    schema: oneOf(ENVIRONMENTS),
    default: 'development',
    doc:
      'Decides which keys are accepted (`dev_…` or `prod_…`), the defaults that differ between the two, ' +
      'and whether a first start seeds a sandbox clinic.',
  }),
  PORT: setting({
    schema: wholeNumber(0, 65535),
    default: 3000,
    doc: 'TCP port. `0` lets the system pick a free port; the banner prints the one actually bound.',
  }),
  HOST: setting({
    schema: text({ pattern: '\\S' }),
    default: { development: '127.0.0.1', production: '0.0.0.0' },
    accepts: 'an address or host name',
    untrimmed: true,
    problem: 'HOST must not be empty',
    doc: 'Address to listen on. Development listens on loopback only, so a laptop does not expose the sandbox to its network.',
  }),
  DATABASE_URL: setting({
    schema: text(),
    default: DEFAULT_SQLITE_FILE,
    accepts: '`postgres://…`, `sqlite:…`, `sqlite::memory:` or a file path',
    doc: 'Which database, see [below](#database_url).',
  }),
  LOG_LEVEL: setting({
    schema: oneOf(LOG_LEVELS),
    default: 'info',
    doc:
      'Logs are JSON lines (pino) on stdout; API keys, the operator token, webhook secrets, headers, URLs and ' +
      'bodies (PHI) are never logged, at any level: see [operations.md](operations.md#logs).',
  }),
  LOG_FORMAT: setting({
    schema: oneOf(LOG_FORMATS),
    default: 'auto',
    doc:
      '`json` (one JSON line per entry), `pretty` (one readable line per entry, pino-pretty) or `auto`: `pretty` ' +
      'in development when standard output is a terminal, `json` otherwise (pipes, files, production). Either ' +
      'way a request is one line, when answered: see [operations.md](operations.md#logs).',
  }),
  SHUTDOWN_TIMEOUT_MS: setting({
    schema: wholeNumber(100, 600_000),
    default: 10_000,
    doc:
      'On SIGTERM/SIGINT, how long requests and webhook attempts in flight may take to finish, in ms; past it ' +
      'they are cut off and the process exits with status 1. See [docs/operations.md](operations.md#shutdown).',
  }),
  RUN_WORKER: setting({
    schema: trueOrFalse(),
    default: true,
    doc:
      'Runs the webhook delivery worker inside the server process. Set `false` to run it separately with ' +
      '`npm run worker`; the start banner then warns that this server delivers no webhooks (events wait in ' +
      'the outbox until a worker runs).',
  }),
  SANDBOX_AUTO_ADVANCE_MS: setting({
    schema: wholeNumber(0, 86_400_000),
    default: 0,
    doc:
      'Development only: moves every open order one state forward on this interval, in ms (`0`: off), so that ' +
      'shipping, delivery and refills can be tried without calling the sandbox endpoint. Refused in production.',
  }),
};
