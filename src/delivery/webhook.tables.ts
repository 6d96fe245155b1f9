/**
 * Row types of the webhook tables, after Svix's model: an endpoint per registration, a delivery
 * per (event, endpoint) with its status and next attempt, and one row per attempt.
 * Conventions as in db/database.ts (text ids and ISO timestamps, JSON as text).
 */

export type EndpointStatus = 'active' | 'disabled';

export interface WebhookEndpointTable {
  id: string;
  clinic_id: string;
  /** Normalized absolute URL (`new URL(...).href`, without fragment). */
  url: string;
  /**
   * The Standard Webhooks signing secret (`whsec_` + base64), encrypted (src/webhooks/endpoint-secret.ts):
   * every delivery is signed with it, so it must be recoverable (a shared HMAC key, not a password);
   * never returned after registration, never logged. See docs/webhooks.md, "How the secret is protected".
   */
  secret: string;
  /** The id of the data key `secret` is encrypted under; null: a plaintext secret from before encryption. */
  secret_key_id: string | null;
  /**
   * The secret before the last rotation (encrypted as `secret` is, under `previous_secret_key_id`):
   * it signs beside `secret` until `previous_secret_expires_at` (at most 24 hours after the rotation).
   */
  previous_secret: string | null;
  previous_secret_key_id: string | null;
  previous_secret_expires_at: string | null;
  status: EndpointStatus;
  /** First failed attempt since the last success (null while healthy): drives the 5-day disabling. */
  failing_since: string | null;
  disabled_at: string | null;
  disabled_reason: string | null;
  created_at: string;
  /** Soft delete: the delivery log keeps pointing at the endpoint. */
  deleted_at: string | null;
  /** The partner's limit of attempts in flight at once to this endpoint, across every worker (1–50). */
  max_in_flight: number;
  /** The partner's limit of attempts started per second (null: none). */
  max_per_second: number | null;
  /** The event types the endpoint receives, a JSON array (migration 029); null: every type, including later ones. */
  event_types: string | null;
  /**
   * The earliest time this endpoint may have a delivery to attempt: never later than the truth (a
   * hint that may be early), null when nothing is pending. While a worker owns the endpoint, its lease's end.
   */
  next_due_at: string | null;
  /** The receiver asked us to wait (429 or 503 with Retry-After): no attempt before this time. */
  paused_until: string | null;
  /** The worker that owns the endpoint's queue (its token), and until when. */
  lease_token: string | null;
  leased_until: string | null;
}

/**
 * pending: waiting for its next attempt (or being attempted, while `claimed_until` is in the future);
 * delivered: a 2xx was received; failed: attempts exhausted, or the endpoint was disabled;
 * cancelled: the endpoint was deleted.
 */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'cancelled';

export interface WebhookDeliveryTable {
  id: string;
  /** The outbox event id, sent as `webhook-id` (a fresh id for a test call). */
  event_id: string;
  event_type: string;
  clinic_id: string;
  endpoint_id: string;
  /** The exact JSON bytes sent on every attempt, serialized once at fan-out. */
  body: string;
  status: DeliveryStatus;
  attempt_count: number;
  /** When the next attempt is due (null once final); while leased, when the lease ends. */
  next_attempt_at: string | null;
  /** Lease of the worker attempting it: nobody else attempts it before this time. */
  claimed_until: string | null;
  claim_token: string | null;
  last_attempt_at: string | null;
  last_response_status: number | null;
  last_error: string | null;
  delivered_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookDeliveryAttemptTable {
  id: string;
  delivery_id: string;
  endpoint_id: string;
  event_id: string;
  attempt_number: number;
  attempted_at: string;
  duration_ms: number;
  response_status: number | null;
  /** The first 1 KiB of the response body. */
  response_body: string | null;
  /** Network error, timeout or refusal (SSRF), when no HTTP status was received. */
  error: string | null;
  /** 1 when the receiver asked us to slow down (429, or 503 with Retry-After): not held against its health. */
  throttled: number;
}

export interface WebhookTables {
  webhook_endpoints: WebhookEndpointTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_delivery_attempts: WebhookDeliveryAttemptTable;
}
