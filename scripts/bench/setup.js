// Everything a run needs before the first round: the databases, the project servers on each (the
// main one; the drain's; on PostgreSQL the one whose webhook workers run apart, with them), their
// clinics, the ceilings (the composite ones on a database the project migrated and provisioned) and
// the webhook receiver. Each thing started registers how to undo it with `onCleanup`, before anything
// else can fail.
import { fetch } from 'undici';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createPostgresDatabases, findRedis } from './databases.js';
import { log } from './log.js';
import { startCeiling } from './servers.js';
import { CEILINGS, runsOn, SCENARIOS } from './scenarios.js';
import { startReceiver } from './webhook-scenario.js';
import { provisionCompositeHomes } from './composites.js';
import { needs, settleAll, startServer, startTargets } from './targets.js';

/**
 * The databases to run on: SQLite always, PostgreSQL (with Redis when it answers) unless told not
 * to. Each server gets a database of its own (`urls`: main, drain, workers), so that no other
 * server's worker delivers its events.
 */
async function prepareDatabases({ options, tmp, onCleanup, scenarios }) {
  const sqliteUrls = { main: path.join(tmp, 'project.sqlite'), drain: path.join(tmp, 'drain.sqlite') };
  const databases = [{ database: 'sqlite', urls: sqliteUrls, redisUrl: null }];
  const postgresOnly = scenarios.filter((scenario) => !runsOn(scenario, 'sqlite')).map((scenario) => scenario.name);
  const skipped = () => postgresOnly.length > 0 && log(`no PostgreSQL: ${postgresOnly.join(', ')} not run (PostgreSQL only)`);
  if (options.sqliteOnly) {
    skipped();
    return { databases, postgres: null };
  }
  const extra = ['drain', 'workers'].filter((target) => needs(scenarios, 'postgres', target));
  const postgres = await createPostgresDatabases(extra);
  if (!postgres) {
    log('PostgreSQL does not answer: SQLite only');
    skipped();
    return { databases, postgres: null };
  }
  onCleanup(() => postgres.drop());
  const redis = await findRedis();
  if (redis) onCleanup(() => redis.clean());
  log(`PostgreSQL databases ${Object.values(postgres.names).join(', ')}${redis ? `, Redis ${redis.url}` : ', no Redis'}`);
  const urls = { main: postgres.projectUrl, ...Object.fromEntries(extra.map((key) => [key, postgres.urlOf(key)])) };
  databases.push({ database: 'postgres', urls, redisUrl: redis?.url ?? null });
  return { databases, postgres };
}

/** Every process the target's scenario runs on: its server, and the workers apart when it has them. */
export function processesOf(scenario, target) {
  if (scenario.target === 'drain') return [target.drain.server];
  if (scenario.target === 'workers') return [target.workers.server, ...target.workers.workers];
  return [target.server];
}

/** The environment of each kind of ceiling. */
function ceilingEnvironment(key, { tmp, postgres, carriersBytes, homes }) {
  if (key === 'bare') return { BENCH_BODY_BYTES: String(carriersBytes) };
  if (key === 'raw-sqlite') return { BENCH_SQLITE_FILE: path.join(tmp, 'raw.sqlite') };
  if (key === 'raw-pg') return { BENCH_PG_URL: postgres?.rawUrl ?? '' };
  const { database } = CEILINGS[key];
  const home = homes[database];
  return {
    ...(database === 'sqlite' ? { BENCH_SQLITE_FILE: home.url } : { BENCH_PG_URL: home.url }),
    ...(home.redisUrl ? { BENCH_REDIS_URL: home.redisUrl } : {}),
    // As the project server's (servers.js): a limit no run reaches.
    RATE_LIMIT_PER_MINUTE: '1000000',
  };
}

/**
 * The ceilings the chosen scenarios compare to, started; keyed as CEILINGS. A composite one carries
 * the load its scenario sends to its own clinic (`load`) and its key (`apiKey`).
 */
async function startCeilings({ options, tmp, onCleanup, needed, postgres, carriersBytes, homes }) {
  const dist = path.dirname(path.resolve(options.server));
  // All at once, as the servers (startTargets); each waits for its own port.
  const started = await settleAll(
    [...needed].map(async (key) => {
      const { label, script, scenario, database } = CEILINGS[key];
      const ceiling = await startCeiling({
        name: label,
        script,
        env: ceilingEnvironment(key, { tmp, postgres, carriersBytes, homes }),
        dist,
        logFile: path.join(tmp, `${key.replaceAll('/', '-')}.log`),
      });
      onCleanup(() => ceiling.stop());
      const composite = scenario
        ? {
            load: SCENARIOS.find((s) => s.name === scenario).load(homes[database].clinic),
            apiKey: homes[database].keys[key],
          }
        : { load: null, apiKey: null };
      return [key, { ...ceiling, ...composite, baseUrl: `http://127.0.0.1:${ceiling.port}` }];
    }),
  );
  return Object.fromEntries(started);
}

/** The size of GET /api/external/carriers' answer, so that the bare ceiling answers as much. */
async function carriersAnswerBytes(target) {
  const response = await fetch(`${target.server.baseUrl}/api/external/carriers`, { headers: { 'x-api-key': target.clinic.key } });
  return (await response.arrayBuffer()).byteLength;
}

/** Starts and provisions everything for `scenarios`; resolves with `{ targets, ceilings, receiver, created }`. */
export async function setUp({ options, tmp, onCleanup, scenarios }) {
  let receiver = null;
  if (scenarios.some((scenario) => scenario.kind !== 'requests')) {
    receiver = await startReceiver(path.join(tmp, 'receiver.log'));
    onCleanup(() => receiver.stop());
  }
  const { databases, postgres } = await prepareDatabases({ options, tmp, onCleanup, scenarios });
  const targets = await startTargets({ options, tmp, onCleanup, databases, receiver, scenarios });
  const needed = new Set(
    targets.flatMap(({ database }) =>
      scenarios
        .filter((scenario) => runsOn(scenario, database))
        .flatMap((scenario) => [scenario.ceiling(database), scenario.composite(database)])
        .filter(Boolean),
    ),
  );
  const carriersBytes = needed.has('bare') ? await carriersAnswerBytes(targets[0]) : 0;
  const startProvisioner = ({ database, env }) =>
    startServer({
      options,
      tmp,
      onCleanup,
      name: `provisioning server of the composite ceilings (${database})`,
      env,
      logName: `composite-${database}`,
    });
  const homes = await provisionCompositeHomes({ tmp, needed, databases, postgres, startProvisioner });
  const ceilings = await startCeilings({ options, tmp, onCleanup, needed, postgres, carriersBytes, homes });
  // What the run created, named in the JSON report so that a test can check it is all gone afterwards.
  const created = {
    pids: [
      ...targets.flatMap((t) => t.processes.map((p) => p.pid)),
      ...Object.values(homes).map((home) => home.pid),
      ...Object.values(ceilings).map((c) => c.pid),
      ...(receiver ? [receiver.pid] : []),
    ],
    postgresDatabases: postgres ? Object.values(postgres.names) : [],
    tmp,
  };
  return { targets, ceilings, receiver, created };
}

/**
 * The load a bare ceiling gets: the bare one a GET, the raw-database ones the order body (ids need
 * not exist). A composite one brings its own (startCeilings).
 */
export function ceilingLoad(key) {
  if (key === 'bare') return { kind: 'fixed', method: 'GET', path: '/' };
  const patients = Array.from({ length: 20 }, () => ({ patientId: randomUUID(), practitionerId: randomUUID() }));
  return { kind: 'order', clinicId: randomUUID(), patients };
}
