/** The operator API's webhook shapes, as the console reads them (src/webhooks/webhook.schemas.ts). */

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'cancelled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface Delivery {
  delivery_id: string;
  event_id: string;
  event_type: string;
  clinic_id: string;
  webhook_id: string;
  webhook_url: string;
  /** The order the event is about (null for a test call). */
  medication_request_id: string | null;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_response_status: number | null;
  last_error: string | null;
  delivered_at: string | null;
  created_at: string;
}

export interface Attempt {
  attempt_number: number;
  attempted_at: string;
  duration_ms: number;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
  /** The endpoint asked us to slow down (429, or 503 with Retry-After): not held against its health. */
  throttled: boolean;
}

export interface DeliveryDetail extends Delivery {
  body: string;
  attempts: Attempt[];
}

export interface Endpoint {
  webhook_id: string;
  clinic_id: string;
  webhook_url: string;
  status: 'active' | 'disabled';
  disabled_at: string | null;
  disabled_reason: string | null;
  failing_since: string | null;
  created_at: string;
  /** The partner's limits, across every worker: attempts at once, attempts started per second (null: none). */
  max_in_flight: number;
  max_per_second: number | null;
  /** Attempts are held until then (the endpoint answered 429, or 503 with Retry-After); null: not held. */
  paused_until: string | null;
}

/** The host of an endpoint's URL (with its port, if any): what tells two endpoints of one clinic apart at a glance. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
