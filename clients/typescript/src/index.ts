import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import { Webhook } from 'standardwebhooks';
import type { components, paths } from './generated/openapi.js';

export type { components, operations, paths, webhooks } from './generated/openapi.js';
export { WebhookVerificationError } from 'standardwebhooks';

/** The named schemas of the document: `Schemas['MedicationOrderCreateRequest']`, `Schemas['Patient']`, … */
export type Schemas = components['schemas'];

export type OrderCreatedEvent = Schemas['OrderCreatedEvent'];
export type OrderFulfilledEvent = Schemas['OrderFulfilledEvent'];
export type OrderDeliveredEvent = Schemas['OrderDeliveredEvent'];
export type OrderCancelledEvent = Schemas['OrderCancelledEvent'];
export type RefillReadyEvent = Schemas['RefillReadyEvent'];
export type WebhookTestEvent = Schemas['WebhookTestEvent'];
/** Every event the server sends (the document's `webhooks`): narrow on `type`. */
export type WebhookEvent =
  OrderCreatedEvent | OrderFulfilledEvent | OrderDeliveredEvent | OrderCancelledEvent | RefillReadyEvent | WebhookTestEvent;
export type WebhookEventType = WebhookEvent['type'];

/** The typed client of the partner API (openapi-fetch): `client.POST('/api/external/patient', { body })`. */
export type PartnerClient = Client<paths>;

export interface PartnerClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** Where the server is, without a trailing path: `https://fulfillment.example.com`. */
  baseUrl: string;
  /** The clinic's key (`dev_…` on a development server, `prod_…` in production), sent as `x-api-key`. */
  apiKey: string;
}

/**
 * A client of the partner API: every request carries the key. Each call resolves with
 * `{ data, error, response }`: `data` is the typed success envelope, `error` the typed error envelope.
 */
export function createPartnerClient({ apiKey, ...options }: PartnerClientOptions): PartnerClient {
  const client = createClient<paths>(options);
  client.use({
    onRequest({ request }) {
      request.headers.set('x-api-key', apiKey);
      return request;
    },
  });
  return client;
}

/** Request headers as Node gives them (`request.headers`), as a plain record, or as fetch's `Headers`. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

const SIGNATURE_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

/**
 * Verifies a delivery with the endpoint's secret (`whsec_…`, returned when the webhook was created)
 * as the Standard Webhooks libraries do (signature, and a timestamp within 5 minutes of this clock),
 * and answers its typed event. `body` must be the raw body, exactly as received: verify before parsing.
 * Throws `WebhookVerificationError` when the delivery is not authentic: answer it 4xx.
 * Ignore (and answer 2xx to) a `type` you do not know: new event types may be added.
 */
export function verifyWebhook(secret: string, body: string | Buffer, headers: WebhookHeaders): WebhookEvent {
  const signed: Record<string, string> = {};
  for (const name of SIGNATURE_HEADERS) {
    const value = headers instanceof Headers ? headers.get(name) : headers[name];
    if (typeof value === 'string') signed[name] = value;
  }
  return new Webhook(secret).verify(body, signed) as WebhookEvent;
}
