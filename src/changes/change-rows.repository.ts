import { insertRows } from '../db/row-insert.js';
import type { Write, WriteTarget } from '../db/write.js';
import type { NewOutboxEvent } from '../events/event-types.js';
import type { Claim } from '../idempotency/claim.js';

/*
 * The rows every change may carry besides its own: its audit rows, its outbox events and its
 * idempotency mark (its audit rows: audit.repository.ts `auditInserts`). Only run-change.ts imports this file (the lint rule in eslint.config.js says
 * so), which is what makes an event or a change's audit row outside a change impossible.
 */

/** One INSERT of a change's events (ids chosen by the change). */
export function eventInsert(change: WriteTarget, events: { id: string; createdAt: string; event: NewOutboxEvent }[]): Write {
  return insertRows(
    change.statements,
    'outbox_events',
    events.map(({ id, createdAt, event }) => ({
      id,
      clinic_id: event.clinicId,
      type: event.type,
      payload: JSON.stringify(event.payload),
      created_at: createdAt,
      dispatched_at: null,
    })),
  );
}

/**
 * Marks the request's Idempotency-Key carried out, with its change: a retry after a lost answer is
 * refused rather than run twice (docs/idempotency.md). Only while this request still holds it.
 */
export function keyExecutedWrite(change: WriteTarget, claim: Claim): Write {
  return change.statements
    .updateTable('idempotency_keys')
    .set({ state: 'executed' })
    .where('id', '=', claim.id)
    .where('lock_token', '=', claim.token)
    .where('state', 'in', ['in_progress', 'executed']);
}
