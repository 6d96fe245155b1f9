// The webhook delivery scenario (issue 12, item 3): orders created at a steady rate for the
// measured interval, each answer's moment noted by the load generator and each order.created's
// arrival by the receiver, both on Date.now(). Reports deliveries per second, end-to-end latency
// (answer → arrival), and the backlog when the load stops; then waits, bounded, for the rest.
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runLoad } from './load-runner.js';
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
    },
  };
}
