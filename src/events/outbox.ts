import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { sql } from 'kysely';
import type { EventWriterContext } from '../context.js';
import type { Trx } from '../db/database.js';
import type { OutboxEventType } from './event-types.js';

/**
 * The PostgreSQL NOTIFY channel that wakes delivery workers in other processes. Migration 003's
 * trigger sends it when outbox events are committed; `OutboxTransaction.wakeWorkers` sends it for
 * other queue changes (an operator's retry). The payload is the schema, so that databases shared
 * by several schemas wake only their own workers.
 */
export const WAKEUP_CHANNEL = 'webhook_wakeup';

export interface NewOutboxEvent {
  clinicId: string;
  type: OutboxEventType;
  /** Ids and statuses only: this reaches partners' webhooks and must never hold PHI. */
  payload: Record<string, unknown>;
}

/**
 * A transaction that writes the outbox. Only `withOutbox` creates one, so an event can neither be
 * written outside the transaction of the change it reports, nor be committed without waking the
 * workers that deliver it.
 */
export interface OutboxTransaction {
  readonly trx: Trx;
  /** Writes an event: it exists if and only if this transaction commits. Returns its id. */
  readonly recordEvent: (createdAt: string, event: NewOutboxEvent) => Promise<string>;
  /** Wakes the delivery workers once this transaction commits (for changes to the delivery queue). */
  readonly wakeWorkers: () => Promise<void>;
}

/**
 * Runs `work` in one transaction and, once it has committed, wakes the delivery workers if it
 * recorded an event or asked for a wake-up: in this process through the OutboxNotifier, in others
 * through PostgreSQL NOTIFY (sent by the database at commit, never before). Nothing wakes when the
 * transaction fails.
 */
export async function withOutbox<T>(ctx: EventWriterContext, work: (tx: OutboxTransaction) => Promise<T>): Promise<T> {
  const wake = { requested: false };
  const result = await ctx.db.transaction().execute((trx) =>
    work({
      trx,
      recordEvent: async (createdAt, event) => {
        wake.requested = true;
        return insertEvent(trx, createdAt, event);
      },
      wakeWorkers: async () => {
        wake.requested = true;
        if (ctx.dialect === 'postgres') await sql`select pg_notify(${WAKEUP_CHANNEL}, current_schema())`.execute(trx);
      },
    }),
  );
  if (wake.requested) ctx.outbox.notify();
  return result;
}

async function insertEvent(trx: Trx, createdAt: string, event: NewOutboxEvent): Promise<string> {
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
 * instead of on the next poll. Workers in other processes rely on PostgreSQL LISTEN/NOTIFY
 * (webhooks/wakeup.ts) or their own polling.
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
