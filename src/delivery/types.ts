import type { FastifyBaseLogger } from 'fastify';
import type { DeliveryStatus, WebhookDeliveryTable, WebhookEndpointTable } from './webhook.tables.js';

/**
 * The delivery engine's shared types, at the bottom of its layers (test/architecture/delivery-engine.test.ts):
 * what the sender answers, what the queue hands a worker, what a lane asks of a look and what a look
 * gives back, and what an attempt left to record. Every module of src/delivery/ takes its types from
 * here, never from a service.
 */

/**
 * What became of one attempt, in a fixed vocabulary (metrics label, and all the partner's test call
 * reveals of a failure without a status): a 2xx; another status; no answer within the timeout; a
 * connection, TLS or DNS failure; or not sent at all because the target is not allowed (SSRF).
 */
export type SendOutcomeKind = 'success' | 'http_error' | 'timeout' | 'network_error' | 'refused';

/** The outcome of one POST to a partner's endpoint. */
export interface SendOutcome {
  /** A 2xx was received within the timeout. */
  ok: boolean;
  kind: SendOutcomeKind;
  /** The HTTP status, or null when none was received (network error, timeout, refusal). */
  statusCode: number | null;
  durationMs: number;
  /** The first RESPONSE_EXCERPT_BYTES of the response body. */
  responseBody: string | null;
  /** Why no status was received. */
  error: string | null;
  /** The answer's Retry-After header as received (null when none): see throttle.ts. */
  retryAfter: string | null;
}

export interface SendRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface WebhookSender {
  send(request: SendRequest): Promise<SendOutcome>;
  close(): Promise<void>;
}

/**
 * What a worker needs of an endpoint it owns; the secrets come with it (the previous one too, while a
 * rotation's window lasts), so that signing costs no query of its own.
 */
export type LaneEndpoint = Pick<
  WebhookEndpointTable,
  | 'id'
  | 'url'
  | 'secret'
  | 'secret_key_id'
  | 'previous_secret'
  | 'previous_secret_key_id'
  | 'previous_secret_expires_at'
  | 'status'
  | 'deleted_at'
  | 'max_in_flight'
  | 'max_per_second'
  | 'failing_since'
>;

/**
 * A delivery taken from an endpoint's queue: the taker's while it owns the endpoint (or, as a
 * backstop, until the delivery's own lease ends).
 */
export type TakenDelivery = Pick<
  WebhookDeliveryTable,
  'id' | 'event_id' | 'endpoint_id' | 'body' | 'attempt_count' | 'created_at'
>;

/** A delivery's new state after an attempt, written only while the attempt's lease (`claim_token`) holds. */
export type DeliveryOutcomeRow = Pick<
  WebhookDeliveryTable,
  | 'id'
  | 'claim_token'
  | 'status'
  | 'attempt_count'
  | 'next_attempt_at'
  | 'last_attempt_at'
  | 'last_response_status'
  | 'last_error'
  | 'delivered_at'
  | 'updated_at'
>;

/** A delivery a worker holds the lease on. */
export interface ClaimedDelivery extends TakenDelivery {
  /** The lease's token: the outcome is recorded only while the lease is still ours. */
  token: string;
  /**
   * The last moment (ms) an attempt may start and still end, timed out at worst, within the lease:
   * one not started by then is left to be taken again when its lease ends, never sent twice.
   */
  startBy: number;
}

/** An attempt made (or refused before sending), waiting to be recorded. */
export interface FinishedAttempt {
  delivery: ClaimedDelivery;
  attemptedAt: Date;
  outcome: SendOutcome;
  /** false: a failure on our side (the secret cannot be decrypted), not held against the endpoint. */
  endpointAtFault: boolean;
}

/** One attempt as recorded, reported to the worker's listeners. */
export interface RecordedAttempt {
  deliveryId: string;
  eventId: string;
  endpointId: string;
  attemptNumber: number;
  outcome: SendOutcome;
  /** The delivery's status after this attempt (null when the lease had been taken over meanwhile). */
  status: DeliveryStatus | null;
  nextAttemptAt: string | null;
  /** The receiver asked us to slow down: its endpoint is held until `pausedUntil`. */
  throttled: boolean;
  pausedUntil: string | null;
  endpointDisabled: boolean;
  /** Set when the attempt was not sent because the endpoint's secret cannot be decrypted (the reason). */
  secretUnavailable?: string;
}

/** What the worker asks of one endpoint it owns. */
export interface LaneRequest {
  endpointId: string;
  /** How many more of its due deliveries to take now. */
  want: number;
  /** Deliveries taken but not to be sent (the endpoint paused, the worker stopping): due again at once. */
  handBack: readonly string[];
  /** Give the endpoint up: `idle` if nothing more is taken (the worker has nothing of it left). */
  release: 'no' | 'idle' | 'now';
  /** The endpoint was healthy (no failure streak) at the last look: a success need not say so again. */
  healthy: boolean;
}

export interface ExchangeRequest {
  /** The worker's token: its leases on endpoints and deliveries. */
  token: string;
  /**
   * How long a lease lasts: on an endpoint (renewed at every exchange), which covers the deliveries
   * taken of it; on a taken delivery, a backstop only (claimEndpoints).
   */
  endpointLeaseMs: number;
  deliveryLeaseMs: number;
  finished: readonly FinishedAttempt[];
  lanes: readonly LaneRequest[];
  /** How many endpoints with work waiting to take on, and how many deliveries to take of each. */
  newLanes: number;
  wantOf: (endpoint: LaneEndpoint) => number;
  /** Whether to fan out outbox events in this exchange. */
  fanOut: boolean;
}

export interface LaneUpdate {
  /** The endpoint as it is now, or null: no longer ours (lease lost, or given up). */
  endpoint: LaneEndpoint | null;
  taken: ClaimedDelivery[];
}

export interface ExchangeResult {
  recorded: RecordedAttempt[];
  lanes: Map<string, LaneUpdate>;
  claimed: { endpoint: LaneEndpoint; taken: ClaimedDelivery[] }[];
  /** Events fanned out: a full batch means more may be waiting. */
  fannedOut: number;
  /** Endpoints their receiver paused in this exchange, until when. */
  paused: Map<string, string>;
  /** Deliveries taken back from workers whose lease on their endpoint ended (claimEndpoints). */
  takenOver: number;
}

export type WorkerLogger = Pick<FastifyBaseLogger, 'debug' | 'info' | 'warn' | 'error'>;
