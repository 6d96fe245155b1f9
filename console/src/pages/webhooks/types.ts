/** The operator API's webhook shapes (src/webhooks/webhook.schemas.ts), as generated from its OpenAPI document. */
import type { Check, ListsAll, OperatorData } from '../../api-types';

export type Delivery = OperatorData<'listOperatorWebhookDeliveries'>['items'][number];
export type DeliveryStatus = Delivery['status'];

/** The statuses, in the order the filter offers them: each one the API names, once (checked below). */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'cancelled'] as const satisfies readonly DeliveryStatus[];
export type DeliveryStatusesListed = Check<ListsAll<DeliveryStatus, typeof DELIVERY_STATUSES>>;

/** A delivery with the body it sends and every attempt (`throttled`: the endpoint asked us to slow down). */
export type DeliveryDetail = OperatorData<'getOperatorWebhookDelivery'>;
export type Attempt = DeliveryDetail['attempts'][number];

/** An endpoint as the operator lists it, with its limits and whether its attempts are held (`paused_until`). */
export type Endpoint = OperatorData<'listOperatorWebhookEndpoints'>['endpoints'][number];

/** The host of an endpoint's URL (with its port, if any): what tells two endpoints of one clinic apart at a glance. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
