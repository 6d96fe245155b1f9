import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { AppError, unauthorized } from '../errors.js';
import { Envelope, errorRef } from '../contracts/schemas.js';
import { toAppError } from '../contracts/error-handler.js';
import { parseJsonBytes } from '../http/json-body.js';
import type { applyCarrierTracking } from './shipment-journey.service.js';
import { readEasyPostEvent } from './easypost-event.js';
import { EASYPOST_SIGNATURE_HEADER, isEasyPostSignature } from './easypost-signature.js';

/** An Event is one Tracker with its scans: EasyPost's are a few KiB; 256 KiB holds hundreds of scans. */
export const EASYPOST_BODY_LIMIT_BYTES = 256 * 1024;

export const EASYPOST_EVENTS_PATH = '/api/carrier-events/easypost';

/** The shipments' entry point for a carrier's update (orders/shipment-journey.service.ts), given by routes.ts. */
export type ApplyCarrierTracking = typeof applyCarrierTracking;

const Received = Type.Object(
  {
    event_id: Type.String({ description: 'The Event\u2019s `id` (`evt_…`).' }),
    outcome: Type.Union([Type.Literal('applied'), Type.Literal('unchanged'), Type.Literal('ignored')], {
      description:
        '`applied`: the shipment\u2019s journey changed; `unchanged`: nothing new (a replayed Event, scans already recorded, a delivered shipment); `ignored`: an Event other than tracker.updated.',
    }),
  },
  { additionalProperties: false },
);
const Unmatched = Type.Object(
  {
    event_id: Type.String(),
    outcome: Type.Literal('unknown_tracking_number'),
  },
  { additionalProperties: false },
);

/** The body as documented: what the receiver reads of an EasyPost Event (any other field is allowed and ignored). */
const EventBody = Type.Object(
  {
    id: Type.String({ description: 'The Event\u2019s id, `evt_…`.', examples: ['evt_9f1c2a7b44d04ea1b3c5d6e7f8a9b0c1'] }),
    description: Type.String({ description: 'The Event type: `tracker.updated` is read, any other is ignored (200).' }),
    result: Type.Optional(
      Type.Object(
        {
          tracking_code: Type.String({ description: 'Matched to a shipment\u2019s tracking number.' }),
          status: Type.Optional(Type.String()),
          est_delivery_date: Type.Optional(Type.Union([Type.String(), Type.Null()])),
          tracking_details: Type.Optional(
            Type.Array(
              Type.Object({
                status: Type.String({ description: 'Mapped onto the shipment statuses (docs/shipping.md).' }),
                message: Type.Optional(Type.Union([Type.String(), Type.Null()])),
                datetime: Type.String({ format: 'date-time' }),
                tracking_location: Type.Optional(
                  Type.Object({
                    city: Type.Optional(Type.Union([Type.String(), Type.Null()])),
                    state: Type.Optional(Type.Union([Type.String(), Type.Null()])),
                    country: Type.Optional(Type.Union([Type.String(), Type.Null()])),
                    zip: Type.Optional(Type.Union([Type.String(), Type.Null()])),
                  }),
                ),
              }),
            ),
          ),
        },
        { description: 'The Tracker (tracker.updated).' },
      ),
    ),
  },
  { description: 'An EasyPost Event, signed in X-Hmac-Signature. Read as sent: its raw bytes are checked before it is parsed.' },
);

/**
 * POST /api/carrier-events/easypost: EasyPost's tracker.updated webhook (docs/shipping.md#the-easypost-receiver).
 * No API key: the body's HMAC (X-Hmac-Signature, EASYPOST_WEBHOOK_SECRET) is its credential, checked
 * on the raw bytes before anything is parsed; in a plugin context of its own, whose JSON parser keeps
 * those bytes and whose body limit is 256 KiB.
 */
export function easyPostRoutes(ctx: AppContext, apply: ApplyCarrierTracking): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: EASYPOST_BODY_LIMIT_BYTES }, (_r, body, done) =>
      done(null, body),
    );
    app.setErrorHandler((error) => {
      // The app's handler says 1 MiB; this route's limit is its own. Anything else: the app's handler.
      if ((error as { code?: string }).code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
        throw new AppError('PAYLOAD_TOO_LARGE', 413, 'Payload too large: EasyPost Events are limited to 256 KiB');
      }
      throw toAppError(error);
    });

    app.post(
      EASYPOST_EVENTS_PATH,
      {
        bodyLimit: EASYPOST_BODY_LIMIT_BYTES,
        // The body is the raw bytes until the signature is checked: it is read by readEasyPostEvent, not a validator.
        validatorCompiler: () => (data: unknown) => ({ value: data }),
        schema: {
          tags: ['Carrier events'],
          operationId: 'receiveEasyPostEvent',
          summary: 'Receive an EasyPost tracker.updated Event (EasyPost calls this)',
          description: [
            'EasyPost\u2019s webhook for the Trackers of the pharmacy\u2019s shipments: register this URL at EasyPost with a',
            '`webhook_secret`, and set the same secret in `EASYPOST_WEBHOOK_SECRET`. The body is checked against',
            '`X-Hmac-Signature` (`hmac-sha256-hex=` and the HMAC-SHA256 of the raw body under the NFKD-normalized secret)',
            'before it is read. The Tracker\u2019s `tracking_code` is matched to a shipment, and its scans become the',
            'shipment\u2019s journey, statuses mapped as docs/shipping.md says. A replayed Event changes nothing.',
          ].join(' '),
          security: [{ easyPostSignature: [] }],
          body: EventBody,
          response: {
            200: Envelope(Received, { description: 'Received: applied, unchanged or ignored.' }),
            202: Envelope(Unmatched, { description: 'No shipment has this tracking number: nothing recorded (logged).' }),
            400: errorRef(
              'Malformed JSON, or a body that is not an EasyPost Event or a readable tracker.updated one: `details` names the field.',
            ),
            401: errorRef('X-Hmac-Signature is missing or is not the body\u2019s signature under EASYPOST_WEBHOOK_SECRET.'),
            403: errorRef('Behind a TLS-terminating proxy: the request did not reach it over HTTPS.'),
            406: errorRef('The Accept header does not allow application/json.'),
            413: errorRef('The body is larger than 256 KiB.'),
            415: errorRef('The body is not sent as application/json.'),
            503: errorRef(
              'EASYPOST_WEBHOOK_SECRET is not set on this server (the receiver is off), or the server is shutting down.',
            ),
          },
        },
      },
      async (request, reply) => {
        const secret = ctx.config.easyPostWebhookSecret;
        if (secret === null) {
          throw new AppError(
            'SERVICE_UNAVAILABLE',
            503,
            'The EasyPost receiver is not configured on this server: set EASYPOST_WEBHOOK_SECRET to the webhook\u2019s secret',
          );
        }
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const header = request.headers[EASYPOST_SIGNATURE_HEADER];
        if (header === undefined) throw unauthorized('the X-Hmac-Signature header is missing');
        if (!isEasyPostSignature(raw, header, secret)) {
          throw unauthorized('X-Hmac-Signature is not the signature of this body under EASYPOST_WEBHOOK_SECRET');
        }
        const body = parseJsonBytes(raw);
        if (body === undefined)
          throw new AppError('VALIDATION_ERROR', 400, 'Validation failed: body is required', { body: 'is required' });
        const event = readEasyPostEvent(body);
        if (event.kind === 'ignored') {
          request.log.info({ carrier: 'easypost', eventId: event.eventId, outcome: 'ignored' }, 'carrier event ignored');
          return {
            success: true as const,
            data: { event_id: event.eventId, outcome: 'ignored' as const },
            message: `Ignored: only tracker.updated Events are read`,
          };
        }
        const outcome = await apply(ctx, event.tracking);
        // No PHI: the Event's id (EasyPost's dashboard finds it) and the tracking number's last four characters.
        const log = {
          carrier: 'easypost',
          eventId: event.eventId,
          tracking: `…${event.tracking.tracking_number.slice(-4)}`,
          scans: event.tracking.events.length,
          skipped: event.skipped,
          outcome,
        };
        if (outcome === 'unknown_tracking_number') {
          request.log.info(log, 'carrier event for an unknown tracking number');
          return reply.code(202).send({
            success: true as const,
            data: { event_id: event.eventId, outcome },
            message: 'No shipment has this tracking number: nothing was recorded',
          });
        }
        request.log.info(log, 'carrier event received');
        return {
          success: true as const,
          data: { event_id: event.eventId, outcome },
          message: outcome === 'applied' ? 'The shipment\u2019s journey was updated' : 'Nothing new: the shipment is unchanged',
        };
      },
    );
  };
}
