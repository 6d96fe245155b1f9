import { runInBackground } from './background.js';
import { loadConfigOrExit, openRuntime, processLogger } from './bootstrap.js';
import { shutDown } from './shutdown.js';
import { WebhookWorker } from './delivery/delivery-worker.js';

/**
 * The webhook delivery worker as its own process (`npm run worker`), for deployments that run the
 * API with RUN_WORKER=false. Any number of them may share one PostgreSQL database. Same
 * configuration as the server; closes gracefully on SIGINT/SIGTERM (attempts in flight finish within
 * SHUTDOWN_TIMEOUT_MS).
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit(process.env);

  // Errors are logged without the driver's row data (PHI), as in the server: see http/logging.ts.
  const logger = processLogger(config, { process: 'webhook-worker' });
  // The worker counts no requests: it needs no Redis.
  const runtime = await openRuntime(config, { redis: false, logger });
  const worker = await WebhookWorker.start(runtime.ctx, { logger });
  logger.info(
    {
      env: config.env,
      database: config.database.kind,
      timeoutMs: config.webhookTimeoutMs,
      attempts: config.webhookRetryScheduleMs.length,
    },
    'webhook worker started',
  );

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal, timeoutMs: config.shutdownTimeoutMs }, 'webhook worker stopping');
    const status = await shutDown({
      timeoutMs: config.shutdownTimeoutMs,
      drain: () => worker.stop(),
      cutOff: () => {
        logger.error(
          { timeoutMs: config.shutdownTimeoutMs, webhookAttemptsCutOff: worker.attemptsInFlight },
          'webhook worker: shutdown timed out; attempts cut off are retried after their lease expires',
        );
        // The database gets a few seconds to close before the process exits anyway.
        setTimeout(() => process.exit(1), 5000).unref();
      },
      close: () => runtime.close(),
      failed: (step, error) => logger.error({ err: error, step }, 'webhook worker: shutdown step failed'),
    });
    logger.info({ status }, 'webhook worker stopped');
    process.exit(status);
  };
  // A failed shutdown is logged and still ends the process, with status 1.
  const shutdownFailed = (error: unknown) => {
    logger.error({ err: error }, 'webhook worker: shutdown failed');
    process.exit(1);
  };
  process.on('SIGINT', () => runInBackground(shutdown('SIGINT'), shutdownFailed));
  process.on('SIGTERM', () => runInBackground(shutdown('SIGTERM'), shutdownFailed));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
