// The webhook delivery scenario (issue 12, item 3): orders created at a steady rate for the
// measured interval, each answer's moment noted by the load generator and each order.created's
// arrival by the receiver, both on Date.now(). Reports deliveries per second, end-to-end latency
// (answer → arrival), and the backlog when the load stops; then waits, bounded, for the rest.
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runLoad } from './load-runner.js';
import { log } from './log.js';
import { deleteWebhook, registerWebhook, webhookBacklog } from './provision.js';
import { LOAD_CPU, startNode } from './processes.js';
import { percentile } from './stats.js';

/**
 * Starts the receiver (webhook-receiver.js). Each endpoint has a name (its path /webhooks/<name>):
 * `urlOf(name)` is the URL to register, `configure(name, { secret, up, reset })` sets its secret
 * (signatures are checked with it), whether it is up (204) or down (503), and forgets what it noted;
 * `take(name)` resolves with the arrivals noted since the last take (`arrivals`, a Map order id → ms)
 * and the endpoint's counters (deliveries, distinct, refused, duplicates, badSignatures, lastAt…).
 */
export async function startReceiver(logFile) {
  const receiver = await startNode({
    name: 'webhook receiver',
    args: [path.join(import.meta.dirname, 'webhook-receiver.js')],
    env: {},
    cpu: LOAD_CPU,
    logFile,
    ready: /listening on (\d+)/,
  });
  const waiting = new Map();
  let lastId = 0;
  receiver.child.on('message', (message) => {
    const request = waiting.get(message.id);
    waiting.delete(message.id);
    if (message.error) request?.reject(new Error(`webhook receiver: ${message.error}`));
    else request?.resolve(message);
  });
  receiver.child.once('exit', () => {
    for (const request of waiting.values()) request.reject(new Error('the webhook receiver exited'));
    waiting.clear();
  });
  const ask = (message) =>
    new Promise((resolve, reject) => {
      const id = ++lastId;
      waiting.set(id, { resolve, reject });
      receiver.child.send({ id, ...message });
    });
  const pathOf = (name) => `/webhooks/${name}`;
  return {
    ...receiver,
    urlOf: (name) => `http://127.0.0.1:${receiver.port}${pathOf(name)}`,
    configure: (name, settings) => ask({ op: 'configure', path: pathOf(name), ...settings }),
    take: async (name) => {
      const { id: _, arrivals, ...counters } = await ask({ op: 'take', path: pathOf(name) });
      return { ...counters, arrivals: new Map(arrivals) };
    },
  };
}

/**
 * Registers a new webhook endpoint of `clinic` at the receiver's endpoint `name` and gives the
 * receiver its secret (returned only at registration), so that it checks every signature; `up`
 * false registers it down (its deliveries answered 503). Sets `clinic.webhookId`.
 */
export async function connectEndpoint(clinic, receiver, name, { up = true } = {}) {
  await receiver.configure(name, { up, reset: true, secret: null });
  const { webhook_id: webhookId, secret } = await registerWebhook(clinic, receiver.urlOf(name));
  await receiver.configure(name, { secret });
  clinic.webhookId = webhookId;
  clinic.receiverName = name;
}

const QUIET_WAIT_MS = 30_000;

async function waitForEmptyQueue(baseUrl, field, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    const backlog = await webhookBacklog(baseUrl);
    if (backlog.outbox === 0 && (field === 'outbox' || backlog.deliveries === 0)) return true;
    if (Date.now() > deadline) return false;
    await sleep(500);
  }
}

/**
 * Leaves the server's webhook queue empty, so that no delivery left over from this run competes
 * with the next scenario or measurement: waits (bounded) for it to drain, and else deletes the
 * endpoint (which cancels its pending deliveries), waits for the outbox to be fanned out to
 * nothing, and registers a new one. Resolves with how the queue was emptied.
 */
async function emptyQueue(server, clinic, receiver) {
  if (await waitForEmptyQueue(server.baseUrl, 'all', QUIET_WAIT_MS)) return 'drained';
  await deleteWebhook(clinic, clinic.webhookId);
  const fannedOut = await waitForEmptyQueue(server.baseUrl, 'outbox', QUIET_WAIT_MS * 2);
  await connectEndpoint(clinic, receiver, clinic.receiverName);
  log(`  the webhook queue did not drain: endpoint replaced${fannedOut ? '' : ', outbox still not empty'}`);
  return fannedOut ? 'endpoint replaced' : 'not empty';
}

/**
 * Runs the scenario against `server` for `clinic` (whose webhook points at `receiver`, see
 * connectEndpoint); the server delivers in process, or its workers apart (the same measure).
 */
export async function runWebhookScenario({ server, clinic, receiver, options, prefix }) {
  const name = clinic.receiverName;
  await receiver.configure(name, { reset: true });
  let measureStart = 0;
  const { result, answered, peakRssMb } = await runLoad(
    {
      url: server.baseUrl,
      connections: options.connections,
      warmup: options.warmup,
      duration: options.duration,
      headers: { 'x-api-key': clinic.key, 'content-type': 'application/json' },
      load: { kind: 'order', clinicId: clinic.clinicId, patients: clinic.patients },
      steadyRate: options.webhookRate,
      recordAnswers: true,
      prefix,
    },
    { serverPid: server.pid, onMeasure: () => (measureStart = Date.now()) },
  );
  const stoppedAt = Date.now();
  const { arrivals } = await receiver.take(name);
  const pending = () => answered.filter(([id]) => !arrivals.has(id)).length;
  const backlogAtStop = pending();
  const deliveredInInterval = answered.filter(([id]) => (arrivals.get(id) ?? Infinity) <= stoppedAt).length;

  // The rest may still come: wait as long as the measured interval, and at least 10 s.
  const deadline = Date.now() + Math.max(10_000, options.duration * 1000);
  while (pending() > 0 && Date.now() < deadline) {
    await sleep(100);
    for (const [id, at] of (await receiver.take(name)).arrivals) arrivals.set(id, at);
  }
  // Every delivery of the run, its signature checked; one whose webhook-id came before is a duplicate.
  const last = await receiver.take(name);
  for (const [id, at] of last.arrivals) arrivals.set(id, at);
  const { duplicates, badSignatures, unverified } = last;
  const latencies = answered.filter(([id]) => arrivals.has(id)).map(([id, at]) => arrivals.get(id) - at);
  const seconds = (stoppedAt - measureStart) / 1000;
  const queueAfterwards = await emptyQueue(server, clinic, receiver);
  return {
    result,
    peakRssMb,
    webhook: {
      ordersPerSecond: answered.length / seconds,
      deliveriesPerSecond: deliveredInInterval / seconds,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      backlogAtStop,
      neverDelivered: pending(),
      duplicates,
      badSignatures,
      unverified,
      queueAfterwards,
    },
  };
}
