// The drain scenario (issue 18, item 8): a partner's receiver is down while N orders are created, so
// that N order.created deliveries wait after one failed attempt each; then it is up again and the
// partner calls POST /api/external/webhook/recover (docs/webhooks.md, "Recovering after an outage"),
// which makes them all due now. Measured: how fast they arrive (deliveries ÷ time from the recover
// call's answer to the last arrival), the time until the server's queue is empty, and correctness:
// events missing, delivered twice (same webhook-id), or with a signature that does not verify.
// Every wait is bounded: a drain that stalls or runs out of time is reported, never waited for.
import { clearInterval, setInterval } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import { memoryMb } from './load-runner.js';
import { log } from './log.js';
import { createOrders, deleteWebhook, issueKey, recoverWebhook, webhookBacklog } from './provision.js';
import { percentile } from './stats.js';
import { connectEndpoint } from './webhook-scenario.js';

/**
 * WEBHOOK_RETRY_SCHEDULE of the drain's server: the first attempt at once (it fails: the receiver is
 * down, as in a partner's outage), the next ones an hour later. With the default schedule the second
 * attempt comes 5 s after the first failure, while the N orders are still being created and the
 * first attempts still failing (seconds on a busy machine): the server would retry, and deliver once
 * the receiver is up, on its own, before the recovery whose drain is measured. An hour away, nothing
 * moves before recover makes it due now, however long the set-up takes.
 */
export const DRAIN_RETRY_SCHEDULE = '0,1h,1h';

/** How often the receiver is asked for progress (it runs on the load core: cheap). */
const POLL_MS = 50;
/** A phase that makes no progress for this long has stalled (the worker polls every 2 s). */
const STALL_MS = 15_000;
/**
 * After the receiver answered every first attempt, the time the worker gets to record the failures:
 * a delivery still leased when recover runs is left out of the recovery (docs/webhooks.md).
 */
const SETTLE_MS = 500;
/** Longest wait for the server's queue gauge to read 0 once every event arrived. */
const EMPTY_WAIT_MS = 10_000;

/**
 * Waits until `done(progress)` or the deadline or a stall; `step()` resolves with the progress (a
 * number that grows). Resolves with `{ done, progress, waitedMs, stalled }`.
 */
async function waitFor({ step, done, timeoutMs, pollMs = POLL_MS }) {
  const started = Date.now();
  let progress = await step();
  let lastProgress = progress;
  let lastChange = started;
  for (;;) {
    if (done(progress)) return { done: true, progress, waitedMs: Date.now() - started, stalled: false };
    const now = Date.now();
    if (progress !== lastProgress) {
      lastProgress = progress;
      lastChange = now;
    }
    const stalled = now - lastChange > STALL_MS;
    if (stalled || now - started > timeoutMs) return { done: false, progress, waitedMs: now - started, stalled };
    await sleep(pollMs);
    progress = await step();
  }
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/**
 * Runs one drain against `server` (started with DRAIN_RETRY_SCHEDULE) for `clinic`, whose endpoint
 * is the receiver's `clinic.receiverName`: a new endpoint each run, deleted at the end (which cancels
 * whatever did not arrive), so that no run leaves work for the next.
 */
export async function runDrainScenario({ server, clinic, receiver, options, database }) {
  const name = clinic.receiverName;
  const events = options.drainEvents;
  const timeoutMs = options.drainTimeout * 1000;
  const notes = [];
  let peakRssMb = null;
  const sample = () => {
    const rss = memoryMb(server.pid, 'VmRSS');
    if (rss !== null) peakRssMb = Math.max(peakRssMb ?? 0, rss);
  };
  sample();
  const sampler = setInterval(sample, 100);
  try {
    // The partner's endpoint, down: each delivery's first attempt is answered 503.
    await connectEndpoint(clinic, receiver, name, { up: false });
    const partner = { ...clinic, key: await issueKey(clinic) };
    const attemptsBefore = (await webhookBacklog(server.baseUrl)).attempts;

    log(`  ${database} drain: creating ${events} orders, the receiver down`);
    const created = await createOrders(partner, events);
    const expected = created.ids.length;
    if (created.failures > 0) notes.push(`${created.failures} of ${events} orders refused: ${created.firstFailure}`);
    log(
      `  ${database} drain: ${expected} orders in ${seconds(created.seconds * 1000)}; waiting for their first attempts to fail`,
    );

    // Every delivery has had its first attempt once the receiver refused as many distinct webhook-ids.
    const refusal = await waitFor({
      step: async () => (await receiver.take(name)).refused,
      done: (refused) => refused >= expected,
      timeoutMs,
    });
    if (refusal.done) {
      log(`  ${database} drain: every delivery failed once, ${seconds(refusal.waitedMs)} after the last order`);
    } else {
      notes.push(
        `only ${refusal.progress} of ${expected} deliveries had failed their first attempt ` +
          `${refusal.stalled ? `(no progress for ${seconds(STALL_MS)})` : `within ${seconds(timeoutMs)}`}; recovered anyway`,
      );
    }
    // The worker counts an attempt when its answer comes, then records it: wait for the count (when
    // this server's worker shows it), then give the last records a moment.
    if (Number.isFinite(attemptsBefore)) {
      await waitFor({
        step: async () => (await webhookBacklog(server.baseUrl)).attempts - attemptsBefore,
        done: (attempts) => attempts >= refusal.progress,
        timeoutMs: 10_000,
        pollMs: 200,
      });
    }
    await sleep(SETTLE_MS);

    // The receiver is up again; the partner recovers.
    await receiver.configure(name, { up: true });
    const recoverSent = Date.now();
    let scheduled = null;
    let recoverFailure = null;
    try {
      ({ scheduled } = await recoverWebhook(partner, clinic.webhookId));
    } catch (error) {
      recoverFailure = error.message;
      notes.push(`recover failed: ${error.message}`);
    }
    const recoveredAt = Date.now();
    if (scheduled !== null && scheduled !== expected) notes.push(`recover scheduled ${scheduled} of ${expected} deliveries`);

    // The drain: until every order's event arrived, bounded.
    const expectedIds = new Set(created.ids);
    const arrived = new Set();
    let counters = null;
    const drain = await waitFor({
      step: async () => {
        counters = await receiver.take(name);
        for (const id of counters.arrivals.keys()) if (expectedIds.has(id)) arrived.add(id);
        return arrived.size;
      },
      done: (count) => count >= expected,
      timeoutMs,
    });
    if (!drain.done) {
      notes.push(
        `did not drain ${drain.stalled ? `(no delivery for ${seconds(STALL_MS)})` : `within ${seconds(timeoutMs)}`}: ` +
          `${arrived.size} of ${expected} arrived`,
      );
    }

    // Empty: the server's queue gauge reads 0 (the last outcomes recorded).
    let timeToEmptyMs = null;
    if (drain.done) {
      let backlog = null;
      const emptied = await waitFor({
        step: async () => {
          backlog = await webhookBacklog(server.baseUrl);
          return backlog.deliveries + backlog.outbox;
        },
        done: (left) => left === 0,
        timeoutMs: EMPTY_WAIT_MS,
      });
      if (emptied.done) timeToEmptyMs = Date.now() - recoveredAt;
      else
        notes.push(
          `every event arrived, but the server's queue still read ${backlog.deliveries} after ${seconds(EMPTY_WAIT_MS)}`,
        );
    }

    // A last look: what came after the drain's last poll counts too (duplicates in particular).
    counters = await receiver.take(name);
    for (const id of counters.arrivals.keys()) if (expectedIds.has(id)) arrived.add(id);
    const drainMs = counters.lastAt === null ? null : Math.max(1, counters.lastAt - recoveredAt);
    const figures = {
      events,
      created: expected,
      refusedBeforeRecover: refusal.progress,
      scheduled,
      recoverMs: recoveredAt - recoverSent,
      delivered: counters.deliveries,
      eventsPerSecond: drainMs === null ? 0 : counters.deliveries / (drainMs / 1000),
      drainSeconds: drainMs === null ? null : drainMs / 1000,
      timeToEmptyMs,
      drained: drain.done,
      missing: expected - arrived.size,
      duplicates: counters.duplicates,
      badSignatures: counters.badSignatures,
      unverified: counters.unverified,
      notes,
    };
    log(
      `  ${database} drain: ${figures.delivered} delivered, ${Math.round(figures.eventsPerSecond)} events/s, ` +
        `empty after ${timeToEmptyMs === null ? '–' : seconds(timeToEmptyMs)}; missing ${figures.missing}, ` +
        `duplicates ${figures.duplicates}, bad signatures ${figures.badSignatures}${notes.length > 0 ? `; ${notes.join('; ')}` : ''}`,
    );
    return {
      // The orders' creation, in the shape of a load's figures (failures are the report's errors).
      result: {
        requests: expected,
        requestsPerSecond: expected / created.seconds,
        p50: percentile(created.latencies, 50),
        p99: percentile(created.latencies, 99),
        non2xx: created.failures,
        errors: recoverFailure ? 1 : 0,
        timeouts: 0,
        exhausted: false,
        used: events,
        firstFailure: created.firstFailure ?? recoverFailure,
      },
      peakRssMb,
      drain: figures,
    };
  } finally {
    clearInterval(sampler);
    // Whatever did not arrive is cancelled with the endpoint: the next run starts from an empty queue.
    if (clinic.webhookId) {
      await deleteWebhook(clinic, clinic.webhookId).catch((error) => log(`  ${database} drain: ${error.message}`));
      clinic.webhookId = null;
    }
  }
}
