// The rounds: each runs every ceiling and every scenario on every database once, so that all of
// them see the same drift of the machine (thermal, other tenants); the report takes medians.
import { log } from './log.js';
import { runLoad } from './load-runner.js';
import { issueKey, provisionShippedOrders } from './provision.js';
import { runDrainScenario } from './drain-scenario.js';
import { runsOn } from './scenarios.js';
import { ceilingLoad, processesOf } from './setup.js';
import { settleAll } from './targets.js';
import { runWebhookScenario } from './webhook-scenario.js';

/**
 * Refills a pool needs for one run: the rate the refills last reached on this database, or at
 * first 0.8 of the orders' (a refill does a little more work than an order), over the warm-up and
 * the measurement, with a margin. Too few would stop the run early (reported as an error).
 */
function refillsNeeded(options, figures, database) {
  const lastRate = (name) => figures.scenarios[`${database}/${name}`]?.at(-1)?.result.requestsPerSecond;
  const expected = lastRate('post-refill') ?? (lastRate('post-order') ?? 600) * 0.8;
  // autocannon spends a capped rate as a budget per started second, at the start of each second; the
  // tick that ends the run may start one more (a busy machine lets it win the race): one second more.
  if (options.rateCap) return options.rateCap * (Math.ceil(options.warmup) + Math.ceil(options.duration) + 1) + 20;
  return Math.ceil(expected * (options.warmup + options.duration) * 1.5) + 20;
}

/** Tops up the target's pool of shipped orders (one per refill) to `needed`. */
async function fillRefillPool(target, needed) {
  const missing = needed - target.refillPool.length;
  if (missing <= 0) return;
  log(`  provisioning ${missing} shipped orders for the refills (${target.database})`);
  target.refillPool.push(...(await provisionShippedOrders(target.clinic, missing)));
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
  let pool = null;
  if (scenario.name === 'post-refill') {
    await fillRefillPool(target, refillsNeeded(options, figures, target.database));
    pool = target.refillPool;
  }
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
  // Whatever the run used is spent (refilled once), even the requests that failed.
  if (pool) target.refillPool = pool.slice(measured.result.used);
  return measured;
}

/** Runs every ceiling once, one after another (smoke: all at once); their figures go into `figures.ceilings`. */
async function runCeilings({ options, ceilings, round, figures }) {
  const runOne = async ([key, ceiling]) => {
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
    log(describe(`ceiling ${key}`, measured));
    return [key, measured];
  };
  const entries = Object.entries(ceilings);
  const results = [];
  if (options.smoke) results.push(...(await settleAll(entries.map(runOne))));
  else for (const entry of entries) results.push(await runOne(entry));
  // In the ceilings' order, however they ran.
  for (const [key, measured] of results) (figures.ceilings[key] ??= []).push(measured);
}

/**
 * Runs the scenarios of one target (database) once, one after another. The smoke run runs the
 * request scenarios at once (each with a key of its own, on a clinic no endpoint listens to) and
 * then the live webhook ones, which wait for their server's whole queue to empty, while the drain
 * runs on its own server meanwhile.
 */
async function runTarget({ options, target, receiver, scenarios, round, figures }) {
  const runOne = async (scenario) => {
    const key = `${target.database}/${scenario.name}`;
    const measured = await runScenario({ scenario, target, options, receiver, prefix: `r${round}`, figures });
    for (const child of processesOf(scenario, target)) child.assertAlive();
    (figures.scenarios[key] ??= []).push(measured);
    log(describe(key, measured));
  };
  const own = scenarios.filter((s) => runsOn(s, target.database));
  if (!options.smoke) {
    for (const scenario of own) await runOne(scenario);
    return;
  }
  const ofKind = (kind) => own.filter((scenario) => scenario.kind === kind);
  const requestsThenLive = async () => {
    await settleAll(ofKind('requests').map(runOne));
    for (const scenario of ofKind('webhook')) await runOne(scenario);
  };
  await settleAll([requestsThenLive(), ...ofKind('drain').map(runOne)]);
}

/**
 * Runs the rounds; resolves with `{ ceilings: { key: [round…] }, scenarios: { "db/name": [round…] } }`,
 * each round `{ result, peakRssMb, cpuUsPerRequest, webhook?, drain? }`. A measured round runs one
 * thing at a time. The smoke run proves that each part works, not how fast: it runs its ceilings at
 * once, then the databases' scenarios at once (runTarget), which turns its many seconds of capped,
 * mostly idle load into a few. The ceilings keep a step of their own, so that the webhook receiver
 * never answers behind fifteen load generators.
 */
export async function runRounds({ options, targets, ceilings, receiver, scenarios }) {
  const figures = { ceilings: {}, scenarios: {} };
  for (let round = 1; round <= options.rounds; round++) {
    log(`round ${round} of ${options.rounds}`);
    await runCeilings({ options, ceilings, round, figures });
    const runOne = (target) => runTarget({ options, target, receiver, scenarios, round, figures });
    if (options.smoke) await settleAll(targets.map(runOne));
    else for (const target of targets) await runOne(target);
  }
  return figures;
}
