import type { AppContext } from '../context.js';
import { AppError, unauthorized } from '../errors.js';
import { applyCarrierTracking, type CarrierTrackingOutcome } from './carrier-tracking.service.js';
import { readEasyPostEvent } from './easypost-event.js';
import { isEasyPostSignature } from './easypost-signature.js';

/** What the receiver did with an Event: `ignored` (not tracker.updated), or the carrier tracking's outcome. */
export type EasyPostOutcome = CarrierTrackingOutcome | 'ignored';

/** An Event received: its id, the outcome, and what the log line says of it (no PHI). */
export interface EasyPostReceipt {
  eventId: string;
  outcome: EasyPostOutcome;
  log: Record<string, unknown>;
}

/** A signed body as the route hands it: its bytes, its X-Hmac-Signature, and the edge's JSON reading of bytes. */
export interface SignedBody {
  raw: Buffer;
  signature: string | string[] | undefined;
  /** http/json-body.ts parseJsonBytes: undefined when blank, a 400 naming the field for bytes that are not JSON. */
  parse: (raw: Buffer) => unknown;
}

/**
 * Receives one EasyPost Event (docs/shipping.md#the-easypost-receiver): the raw body is checked
 * against its X-Hmac-Signature under EASYPOST_WEBHOOK_SECRET before anything is parsed (503 when
 * the secret is not set, 401 for a missing or wrong signature), then read (400 naming the field),
 * and a tracker.updated Event is applied to the shipment with its tracking number (carrier
 * tracking). Another Event is ignored.
 */
export async function receiveEasyPostEvent(
  ctx: Pick<AppContext, 'db' | 'dialect' | 'clock' | 'config' | 'outbox'>,
  { raw, signature, parse }: SignedBody,
): Promise<EasyPostReceipt> {
  const secret = ctx.config.easyPostWebhookSecret;
  if (secret === null) {
    throw new AppError(
      'SERVICE_UNAVAILABLE',
      503,
      'The EasyPost receiver is not configured on this server: set EASYPOST_WEBHOOK_SECRET to the webhook\u2019s secret',
    );
  }
  if (signature === undefined) throw unauthorized('the X-Hmac-Signature header is missing');
  if (!isEasyPostSignature(raw, signature, secret)) {
    throw unauthorized('X-Hmac-Signature is not the signature of this body under EASYPOST_WEBHOOK_SECRET');
  }
  const body = parse(raw);
  if (body === undefined)
    throw new AppError('VALIDATION_ERROR', 400, 'Validation failed: body is required', { body: 'is required' });
  const event = readEasyPostEvent(body);
  if (event.kind === 'ignored') {
    return {
      eventId: event.eventId,
      outcome: 'ignored',
      log: { carrier: 'easypost', eventId: event.eventId, outcome: 'ignored' },
    };
  }
  const outcome = await applyCarrierTracking(ctx, event.tracking);
  // No PHI: the Event's id (EasyPost's dashboard finds it) and the tracking number's last four characters.
  const log = {
    carrier: 'easypost',
    eventId: event.eventId,
    tracking: `\u2026${event.tracking.tracking_number.slice(-4)}`,
    scans: event.tracking.events.length,
    skipped: event.skipped,
    outcome,
  };
  return { eventId: event.eventId, outcome, log };
}
