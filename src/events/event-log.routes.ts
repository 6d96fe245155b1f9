import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { partnerOf } from '../http/partner-guard.js';
import { Envelope, notFoundError, partnerErrors } from '../contracts/schemas.js';
import { EVENT_LOG_LIMIT, listEvents } from './event-log.service.js';

export const EVENTS_ROUTE = '/api/external/events';

const ListEventsQuery = Type.Object(
  {
    after: Type.Optional(
      Type.String({ maxLength: 300, description: 'The `next_cursor` of the previous page; absent: from the oldest event kept.' }),
    ),
    type: Type.Optional(
      Type.String({
        maxLength: 500,
        description: 'Only events of this type, or of these comma-separated types (`order.created,order.delivered`).',
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: EVENT_LOG_LIMIT.max, default: EVENT_LOG_LIMIT.default })),
  },
  { additionalProperties: false },
);

const LoggedEventView = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'The event\u2019s id: the `webhook-id` header of its deliveries.' }),
    type: Type.String({ description: 'The event type (the OpenAPI `webhooks` section documents each).' }),
    timestamp: Type.String({ format: 'date-time', description: 'When the change happened, ISO-8601 UTC.' }),
    data: Type.Record(Type.String(), Type.Unknown(), {
      description: 'The event\u2019s payload, as its webhook body carries it.',
    }),
  },
  { additionalProperties: false },
);

const EventPage = Type.Object(
  {
    items: Type.Array(LoggedEventView),
    next_cursor: Type.String({
      description:
        'Always present: pass it as `after` to read on. After the last event it stays where you are, so the same request later returns only newer events.',
    }),
  },
  { additionalProperties: false },
);

/**
 * The event log (issue 31, item 7; docs/webhooks.md#the-event-log). It needs `webhooks:read`: the
 * events are what the clinic's endpoints receive, so a key that may read the endpoints and their
 * deliveries may read them.
 */
export function eventLogRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      EVENTS_ROUTE,
      {
        schema: {
          tags: ['Webhooks'],
          security: [{ apiKey: [] }],
          operationId: 'listEvents',
          'x-required-scope': 'webhooks:read',
          summary: 'Read your clinic\u2019s events (extension)',
          description: [
            'Every event of your clinic of the last 30 days (EVENT_RETENTION_DAYS), oldest first, each exactly as a webhook',
            'body carries it (`{id, type, timestamp, data}`, `id` being the `webhook-id` of its deliveries), whatever your',
            'endpoints\u2019 `event_types`. The catch-up path after an outage, and the whole path without a public URL.',
            '`type` filters by one type or several, comma-separated (an unknown name: 400 naming `type`). `limit` 1 to',
            `${EVENT_LOG_LIMIT.max} (default ${EVENT_LOG_LIMIT.default}). \`next_cursor\` is always present: pass it as \`after\`;`,
            'when there is nothing newer the page is empty and the cursor stays, so poll with it forever. Another clinic\u2019s cursor is not found (404).',
            'An event appears once it is 5 seconds old (EVENT_LOG_SETTLE_MS), so that one still committing never lands behind a cursor you hold.',
          ].join(' '),
          querystring: ListEventsQuery,
          response: { 200: Envelope(EventPage), ...partnerErrors, ...notFoundError('Cursor') },
        },
      },
      async (request) => {
        const data = await listEvents(ctx, partnerOf(request), request.query);
        return { success: true as const, data, message: 'Events retrieved successfully' };
      },
    );
  };
}
