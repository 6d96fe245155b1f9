/**
 * Row type of the idempotency keys (migration 005). Column conventions: see db/database.ts.
 * See docs/idempotency.md for what is stored and for how long.
 */

/** in_progress: a request holds the key and is running; completed: its response is stored for replay. */
/**
 * in_progress: claimed, nothing committed yet; executed: the request's change committed (marked in
 * the change's own transaction), its answer not stored yet; completed: the answer is stored.
 */
export type IdempotencyKeyState = 'in_progress' | 'executed' | 'completed';

export interface IdempotencyKeyTable {
  id: string;
  clinic_id: string;
  /** Method and route pattern: `POST /api/external/medication-order/:id/cancel`. */
  route: string;
  /** The partner's `Idempotency-Key`, as sent (1–255 printable ASCII characters). */
  idempotency_key: string;
  /** SHA-256 (hex) of the canonical request: path parameters and JSON body (request-fingerprint.ts). */
  request_hash: string;
  state: IdempotencyKeyState;
  /**
   * Token of the request that holds (or completed) the key: only that request may store its
   * response or release the key, so a request whose stale lock was taken over cannot overwrite
   * the newer holder's result.
   */
  lock_token: string;
  /** When the current holder claimed the key; an in_progress row older than the lock timeout may be taken over. */
  locked_at: string;
  /** The X-Request-Id of the request whose response is stored (the first one). */
  request_id: string;
  response_status: number | null;
  response_content_type: string | null;
  /**
   * The response body exactly as sent (JSON text), sealed with the data encryption key (bound to
   * the row's id): it may hold what the first answer held (ids, an order's medications, a webhook's
   * signing secret). Never logged; deleted with the row once it expires.
   */
  response_body: string | null;
  /** The id of the data encryption key response_body is sealed under. */
  response_key_id: string | null;
  created_at: string;
  /** created_at + 24 h: after this the key is free again, and the purge deletes the row. */
  expires_at: string;
}

export interface IdempotencyTables {
  idempotency_keys: IdempotencyKeyTable;
}
