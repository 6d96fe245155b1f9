/**
 * The portal API's answers, by operation id from the generated types (console/src/generated/portal.ts,
 * `npm run generate:client`), and the operator's portal-user answers (generated/operator.ts): no
 * shape is written by hand.
 */
import type { Check, ListsAll, OperatorData, PortalBody, PortalData } from '../api-types';

export type PortalSession = PortalData<'portalGetSession'>;
export type PortalRole = PortalSession['role'];
export type Environment = PortalSession['environment'];
export type Invitation = PortalData<'portalGetInvitation'>;
/** The operator's ApiKey view: never the key itself. */
export type ApiKey = PortalData<'portalListApiKeys'>['api_keys'][number];
/** A key just created (its secret, this once). */
export type CreatedKey = PortalData<'portalCreateApiKey'>;
/** A key just rolled: its successor's secret, this once, and when the rolled key stops working. */
export type RolledKey = PortalData<'portalRollApiKey'>;
/** One order of the clinic, as the partner API reads it (GET /api/portal/orders/{orderId}). */
export type PortalOrder = PortalData<'portalGetOrder'>;
export type SandboxOrder = PortalData<'portalListSandboxOrders'>['items'][number];
/** The sandbox's hold of an order, as the pharmacy's. */
export type SandboxHoldBody = PortalBody<'portalHoldSandboxOrder'>;

/** An order of the clinic on hold, with what resolves it and the hold's conversation ("Needs your answer"). */
export type HeldOrder = PortalData<'portalListHolds'>['items'][number];
/** A portal user's answer to a hold, and what it left. */
export type HoldAnswerBody = PortalBody<'portalAnswerHold'>;
export type HoldAnswer = PortalData<'portalAnswerHold'>;
/** A reason of the catalog the pharmacy puts orders on hold with. */
export type HoldReason = PortalData<'portalListHoldReasons'>[number];

/** A person of a clinic with a portal account, as the operator routes show it. */
export type PartnerUser = OperatorData<'listOperatorPartnerUsers'>['partner_users'][number];
export type IssuedInvitation = OperatorData<'inviteOperatorPartnerUser'>;

export type Endpoint = PortalData<'portalListWebhooks'>['webhooks'][number];
/** An endpoint just created, or its secret rotated: the new signing secret, this once. */
export type EndpointWithSecret = PortalData<'portalCreateWebhook'>;
/** A test event's call, made at once: what the endpoint answered. */
export type TestCallOutcome = PortalData<'portalTestWebhook'>;

export type Delivery = PortalData<'portalListWebhookDeliveries'>['items'][number];

/** The statuses a delivery filter offers: every one the API has (checked). */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'cancelled'] as const satisfies readonly Delivery['status'][];
export type DeliveryStatusesListed = Check<ListsAll<Delivery['status'], typeof DELIVERY_STATUSES>>;
