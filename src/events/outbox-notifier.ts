import { EventEmitter } from 'node:events';

/**
 * The PostgreSQL NOTIFY channel that wakes delivery workers in other processes. Migration 003's
 * trigger sends it when outbox events are committed; a change that asks to wake the workers
 * (`wakeWorkers`: an operator's retry) sends it itself. The payload is the schema, so that
 * databases shared by several schemas wake only their own workers.
 */
export const WAKEUP_CHANNEL = 'webhook_wakeup';

/**
 * In-process wake-up for the delivery worker, so that an event reaches its receivers promptly
 * instead of on the next poll. Workers in other processes rely on PostgreSQL LISTEN/NOTIFY
 * (db/notifications.ts) or their own polling.
 */
export class OutboxNotifier {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(100);
  }

  notify(): void {
    this.emitter.emit('event');
  }

  subscribe(listener: () => void): () => void {
    this.emitter.on('event', listener);
    return () => this.emitter.off('event', listener);
  }
}
