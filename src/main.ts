import { buildApp } from './app.js';
import { runInBackground } from './background.js';
import { loadConfigOrExit, openRuntime } from './bootstrap.js';
import { hasStaffMembers } from './staff/staff.service.js';
import { seedSandbox } from './sandbox-seed.js';
import { keepDevelopmentOperatorToken } from './secrets/dev-operator-token.js';
import { startBanner } from './start-banner.js';
import { licensedStatesSet } from './shipping/licensed-states.repository.js';
import { logDestination } from './log-format.js';
import { loadHttpsOptions } from './http/tls.js';
import { shutDown } from './shutdown.js';
import { startSandboxAutoAdvance } from './fulfillment/sandbox-auto-advance.js';
import { startIdempotencyKeyPurge } from './idempotency/idempotency-purge.js';
import { startDeprecationUsageFlush } from './deprecations/usage-flush.js';
import { startRequestLogPurge } from './request-log/request-log-purge.js';
import { startEventLogPurge } from './events/event-log-purge.js';
import { WebhookWorker } from './delivery/delivery-worker.js';

/** Starts the HTTP server: config → database → migrate → seed → app → listen; closes gracefully. */
async function main(): Promise<void> {
  // In development without ADMIN_TOKEN: the operator token kept in ./data (the same at every start).
  const { config, keptIn: tokenFile } = keepDevelopmentOperatorToken(loadConfigOrExit(process.env));
  // Before anything is opened: an unreadable certificate, or production on plain HTTP without a proxy.
  const https = loadHttpsOptions(config);

  const runtime = await openRuntime(config);
  const { ctx } = runtime;
  const sandbox = await seedSandbox(ctx);
  // JSON lines, or in development at a terminal one readable line each (LOG_FORMAT).
  const app = await buildApp(ctx, { ...(https ? { https } : {}), logStream: logDestination(config) });

  // The webhook delivery worker, in this process unless RUN_WORKER=false (then `npm run worker`):
  // created now, started last (start() below).
  const webhookWorker = config.runWorker ? new WebhookWorker(ctx, { logger: app.log }) : null;
  // The stop functions of the background jobs started so far.
  const stopJobs: (() => Promise<void>)[] = [];

  // Requests in flight, counted for the log line of a shutdown that runs out of time.
  let requestsInFlight = 0;
  app.server.on('request', (_request, response) => {
    requestsInFlight += 1;
    response.once('close', () => (requestsInFlight -= 1));
  });

  // Listens, prints the banner, then starts the background jobs and the worker, which takes work
  // (webhook attempts) before its start is over. A signal during the start stops what it started.
  const start = async (): Promise<void> => {
    await app.listen({ host: config.host, port: config.port });
    // With PORT=0 the system picks a free port: print the one actually bound.
    const address = app.server.address();
    const banner = startBanner(config, {
      port: typeof address === 'object' && address !== null ? address.port : config.port,
      tls: https !== null,
      hasStaff: await hasStaffMembers(ctx),
      tokenFile,
      sandbox,
      licensedStatesSet: await licensedStatesSet(ctx.db),
    });
    process.stdout.write(banner);
    if (closing) return;
    // Development only (SANDBOX_AUTO_ADVANCE_MS): moves every order one state per interval.
    stopJobs.push(startSandboxAutoAdvance({ ...ctx, logger: app.log }));
    // Deletes idempotency keys past their 24 hours, every 10 minutes.
    stopJobs.push(startIdempotencyKeyPurge({ ...ctx, logger: app.log }));
    // Writes the uses of deprecated things counted in memory, every minute (the last ones at close).
    stopJobs.push(startDeprecationUsageFlush(ctx));
    // Deletes request log rows older than REQUEST_LOG_RETENTION_DAYS, every 10 minutes (the log's
    // rows are written by its buffer, about a second after each answer; the last ones at close).
    stopJobs.push(startRequestLogPurge({ ...ctx, logger: app.log }));
    // Deletes outbox events older than EVENT_RETENTION_DAYS once fanned out, every 10 minutes.
    stopJobs.push(startEventLogPurge({ ...ctx, logger: app.log }));
    await webhookWorker?.start();
  };

  let closing = false;
  // The start under way (set below, once the signals are handled).
  let starting: Promise<void> = Promise.resolve();
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal, timeoutMs: config.shutdownTimeoutMs, requestsInFlight }, 'shutting down');
    const status = await shutDown({
      timeoutMs: config.shutdownTimeoutMs,
      // No new connections; requests in flight finish (later ones on open connections get a 503),
      // idle keep-alive connections are closed; meanwhile the worker claims nothing new and its
      // attempts in flight finish. The stores (database, Redis, buffers) close after both.
      drain: async () => {
        // A signal during the start: what it starts is stopped once it is over (its failure is main's to report).
        await starting.catch(() => undefined);
        await Promise.all([app.close(), webhookWorker?.stop(), ...stopJobs.map((stop) => stop())]);
      },
      cutOff: () => {
        app.log.error(
          {
            timeoutMs: config.shutdownTimeoutMs,
            requestsCutOff: requestsInFlight,
            webhookAttemptsCutOff: webhookWorker?.attemptsInFlight ?? 0,
          },
          'shutdown timed out: closing the connections still open; webhook attempts cut off are retried after their lease expires',
        );
        app.server.closeAllConnections();
        // The stores get a few seconds to close (a request cut off may still hold a connection).
        setTimeout(() => process.exit(1), FORCED_EXIT_MS).unref();
      },
      close: () => runtime.close(),
      failed: (step, error) => app.log.error({ err: error, step }, 'shutdown step failed'),
    });
    app.log.info({ status }, status === 0 ? 'shut down' : 'shut down after a timeout or a failure');
    process.exit(status);
  };
  // A failed shutdown is logged and still ends the process, with status 1.
  const shutdownFailed = (error: unknown) => {
    app.log.error({ err: error }, 'shutdown failed');
    process.exit(1);
  };
  // Before anything takes work: a signal at any moment from the first request or webhook attempt on
  // is a graceful shutdown (installed after the start, a SIGTERM during the worker's start, its
  // attempts already in flight, killed the process outright).
  process.on('SIGINT', () => runInBackground(shutdown('SIGINT'), shutdownFailed));
  process.on('SIGTERM', () => runInBackground(shutdown('SIGTERM'), shutdownFailed));
  starting = start();
  await starting;
}

/** After a shutdown timed out, how long the stores get to close before the process exits anyway. */
const FORCED_EXIT_MS = 5000;

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
