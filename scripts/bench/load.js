// The load generator: a child process (started by load-runner.js, pinned to the load core) that
// receives one run as an IPC message, drives autocannon against it (a warm-up, then the measured
// interval) and sends back autocannon's figures. It sends `{ phase: 'measure' }` when the measured
// interval starts, so that the parent samples the server's memory only then.
import process from 'node:process';
import autocannon from 'autocannon';
import { FORMULA_MEDICATION, MEDICATION, orderBody, patientBody, practitionerBody, refillBody } from './bodies.js';
import { runPaced } from './paced.js';

/** The autocannon request list of one load (scenarios.js, `load`), and what it learned while running. */
function requestsOf(load, state) {
  // Each of a pool's entries is used once (a shipped order takes one refill, a fresh patient one
  // order): once the pool is used up, stop the run (reported as `exhausted`); the request being
  // built then repeats the last entry.
  const once = (n, length) => {
    if (n < length) return n;
    state.exhausted = true;
    state.stop();
    return length - 1;
  };
  const post = (path, makeBody) => ({
    method: 'POST',
    path,
    setupRequest: (request) => ({ ...request, body: JSON.stringify(makeBody(state.sent++)) }),
    onResponse: (status, body) => {
      if ((status < 200 || status > 299) && !state.firstFailure) state.firstFailure = `${status} ${body.slice(0, 500)}`;
      if (state.answered && status >= 200 && status <= 299)
        state.answered.push([JSON.parse(body).data.medication_request_id, Date.now()]);
    },
  });
  switch (load.kind) {
    case 'fixed':
      return [{ method: load.method, path: load.path }];
    case 'rotate':
      return [
        { method: load.method, setupRequest: (request) => ({ ...request, path: load.paths[state.sent++ % load.paths.length] }) },
      ];
    case 'practitioner':
      return [post('/api/external/practitioner', (n) => practitionerBody(load.clinicId, `${state.prefix}-${n}`))];
    case 'patient':
      return [
        post('/api/external/patient', (n) =>
          patientBody(load.clinicId, load.practitionerIds[n % load.practitionerIds.length], `${state.prefix}-${n}`),
        ),
      ];
    case 'order':
      return [
        post('/api/external/medication-order', (n) => {
          const { patientId, practitionerId } = load.patients[n % load.patients.length];
          return orderBody(load.clinicId, patientId, practitionerId, load.formula ? FORMULA_MEDICATION : MEDICATION);
        }),
      ];
    case 'order-once':
      return [
        post('/api/external/medication-order', (n) => {
          const { patientId, practitionerId } = load.patients[once(n, load.patients.length)];
          return orderBody(load.clinicId, patientId, practitionerId, FORMULA_MEDICATION);
        }),
      ];
    case 'refill':
      return [post('/api/external/refill-request', (n) => refillBody(load.orderIds[once(n, load.orderIds.length)]))];
    default:
      throw new Error(`unknown load kind ${load.kind}`);
  }
}

function runAutocannon(run, state, seconds) {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: run.url,
        connections: run.connections,
        duration: seconds,
        headers: run.headers,
        requests: requestsOf(run.load, state),
        ...(run.overallRate ? { overallRate: run.overallRate } : {}),
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
    state.stop = () => instance.stop();
  });
}

/** The same requests at a steady rate (paced.js), for the webhook scenario: `{ rate }` in the run. */
function runSteady(run, state, seconds) {
  const [template] = requestsOf(run.load, state);
  return runPaced({
    url: run.url,
    headers: run.headers,
    connections: run.connections,
    rate: run.steadyRate,
    seconds,
    requestOf: () => ({ method: template.method, path: template.path, body: template.setupRequest({}).body }),
    onAnswer: template.onResponse,
  });
}

const fromAutocannon = (result) => ({
  requests: result.requests.total,
  requestsPerSecond: result.requests.total / result.duration,
  p50: result.latency.p50,
  p99: result.latency.p99,
  non2xx: result.non2xx,
  errors: result.errors,
  timeouts: result.timeouts,
});

function summary(figures, state) {
  return {
    ...figures,
    exhausted: state.exhausted,
    used: state.sent,
    firstFailure: state.firstFailure,
  };
}

process.once('message', async (run) => {
  // `prefix` keeps names unique across the runs of one benchmark; `sent` counts across warm-up and
  // measurement, so that a pool (refills) is never used twice.
  const state = { sent: 0, prefix: run.prefix, exhausted: false, firstFailure: null, answered: null, stop: () => undefined };
  try {
    const load = run.steadyRate
      ? (seconds) => runSteady(run, state, seconds)
      : async (seconds) => fromAutocannon(await runAutocannon(run, state, seconds));
    if (run.warmup > 0) await load(run.warmup);
    if (run.recordAnswers) state.answered = [];
    process.send({ phase: 'measure' });
    const figures = await load(run.duration);
    report({ phase: 'done', result: summary(figures, state), answered: state.answered });
  } catch (error) {
    report({ phase: 'failed', error: String(error?.stack ?? error) });
  }
});

/** Sends the last message, and closes the channel (so that the process ends) only once it is written. */
const report = (message) => process.send(message, () => process.disconnect());
