// Everything a run needs before the first round: the databases, the project servers on each (the
// main one; the drain's; on PostgreSQL the one whose webhook workers run apart, with them), their
// clinics, the ceilings (the composite ones on a database the project migrated and provisioned) and
// the webhook receiver. Each thing started registers how to undo it with `onCleanup`, before anything
// else can fail.
import { fetch } from 'undici';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createPostgresDatabases, findRedis } from './databases.js';
import { DRAIN_RETRY_SCHEDULE } from './drain-scenario.js';
import { log } from './log.js';
import { provisionClinic } from './provision.js';
import { projectEnvironment, startCeiling, startProjectServer, startWorker } from './servers.js';
import { CEILINGS, runsOn, SCENARIOS } from './scenarios.js';
import { connectEndpoint, startReceiver } from './webhook-scenario.js';
import { provisionCompositeHomes } from './composites.js';

/** Worker processes of the `workers` target (issue 18: two, beside a server with RUN_WORKER=false). */
const WORKER_PROCESSES = 2;

/** Which servers the chosen scenarios need on `database`: `main`, `drain`, `workers`. */
const needs = (scenarios, database, target) =>
  scenarios.some((scenario) => scenario.target === target && runsOn(scenario, database));

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

/** A project server started with `env`, stopped at cleanup; its base URL added. */
async function startServer({ options, tmp, onCleanup, name, env, logName }) {
  const server = await startProjectServer({
    main: options.server,
    name,
    env,
    workDir: tmp,
    logFile: path.join(tmp, `${logName}.log`),
  });
  onCleanup(() => server.stop());
  return { ...server, baseUrl: `http://127.0.0.1:${server.port}` };
}

/**
 * Resolves with every value once all `promises` have settled, or rejects with the first failure
 * then: whatever started registered its cleanup by that time, so that nothing starts after the
 * cleanup ran.
 */
export async function settleAll(promises) {
  const outcomes = await Promise.allSettled(promises);
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  return outcomes.map((outcome) => outcome.value);
}

/** The main server of `database` with its clinics (and the webhook clinic whose endpoint is the receiver). */
async function startMain({ options, tmp, onCleanup, database, urls, redisUrl, receiver, scenarios }) {
  const env = projectEnvironment({ databaseUrl: urls.main, redisUrl });
  const server = await startServer({
    options,
    tmp,
    onCleanup,
    name: `project server (${database})`,
    env,
    logName: `project-${database}`,
  });
  log(`project server on ${database}: ${server.baseUrl} (pid ${server.pid}); provisioning`);
  const clinic = await provisionClinic(server.baseUrl, `Bench clinic (${database})`);
  let webhookClinic = null;
  if (scenarios.some((scenario) => scenario.kind === 'webhook' && scenario.target === 'main')) {
    webhookClinic = await provisionClinic(server.baseUrl, `Bench webhook clinic (${database})`, { ordersToRead: 0 });
    await connectEndpoint(webhookClinic, receiver, `live-${database}`);
  }
  return { server, clinic, webhookClinic, processes: [{ label: database, pid: server.pid }] };
}

/** The drain's server of `database`, with its clinic (its endpoint is registered by each drain run, drain-scenario.js). */
async function startDrain({ options, tmp, onCleanup, database, urls, redisUrl }) {
  const env = projectEnvironment({ databaseUrl: urls.drain, redisUrl, extra: { WEBHOOK_RETRY_SCHEDULE: DRAIN_RETRY_SCHEDULE } });
  const server = await startServer({
    options,
    tmp,
    onCleanup,
    name: `drain server (${database})`,
    env,
    logName: `drain-${database}`,
  });
  log(
    `drain server on ${database}: ${server.baseUrl} (pid ${server.pid}, WEBHOOK_RETRY_SCHEDULE=${DRAIN_RETRY_SCHEDULE}); provisioning`,
  );
  const clinic = await provisionClinic(server.baseUrl, `Bench drain clinic (${database})`, { ordersToRead: 0 });
  return {
    drain: { server, clinic: { ...clinic, receiverName: `drain-${database}`, webhookId: null } },
    processes: [{ label: `${database} drain`, pid: server.pid }],
  };
}

/** A server with RUN_WORKER=false on `database` and its webhook workers apart, with the webhook clinic. */
async function startWorkersApart({ options, tmp, onCleanup, database, urls, redisUrl, receiver }) {
  // One environment for the server and its workers: the same database, and the same data key.
  const env = projectEnvironment({ databaseUrl: urls.workers, redisUrl, extra: { RUN_WORKER: 'false' } });
  const name = `project server (${database}, RUN_WORKER=false)`;
  // The server first: it migrates the database before any worker opens it.
  const server = await startServer({ options, tmp, onCleanup, name, env, logName: `workers-${database}-server` });
  // The workers start together; each registers its cleanup as soon as it is up.
  const workers = await settleAll(
    Array.from({ length: WORKER_PROCESSES }, async (_, i) => {
      const worker = await startWorker({
        main: options.server,
        name: `webhook worker ${i + 1} (${database})`,
        env,
        workDir: tmp,
        logFile: path.join(tmp, `workers-${database}-worker-${i + 1}.log`),
      });
      onCleanup(() => worker.stop());
      return worker;
    }),
  );
  log(
    `server on ${database} with ${WORKER_PROCESSES} webhook workers apart: ${server.baseUrl} (pids ${server.pid}, ${workers.map((w) => w.pid).join(', ')}); provisioning`,
  );
  const webhookClinic = await provisionClinic(server.baseUrl, `Bench webhook clinic (${database}, workers apart)`, {
    ordersToRead: 0,
  });
  await connectEndpoint(webhookClinic, receiver, `live-${database}-${WORKER_PROCESSES}-workers`);
  return {
    workers: { server, workers, webhookClinic },
    processes: [
      { label: `${database} RUN_WORKER=false`, pid: server.pid },
      ...workers.map((worker, i) => ({ label: `${database} worker ${i + 1}`, pid: worker.pid })),
    ],
  };
}

/**
 * The servers each database needs, with their clinics: `server`, `clinic` (and `webhookClinic`,
 * whose endpoint points at the receiver: a clinic of its own, so that the other scenarios' orders
 * send no deliveries) on the main server; `drain` and `workers` when a chosen scenario runs there.
 * `processes` names every process of the target, for the memory line and the cleanup check, in
 * that order. Every server starts at once (each on a database of its own): a start is mostly waiting
 * for a process to load and migrate, and the rounds begin only once all are up.
 */
async function startTargets({ options, tmp, onCleanup, databases, receiver, scenarios }) {
  return settleAll(
    databases.map(async ({ database, urls, redisUrl }) => {
      const common = { options, tmp, onCleanup, database, urls, redisUrl, receiver, scenarios };
      const [main, drain, apart] = await settleAll([
        needs(scenarios, database, 'main') ? startMain(common) : null,
        needs(scenarios, database, 'drain') ? startDrain(common) : null,
        needs(scenarios, database, 'workers') ? startWorkersApart(common) : null,
      ]);
      return {
        database,
        server: main?.server ?? null,
        clinic: main?.clinic ?? null,
        webhookClinic: main?.webhookClinic ?? null,
        refillPool: [],
        drain: drain?.drain ?? null,
        workers: apart?.workers ?? null,
        processes: [main, drain, apart].flatMap((part) => part?.processes ?? []),
      };
    }),
  );
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
