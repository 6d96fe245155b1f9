/**
 * The portal API's answers, by operation id from the generated types (console/src/generated/portal.ts,
 * `npm run generate:client`), and the operator's portal-user answers (generated/operator.ts).
 *
 * The webhook and delivery shapes below are still written by hand from docs/portal.md: their routes
 * (branch pwebhooks) are not in the portal document yet. When they are, replace each with its
 * `PortalData<…>` and their calls' `apiCall<…>(` with `api(`; test/architecture/console-types.test.ts
 * will then flag the copies left.
 */
import type { OperatorData, PortalData } from '../api-types';
import type { AttemptRow } from '../components/attempts';

export type PortalSession = PortalData<'portalGetSession'>;
export type PortalRole = PortalSession['role'];
export type Environment = PortalSession['environment'];
export type Invitation = PortalData<'portalGetInvitation'>;
export type Overview = PortalData<'portalGetOverview'>;
/** The operator's ApiKey view: never the key itself. */
export type ApiKey = PortalData<'portalListApiKeys'>['api_keys'][number];
/** A key just created (its secret, this once). */
export type CreatedKey = PortalData<'portalCreateApiKey'>;
/** A key just rolled: its successor's secret, this once, and when the rolled key stops working. */
export type RolledKey = PortalData<'portalRollApiKey'>;
export type RequestLogPage = PortalData<'portalListRequests'>;
export type RequestLogEntry = RequestLogPage['items'][number];
export type SandboxOrderPage = PortalData<'portalListSandboxOrders'>;
export type SandboxOrder = SandboxOrderPage['items'][number];

/** A person of a clinic with a portal account, as the operator routes show it. */
export type PartnerUser = OperatorData<'listOperatorPartnerUsers'>['partner_users'][number];
export type IssuedInvitation = OperatorData<'inviteOperatorPartnerUser'>;

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

/** What the portal shows of an attempt (never the endpoint's response body). */
export type DeliveryAttempt = AttemptRow;

export interface DeliveryPage {
  items: Delivery[];
  next_cursor: string | null;
}

export interface DeliveryDetail extends Delivery {
  attempts: DeliveryAttempt[];
}
