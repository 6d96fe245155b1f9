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
  /**
   * The clinic's key (`dev_…` on a development server, `prod_…` in production), sent as `x-api-key`.
   * Give either it or `oauth`.
   */
  apiKey?: string;
  /**
   * An OAuth 2.0 client (client credentials, docs/oauth.md) instead of a key: the client asks
   * `POST /oauth/token` for an access token (HTTP Basic), sends it as `Authorization: Bearer`, and
   * asks for a new one a minute before it expires; after a 401 (a revoked or rotated client, a
   * restarted clock) the next request asks for a new one.
   */
  oauth?: OAuthClientCredentials;
  /**
   * The API version to pin, sent as `Api-Version` on every request (`1.5.0`, `1.4.0`, `1.3.0`, `1.2.0`, `1.1.0`,
   * `1.0.0`, or `1` for the newest 1.x); without it the server's newest answers. Each response names
   * the version that answered. The FHIR routes (`/fhir/R4/…`) ignore it: FHIR's version is in their path.
   */
  apiVersion?: string;
}

export interface OAuthClientCredentials {
  clientId: string;
  clientSecret: string;
  /** Fewer scopes than the client has, space-separated (`orders:read carriers:read`); all of them by default. */
  scope?: string;
}

/**
 * A client of the partner API: every request carries the key (or an access token). Each call
 * resolves with `{ data, error, response }`: `data` is the typed success envelope, `error` the
 * typed error envelope.
 */
export function createPartnerClient({ apiKey, oauth, apiVersion, ...options }: PartnerClientOptions): PartnerClient {
  if ((apiKey === undefined) === (oauth === undefined)) throw new Error('createPartnerClient: give either apiKey or oauth');
  const client = createClient<paths>(options);
  const tokens = oauth
    ? new AccessTokens(options.baseUrl, oauth, options.fetch ?? ((request: Request) => globalThis.fetch(request)))
    : undefined;
  client.use({
    async onRequest({ request }) {
      if (tokens) request.headers.set('authorization', `Bearer ${await tokens.current()}`);
      else if (apiKey !== undefined) request.headers.set('x-api-key', apiKey);
      if (apiVersion !== undefined) request.headers.set('Api-Version', apiVersion);
      return request;
    },
    onResponse({ response }) {
      if (tokens && response.status === 401) tokens.forget();
      return response;
    },
  });
  return client;
}

/** The access token of an OAuth client, asked for when there is none or it is about to expire. */
class AccessTokens {
  private token: { value: string; renewAt: number } | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly baseUrl: string,
    private readonly credentials: OAuthClientCredentials,
    private readonly fetcher: (request: Request) => Promise<Response>,
  ) {}

  forget(): void {
    this.token = undefined;
  }

  current(): Promise<string> {
    if (this.token && Date.now() < this.token.renewAt) return Promise.resolve(this.token.value);
    // Requests made together share one token request.
    this.pending ??= this.fetchToken().finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async fetchToken(): Promise<string> {
    const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
    const { clientId, clientSecret, scope } = this.credentials;
    const form = new URLSearchParams({ grant_type: 'client_credentials', ...(scope ? { scope } : {}) });
    const request = new Request(new URL('/oauth/token', this.baseUrl), {
      method: 'POST',
      headers: {
        authorization: `Basic ${btoa(`${encode(clientId)}:${encode(clientSecret)}`)}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: form.toString(),
    });
    const response = await this.fetcher(request);
    const body = (await response.json()) as {
      access_token?: string;
      expires_in?: number;
      error?: string;
      error_description?: string;
    };
    if (!response.ok || body.access_token === undefined) {
      throw new Error(
        `OAuth token request refused (${response.status}): ${body.error ?? 'error'}: ${body.error_description ?? ''}`,
      );
    }
    // Renewed a minute early, so that a token never expires on its way to the server.
    const lifetimeMs = Math.max(0, ((body.expires_in ?? 0) - 60) * 1000);
    this.token = { value: body.access_token, renewAt: Date.now() + lifetimeMs };
    return body.access_token;
  }
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
