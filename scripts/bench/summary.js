// From the rounds' raw figures to one row per scenario and database: medians of the rounds, the
// median of the per-round ratios to each ceiling (the bare one and the composite one), CPU time per
// request, and the issues' targets checked.
import { CEILINGS, SCENARIOS, TARGETS } from './scenarios.js';
import { median } from './stats.js';

const failuresOf = (round) => round.result.non2xx + round.result.errors + round.result.timeouts;
const cpuOf = (rounds) => median(rounds.map((round) => round.cpuUsPerRequest));
/** The median of the per-round ratios of `rounds` to `ceilingRounds` (the same rounds), or null. */
const ratioOf = (rounds, ceilingRounds) =>
  ceilingRounds
    ? median(rounds.map((round, i) => round.result.requestsPerSecond / ceilingRounds[i].result.requestsPerSecond))
    : null;

/** One ceiling's median over the rounds. */
export function summariseCeiling(key, rounds) {
  return {
    ceiling: CEILINGS[key].name,
    label: CEILINGS[key].label,
    requestsPerSecond: median(rounds.map((round) => round.result.requestsPerSecond)),
    p50: median(rounds.map((round) => round.result.p50)),
    p99: median(rounds.map((round) => round.result.p99)),
    cpuUsPerRequest: cpuOf(rounds),
    failures: rounds.reduce((sum, round) => sum + failuresOf(round), 0),
    rounds: rounds.map((round) => ({ ...round.result, cpuUsPerRequest: round.cpuUsPerRequest ?? null })),
  };
}

/**
 * A scenario's row on one database. `rounds[i]` is the scenario's figures in round i, and
 * `ceilingRounds[i]` and `compositeRounds[i]` its bare and composite ceilings' in the same round
 * (absent where it has none: the webhook scenarios, a route without a composite ceiling). A webhook
 * row has `webhook`, a drain row `drain`: their own figures (report.js shows them in tables of their own).
 * `ceiling`, `ceilingRequestsPerSecond`, `ratio` and `minRatio` are the bare ceiling's; `composite…`
 * the composite one's.
 */
export function summariseScenario({ scenarioName, database, rounds, ceilingRounds, compositeRounds, webhookRate }) {
  const scenario = SCENARIOS.find((s) => s.name === scenarioName);
  const ceilingKey = scenario.ceiling(database);
  const compositeKey = compositeRounds ? scenario.composite(database) : null;
  const minRatio = scenario.minRatio(database);
  const failures = rounds.reduce((sum, round) => sum + failuresOf(round), 0);
  const exhausted = rounds.some((round) => round.result.exhausted);
  const peakRssMb = rounds.reduce((peak, round) => Math.max(peak, round.peakRssMb ?? 0), 0) || null;
  const row = {
    scenario: scenario.name,
    label: scenario.label,
    kind: scenario.kind,
    database,
    requestsPerSecond: median(rounds.map((round) => round.result.requestsPerSecond)),
    p50: median(rounds.map((round) => round.result.p50)),
    p99: median(rounds.map((round) => round.result.p99)),
    peakRssMb,
    failures,
    exhausted,
    firstFailure: rounds.find((round) => round.result.firstFailure)?.result.firstFailure ?? null,
    cpuUsPerRequest: cpuOf(rounds),
    ceiling: ceilingKey ? CEILINGS[ceilingKey].name : null,
    ceilingLabel: ceilingKey ? CEILINGS[ceilingKey].label : null,
    ceilingRequestsPerSecond: ceilingKey ? median(ceilingRounds.map((round) => round.result.requestsPerSecond)) : null,
    ceilingCpuUsPerRequest: ceilingKey ? cpuOf(ceilingRounds) : null,
    ratio: ceilingKey ? ratioOf(rounds, ceilingRounds) : null,
    minRatio,
    composite: compositeKey ? CEILINGS[compositeKey].name : null,
    compositeRequestsPerSecond: compositeKey ? median(compositeRounds.map((round) => round.result.requestsPerSecond)) : null,
    compositeCpuUsPerRequest: compositeKey ? cpuOf(compositeRounds) : null,
    compositeRatio: compositeKey ? ratioOf(rounds, compositeRounds) : null,
    minCompositeRatio: compositeKey ? TARGETS.compositeRatio : null,
    webhook: scenario.kind === 'webhook' ? summariseWebhook(rounds, scenario) : null,
    drain: scenario.kind === 'drain' ? summariseDrain(rounds) : null,
    rounds: rounds.map((round) => ({
      ...round.result,
      peakRssMb: round.peakRssMb,
      cpuUsPerRequest: round.cpuUsPerRequest ?? null,
      webhook: round.webhook ?? null,
      drain: round.drain ?? null,
    })),
  };
  return { ...row, ...checkTargets(row, webhookRate) };
}

const sumOf = (rounds, part, field) => rounds.reduce((sum, round) => sum + (round[part][field] ?? 0), 0);

function summariseWebhook(rounds, scenario) {
  const of = (field) => median(rounds.map((round) => round.webhook[field]));
  return {
    /** Worker processes apart from the server (0: the worker runs in the server). */
    workers: scenario.workers,
    ordersPerSecond: of('ordersPerSecond'),
    deliveriesPerSecond: of('deliveriesPerSecond'),
    p50: of('p50'),
    p99: of('p99'),
    backlogAtStop: of('backlogAtStop'),
    neverDelivered: sumOf(rounds, 'webhook', 'neverDelivered'),
    duplicates: sumOf(rounds, 'webhook', 'duplicates'),
    badSignatures: sumOf(rounds, 'webhook', 'badSignatures'),
    queueAfterwards: rounds.map((round) => round.webhook.queueAfterwards),
  };
}

/**
 * The drain's medians over the rounds; the correctness counts summed. A time to empty only when
 * every round emptied (a median would hide the round that did not).
 */
function summariseDrain(rounds) {
  const of = (field) => median(rounds.map((round) => round.drain[field]));
  const drained = rounds.map((round) => round.drain.drained);
  return {
    events: rounds[0]?.drain.events ?? null,
    created: of('created'),
    scheduled: of('scheduled'),
    recoverMs: of('recoverMs'),
    delivered: of('delivered'),
    eventsPerSecond: of('eventsPerSecond'),
    drainSeconds: of('drainSeconds'),
    timeToEmptyMs: drained.every(Boolean) ? of('timeToEmptyMs') : null,
    drained,
    missing: sumOf(rounds, 'drain', 'missing'),
    duplicates: sumOf(rounds, 'drain', 'duplicates'),
    badSignatures: sumOf(rounds, 'drain', 'badSignatures'),
    unverified: sumOf(rounds, 'drain', 'unverified'),
    notes: rounds.flatMap((round, i) => round.drain.notes.map((note) => (rounds.length > 1 ? `round ${i + 1}: ${note}` : note))),
  };
}

/** The target column's text and whether each part of it is met (`misses` names those that are not). */
function checkTargets(row, webhookRate) {
  const parts = [];
  const misses = [];
  const check = (text, ok) => {
    parts.push(text);
    if (!ok) misses.push(text);
  };
  if (row.minRatio !== null) check(`≥ ${row.minRatio}× bare`, row.ratio !== null && row.ratio >= row.minRatio);
  if (row.minCompositeRatio !== null) {
    check(`≥ ${row.minCompositeRatio}× composite`, row.compositeRatio !== null && row.compositeRatio >= row.minCompositeRatio);
  }
  if (row.drain) {
    const { drain } = row;
    const goal = TARGETS.drainEventsPerSecond;
    check(`≥ ${goal.toLocaleString('en-US')} events/s`, drain.eventsPerSecond !== null && drain.eventsPerSecond >= goal);
    check('none missing', drain.missing === 0);
    check('no duplicates', drain.duplicates === 0);
    check('signatures valid', drain.badSignatures === 0 && drain.unverified === 0);
  } else if (row.webhook) {
    // "Keeps up": the orders went out at (nearly) the asked rate and were delivered as fast as they came.
    const keptUp =
      row.webhook.ordersPerSecond >= 0.95 * webhookRate &&
      row.webhook.deliveriesPerSecond >= 0.95 * row.webhook.ordersPerSecond &&
      row.webhook.neverDelivered === 0;
    check(`keeps up with ${webhookRate}/s`, keptUp);
    check(`e2e p50 < ${TARGETS.webhookP50Ms} ms`, row.webhook.p50 !== null && row.webhook.p50 < TARGETS.webhookP50Ms);
    check(`e2e p99 < ${TARGETS.webhookP99Ms} ms`, row.webhook.p99 !== null && row.webhook.p99 < TARGETS.webhookP99Ms);
    // Issue 18: what is still undelivered when the load stops is less than a second of orders.
    const backlogLimit = Math.round(webhookRate * TARGETS.webhookBacklogSeconds);
    check(`backlog at stop < ${backlogLimit}`, row.webhook.backlogAtStop !== null && row.webhook.backlogAtStop < backlogLimit);
  } else {
    check(`p99 < ${TARGETS.p99Ms} ms`, row.p99 !== null && row.p99 < TARGETS.p99Ms);
  }
  check(`RSS < ${TARGETS.peakRssMb} MB`, row.peakRssMb === null || row.peakRssMb < TARGETS.peakRssMb);
  check('no errors', row.failures === 0 && !row.exhausted);
  return { target: parts.join(', '), met: misses.length === 0, misses };
}
