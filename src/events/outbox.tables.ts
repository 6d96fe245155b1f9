/** Row type of the transactional outbox (migration 001). Column conventions: see db/database.ts. */

/** Written in the same transaction as the change it reports. */
export interface OutboxEventTable {
  id: string;
  clinic_id: string;
  type: string;
  /** JSON object: ids and statuses only, never PHI. */
  payload: string;
  created_at: string;
  /** When the event was fanned out to webhook deliveries (null until then). */
  dispatched_at: string | null;
}

export interface OutboxTables {
  outbox_events: OutboxEventTable;
}
