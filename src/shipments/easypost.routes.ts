import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import { Envelope, errorRef } from '../contracts/schemas.js';
import { toAppError } from '../contracts/error-handler.js';
import { parseJsonBytes } from '../http/json-body.js';
import { EasyPostEventBody, EasyPostReceived, EasyPostUnmatched } from './easypost.schemas.js';
import { receiveEasyPostEvent, type EasyPostOutcome } from './easypost.service.js';
import { EASYPOST_SIGNATURE_HEADER } from './easypost-signature.js';

/** An Event is one Tracker with its scans: EasyPost's are a few KiB; 256 KiB holds hundreds of scans. */
export const EASYPOST_BODY_LIMIT_BYTES = 256 * 1024;

export const EASYPOST_EVENTS_PATH = '/api/carrier-events/easypost';

/** The answer's message and the log line of each outcome. */
const SAID: Record<EasyPostOutcome, { message: string; log: string }> = {
  applied: { message: 'The shipment\u2019s journey was updated', log: 'carrier event received' },
  unchanged: { message: 'Nothing new: the shipment is unchanged', log: 'carrier event received' },
  ignored: { message: 'Ignored: only tracker.updated Events are read', log: 'carrier event ignored' },
  unknown_tracking_number: {
    message: 'No shipment has this tracking number: nothing was recorded',
    log: 'carrier event for an unknown tracking number',
  },
};

/**
 * POST /api/carrier-events/easypost: EasyPost's tracker.updated webhook (docs/shipping.md#the-easypost-receiver).
 * No API key: the body's HMAC (X-Hmac-Signature, EASYPOST_WEBHOOK_SECRET) is its credential, checked
 * on the raw bytes before anything is parsed; in a plugin context of its own, whose JSON parser keeps
 * those bytes and whose body limit is 256 KiB.
 */
export function easyPostRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
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
          body: EasyPostEventBody,
          response: {
            200: Envelope(EasyPostReceived, { description: 'Received: applied, unchanged or ignored.' }),
            202: Envelope(EasyPostUnmatched, { description: 'No shipment has this tracking number: nothing recorded (logged).' }),
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
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const signature = request.headers[EASYPOST_SIGNATURE_HEADER];
        const { eventId, outcome, log } = await receiveEasyPostEvent(ctx, { raw, signature, parse: parseJsonBytes });
        request.log.info(log, SAID[outcome].log);
        const message = SAID[outcome].message;
        if (outcome === 'unknown_tracking_number') {
          return reply.code(202).send({ success: true as const, data: { event_id: eventId, outcome }, message });
        }
        return { success: true as const, data: { event_id: eventId, outcome }, message };
      },
    );
  };
}
