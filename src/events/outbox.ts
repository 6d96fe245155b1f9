import { EventEmitter } from 'node:events';
import type { EventWriterContext } from '../context.js';
import type { DbOrTrx, Trx } from '../db/database.js';
import { notifyAtCommit } from '../db/dialect.js';
import { writeTogether, type Write } from '../db/write-together.js';
import { newId } from '../shared/ids.js';
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
        await notifyAtCommit(trx, ctx.dialect, WAKEUP_CHANNEL);
      },
    }),
  );
  if (wake.requested) ctx.outbox.notify();
  return result;
}

/**
 * Writes rows and events that read nothing from one another, all or nothing (one statement on
 * PostgreSQL: db/write-together.ts), then wakes the delivery workers as withOutbox does. `within`
 * runs in the same transaction when given (an Idempotency-Key's record).
 */
export async function writeWithEvents(
  ctx: EventWriterContext,
  change: { writes: (handle: DbOrTrx) => Write[]; events: { createdAt: string; event: NewOutboxEvent }[] },
  within?: (trx: Trx) => Promise<void>,
): Promise<void> {
  await writeTogether(
    ctx.db,
    ctx.dialect,
    (handle) => [
      ...change.writes(handle),
      ...change.events.map(({ createdAt, event }) => eventInsert(handle, createdAt, event).write),
    ],
    within,
  );
  if (change.events.length > 0) ctx.outbox.notify();
}

async function insertEvent(trx: Trx, createdAt: string, event: NewOutboxEvent): Promise<string> {
  const { id, write } = eventInsert(trx, createdAt, event);
  await trx.executeQuery(write.compile());
  return id;
}

function eventInsert(handle: DbOrTrx, createdAt: string, event: NewOutboxEvent): { id: string; write: Write } {
  const id = newId();
  const write = handle.insertInto('outbox_events').values({
    id,
    clinic_id: event.clinicId,
    type: event.type,
    payload: JSON.stringify(event.payload),
    created_at: createdAt,
    dispatched_at: null,
  });
  return { id, write };
}

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
