import { Type, type Static } from '@sinclair/typebox';
import { Nullable, PageQuery, Uuid } from '../contracts/schemas.js';

const EXAMPLE = {
  id: '019ac0a1-6f3e-7b52-9c1d-4e8a2f6b0d37',
  occurred_at: '2026-11-26T09:14:03.512Z',
  method: 'POST',
  route: '/api/external/medication-order',
  status: 400,
  duration_ms: 4,
  request_id: '019ac0a1-6f3e-7b52-9c1d-4e8a2f6b0d37',
  api_key_id: '3b8e1f0a-6c2d-4a9e-b5f7-1d0c9e8a2b64',
  oauth_client_id: null,
  idempotency_key: 'order-2026-11-26-0042',
  error_code: 'VALIDATION_ERROR',
  error_message: 'Validation failed (invalid: medication_requests[0].days_supply)',
};

/** The methods the `method` filter takes: those the partner API answers. */
export const REQUEST_LOG_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** One answered request of the clinic, as the log keeps it: metadata only. */
export const RequestLogEntryView = Type.Object(
  {
    id: Uuid('The entry\u2019s id: its request\u2019s id (`request_id`), since a request has one entry.'),
    occurred_at: Type.String({ description: 'When the answer was sent (ISO-8601 UTC).' }),
    method: Type.String({ description: 'The HTTP method.' }),
    route: Type.String({
      description:
        'The route template (`/api/external/medication-order/:id`), never the URL; `unmatched` for a path no route matched.',
    }),
    status: Type.Integer({ description: 'The HTTP status answered.' }),
    duration_ms: Type.Integer({ description: 'Milliseconds from receiving the request to sending its answer.' }),
    request_id: Type.String({ description: 'The request\u2019s X-Request-Id (`error.request_id` of an error).' }),
    api_key_id: Nullable(Type.String(), { description: 'The API key the request came with.' }),
    oauth_client_id: Nullable(Type.String(), { description: 'The OAuth client whose access token the request came with.' }),
    idempotency_key: Nullable(Type.String(), { description: 'The Idempotency-Key the request sent.' }),
    error_code: Nullable(Type.String(), { description: 'The error\u2019s `code`, when the answer was one.' }),
    error_message: Nullable(Type.String(), {
      description:
        'A safe summary of the error: its code\u2019s fixed message, the invalid fields\u2019 names of a validation error, the scope a 403 lacked. Never text the request sent (docs/request-log.md).',
    }),
  },
  { $id: 'RequestLogEntry', additionalProperties: false, examples: [EXAMPLE] },
);
export type RequestLogEntryView = Static<typeof RequestLogEntryView>;

export const RequestLogPage = Type.Object(
  {
    items: Type.Array(RequestLogEntryView),
    next_cursor: Nullable(Type.String(), { description: 'Pass as `cursor` for the next page; null on the last.' }),
  },
  { $id: 'RequestLogPage', additionalProperties: false },
);

export const ListRequestLogQuery = Type.Object(
  {
    status: Type.Optional(
      Type.String({
        pattern: '^[1-5](\\d\\d|xx)$',
        description: 'An exact status (`404`) or a class (`4xx`, `5xx`).',
        examples: ['4xx'],
        'x-message': 'must be a status such as 404, or a class such as 4xx',
      }),
    ),
    method: Type.Optional(
      Type.Union(
        REQUEST_LOG_METHODS.map((method) => Type.Literal(method)),
        { description: 'Only requests of this HTTP method.', examples: ['POST'] },
      ),
    ),
    route: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        pattern: '^/[\\x21-\\x7e]*$',
        description: 'A route template, as the entries show it (`/api/external/medication-order/:id`; `{id}` is read as `:id`).',
        examples: ['/api/external/medication-order'],
      }),
    ),
    since: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'Only entries at or after this time (ISO-8601).',
        examples: ['2026-11-26T00:00:00Z'],
      }),
    ),
    until: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'Only entries before this time (ISO-8601).',
        examples: ['2026-11-27T00:00:00Z'],
      }),
    ),
    request_id: Type.Optional(Uuid('Only the request of this id (its X-Request-Id, or an error\u2019s `request_id`).')),
    ...PageQuery,
  },
  { additionalProperties: false },
);
export type ListRequestLogQuery = Static<typeof ListRequestLogQuery>;
