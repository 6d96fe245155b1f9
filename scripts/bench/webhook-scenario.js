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

/** Starts the receiver; `take()` resolves with the arrivals noted since the last take, as a Map id → ms. */
export async function startReceiver(logFile) {
  const receiver = await startNode({
    name: 'webhook receiver',
    args: [path.join(import.meta.dirname, 'webhook-receiver.js')],
    env: {},
    cpu: LOAD_CPU,
    logFile,
    ready: /listening on (\d+)/,
  });
  const take = () =>
    new Promise((resolve) => {
      receiver.child.once('message', (message) => resolve(new Map(message.arrivals)));
      receiver.child.send('take');
    });
  return { ...receiver, url: `http://127.0.0.1:${receiver.port}/webhooks`, take };
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
  clinic.webhookId = (await registerWebhook(clinic, receiver.url)).webhook_id;
  log(`  the webhook queue did not drain: endpoint replaced${fannedOut ? '' : ', outbox still not empty'}`);
  return fannedOut ? 'endpoint replaced' : 'not empty';
}

/** Runs the scenario against `server` for `clinic` (whose webhook points at `receiver`). */
export async function runWebhookScenario({ server, clinic, receiver, options, prefix }) {
  await receiver.take();
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
  const arrivals = await receiver.take();
  const pending = () => answered.filter(([id]) => !arrivals.has(id)).length;
  const backlogAtStop = pending();
  const deliveredInInterval = answered.filter(([id]) => (arrivals.get(id) ?? Infinity) <= stoppedAt).length;

  // The rest may still come: wait as long as the measured interval, and at least 10 s.
  const deadline = Date.now() + Math.max(10_000, options.duration * 1000);
  while (pending() > 0 && Date.now() < deadline) {
    await sleep(100);
    for (const [id, at] of await receiver.take()) arrivals.set(id, at);
  }
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
      queueAfterwards,
    },
  };
}
