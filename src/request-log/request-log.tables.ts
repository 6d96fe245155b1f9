/** Row types of the request log (migrations 015 and 020). Column conventions: see db/database.ts. */

/** One answered request of an authenticated partner: its metadata, never its content. */
export interface RequestLogTable {
  /**
   * The key: the server's request id (X-Request-Id, `error.request_id`), a UUIDv7 of the request's
   * arrival (http/request-id.ts), so that the key orders and dates the rows (the purge deletes by it).
   */
  request_id: string;
  clinic_id: string;
  /** When the answer was sent (ISO-8601 UTC). */
  occurred_at: string;
  method: string;
  /** The route template (`/api/external/medication-order/:id`), never the URL; `unmatched` for a 404 of no route. */
  route: string;
  status: number;
  /** Whole milliseconds from receiving the request to sending its answer. */
  duration_ms: number;
  api_key_id: string | null;
  oauth_client_id: string | null;
  /** The Idempotency-Key sent with a POST (at most 255 printable ASCII characters, checked before it is kept). */
  idempotency_key: string | null;
  error_code: string | null;
  /** A message safe to keep (request-log-entry.ts): never text the request sent. */
  error_message: string | null;
}

export interface RequestLogTables {
  request_log: RequestLogTable;
}
