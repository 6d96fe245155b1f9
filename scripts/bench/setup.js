// Everything a run needs before the first round: the databases, the project server on each, their
// clinics, the ceilings and the webhook receiver. Each thing started registers how to undo it
// with `onCleanup`, before anything else can fail.
import { fetch } from 'undici';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createPostgresDatabases, findRedis } from './databases.js';
import { log } from './log.js';
import { provisionClinic, registerWebhook } from './provision.js';
import { startCeiling, startProjectServer } from './servers.js';
import { CEILINGS } from './scenarios.js';
import { startReceiver } from './webhook-scenario.js';

/** The databases to run on: SQLite always, PostgreSQL (with Redis when it answers) unless told not to. */
async function prepareDatabases({ options, tmp, onCleanup }) {
  const databases = [{ database: 'sqlite', url: path.join(tmp, 'project.sqlite'), redisUrl: null }];
  if (options.sqliteOnly) return { databases, postgres: null };
  const postgres = await createPostgresDatabases();
  if (!postgres) {
    log('PostgreSQL does not answer: SQLite only');
    return { databases, postgres: null };
  }
  onCleanup(() => postgres.drop());
  const redis = await findRedis();
  if (redis) onCleanup(() => redis.clean());
  log(`PostgreSQL databases ${Object.values(postgres.names).join(', ')}${redis ? `, Redis ${redis.url}` : ', no Redis'}`);
  databases.push({ database: 'postgres', url: postgres.projectUrl, redisUrl: redis?.url ?? null });
  return { databases, postgres };
}

/** The project server on each database, with its clinic (and the webhook clinic when needed). */
async function startTargets({ options, tmp, onCleanup, databases, receiver }) {
  const targets = [];
  for (const { database, url, redisUrl } of databases) {
    const server = await startProjectServer({
      main: options.server,
      name: `project server (${database})`,
      databaseUrl: url,
      redisUrl,
      workDir: tmp,
      logFile: path.join(tmp, `project-${database}.log`),
    });
    onCleanup(() => server.stop());
    const baseUrl = `http://127.0.0.1:${server.port}`;
    log(`project server on ${database}: ${baseUrl} (pid ${server.pid}); provisioning`);
    const clinic = await provisionClinic(baseUrl, `Bench clinic (${database})`);
    let webhookClinic = null;
    if (receiver) {
      // A clinic of its own, so that the other scenarios' orders send no deliveries.
      webhookClinic = await provisionClinic(baseUrl, `Bench webhook clinic (${database})`);
      webhookClinic.webhookId = (await registerWebhook(webhookClinic, receiver.url)).webhook_id;
    }
    targets.push({ database, server: { ...server, baseUrl }, clinic, webhookClinic, refillPool: [] });
  }
  return targets;
}

/** The ceilings the chosen scenarios compare to, started; keyed as CEILINGS. */
async function startCeilings({ options, tmp, onCleanup, needed, postgres, carriersBytes }) {
  const dist = path.dirname(path.resolve(options.server));
  const env = {
    bare: { BENCH_BODY_BYTES: String(carriersBytes) },
    'raw-sqlite': { BENCH_SQLITE_FILE: path.join(tmp, 'raw.sqlite') },
    'raw-pg': { BENCH_PG_URL: postgres?.rawUrl ?? '' },
  };
  const scripts = { bare: 'bare-http', 'raw-sqlite': 'raw-sqlite', 'raw-pg': 'raw-pg' };
  const ceilings = {};
  for (const key of needed) {
    const ceiling = await startCeiling({
      name: CEILINGS[key].label,
      script: scripts[key],
      env: env[key],
      dist,
      logFile: path.join(tmp, `${key}.log`),
    });
    onCleanup(() => ceiling.stop());
    ceilings[key] = { ...ceiling, baseUrl: `http://127.0.0.1:${ceiling.port}` };
  }
  return ceilings;
}

/** The size of GET /api/external/carriers' answer, so that the bare ceiling answers as much. */
async function carriersAnswerBytes(target) {
  const response = await fetch(`${target.server.baseUrl}/api/external/carriers`, { headers: { 'x-api-key': target.clinic.key } });
  return (await response.arrayBuffer()).byteLength;
}

/** Starts and provisions everything for `scenarios`; resolves with `{ targets, ceilings, receiver, created }`. */
export async function setUp({ options, tmp, onCleanup, scenarios }) {
  const needsWebhook = scenarios.some((s) => s.name === 'webhook-delivery');
  let receiver = null;
  if (needsWebhook) {
    receiver = await startReceiver(path.join(tmp, 'receiver.log'));
    onCleanup(() => receiver.stop());
  }
  const { databases, postgres } = await prepareDatabases({ options, tmp, onCleanup });
  const targets = await startTargets({ options, tmp, onCleanup, databases, receiver });
  const needed = new Set(targets.flatMap(({ database }) => scenarios.map((s) => s.ceiling(database)).filter(Boolean)));
  const carriersBytes = await carriersAnswerBytes(targets[0]);
  const ceilings = await startCeilings({ options, tmp, onCleanup, needed, postgres, carriersBytes });
  // What the run created, named in the JSON report so that a test can check it is all gone afterwards.
  const created = {
    pids: [
      ...targets.map((t) => t.server.pid),
      ...Object.values(ceilings).map((c) => c.pid),
      ...(receiver ? [receiver.pid] : []),
    ],
    postgresDatabases: postgres ? Object.values(postgres.names) : [],
    tmp,
  };
  return { targets, ceilings, receiver, created };
}

/** The load a ceiling gets: the bare one a GET, the raw-database ones the order body (ids need not exist). */
export function ceilingLoad(key) {
  if (key === 'bare') return { kind: 'fixed', method: 'GET', path: '/' };
  const patients = Array.from({ length: 20 }, () => ({ patientId: randomUUID(), practitionerId: randomUUID() }));
  return { kind: 'order', clinicId: randomUUID(), patients };
}
