import type { RecordedAttempt, WorkerLogger } from './types.js';

export const silentLogger: WorkerLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/**
 * The worker's line for a recorded attempt: a success at debug (the delivery log in the database
 * holds every attempt; a line each would cost more than the attempt at a few thousand a second), a
 * failure at warn, an unreadable secret at error (our configuration, not the partner's: the operator
 * must restore the key, docs/webhooks.md). Ids only: no payload, no PHI.
 */
export function logAttempt(log: WorkerLogger, attempt: RecordedAttempt): void {
  const fields = {
    deliveryId: attempt.deliveryId,
    endpointId: attempt.endpointId,
    attempt: attempt.attemptNumber,
    status: attempt.status,
  };
  if (attempt.outcome.ok) log.debug(fields, 'webhook delivered');
  else if (attempt.secretUnavailable !== undefined)
    log.error({ ...fields, error: attempt.secretUnavailable }, 'webhook not sent: its signing secret cannot be decrypted');
  else
    log.warn(
      { ...fields, statusCode: attempt.outcome.statusCode, error: attempt.outcome.error, throttled: attempt.throttled },
      'webhook attempt failed',
    );
  if (attempt.endpointDisabled) log.warn({ endpointId: attempt.endpointId }, 'webhook endpoint disabled');
}

/** Who hears of recorded attempts (metrics, tests): a listener that throws is logged, never felt by the worker. */
export class AttemptListeners {
  private readonly listeners = new Set<(attempt: RecordedAttempt) => void>();

  constructor(private readonly log: WorkerLogger) {}

  /** Adds a listener; returns the function that removes it. */
  add(listener: (attempt: RecordedAttempt) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Logs the attempt and tells every listener. */
  report(attempt: RecordedAttempt): void {
    logAttempt(this.log, attempt);
    for (const listener of [...this.listeners]) {
      try {
        listener(attempt);
      } catch (error) {
        this.log.error({ err: error, deliveryId: attempt.deliveryId }, 'webhook worker: attempt listener failed');
      }
    }
  }
}
