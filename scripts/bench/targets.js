// The project's servers of a run, started at once: on each database the main one, the drain's, and
// on PostgreSQL the one whose webhook workers run apart, with them; each with its clinics. Split from
// setup.js, which prepares the databases and the ceilings around them.
import path from 'node:path';
import { DRAIN_RETRY_SCHEDULE } from './drain-scenario.js';
import { log } from './log.js';
import { provisionClinic } from './provision.js';
import { projectEnvironment, startProjectServer, startWorker } from './servers.js';
import { runsOn } from './scenarios.js';
import { connectEndpoint } from './webhook-scenario.js';

/** Worker processes of the `workers` target (issue 18: two, beside a server with RUN_WORKER=false). */
const WORKER_PROCESSES = 2;

/** Which servers the chosen scenarios need on `database`: `main`, `drain`, `workers`. */
export const needs = (scenarios, database, target) =>
  scenarios.some((scenario) => scenario.target === target && runsOn(scenario, database));

/** A project server started with `env`, stopped at cleanup; its base URL added. */
export async function startServer({ options, tmp, onCleanup, name, env, logName }) {
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
export async function startTargets({ options, tmp, onCleanup, databases, receiver, scenarios }) {
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
        pools: { refills: [], patients: [] },
        drain: drain?.drain ?? null,
        workers: apart?.workers ?? null,
        processes: [main, drain, apart].flatMap((part) => part?.processes ?? []),
      };
    }),
  );
}
