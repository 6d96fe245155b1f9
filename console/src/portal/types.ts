/**
 * The portal API's answers (docs/portal.md), in one file until they are generated from the portal's
 * OpenAPI document (console/src/generated/portal.ts): swap them here, and every page follows.
 */

import type { Scope } from '../scopes';

export type PortalRole = 'developer' | 'viewer';
export type Environment = 'development' | 'production';

export interface PortalSession {
  partner_user_id: string;
  email: string;
  /** Null until the invitation is accepted (never for a signed-in user in practice). */
  name: string | null;
  role: PortalRole;
  clinic_id: string;
  clinic_name: string;
  environment: Environment;
  totp_enabled: boolean;
  idle_timeout_minutes: number;
}

export interface Invitation {
  email: string;
  clinic_name: string;
  role: PortalRole;
  expires_at: string;
}

export interface Overview {
  environment: Environment;
  clinic_id: string;
  clinic_name: string;
  rate_limit: { limit: number; used: number; resets_at: string };
  requests_24h: number;
  errors_24h: { code: string; count: number }[];
}

/** The operator's ApiKey view (src/clinics/clinic.schemas.ts): never the key itself. */
export interface ApiKey {
  api_key_id: string;
  environment: Environment;
  key_prefix: string;
  key_last4: string | null;
  /** Null: full access. */
  scopes: Scope[] | null;
  name?: string | null;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** A key just created or rolled: its secret, this once. */
export interface IssuedKey {
  api_key: ApiKey;
  secret: string;
  /** A roll: the rolled key, and when it stops working. */
  previous_key?: { api_key_id: string; expires_at: string | null };
}

export interface RequestLogEntry {
  id: string;
  occurred_at: string;
  method: string;
  route: string;
  status: number;
  duration_ms: number;
  request_id: string;
  api_key_id: string | null;
  oauth_client_id: string | null;
  idempotency_key: string | null;
  error_code: string | null;
  error_message: string | null;
}

export interface SandboxOrder {
  order_id: string;
  status: string;
  patient_reference?: string | null;
  created_at: string;
  tracking_number: string | null;
  next_statuses: string[];
}

export interface Endpoint {
  webhook_id: string;
  url: string;
  status: 'active' | 'disabled';
  max_in_flight: number;
  max_per_second: number | null;
  paused_until: string | null;
  failing_since: string | null;
  disabled_reason: string | null;
  created_at: string;
  previous_secret_expires_at: string | null;
}

/** An endpoint just created, or its secret rotated: the new signing secret, this once. */
export interface EndpointWithSecret {
  webhook: Endpoint;
  secret: string;
}

/** A test event's call, made at once: what the endpoint answered. */
export interface TestCallOutcome {
  webhook_id: string;
  delivery_id: string;
  event_id: string;
  event_type: 'webhook.test';
  delivered: boolean;
  status_code: number | null;
  attempted_at: string;
  duration_ms: number;
  error: 'timeout' | 'network_error' | 'refused' | null;
}

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'cancelled'] as const;

export interface Delivery {
  delivery_id: string;
  event_id: string;
  event_type: string;
  webhook_id: string;
  url: string;
  status: (typeof DELIVERY_STATUSES)[number];
  attempt_count: number;
  last_response_status: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
}

export interface DeliveryAttempt {
  attempted_at: string;
  response_status: number | null;
  duration_ms: number;
  error: string | null;
  throttled: boolean;
}

export interface DeliveryDetail extends Delivery {
  attempts: DeliveryAttempt[];
}

/** A person of a clinic with a portal account, as the operator routes show it. */
export interface PartnerUser {
  partner_user_id: string;
  clinic_id: string;
  email: string;
  name: string | null;
  role: PortalRole;
  status: 'invited' | 'active' | 'disabled';
  totp_enabled: boolean;
  created_at: string;
  activated_at: string | null;
  disabled_at: string | null;
}

export interface IssuedInvitation {
  partner_user: PartnerUser;
  invitation_url: string;
  expires_at: string;
}
