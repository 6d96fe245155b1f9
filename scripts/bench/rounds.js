// The rounds: each runs every ceiling and every scenario on every database once, so that all of
// them see the same drift of the machine (thermal, other tenants); the report takes medians.
import { log } from './log.js';
import { runLoad } from './load-runner.js';
import { issueKey, provisionPatients, provisionShippedOrders } from './provision.js';
import { runDrainScenario } from './drain-scenario.js';
import { runsOn } from './scenarios.js';
import { ceilingLoad, processesOf } from './setup.js';
import { runWebhookScenario } from './webhook-scenario.js';

/**
 * Entries a pool needs for one run of `scenario`: the rate it last reached on this database, or at
 * first 0.8 of the plain orders' (a refill or a formula order does a little more work), over the
 * warm-up and the measurement, with a margin. Too few would stop the run early (reported as an error).
 */
function poolNeeded(options, figures, database, scenario) {
  const lastRate = (name) => figures.scenarios[`${database}/${name}`]?.at(-1)?.result.requestsPerSecond;
  const expected = lastRate(scenario) ?? (lastRate('post-order') ?? 600) * 0.8;
  // autocannon spends a capped rate as a budget per started second, at the start of each second.
  if (options.rateCap) return options.rateCap * (Math.ceil(options.warmup) + Math.ceil(options.duration)) + 20;
  return Math.ceil(expected * (options.warmup + options.duration) * 1.5) + 20;
}

/** What each kind of pool holds, and how it is provisioned. */
const POOLS = {
  refills: { what: 'shipped orders for the refills', provision: (target, count) => provisionShippedOrders(target.clinic, count) },
  patients: {
    what: 'patients with no order',
    provision: (target, count) => provisionPatients(target.clinic, count, `pool-${target.pools.patients.length}`),
  },
};

/** Tops up the target's pool of `kind` to what `scenario` needs, and returns it. */
async function fillPool(target, kind, needed) {
  const pool = target.pools[kind];
  const missing = needed - pool.length;
  if (missing > 0) {
    log(`  provisioning ${missing} ${POOLS[kind].what} (${target.database})`);
    pool.push(...(await POOLS[kind].provision(target, missing)));
  }
  return pool;
}

const headersOf = (key) => ({ 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) });

function describe(name, measured) {
  const { result, drain } = measured;
  if (drain) {
    const empty = drain.timeToEmptyMs === null ? 'not empty' : `empty after ${Math.round(drain.timeToEmptyMs)} ms`;
    return `  ${name}: ${drain.created} events, ${Math.round(drain.eventsPerSecond)} events/s, ${empty}`;
  }
  const failures = result.non2xx + result.errors + result.timeouts;
  const round1 = (value) => Math.round(value * 10) / 10;
  const cpu =
    measured.cpuUsPerRequest === null || measured.cpuUsPerRequest === undefined
      ? ''
      : `, ${Math.round(measured.cpuUsPerRequest)} µs CPU/req`;
  return `  ${name}: ${Math.round(result.requestsPerSecond)} req/s, p50 ${round1(result.p50)} ms, p99 ${round1(result.p99)} ms${cpu}${failures ? `, ${failures} FAILED` : ''}`;
}

async function runScenario({ scenario, target, options, receiver, prefix, figures }) {
  if (scenario.kind === 'webhook') {
    const host = scenario.target === 'workers' ? target.workers : target;
    return runWebhookScenario({ server: host.server, clinic: host.webhookClinic, receiver, options, prefix });
  }
  if (scenario.kind === 'drain') {
    const { server, clinic } = target.drain;
    return runDrainScenario({ server, clinic, receiver, options, database: target.database });
  }
  const pool = scenario.pool
    ? await fillPool(target, scenario.pool, poolNeeded(options, figures, target.database, scenario.name))
    : null;
  const measured = await runLoad(
    {
      url: target.server.baseUrl,
      connections: options.connections,
      warmup: options.warmup,
      duration: options.duration,
      headers: headersOf(await issueKey(target.clinic)),
      load: scenario.load(target.clinic, pool),
      overallRate: options.rateCap,
      prefix,
    },
    { serverPid: target.server.pid },
  );
  // Whatever the run used is spent (refilled once, ordered for once), even the requests that failed.
  if (pool) target.pools[scenario.pool] = pool.slice(measured.result.used);
  return measured;
}

/**
 * Runs the rounds; resolves with `{ ceilings: { key: [round…] }, scenarios: { "db/name": [round…] } }`,
 * each round `{ result, peakRssMb, cpuUsPerRequest, webhook?, drain? }`.
 */
export async function runRounds({ options, targets, ceilings, receiver, scenarios }) {
  const figures = { ceilings: {}, scenarios: {} };
  for (let round = 1; round <= options.rounds; round++) {
    log(`round ${round} of ${options.rounds}`);
    for (const [key, ceiling] of Object.entries(ceilings)) {
      const measured = await runLoad(
        {
          url: ceiling.baseUrl,
          connections: options.connections,
          warmup: options.warmup,
          duration: options.duration,
          headers: headersOf(ceiling.apiKey),
          load: ceiling.load ?? ceilingLoad(key),
          overallRate: options.rateCap,
          prefix: `r${round}`,
        },
        { serverPid: ceiling.pid },
      );
      ceiling.assertAlive();
      (figures.ceilings[key] ??= []).push(measured);
      log(describe(`ceiling ${key}`, measured));
    }
    for (const target of targets) {
      for (const scenario of scenarios.filter((s) => runsOn(s, target.database))) {
        const key = `${target.database}/${scenario.name}`;
        const measured = await runScenario({ scenario, target, options, receiver, prefix: `r${round}`, figures });
        for (const child of processesOf(scenario, target)) child.assertAlive();
        (figures.scenarios[key] ??= []).push(measured);
        log(describe(key, measured));
      }
    }
  }
  return figures;
}
