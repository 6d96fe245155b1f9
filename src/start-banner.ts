import { describeDatabase } from './db/create-db.js';
import type { Config } from './config.js';
import { redisTarget } from './redis/redis-connection.js';
import type { SandboxSeed } from './sandbox-seed.js';

export interface StartFacts {
  /** The port actually bound (PORT=0 lets the system pick one). */
  port: number;
  tls: boolean;
  hasStaff: boolean;
  /** Where the generated operator token is kept (development without ADMIN_TOKEN); null: ADMIN_TOKEN, or one for this run. */
  tokenFile: string | null;
  sandbox: SandboxSeed | null;
  /** Whether the operator ever set the licensed states (PUT /api/admin/licensed-states). */
  licensedStatesSet: boolean;
}

/**
 * What a server prints once it listens: where it is and, in development, what a newcomer needs to
 * make the first calls (the operator token, the sandbox clinic and how to get a key), and a warning
 * when webhooks will not go out.
 */
export function startBanner(config: Config, facts: StartFacts): string {
  const host = callableHost(config);
  const base = ownBaseUrl(config, facts.port, facts.tls);
  const lines = [
    '',
    `Partner Fulfillment API (${config.env}) on ${base}${host === config.host ? '' : `  (listening on ${config.host}:${facts.port})`}`,
    `  database: ${describeDatabase(config.database)}`,
    `  rate limits: ${config.redisUrl ? `shared in Redis ${redisTarget(config.redisUrl)}` : 'counted in this process'}`,
    `  API reference: ${base}/docs`,
    `  console: ${base}/console${facts.hasStaff ? '' : '  (no staff account yet: npm run admin -- create-staff --email … --name … --role admin)'}`,
  ];
  if (config.operatorTokenGenerated) {
    const where = facts.tokenFile
      ? `kept in ${facts.tokenFile}, the same at every start`
      : 'generated for this run: the database is in memory';
    lines.push(`  operator token (${where}; set ADMIN_TOKEN to choose one): ${config.operatorToken}`);
  }
  if (!config.runWorker) {
    lines.push(
      '',
      '  WARNING: RUN_WORKER=false: this server delivers no webhooks.',
      '  Events wait in the outbox until a worker runs beside it: npm run worker',
    );
  }
  if (!facts.licensedStatesSet && config.env === 'production') {
    lines.push(
      '',
      '  WARNING: no licensed states are set: every order is refused (STATE_NOT_LICENSED) until they are.',
      '  Set where the pharmacy may ship: PUT /api/admin/licensed-states {"states": ["CA", "NY", ...]}',
    );
  }
  if (config.env === 'production' && config.publicBaseUrl === null) {
    lines.push(
      '',
      '  WARNING: PUBLIC_BASE_URL is not set: the FHIR API\u2019s links, SMART discovery\u2019s token endpoint and the',
      '  audience a SMART client\u2019s assertion may name are taken from each request\u2019s Host header.',
      '  Set it to the address partners reach (PUBLIC_BASE_URL=https://fulfillment.example.com): docs/fhir.md',
    );
  }
  const sandbox = facts.sandbox;
  if (sandbox?.apiKey) {
    lines.push(
      '',
      '  First start: seeded a sandbox clinic, its formulary and a development API key.',
      `  clinic_id: ${sandbox.clinicId}`,
      `  x-api-key: ${sandbox.apiKey}`,
      '  This key is shown only once: keep it.',
    );
  } else if (sandbox) {
    lines.push(
      '',
      '  Sandbox clinic (its development key was shown at the first start).',
      `  clinic_id: ${sandbox.clinicId}`,
      `  Another key: npm run admin -- issue-key --clinic ${sandbox.clinicId}`,
    );
  }
  return `${lines.join('\n')}\n\n`;
}

/** A wildcard address is where the server listens, not an address to call: loopback instead. */
function callableHost(config: Pick<Config, 'host'>): string {
  return config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
}

/**
 * The address a server of this configuration is called at on this machine, as its banner prints it
 * (`http://127.0.0.1:3000`): also the base of the links the command line prints (invitations), so the
 * two agree.
 */
export function ownBaseUrl(config: Pick<Config, 'host'>, port: number, tls: boolean): string {
  const host = callableHost(config);
  return `${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
