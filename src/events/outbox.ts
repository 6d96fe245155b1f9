import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Trx } from '../db/database.js';
import type { OutboxEventType } from './event-types.js';

export interface NewOutboxEvent {
  clinicId: string;
  type: OutboxEventType;
  /** Ids and statuses only: this reaches partners' webhooks and must never hold PHI. */
  payload: Record<string, unknown>;
}

/**
 * Writes an event to the outbox. Takes a Transaction so that it cannot be called outside one:
 * the event exists if and only if the change it reports was committed.
 * After the transaction commits, call `OutboxNotifier.notify()` so the delivery worker wakes.
 */
export async function recordEvent(trx: Trx, createdAt: string, event: NewOutboxEvent): Promise<string> {
  const id = randomUUID();
  await trx
    .insertInto('outbox_events')
    .values({
      id,
      clinic_id: event.clinicId,
      type: event.type,
      payload: JSON.stringify(event.payload),
      created_at: createdAt,
      dispatched_at: null,
    })
    .execute();
  return id;
}

/**
 * In-process wake-up for the delivery worker, so that an event reaches its receivers promptly
 * instead of on the next poll. Workers in other processes rely on their own (PostgreSQL
 * LISTEN/NOTIFY or polling) mechanism.
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
